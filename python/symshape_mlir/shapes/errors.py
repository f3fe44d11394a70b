"""Errors of the shape rules, the binding extraction and the name unification.

All derive from :class:`ShapeError`, a ``ValueError``.
"""

from __future__ import annotations

from symshape_mlir.extent.guarantee import ShapeExtent

__all__ = ["AxisBindingError", "AxisConflictError", "BroadcastError", "ShapeError"]


class ShapeError(ValueError):
    """Shapes that an operation does not accept."""


class BroadcastError(ShapeError):
    """Two extents that cannot be broadcast together.

    Attributes:
        dim: 0-based index of the failing dimension in the right-aligned result.
        extents: the two conflicting extents.
        inputs: indices of the two shapes they come from.
        reason: why they conflict, when not provably incompatible sizes
            (``"different axes unless proven equal"`` for two named axes).
    """

    def __init__(
        self, dim: int, extents: tuple[ShapeExtent, ShapeExtent], inputs: tuple[int, int],
        reason: str | None = None,
    ) -> None:
        super().__init__(
            f"cannot broadcast dimension {dim}: {extents[0]} (input {inputs[0]}) "
            f"vs {extents[1]} (input {inputs[1]})" + (f": {reason}" if reason else "")
        )
        self.dim = dim
        self.extents = extents
        self.inputs = inputs
        self.reason = reason


class AxisBindingError(ShapeError):
    """Concrete shapes that do not match the symbolic parameter shapes.

    Attributes:
        axis: the axis name involved, if any.
    """

    def __init__(self, message: str, axis: str | None = None) -> None:
        super().__init__(message)
        self.axis = axis


class AxisConflictError(ShapeError):
    """Two extents that must denote the same axis but cannot.

    Attributes:
        extents: the two extents.
        axis: the axis index in the unified shapes, when known.
        operand: the index of the operand whose extent conflicts with those
            before it, when known.
    """

    def __init__(
        self, reason: str, extents: tuple[ShapeExtent, ShapeExtent], axis: int | None = None,
        operand: int | None = None,
    ) -> None:
        where = "" if axis is None else f"axis {axis}: "
        super().__init__(f"{where}{reason}")
        self.reason = reason
        self.extents = extents
        self.axis = axis
        self.operand = operand
