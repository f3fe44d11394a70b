"""Shape rules of ``scf.if`` and ``scf.for`` (regions, joins and a fixed point).

``scf.if``
    Both branches are inferred; each result is the choice between the two
    yielded values (:func:`~symshape_mlir.inference.engine.join_facts`):
    provably equal exact extents stay exact, other exact ones become a
    data-dependent size (a fresh exact symbol ranging from their ``min`` to
    their ``max``), an upper bound gives an upper bound via ``max``, else
    unknown. An extent mentioning a fresh symbol made inside a branch (a
    data-dependent size there) is a fresh symbol without a range outside
    (unknown if not exact). When the condition is decided (an
    ``arith.cmpi`` the provers settle), the results are the taken branch's.

    .. code-block:: mlir

        %r = scf.if %p -> (tensor<?xf32>) {
          scf.yield %x : tensor<?xf32>        // [batch]
        } else {
          scf.yield %c : tensor<?xf32>        // [4]
        }
        // %r: [_d0], min(4, batch) <= _d0 <= max(4, batch)

``scf.for`` — the fixed-point rule
    The induction variable is a fresh symbol ``_dN``, exact within one
    iteration, ranging over ``[lb, ub - 1]`` (unknown when ``lb`` may be
    negative). Loop-carried values start as the
    init operands' facts (the hypothesis: every carried extent is loop
    invariant) and the body is inferred. A carried extent is *stable* when
    the yielded one provably keeps it: an exact extent must come back
    provably equal, an upper bound ``ub(c)`` must come back at most ``c``,
    an unknown one always is. Every unstable extent (and the value or
    elements of an unstable integer) is generalized — within the body an
    axis becomes a fresh exact symbol ``_dM`` (its size *in this
    iteration*), a value or elements unknown — and the body is inferred
    again; this repeats until no new extent becomes unstable (the set only
    grows, so at most one pass per carried extent). Bindings made by the
    discarded passes are rolled back.

    The results: a stable extent is the init's (loop invariant: exact stays
    exact). An unstable one, with ``y`` the yielded extent of the last
    pass, is

    * the choice between ``init`` and ``y`` when ``y`` mentions no symbol
      local to the loop (the induction variable, ``_dM``, data-dependent
      sizes of the body): the result is the init (zero trips) or that same
      ``y`` (:meth:`~symshape_mlir.inference.state.InferenceState.choose`:
      a fresh symbol ranging between them when both are exact);
    * when ``y`` is provably at most ``_dM`` (the extent never grows: by
      induction it stays below the init's): a fresh exact symbol ranging
      over ``[0, init]`` when the init and ``y`` are exact, else
      ``ub(init)``;
    * otherwise (it may grow every iteration) a fresh exact symbol without
      a range when the init and ``y`` are exact, else unknown.

    Non-exact results name the ``scf.for`` as their origin.
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.extent.guarantee import UNKNOWN, Exact, ShapeExtent, Strength, UpperBound
from symshape_mlir.extent.prove import prove_le, prove_nonnegative
from symshape_mlir.inference.engine import implied, infer_nested, join_facts
from symshape_mlir.inference.facts import Origin, ValueFacts
from symshape_mlir.inference.registry import register
from symshape_mlir.inference.rules.common import const_int
from symshape_mlir.inference.state import InferenceState

__all__: list[str] = []

# Strength members, hoisted (see Strength).
_EXACT = Strength.EXACT

Facts = list[ValueFacts | None]
_VALUE = -1
_ELEMENTS = -2
_MAX_PASSES = 64


def _yielded(block: ir.Block) -> list[ir.Value]:
    ops = block.operations
    return list(ops[len(ops) - 1].operation.operands)


@register("scf.yield", "scf.condition")
def _terminator(op: ir.Operation, state: InferenceState) -> Facts:
    return []


@register("scf.if", regions="own")
def _if(op: ir.Operation, state: InferenceState) -> Facts:
    condition = const_int(state.value(op.operands[0]))
    mark = state.fresh_mark()
    floor = state.enter_region()
    try:
        infer_nested(op, state)
    finally:
        state.leave_region(floor)
    if not len(op.results):
        return []
    then_values = _yielded(op.regions[0].blocks[0])
    else_values = _yielded(op.regions[1].blocks[0])
    results: Facts = []
    for a, b in zip(then_values, else_values, strict=True):
        if condition is not None:
            taken = state.facts_of(a if condition else b)
            results.append(ValueFacts(taken.shape, taken.value, taken.elements, taken.origins))
        else:
            results.append(join_facts([state.facts_of(a), state.facts_of(b)], op, state, mark,
                                      len(results)))
    return results


def _unstable(
    carried: list[ValueFacts], yielded: list[ValueFacts], state: InferenceState
) -> set[tuple[int, int]]:
    found: set[tuple[int, int]] = set()
    for index, (c, y) in enumerate(zip(carried, yielded, strict=True)):
        if c.shape is not None and y.shape is not None:
            for axis, (a, b) in enumerate(zip(c.shape, y.shape, strict=False)):
                if not implied(a, b, state):
                    found.add((index, axis))
        if c.value is not None and not implied(c.value, y.value or UNKNOWN, state):
            found.add((index, _VALUE))
        if c.elements is not None and (
                y.elements is None or len(y.elements) != len(c.elements)
                or not all(implied(a, b, state)
                           for a, b in zip(c.elements, y.elements, strict=True))):
            found.add((index, _ELEMENTS))
    return found


def _carried_extent(op: ir.Operation, index: int, axis: int, state: InferenceState) -> Exact:
    return state.fresh(("scf.for carried", op, index, axis))


def _generalize(
    op: ir.Operation, index: int, facts: ValueFacts, varying: set[tuple[int, int]],
    state: InferenceState,
) -> ValueFacts:
    shape = facts.shape
    if shape is not None:
        shape = tuple(_carried_extent(op, index, axis, state) if (index, axis) in varying else e
                      for axis, e in enumerate(shape))
    value = UNKNOWN if (index, _VALUE) in varying else facts.value
    elements = None if (index, _ELEMENTS) in varying else facts.elements
    origins = None
    if facts.origins is not None and shape is not None:
        origins = tuple(None if shape[a].strength is _EXACT else o
                        for a, o in enumerate(facts.origins))
    return ValueFacts(shape, value, elements, origins)


def _induction(op: ir.Operation, state: InferenceState) -> ShapeExtent:
    lower, upper = state.value(op.operands[0]), state.value(op.operands[1])
    if not isinstance(lower, Exact) or prove_nonnegative(lower.expr, state.extents) is not True:
        return UNKNOWN
    hi = upper.expr - 1 if isinstance(upper, Exact) else None
    return state.fresh(("scf.for induction", op), lower.expr, hi)


def _result_extent(
    init: ShapeExtent, yielded: ShapeExtent, carried: Exact | None, mark: int,
    state: InferenceState, key: object,
) -> ShapeExtent:
    bound = yielded.expr
    if bound is None:
        return UNKNOWN
    if not state.made_since(mark, yielded):
        return state.choose([init, yielded], key)
    exact = isinstance(init, Exact) and isinstance(yielded, Exact)
    if carried is not None and init.expr is not None and \
            prove_le(bound, carried.expr, state.extents) is True:
        # Never grows: at most the init's, and a true size when every
        # iteration's is.
        return state.fresh(("scf.for result", key), 0, init.expr) if exact \
            else UpperBound(init.expr)
    # (A value, carried is None, may be negative: no symbol stands for it.)
    return state.fresh(("scf.for result", key)) if exact and carried is not None else UNKNOWN


def _loop_result(
    op: ir.Operation, index: int, init: ValueFacts, yielded: ValueFacts,
    varying: set[tuple[int, int]], mark: int, state: InferenceState,
) -> ValueFacts:
    here = Origin(op.name, op.location)
    shape = origins = None
    if init.shape is not None:
        extents, found = [], []
        for axis, extent in enumerate(init.shape):
            if (index, axis) in varying and yielded.shape is not None:
                extent = _result_extent(
                    extent, yielded.shape[axis], _carried_extent(op, index, axis, state), mark,
                    state, (op, index, axis))
                found.append(None if extent.strength is _EXACT else here)
            else:
                found.append(init.origin(axis))
            extents.append(extent)
        shape, origins = tuple(extents), tuple(found)
    value = init.value
    if (index, _VALUE) in varying:
        value = _result_extent(init.value or UNKNOWN, yielded.value or UNKNOWN, None, mark, state,
                               (op, index, "value"))
    elements = init.elements
    if (index, _ELEMENTS) in varying:
        elements = None
        if yielded.elements is not None and init.elements is not None:
            elements = tuple(_result_extent(a, b, None, mark, state, (op, index, "element", i))
                             for i, (a, b) in enumerate(
                                 zip(init.elements, yielded.elements, strict=False)))
    return ValueFacts(shape, value, elements, origins)


@register("scf.for", regions="own")
def _for(op: ir.Operation, state: InferenceState) -> Facts:
    operands = list(op.operands)
    inits = operands[3:]
    body = op.regions[0].blocks[0]
    arguments = list(body.arguments)
    induction, carried_args = arguments[0], arguments[1:]
    mark = state.fresh_mark()
    floor = state.enter_region()
    try:
        init_facts = [state.facts_of(v) for v in inits]
        induction_facts = ValueFacts(value=_induction(op, state))
        varying: set[tuple[int, int]] = set()
        for attempt in range(_MAX_PASSES):
            point = state.checkpoint()
            state.set(induction, induction_facts)
            carried = [_generalize(op, i, f, varying, state) for i, f in enumerate(init_facts)]
            for arg, facts in zip(carried_args, carried, strict=True):
                state.set(arg, facts)
            infer_nested(op, state)
            yielded = [state.facts_of(v) for v in _yielded(body)]
            grown = varying | _unstable(carried, yielded, state)
            if grown == varying or attempt == _MAX_PASSES - 1:
                varying = grown
                break
            varying = grown
            state.rollback(point)
    finally:
        state.leave_region(floor)
    return [_loop_result(op, i, init_facts[i], yielded[i], varying, mark, state)
            for i in range(len(inits))]
