"""Shape rules of ``func.call`` and ``func.return``.

A callee is inferred once, on its own: its arguments are seeded from its
``symshape.axes`` (or fresh symbols), so the facts of its returned values are
expressions over its *parameter symbols* — the symbols its argument extents
and integer argument values are. At a call site each parameter symbol is
bound to what the caller passes at that position (its operand's extent or
value; a symbol used by several parameters must get equal extents, checked
as a unification), and the returned facts are instantiated over those
bindings with :func:`~symshape_mlir.extent.guarantee.instantiate` (so an
upper bound or an unknown passed in weakens exactly the results that depend
on it). A fresh symbol of the callee that is not a parameter (a
data-dependent size inside it) becomes a fresh symbol of the call site with
the callee's value range instantiated there (its ends that stay exact), a
parameter the call cannot bind a fresh symbol without a range; other named
symbols are global and stay.

A call to a declaration (or a recursive call, while its callee is being
inferred) knows nothing of the callee: every dynamic result axis is a fresh
symbol of the call site.

.. code-block:: mlir

    func.func @double(%x: tensor<?xf32>) -> tensor<?xf32>      // [_d0] -> [2 * _d0]
    %y = func.call @double(%a) : (tensor<?xf32>) -> tensor<?xf32>
    // %a: [batch]  ->  %y: [2 * batch]
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.extent.context import is_fresh_name
from symshape_mlir.extent.expr import Sym
from symshape_mlir.extent.guarantee import (
    UNKNOWN,
    Exact,
    ShapeExtent,
    Strength,
    UpperBound,
    instantiate,
)
from symshape_mlir.inference.engine import FUNCTIONS, infer_function
from symshape_mlir.inference.facts import Origin, ValueFacts
from symshape_mlir.inference.obligations import Quantity
from symshape_mlir.inference.registry import register
from symshape_mlir.inference.rules.common import DYNAMIC, same_size
from symshape_mlir.inference.state import InferenceState, const_extent

__all__: list[str] = []

# Strength members, hoisted (see Strength).
_EXACT = Strength.EXACT
_UNKNOWN = Strength.UNKNOWN

Facts = list[ValueFacts | None]


@register("func.return")
def _return(op: ir.Operation, state: InferenceState) -> Facts:
    return []


def _external(op: ir.Operation, state: InferenceState) -> Facts:
    results: Facts = []
    for index, result in enumerate(op.results):
        type_ = result.type
        if not isinstance(type_, ir.RankedTensorType):
            results.append(None)
            continue
        results.append(ValueFacts(shape=tuple(
            state.fresh(("call result", op, index, axis)) if d == DYNAMIC else const_extent(d)
            for axis, d in enumerate(type_.shape))))
    return results


@register("func.call")
def _call(op: ir.Operation, state: InferenceState) -> Facts:
    name = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    callee = state.cache(FUNCTIONS).get(name)
    summary = infer_function(callee, state) if callee is not None else None
    if summary is None or summary.results is None or summary.arguments is None:
        return _external(op, state)
    bound: dict[str, ShapeExtent] = {}
    sites: dict[str, Quantity] = {}
    parameters: set[str] = set()

    def bind(parameter: ShapeExtent, given: ShapeExtent, where: str, site: Quantity,
             origin: Origin | None) -> None:
        if parameter.expr is None:
            return
        parameters.update(parameter.expr.free_symbols)
        if parameter.strength is not _EXACT or not isinstance(parameter.expr, Sym):
            return
        symbol = parameter.expr.name
        if symbol in bound:
            bound[symbol] = state.unify(
                bound[symbol], given, op,
                lambda: f"call to @{name}: {where} and an earlier operand (both '{symbol}' "
                        "in the callee)",
                same_size(sites[symbol], site), origin)
        else:
            bound[symbol], sites[symbol] = given, site

    for index, (parameter, operand) in enumerate(zip(summary.arguments, op.operands, strict=False)):
        declared, given = state.facts_of(parameter), state.facts_of(operand)
        if declared.shape is not None and given.shape is not None:
            for axis, (p, a) in enumerate(zip(declared.shape, given.shape, strict=False)):
                bind(p, a, f"operand #{index} axis {axis}", Quantity.dim(operand, axis),
                     given.origin(axis))
        if declared.value is not None:
            passed = given.value if given.value is not None and \
                given.value.strength is not _UNKNOWN else state.fresh_signed(operand)
            bind(declared.value, passed, f"operand #{index}", Quantity.scalar(operand), None)

    def symbol_of(symbol: str) -> ShapeExtent | None:
        if symbol in bound:
            return bound[symbol]
        if symbol in parameters:
            return state.fresh(("call", op, symbol))
        if is_fresh_name(symbol):
            # A data-dependent size of the callee keeps its range, at the call.
            limits = state.extents.limits(symbol)
            if limits is None:
                low, high = state.extents.range_of(symbol)
                return state.fresh(("call", op, symbol), low, high)
            ends = [None if end is None else at_call(Exact(end)) for end in limits]
            return state.fresh(("call", op, symbol),
                               ends[0].expr if isinstance(ends[0], Exact) else 0,
                               ends[1].expr if isinstance(ends[1], Exact) else None)
        return None

    here = Origin(op.name, op.location)

    def at_call(extent: ShapeExtent) -> ShapeExtent:
        if extent.expr is None:
            return UNKNOWN
        symbols = {s: e for s in extent.expr.free_symbols if (e := symbol_of(s)) is not None}
        if not symbols:
            return extent
        value = instantiate(extent.expr, symbols=symbols, ctx=state.extents)
        if extent.strength is _EXACT or value.expr is None:
            return value
        return UpperBound(value.expr)

    results: Facts = []
    for facts in summary.results:
        shape = origins = None
        if facts.shape is not None:
            shape = tuple(at_call(e) for e in facts.shape)
            origins = tuple(None if e.strength is _EXACT else (facts.origin(a) or here)
                            for a, e in enumerate(shape))
        value = None if facts.value is None else at_call(facts.value)
        elements = None if facts.elements is None else tuple(at_call(e) for e in facts.elements)
        results.append(ValueFacts(shape, value, elements, origins))
    return results
