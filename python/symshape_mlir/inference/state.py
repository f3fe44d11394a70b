"""The state of one inference run, and the API shape rules use.

A rule receives the op and the :class:`InferenceState` and returns one
:class:`ValueFacts` (or ``None`` for "what the type says") per result. The
state answers questions about operands:

* :meth:`InferenceState.shape` — the extents of a ranked tensor operand;
* :meth:`InferenceState.value` — what is known of an index/integer value;
* :meth:`InferenceState.elements` — the elements of a small integer tensor;
* :meth:`InferenceState.fresh` — a fresh symbol for a data-dependent size.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mlir import ir

from symshape_mlir.extent.context import ExtentContext
from symshape_mlir.extent.expr import Const
from symshape_mlir.extent.guarantee import UNKNOWN, Exact, ShapeExtent
from symshape_mlir.inference.errors import OpUsageError
from symshape_mlir.inference.facts import Origin, ValueFacts

__all__ = ["POLICIES", "STAGES", "InferenceOptions", "InferenceState", "Rule", "type_shape"]

logger = logging.getLogger(__name__)

POLICIES = ("skip", "override", "refine", "strict")
STAGES = ("upper_bound", "exact")


@dataclass(frozen=True)
class InferenceOptions:
    """Options of one run.

    Attributes:
        policy: how inferred shapes merge with existing ``symshape.shape``
            annotations: ``skip`` keeps them, ``override`` replaces them,
            ``refine`` keeps the more specific extent per axis (constant >
            symbolic exact > upper bound > unknown), ``strict`` makes any
            disagreement an error.
        truncate_stage: what ``symshape.dynamic_truncate`` without a
            ``stage`` reports for its axis: ``upper_bound`` (stage 1) or
            ``exact`` (stage 2, ``min(scalar(1, truncate_size), dim(0, a))``).
    """

    policy: str = "refine"
    truncate_stage: str = "upper_bound"


_STATIC_CACHE: dict[int, ShapeExtent] = {}


def _const_extent(value: int) -> ShapeExtent:
    extent = _STATIC_CACHE.get(value)
    if extent is None:
        extent = _STATIC_CACHE[value] = Exact(Const(value))
    return extent


def type_shape(type_: ir.Type) -> tuple[ShapeExtent, ...] | None:
    """The extents a ranked tensor type states (unknown where dynamic)."""
    if not isinstance(type_, ir.RankedTensorType):
        return None
    dynamic = ir.ShapedType.get_dynamic_size()
    return tuple(UNKNOWN if d == dynamic else _const_extent(d) for d in type_.shape)


class InferenceState:
    """Facts of every value seen so far, symbols and options of the run."""

    def __init__(self, options: InferenceOptions, extents: ExtentContext | None = None) -> None:
        self.options = options
        self.extents = extents or ExtentContext()
        self.facts: dict[ir.Value, ValueFacts] = {}
        self._fresh_for: dict[object, ShapeExtent] = {}
        #: Keys of work done once per run (inferred functions, ...).
        self.done: set[object] = set()

    # -- reading facts ------------------------------------------------------------

    def facts_of(self, value: ir.Value) -> ValueFacts:
        facts = self.facts.get(value)
        if facts is None:
            facts = ValueFacts(shape=type_shape(value.type))
            self.facts[value] = facts
        return facts

    def shape(self, value: ir.Value, op: ir.Operation | None = None) -> tuple[ShapeExtent, ...]:
        """The extents of a ranked tensor value.

        Raises:
            OpUsageError: when the value is not a ranked tensor.
        """
        shape = self.facts_of(value).shape
        if shape is None:
            where = op.location if op is not None else ir.Location.unknown()
            raise OpUsageError(where, f"expected a ranked tensor, got {value.type}")
        return shape

    def origins(self, value: ir.Value) -> tuple[Origin | None, ...]:
        facts = self.facts_of(value)
        return facts.origins or (None,) * len(facts.shape or ())

    def value(self, value: ir.Value) -> ShapeExtent:
        """What is known of an index, integer or extent value."""
        return self.facts_of(value).value or UNKNOWN

    def elements(self, value: ir.Value) -> tuple[ShapeExtent, ...] | None:
        """The elements of a 0-d/1-D integer tensor, when propagated."""
        return self.facts_of(value).elements

    # -- creating facts ----------------------------------------------------------

    def fresh(self, key: object | None = None) -> ShapeExtent:
        """A fresh symbol (``_d0``, ...), the same one for the same ``key``."""
        if key is not None and key in self._fresh_for:
            return self._fresh_for[key]
        extent = Exact(self.extents.fresh_symbol())
        if key is not None:
            self._fresh_for[key] = extent
        return extent

    def set(self, value: ir.Value, facts: ValueFacts) -> None:
        self.facts[value] = facts


Rule = Callable[[ir.Operation, InferenceState], Sequence[ValueFacts | None]]
