"""Shape rules of ``arith`` and ``index`` ops on integers and integer shape tensors.

Scalars (``index``, ``iN``) carry their value; short integer tensors carry
their elements, combined elementwise, so a reshape target built with integer
arithmetic resolves symbolically (partial data propagation).

Values are Python integers (a shape computation never relies on
wrap-around). With exact operands:

* ``add sub mul``, ``floordivsi``/``index.floordivs``,
  ``ceildivsi``/``index.ceildivs``, ``minsi maxsi`` give the exact
  expression;
* truncating division and remainder (``divsi remsi``, ``index.divs
  index.rems``) and the unsigned ops (``divui remui ceildivui minui maxui``,
  ``index.divu index.remu index.ceildivu index.minu index.maxu``) agree with
  the floor forms on non-negative operands only: exact when both are provably
  non-negative, else unknown;
* ``cmpi``/``index.cmp`` give 1 or 0 when the provers decide the predicate
  (unsigned predicates only on non-negative operands), and ``select`` with a
  decided condition is the chosen operand — how an ONNX-style ``-1`` entry,
  computed as ``select(t == -1, numel floordiv known, t)``, resolves;
* sign-preserving casts (``index_cast``, ``extsi``, ``index.casts``) keep
  the value (of an integer scalar argument: its raw value, read by the
  runtime from the call); zero-extending ones (``index_castui``, ``extui``,
  ``index.castu``) only a non-negative one; ``trunci`` only one provably
  within the narrower type.

With an upper-bound operand and no unknown one, the signed floor ops keep
an upper bound where integer order allows it, whatever the signs (see
guarantee's table): ``add``, ``min``/``max``; ``sub`` of an exact value;
``mul`` by an exact value proven non-negative; ``floordivsi``/``ceildivsi``
(and their ``index`` forms) by an exact divisor proven non-negative (a
division that ran divided by at least 1); the truncating ``divsi``/``remsi``
(``index.divs``/``index.rems``) likewise when the bound is proven
non-negative. Every other case is unknown, and a size given by an unknown
value is a fresh symbol.
A ``select`` with an undecided condition joins its operands. Other integer
ops (bitwise ops, shifts) are unknown.
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir
from mlir.dialects import index

from symshape_mlir.extent import canon
from symshape_mlir.extent import guarantee as g
from symshape_mlir.extent.expr import Expr
from symshape_mlir.extent.guarantee import UNKNOWN, Exact, ShapeExtent, Strength
from symshape_mlir.extent.prove import (
    cancel_exact_divisions,
    prove_eq,
    prove_le,
    prove_lt,
    prove_ne,
    prove_nonnegative,
)
from symshape_mlir.inference.engine import join_facts
from symshape_mlir.inference.facts import ValueFacts
from symshape_mlir.inference.registry import register
from symshape_mlir.inference.rules.common import MAX_ELEMENTS, const_int, scalar_value
from symshape_mlir.inference.rules.elementwise import unify_operand_shapes
from symshape_mlir.inference.state import CacheKind, InferenceState, const_extent, type_shape

__all__: list[str] = []

# Strength members, hoisted (see Strength).
_EXACT = Strength.EXACT
_UNKNOWN = Strength.UNKNOWN

Facts = list[ValueFacts | None]
_Build = Callable[[Expr, Expr], Expr]

# The signed ops with floor semantics (arith, index): the exact expression,
# and what a bound gives through them (a value may be negative in between:
# each combinator gets the operands' proven signs, see guarantee's table).
_SIGNED_OPS: dict[tuple[str, str], tuple[_Build, g.Combine]] = {
    ("arith.addi", "index.add"): (canon.add, g.add_signed),
    ("arith.subi", "index.sub"): (canon.sub, g.sub_signed),
    ("arith.muli", "index.mul"): (canon.mul, g.mul_signed),
    ("arith.floordivsi", "index.floordivs"): (canon.floordiv, g.floordiv_signed),
    ("arith.ceildivsi", "index.ceildivs"): (canon.ceildiv, g.ceildiv_signed),
    ("arith.minsi", "index.mins"): (canon.minimum, g.min_signed),
    ("arith.maxsi", "index.maxs"): (canon.maximum, g.max_signed),
}
_EXACT_OPS: dict[str, _Build] = {
    name: build for names, (build, _) in _SIGNED_OPS.items() for name in names}
_BOUNDED: dict[str, g.Combine] = {
    name: bounded for names, (_, bounded) in _SIGNED_OPS.items() for name in names}
_NONNEG_ONLY: dict[str, _Build] = {
    "arith.divsi": canon.floordiv, "arith.divui": canon.floordiv,
    "arith.remsi": canon.mod, "arith.remui": canon.mod, "arith.ceildivui": canon.ceildiv,
    "arith.minui": canon.minimum, "arith.maxui": canon.maximum,
    "index.divs": canon.floordiv, "index.divu": canon.floordiv,
    "index.rems": canon.mod, "index.remu": canon.mod, "index.ceildivu": canon.ceildiv,
    "index.minu": canon.minimum, "index.maxu": canon.maximum,
}
_DIVIDING = (canon.floordiv, canon.ceildiv, canon.mod)
# Truncating division and remainder of a bound a >= 0 by an exact divisor:
# they agree with the floor forms where the value X <= a is >= 0, and are
# <= 0 <= the floor forms' bound where X < 0, so the floor combinators
# bound them given "a >= 0" as the dividend's sign.
_TRUNCATING: dict[str, g.Combine] = {
    "arith.divsi": g.floordiv_signed, "index.divs": g.floordiv_signed,
    "arith.remsi": g.mod_signed, "index.rems": g.mod_signed,
}
_OPAQUE = (
    "arith.andi", "arith.ori", "arith.xori", "arith.shli", "arith.shrsi", "arith.shrui",
    "index.and", "index.or", "index.xor", "index.shl", "index.shrs", "index.shru",
    "index.sizeof",
)

# arith.cmpi predicates by their integer value, index.cmp ones by name.
_CMPI = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def _nonneg(expr: Expr, state: InferenceState) -> bool:
    return prove_nonnegative(expr, state.extents, fallback=False) is True


def _combine(name: str, a: ShapeExtent, b: ShapeExtent, state: InferenceState) -> ShapeExtent:
    if isinstance(a, Exact) and isinstance(b, Exact):
        x, y = a.expr, b.expr
        build = _EXACT_OPS.get(name)
        if build is None:
            build = _NONNEG_ONLY.get(name)
            if build is None or not (_nonneg(x, state) and _nonneg(y, state)):
                return UNKNOWN
        value = build(x, y)
        if build in _DIVIDING:
            # A division that ran did not divide by zero (resolve guards it), so
            # an exact symbolic quotient is the value: (64 * b * s) / (64 * b) = s.
            value = cancel_exact_divisions(value)
        return Exact(value)
    if a.strength is _UNKNOWN or b.strength is _UNKNOWN:
        # A data value stays unknown (a size it gives is a fresh symbol).
        return UNKNOWN
    b_nonneg = isinstance(b, Exact) and _nonneg(b.expr, state)
    bounded = _BOUNDED.get(name)
    if bounded is not None:
        return bounded(a, isinstance(a, Exact) and _nonneg(a.expr, state), b, b_nonneg)
    truncating = _TRUNCATING.get(name)
    if truncating is not None and isinstance(b, Exact) and a.expr is not None \
            and _nonneg(a.expr, state):
        return truncating(a, True, b, b_nonneg)
    return UNKNOWN


def _elementwise(
    op: ir.Operation, state: InferenceState,
    combine: Callable[[list[ShapeExtent]], ShapeExtent],
) -> Facts:
    """Applies ``combine`` to scalar operand values, or per element of tensors."""
    operands = list(op.operands)
    if not isinstance(op.result.type, ir.ShapedType):
        return [ValueFacts(value=combine([state.value(v) for v in operands]))]
    parts = [state.elements(v) for v in operands]
    common = unify_operand_shapes(op, state, operands)
    shape = None if common is None else common.shape
    known = [p for p in parts if p is not None]
    if len(known) < len(parts) or len({len(p) for p in known}) != 1:
        return [ValueFacts(shape=shape)]
    return [ValueFacts(shape=shape, elements=tuple(
        combine(list(column)) for column in zip(*known, strict=True)))]


@register(*_EXACT_OPS, *_NONNEG_ONLY)
def _binary(op: ir.Operation, state: InferenceState) -> Facts:
    name = op.name
    return _elementwise(op, state, lambda v: _combine(name, v[0], v[1], state))


@register(*_OPAQUE)
def _opaque(op: ir.Operation, state: InferenceState) -> Facts:
    return [None]


def _integer_constant(attr: ir.Attribute) -> ValueFacts | None:
    if isinstance(attr, ir.BoolAttr):
        return ValueFacts(value=const_extent(int(attr.value)))
    if isinstance(attr, ir.IntegerAttr):
        return ValueFacts(value=const_extent(int(attr.value)))
    if isinstance(attr, ir.DenseIntElementsAttr):
        shaped = ir.ShapedType(attr.type)
        if shaped.rank <= 1 and shaped.has_static_shape:
            count = shaped.shape[0] if shaped.rank else 1
            if count > MAX_ELEMENTS:
                return None
            if attr.is_splat:
                values = [int(attr.get_splat_value().value)] * count
            else:
                values = [int(attr[i]) for i in range(count)]
            return ValueFacts(elements=tuple(const_extent(v) for v in values))
    return None


@register("arith.constant", "index.constant", "index.bool.constant")
def _constant(op: ir.Operation, state: InferenceState) -> Facts:
    attr = op.attributes["value"]
    if op.name == "index.bool.constant":
        return [ValueFacts(value=const_extent(int(ir.BoolAttr(attr).value)))]
    facts = _integer_constant(attr)
    if facts is None:
        return [None]
    if facts.elements is not None:
        # Keep the static shape from the type (the engine fills it in).
        return [ValueFacts(shape=type_shape(op.result.type), elements=facts.elements)]
    return [facts]


def _fits(extent: ShapeExtent, width: int, state: InferenceState) -> bool:
    expr = extent.expr
    if extent.strength is not _EXACT or expr is None:
        return False
    return _nonneg(expr, state) and \
        prove_le(expr, (1 << (width - 1)) - 1, state.extents, fallback=False) is True


def _is_boolean(value: ir.Value) -> bool:
    type_ = value.type
    element = ir.ShapedType(type_).element_type if isinstance(type_, ir.ShapedType) else type_
    return isinstance(element, ir.IntegerType) and element.width == 1


@register("arith.index_cast", "arith.extsi", "index.casts")
def _signed_cast(op: ir.Operation, state: InferenceState) -> Facts:
    if _is_boolean(op.operands[0]):
        # Sign extension of an i1 (held as 0 or 1) gives 0 or -1.
        return _elementwise(op, state, lambda v: Exact(canon.neg(v[0].expr))
                            if isinstance(v[0], Exact) else UNKNOWN)
    if not isinstance(op.result.type, ir.ShapedType):
        return [ValueFacts(value=scalar_value(state, op.operands[0]))]
    return _elementwise(op, state, lambda v: v[0])


@register("arith.index_castui", "arith.extui", "index.castu")
def _unsigned_cast(op: ir.Operation, state: InferenceState) -> Facts:
    return _elementwise(op, state, lambda v: v[0] if isinstance(v[0], Exact) and _nonneg(
        v[0].expr, state) else UNKNOWN)


@register("arith.trunci")
def _truncate(op: ir.Operation, state: InferenceState) -> Facts:
    result = op.result.type
    element = ir.ShapedType(result).element_type if isinstance(result, ir.ShapedType) else result
    width = ir.IntegerType(element).width
    return _elementwise(op, state, lambda v: v[0] if _fits(v[0], width, state) else UNKNOWN)


def _decide(predicate: str, a: ShapeExtent, b: ShapeExtent, state: InferenceState) -> bool | None:
    if not (isinstance(a, Exact) and isinstance(b, Exact)):
        return None
    x, y = a.expr, b.expr
    if predicate[0] == "u":
        if not (_nonneg(x, state) and _nonneg(y, state)):
            return None
        predicate = "s" + predicate[1:]
    ctx = state.extents
    if predicate == "eq":
        return prove_eq(x, y, ctx)
    if predicate == "ne":
        return prove_ne(x, y, ctx)
    if predicate == "slt":
        return prove_lt(x, y, ctx)
    if predicate == "sle":
        return prove_le(x, y, ctx)
    if predicate == "sgt":
        return prove_lt(y, x, ctx)
    return prove_le(y, x, ctx)


# `#index<cmp_predicate slt>` -> "slt", per run: the Python bindings build this
# attribute but cannot read it, so it is looked up among the ten they build.
_INDEX_PREDICATES: CacheKind[ir.Attribute, str] = CacheKind("index_predicates")


def _predicate(op: ir.Operation, state: InferenceState) -> str:
    if op.name == "arith.cmpi":
        return _CMPI[int(ir.IntegerAttr(op.attributes["predicate"]).value)]
    names = state.cache(_INDEX_PREDICATES)
    if not names:
        build = ir.AttrBuilder.get("IndexCmpPredicateAttr")
        names.update((build(case, op.context), str(case)) for case in index.IndexCmpPredicate)
    return names[op.attributes["pred"]]


@register("arith.cmpi", "index.cmp")
def _compare(op: ir.Operation, state: InferenceState) -> Facts:
    predicate = _predicate(op, state)

    def decide(v: list[ShapeExtent]) -> ShapeExtent:
        answer = _decide(predicate, v[0], v[1], state)
        return UNKNOWN if answer is None else const_extent(int(answer))

    return _elementwise(op, state, decide)


@register("arith.select")
def _select(op: ir.Operation, state: InferenceState) -> Facts:
    condition, a, b = op.operands
    chosen = const_int(state.value(condition)) \
        if not isinstance(condition.type, ir.ShapedType) else None
    if chosen is not None:
        picked = state.facts_of(a if chosen else b)
        return [ValueFacts(picked.shape, picked.value, picked.elements, picked.origins)]
    if isinstance(condition.type, ir.ShapedType):
        flags = state.elements(condition)
        left, right = state.elements(a), state.elements(b)
        common = unify_operand_shapes(op, state, [condition, a, b])
        shape = None if common is None else common.shape
        if flags is None or left is None or right is None or \
                not len(flags) == len(left) == len(right):
            return [ValueFacts(shape=shape)]
        elements: list[ShapeExtent] = []
        for i, (flag, x, y) in enumerate(zip(flags, left, right, strict=True)):
            known = const_int(flag)
            elements.append(state.choose([x, y], (op, 0, ("element", i))) if known is None
                            else (x if known else y))
        return [ValueFacts(shape=shape, elements=tuple(elements))]
    return [join_facts([state.facts_of(a), state.facts_of(b)], op, state)]
