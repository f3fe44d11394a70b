"""symshape-import-onnx: import an ONNX model as a symshape MLIR module.

Usage::

    symshape-import-onnx model.onnx -o model.mlir [--name main]
        [--bind shape=shape.npy ...]

Every ``dim_param`` of the graph inputs becomes a named axis; the output is
ready for ``symshape-opt --symshape-to-iree`` and ``iree-compile``. An
unsupported op, opset or element type is reported as
``model.onnx:<node position>: error: <Op> node '<name>' (opset N): ...`` and
the exit status is 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np

from symshape_mlir.frontend.tracing import module_text
from symshape_mlir.onnx import OnnxImportError, trace_model

__all__ = ["main"]

PROG = "symshape-import-onnx"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Import an ONNX model as a symshape MLIR module."
    )
    parser.add_argument("model", help="the .onnx file")
    parser.add_argument("-o", "--output", default="-", help="the .mlir file ('-': stdout)")
    parser.add_argument("--name", default="main", help="the function's name (default: main)")
    parser.add_argument(
        "--bind",
        action="append",
        default=[],
        metavar="INPUT=FILE.npy",
        help="bind a graph input to the constant in a .npy file (repeatable)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the tool; returns the exit status."""
    args = _parser().parse_args(argv)
    constants: dict[str, np.ndarray] = {}
    for item in args.bind:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            print(f"{PROG}: error: --bind expects INPUT=FILE.npy, got {item!r}", file=sys.stderr)
            return 2
        try:
            constants[name] = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as err:
            print(f"{PROG}: error: cannot read {path}: {err}", file=sys.stderr)
            return 1
    try:
        text = module_text([trace_model(args.model, name=args.name, constants=constants)])
    except OnnxImportError as err:
        print(f"{err.location.file}:{err.location.line}: error: {_body(err)}", file=sys.stderr)
        return 1
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    return 0


def _body(err: OnnxImportError) -> str:
    what = f"{err.op_type} node {err.node!r} (opset {err.opset}): " if err.op_type else ""
    return f"{what}{err.message}"


if __name__ == "__main__":
    sys.exit(main())
