"""The one error every pass raises when it needs an exact extent and has none.

Seed of the design: an upper bound is never a legal stand-in for a true
size. :class:`UnsupportedDynamicShapeError` names the primitive (the op),
the field that needed an exact extent (``reshape target extent 0``), what
was observed (``upper bound``, ``unknown``) and, when known, the op that
weakened the guarantee (a ``symshape.dynamic_truncate``), so the report
reads::

    file.mlir:7:8: error: 'symshape.reshape' op reshape target extent 0 needs an
        exact extent, got upper bound 'batch'
    file.mlir:5:8: note: the upper bound comes from 'symshape.dynamic_truncate' here
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.inference.facts import Origin

__all__ = ["UnsupportedDynamicShapeError", "describe"]


def describe(extent: ShapeExtent) -> str:
    """``upper bound 'batch'``, ``unknown`` or ``exact 'batch * 2'``."""
    if extent.is_unknown:
        return "unknown"
    kind = "upper bound" if extent.is_upper_bound else "exact"
    return f"{kind} '{extent.expr}'"


@dataclass
class UnsupportedDynamicShapeError(Exception):
    """An exact extent was needed where only a bound or nothing is known.

    Attributes:
        primitive: the op name (``symshape.reshape``).
        location: the op's location.
        field: what needed the exact extent (``reshape target extent 0``).
        observed: what was known instead.
        origin: the op that weakened the guarantee, when traced.
    """

    primitive: str
    location: ir.Location
    field: str
    observed: ShapeExtent
    origin: Origin | None = None
    #: Appended to the message (e.g. why no runtime check can help).
    detail: str = ""

    def __post_init__(self) -> None:
        super().__init__(self.message)

    @property
    def observed_kind(self) -> str:
        """``upper_bound`` or ``unknown``."""
        return "unknown" if self.observed.is_unknown else "upper_bound"

    @property
    def message(self) -> str:
        text = (f"'{self.primitive}' op {self.field} needs an exact extent, "
                f"got {describe(self.observed)}")
        return f"{text}; {self.detail}" if self.detail else text

    @property
    def notes(self) -> list[tuple[ir.Location, str]]:
        if self.origin is None:
            return []
        what = "upper bound" if self.observed.is_upper_bound else "unknown extent"
        return [(self.origin.location, f"the {what} comes from '{self.origin.op_name}' here")]
