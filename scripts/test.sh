#!/usr/bin/env bash
# Sets up ./.venv and runs the whole test suite: ruff, mypy, lit, pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Vulkan runs on lavapipe; without it (not root, no apt-get) the Vulkan tests skip.
bash scripts/install_lavapipe.sh || echo "== lavapipe not installed: Vulkan tests will skip"
export PATH="$PWD/.venv/bin:$PATH"
echo "== ruff" && ruff check python passes test/py test/fuzz test/onnx test/gpu bench examples
echo "== mypy" && mypy
echo "== lit" && lit -sv test/lit
# The tests import the installed package (python/ is not on sys.path).
echo "== pytest" && python -m pytest -q -p no:cacheprovider test/py
