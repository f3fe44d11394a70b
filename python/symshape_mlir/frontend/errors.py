"""Errors raised while tracing, each naming the op and the Python source line.

Shape-rule errors are those of :mod:`symshape_mlir.shapes`
(:class:`~symshape_mlir.shapes.BroadcastError`,
:class:`~symshape_mlir.shapes.AxisConflictError`, ...), re-raised with the
op and the user's line prepended; the contract's own error is
:class:`ContractError`.

Example:
    >>> t = dynamic_truncate(x, n, axis=0)           # doctest: +SKIP
    >>> t.reshape(-1)                                 # doctest: +SKIP
    ContractError: reshape at model.py:7 (t.reshape(-1)): target extent 0 ...
"""

from __future__ import annotations

from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.shapes.errors import AxisConflictError, BroadcastError, ShapeError

__all__ = ["AxisConflictError", "BroadcastError", "ContractError", "FrontendError", "ShapeError"]


class FrontendError(Exception):
    """A program the frontend cannot trace (wrong argument kinds, unsupported use)."""


class ContractError(FrontendError):
    """An upper-bound extent used where an exact one is required.

    Attributes:
        op: the frontend op (``"reshape"``, ``"broadcast_to"``, ...).
        origin: where the bound came from, in words.
        field: the field that needed an exact extent (``"target extent 0"``).
        extent: what that field held.
    """

    def __init__(self, message: str, op: str, origin: str, field: str = "",
                 extent: ShapeExtent | None = None) -> None:
        super().__init__(message)
        self.op = op
        self.origin = origin
        self.field = field
        self.extent = extent
