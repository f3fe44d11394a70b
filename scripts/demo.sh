#!/usr/bin/env bash
# Sets up ./.venv and runs the end-to-end example: a symbolic program compiled
# once by symshape_mlir.runtime.compile, planned and run on the CPU at batch 1
# and 32, and checked against numpy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python examples/mlp_two_batches.py "$@"
