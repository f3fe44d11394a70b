#!/usr/bin/env bash
# Sets up ./.venv and runs the whole test suite: ruff, mypy, lit, pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
# Run against the installed package, not the source tree.
cd test
echo "== ruff" && ruff check --config ../pyproject.toml ../python ../passes ../test/py ../bench ../examples
echo "== mypy" && (cd .. && mypy)
echo "== lit" && lit -sv lit
echo "== pytest" && python -m pytest -c ../pyproject.toml --rootdir .. -q py
