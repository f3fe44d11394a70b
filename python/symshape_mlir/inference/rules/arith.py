"""Shape rules of ``arith`` ops on ``index`` and integer values.

Scalars carry their value; small integer tensors (shape tensors) carry their
elements, combined elementwise, so a reshape target built with integer
arithmetic resolves symbolically (partial data propagation). Exact operands
give exact results; with a bound or unknown operand, only ``addi``,
``minsi`` and ``maxsi`` keep an upper bound (sound for any signs), every
other op gives unknown.
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from symshape_mlir.extent import expr as ex
from symshape_mlir.extent import guarantee as g
from symshape_mlir.extent.guarantee import UNKNOWN, Exact, ShapeExtent
from symshape_mlir.extent.prove import prove_nonnegative
from symshape_mlir.inference.facts import ValueFacts
from symshape_mlir.inference.registry import register
from symshape_mlir.inference.state import InferenceState

__all__: list[str] = []

Facts = list[ValueFacts | None]

_EXACT: dict[str, Callable[[ex.Expr, ex.Expr], ex.Expr]] = {
    "arith.addi": ex.add, "arith.subi": ex.sub, "arith.muli": ex.mul,
    "arith.floordivsi": ex.floordiv, "arith.ceildivsi": ex.ceildiv,
    "arith.minsi": ex.minimum, "arith.maxsi": ex.maximum,
}
# Truncating division and remainder agree with floor semantics on
# non-negative operands only.
_NONNEG_ONLY: dict[str, Callable[[ex.Expr, ex.Expr], ex.Expr]] = {
    "arith.divsi": ex.floordiv, "arith.divui": ex.floordiv,
    "arith.remsi": ex.mod, "arith.remui": ex.mod, "arith.ceildivui": ex.ceildiv,
    "arith.minui": ex.minimum, "arith.maxui": ex.maximum,
}
_BOUNDED: dict[str, Callable[[ShapeExtent, ShapeExtent], ShapeExtent]] = {
    "arith.addi": g.add, "arith.minsi": g.minimum, "arith.maxsi": g.maximum,
}


def _combine(name: str, a: ShapeExtent, b: ShapeExtent, state: InferenceState) -> ShapeExtent:
    if a.is_exact and b.is_exact:
        x, y = a.expr, b.expr
        if name in _EXACT:
            return Exact(_EXACT[name](x, y))  # type: ignore[arg-type]
        if name in _NONNEG_ONLY and all(
                prove_nonnegative(v, state.extents, fallback=False) for v in (x, y)):
            return Exact(_NONNEG_ONLY[name](x, y))  # type: ignore[arg-type]
        return UNKNOWN
    if name in _BOUNDED and not (a.is_unknown or b.is_unknown):
        return _BOUNDED[name](a, b)
    return UNKNOWN


@register(*_EXACT, *_NONNEG_ONLY)
def _binary(op: ir.Operation, state: InferenceState) -> Facts:
    lhs, rhs = op.operands
    if isinstance(op.results[0].type, ir.RankedTensorType):
        a, b = state.elements(lhs), state.elements(rhs)
        if a is None or b is None or len(a) != len(b):
            return [None]
        return [ValueFacts(elements=tuple(
            _combine(op.name, x, y, state) for x, y in zip(a, b)))]
    return [ValueFacts(value=_combine(op.name, state.value(lhs), state.value(rhs), state))]


@register("arith.constant")
def _constant(op: ir.Operation, state: InferenceState) -> Facts:
    attr = op.attributes["value"]
    if isinstance(attr, ir.IntegerAttr):
        return [ValueFacts(value=Exact(ex.Const(int(attr.value))))]
    if isinstance(attr, ir.DenseIntElementsAttr):
        shaped = ir.ShapedType(attr.type)
        if shaped.rank <= 1 and shaped.has_static_shape and _count(shaped) <= 64:
            values = [int(attr[i]) for i in range(len(attr))] if not attr.is_splat \
                else [int(attr.get_splat_value().value)] * _count(shaped)
            return [ValueFacts(elements=tuple(Exact(ex.Const(v)) for v in values))]
    return [None]


def _count(shaped: ir.ShapedType) -> int:
    count = 1
    for d in shaped.shape:
        count *= d
    return count


@register("arith.index_cast", "arith.extsi")
def _cast(op: ir.Operation, state: InferenceState) -> Facts:
    source = op.operands[0]
    if isinstance(source.type, ir.RankedTensorType):
        return [ValueFacts(elements=state.elements(source))]
    return [ValueFacts(value=state.value(source))]


@register("arith.select")
def _select(op: ir.Operation, state: InferenceState) -> Facts:
    _, a, b = op.operands
    if isinstance(a.type, ir.RankedTensorType):
        return [None]
    return [ValueFacts(value=g.join(state.value(a), state.value(b), state.extents))]
