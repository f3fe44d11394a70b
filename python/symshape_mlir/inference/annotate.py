"""Writing inferred facts into the IR for FileCheck.

Every inferred op with a ranked tensor result gets ``symshape.shape`` (one
shape, or a list of shapes for several results, ``[]`` for a result that is
not a ranked tensor); a single-result op whose integer, index or extent value
is known gets ``symshape.value`` (an extent), and one whose result is a small
integer tensor with propagated elements gets ``symshape.value`` holding the
elements as a shape:

.. code-block:: mlir

    %d = tensor.dim %x, %c0 {symshape.value = #symshape.extent<batch>} : ...
    %e = tensor.empty(%d) {symshape.shape = #symshape.shape<[batch, 4]>} : ...
    %s = tensor.from_elements %d, %c4 {symshape.shape = #symshape.shape<[2]>,
                                       symshape.value = #symshape.shape<[batch, 4]>} : ...

Ops nested in ``linalg`` bodies are not inferred (scalar payload code) and
get nothing; an op whose annotation ``policy=skip`` keeps is left as is.

A function whose annotations mention fresh symbols with a value range (a
size chosen at run time, a loop's induction variable) gets
``symshape.ranges``, each symbol's ``[lo, hi]`` (``hi`` is ``?`` when
unbounded), with the symbols those ends mention:

.. code-block:: mlir

    func.func @f(...) attributes {symshape.ranges = {
        _d0 = #symshape.shape<[min(1, batch), max(1, batch)]>}} {
      %r = arith.select %p, %c1, %d {symshape.value = #symshape.extent<_d0>} : index
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from symshape_mlir.annotations import SHAPE_ATTR
from symshape_mlir.attributes import ExtentRangeError, extent_attr, shape_attr
from symshape_mlir.extent.context import is_fresh_name
from symshape_mlir.extent.expr import Const
from symshape_mlir.extent.guarantee import UNKNOWN, Exact, ShapeExtent, Strength
from symshape_mlir.inference.errors import ShapeInferenceError
from symshape_mlir.inference.state import InferenceState
from symshape_mlir.walk import enclosing_function, functions

__all__ = ["RANGES_ATTR", "SHAPE_ATTR", "VALUE_ATTR", "annotate"]

# Strength members, hoisted (see Strength).
_UNKNOWN = Strength.UNKNOWN

VALUE_ATTR = "symshape.value"
RANGES_ATTR = "symshape.ranges"


class _Attributes:
    """Shape and extent attributes of one context, cached by identity then value."""

    def __init__(self, context: ir.Context) -> None:
        self.context = context
        self.by_id: dict[int, tuple[tuple[ShapeExtent, ...], ir.Attribute]] = {}
        self.by_value: dict[tuple[ShapeExtent, ...], ir.Attribute] = {}
        self.extents: dict[ShapeExtent, ir.Attribute] = {}

    def shape(self, extents: tuple[ShapeExtent, ...]) -> ir.Attribute:
        hit = self.by_id.get(id(extents))
        if hit is not None and hit[0] is extents:
            return hit[1]
        attr = self.by_value.get(extents)
        if attr is None:
            attr = self.by_value[extents] = shape_attr(extents, self.context)
        self.by_id[id(extents)] = (extents, attr)
        return attr

    def extent(self, extent: ShapeExtent) -> ir.Attribute:
        attr = self.extents.get(extent)
        if attr is None:
            attr = self.extents[extent] = extent_attr(extent, self.context)
        return attr


def annotate(module: ir.Operation, state: InferenceState) -> None:
    """Annotates every op inferred in ``state`` (under ``module``) with its facts.

    Raises:
        ShapeInferenceError: at an op whose extents hold an integer beyond
            int64 (an attribute cannot represent it).
    """
    cache = _Attributes(module.context)
    kept = state.kept_annotations
    ranged = _RangedSymbols(state)
    for op, values in state.inferred_ops:
        if kept and op in kept:
            continue
        try:
            _annotate_op(op, values, state, cache)
        except ExtentRangeError as error:
            raise ShapeInferenceError(op.location, str(error)) from None
        ranged.note(op, values)
    try:
        ranged.annotate(module, cache)
    except ExtentRangeError as error:
        raise ShapeInferenceError(module.location, str(error)) from None


class _RangedSymbols:
    """The fresh symbols with a value range that each function's annotations mention."""

    def __init__(self, state: InferenceState) -> None:
        self.state = state
        self.found: dict[ir.Operation, set[str]] = {}
        ctx = state.extents
        self.active = ctx.has_limits or any(is_fresh_name(n) for n in ctx.ranges)

    def _ranged(self, name: str) -> bool:
        ctx = self.state.extents
        return is_fresh_name(name) and (
            ctx.limits(name) is not None or ctx.range_of(name) != (0, None))

    def note(self, op: ir.Operation, values: Sequence[ir.Value]) -> None:
        if not self.active:
            return
        names: set[str] = set()
        for value in values:
            facts = self.state.facts_of(value)
            for extent in (*(facts.shape or ()), facts.value, *(facts.elements or ())):
                if extent is not None:
                    names.update(n for n in extent.free_symbols if self._ranged(n))
        if names:
            func = enclosing_function(op)
            if func is not None:
                self.found.setdefault(func, set()).update(names)

    def annotate(self, module: ir.Operation, cache: _Attributes) -> None:
        """Writes (or removes a stale) ``symshape.ranges`` on every function."""
        ctx = self.state.extents
        for func in functions(module):
            names = self.found.get(func)
            if not names:
                if RANGES_ATTR in func.attributes:
                    del func.attributes[RANGES_ATTR]
                continue
            pending, ranges = sorted(names), {}
            while pending:
                name = pending.pop()
                if name in ranges:
                    continue
                limits = ctx.limits(name)
                if limits is None:
                    lo, hi = ctx.range_of(name)
                    limits = (Const(lo), None if hi is None else Const(hi))
                ends = (Exact(limits[0]), UNKNOWN if limits[1] is None else Exact(limits[1]))
                ranges[name] = cache.shape(ends)
                pending.extend(n for e in ends for n in e.free_symbols if self._ranged(n))
            func.attributes[RANGES_ATTR] = ir.DictAttr.get(
                dict(sorted(ranges.items(), key=lambda item: int(item[0][2:]))),
                context=cache.context)


def _annotate_op(op: ir.Operation, values: Sequence[ir.Value], state: InferenceState,
                 cache: _Attributes) -> None:
    attributes = op.attributes
    if len(values) == 1:
        facts = state.facts_of(values[0])
        if facts.shape is not None:
            attributes[SHAPE_ATTR] = cache.shape(facts.shape)
        if facts.value is not None:
            if facts.value.strength is not _UNKNOWN:
                attributes[VALUE_ATTR] = cache.extent(facts.value)
        elif facts.elements is not None:
            attributes[VALUE_ATTR] = cache.shape(facts.elements)
        return
    shapes = [state.facts_of(v).shape for v in values]
    if any(s is not None for s in shapes):
        attributes[SHAPE_ATTR] = ir.ArrayAttr.get(
            [cache.shape(s or ()) for s in shapes], context=cache.context)
