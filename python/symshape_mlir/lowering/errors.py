"""Errors raised while lowering symshape IR."""

from __future__ import annotations

from symshape_mlir.errors import LocatedError

__all__ = ["LoweringError"]


class LoweringError(LocatedError):
    """A symshape construct that cannot be lowered, located at an op."""
