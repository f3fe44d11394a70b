#!/usr/bin/env bash
# Sets up ./.venv and runs the end-to-end example: a symbolic program through
# symshape-opt and iree-compile, run on the CPU at two batch sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python examples/mlp_two_batches.py "$@"
