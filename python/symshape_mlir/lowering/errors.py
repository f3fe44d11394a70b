"""Errors raised while lowering symshape IR."""

from __future__ import annotations

from mlir import ir

__all__ = ["LoweringError"]


class LoweringError(Exception):
    """A symshape construct that cannot be lowered, located at an op.

    Attributes:
        location: where the problem is (the op's location).
        message: the diagnostic text, without the location.
    """

    def __init__(self, location: ir.Location, message: str) -> None:
        super().__init__(message)
        self.location = location
        self.message = message
