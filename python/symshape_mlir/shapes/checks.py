"""Runtime conditions that shape rules record instead of assuming.

When a rule cannot decide statically whether its operands agree (``batch``
against ``seq`` in a broadcast, two symbolic contraction sizes in a matmul),
it neither errors nor assumes: it returns the result together with a
:class:`ShapeCheck` that names the operand axes involved and the condition
they must satisfy at run time. Lowering turns checks into assertions on the
actual extents; :meth:`ShapeCheck.verify` is the same test on concrete values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.shapes.errors import BroadcastError, ShapeError

__all__ = ["ShapeCheck"]


@dataclass(frozen=True)
class ShapeCheck:
    """A condition on operand extents that must hold at run time.

    Attributes:
        kind: ``"broadcast"`` (the extents are equal or 1), ``"equal"``
            (the extents are equal) or ``"adopt"`` (unnamed extents adopt
            the named first one: each other extent is 1 or equal to it).
        operands: ``(input index, axis)`` of each extent involved, the axis
            counted in that input's own shape.
        extents: what is known statically of each of those extents.
        dim: the result dimension concerned (right-aligned index for a
            broadcast), or ``None`` for a contracted axis.
    """

    kind: Literal["broadcast", "equal", "adopt"]
    operands: tuple[tuple[int, int], ...]
    extents: tuple[ShapeExtent, ...]
    dim: int | None

    @property
    def condition(self) -> str:
        """The condition in words, e.g. ``batch, seq: each 1 or equal to the others``."""
        listed = ", ".join(str(e) for e in self.extents)
        if self.kind == "equal":
            return " == ".join(str(e) for e in self.extents)
        if self.kind == "adopt":
            return f"{listed}: each 1 or {self.extents[0]}"
        return f"{listed}: each 1 or equal to the others"

    def holds(self, values: Sequence[int]) -> bool:
        """Whether concrete extents (one per operand) satisfy the condition."""
        if self.kind == "equal":
            return len(set(values)) <= 1
        if self.kind == "adopt":
            return all(v in (1, values[0]) for v in values[1:])
        return len({v for v in values if v != 1}) <= 1

    def verify(self, values: Sequence[int]) -> None:
        """Checks concrete extents, one per entry of :attr:`operands`.

        Raises:
            BroadcastError: a broadcast check fails (names the dimension and
                the two conflicting inputs).
            ShapeError: an equality check fails.
        """
        if len(values) != len(self.operands):
            raise ValueError(f"expected {len(self.operands)} values, got {len(values)}")
        if self.holds(values):
            return
        if self.kind != "equal":
            first = 0 if self.kind == "adopt" else next(i for i, v in enumerate(values) if v != 1)
            second = next(i for i, v in enumerate(values) if v not in (1, values[first]))
            raise BroadcastError(
                self.dim if self.dim is not None else 0,
                (Exact(values[first]), Exact(values[second])),
                (self.operands[first][0], self.operands[second][0]),
            )
        described = ", ".join(
            f"input {i} axis {a} has {v}" for (i, a), v in zip(self.operands, values, strict=True)
        )
        raise ShapeError(f"extents must be equal ({self.condition}): {described}")
