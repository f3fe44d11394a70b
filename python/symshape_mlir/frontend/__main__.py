"""Prints the MLIR module traced from Python functions: ``python -m symshape_mlir.frontend``.

Usage::

    python -m symshape_mlir.frontend model.py:mlp [model.py:attention ...]

Each argument names a file and a function in it whose parameters are
annotated with ``Tensor[...]``; the functions are traced into one module,
printed as MLIR text (``--generic`` for the generic op form). Trace errors
are printed as ``error: <message>`` with exit code 1.

Example:
    $ python -m symshape_mlir.frontend examples/frontend_mlp.py:mlp | symshape-opt \\
          --symshape-infer-shapes
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import traceback
from pathlib import Path

from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.tracing import TracedFunction, trace, trace_module
from symshape_mlir.shapes.errors import ShapeError

__all__ = ["main"]


def _load(path: str, name: str) -> TracedFunction:
    if not Path(path).is_file():
        raise FrontendError(f"no file {path}")
    # A private name: the file's stem could shadow a module already imported.
    spec = importlib.util.spec_from_file_location(f"_symshape_input_{Path(path).stem}", path)
    if spec is None or spec.loader is None:
        raise FrontendError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, as an import does: `dataclasses` (and other
    # code reading `sys.modules[cls.__module__]`) needs the module there.
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # the user's file failed: say so, without our frames
        detail = "".join(traceback.format_exception_only(err)).strip()
        raise FrontendError(f"running {path} failed: {detail}") from None
    function = getattr(module, name, None)
    if function is None:
        raise FrontendError(f"{path} has no function {name!r}")
    # A @jit function is the runtime's entry point; it keeps the Python one.
    function = getattr(function, "__wrapped__", function)
    if not callable(function):
        raise FrontendError(f"{path}: {name!r} is not a function")
    return trace(function)


def main(argv: list[str] | None = None) -> int:
    """Traces the named functions and prints their module; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m symshape_mlir.frontend")
    parser.add_argument("functions", nargs="+", metavar="FILE.py:FUNCTION")
    parser.add_argument("--generic", action="store_true", help="print the generic op form")
    args = parser.parse_args(argv)
    try:
        traced = []
        for item in args.functions:
            path, _, name = item.rpartition(":")
            if not path:
                parser.error(f"expected FILE.py:FUNCTION, got {item!r}")
            traced.append(_load(path, name))
        module = trace_module(traced)
    except (FrontendError, ShapeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(module.operation.get_asm(print_generic_op_form=args.generic, enable_debug_info=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
