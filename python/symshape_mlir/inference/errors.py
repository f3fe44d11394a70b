"""Structured errors of shape inference, each located at an op.

* :class:`OpUsageError`: the IR is malformed for the rule (wrong operand
  count, an attribute of the wrong kind);
* :class:`ShapeInferenceError`: the IR is well formed but its shapes are not
  (a broadcast of 3 against 4, a contradiction with a static dimension, an
  annotation that conflicts under ``policy=strict``).

Passes report them as MLIR diagnostics at :attr:`InferenceError.location`,
with the notes attached.
"""

from __future__ import annotations

from symshape_mlir.errors import LocatedError

__all__ = ["InferenceError", "OpUsageError", "ShapeInferenceError"]


class InferenceError(LocatedError):
    """Base class: a message at an op's location, with optional notes."""


class OpUsageError(InferenceError):
    """Malformed IR for the op's shape rule."""


class ShapeInferenceError(InferenceError):
    """Shapes that cannot hold (incompatible, contradictory or conflicting)."""
