#!/usr/bin/env bash
# Sets up ./.venv and runs the end-to-end examples: a symbolic program
# (examples/mlp.mlir) compiled once by symshape_mlir.runtime.compile, planned
# and run on the CPU at batch 1 and 32; then an MLP and an attention block
# written in Python with the frontend (named dynamic batch and sequence),
# each run at two bindings, and a classifier trained with SGD on batches of
# varying size (forward, backward and update compiled once). Every result is
# checked against numpy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python examples/mlp_two_batches.py "$@"
.venv/bin/python examples/frontend_mlp.py
.venv/bin/python examples/frontend_attention.py
.venv/bin/python examples/train_classifier.py
