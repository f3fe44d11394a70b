#!/usr/bin/env bash
# Sets up ./.venv and runs the whole test suite: ruff, mypy, lit, pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
echo "== ruff" && ruff check python passes test/py test/fuzz test/onnx bench examples
echo "== mypy" && mypy
echo "== lit" && lit -sv test/lit
# The tests import the installed package (python/ is not on sys.path).
echo "== pytest" && python -m pytest -q -p no:cacheprovider test/py
