"""Lowering symshape IR to upstream ``arith``/``tensor``/``linalg``/``cf``."""

from symshape_mlir.lowering.errors import LoweringError
from symshape_mlir.lowering.resolve import resolve_module

__all__ = ["LoweringError", "resolve_module"]
