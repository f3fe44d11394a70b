"""What inference knows about one SSA value.

* a ranked tensor has a *shape*: one :class:`ShapeExtent` per axis;
* an ``index``, integer or ``!symshape.extent`` value has a *value*;
* a 1-D (or 0-d) integer tensor may also have its *elements* (partial data
  propagation: shape tensors built from ``tensor.dim`` and
  ``tensor.from_elements``, sliced, concatenated and combined with integer
  arithmetic, resolve ``tensor.reshape`` targets).

Every extent that is not exact may carry an :class:`Origin`: the op that
weakened it, so that ``symshape-verify-contract`` can point at it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from mlir import ir

from symshape_mlir.extent.guarantee import ShapeExtent

__all__ = ["Origin", "ValueFacts"]


@dataclass(frozen=True)
class Origin:
    """The op that made an extent an upper bound or unknown."""

    op_name: str
    location: ir.Location


class ValueFacts(NamedTuple):
    """Facts about one value; fields that do not apply are ``None``.

    A named tuple (immutable and cheap to build: inference makes one per
    value).
    """

    shape: tuple[ShapeExtent, ...] | None = None
    value: ShapeExtent | None = None
    elements: tuple[ShapeExtent, ...] | None = None
    #: One entry per axis of ``shape`` (None where exact or not traced).
    origins: tuple[Origin | None, ...] | None = None

    def origin(self, axis: int) -> Origin | None:
        """The op that weakened axis ``axis``, if traced."""
        return self.origins[axis] if self.origins else None
