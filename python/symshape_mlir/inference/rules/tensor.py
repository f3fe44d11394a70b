"""Shape rules of the ``tensor`` dialect (and ``shape.shape_of``).

Sizes given as ``index`` operands take what is known of those values; a size
that is data dependent (read from a tensor) becomes a fresh symbol. Offsets
and strides never change a result's extents.

Partial data propagation: a 0-d or 1-D integer tensor of at most
:data:`~symshape_mlir.inference.rules.common.MAX_ELEMENTS` elements carries
its elements when they are known. ``tensor.from_elements``,
``tensor.splat``, ``shape.shape_of``, integer ``arith.constant``,
``tensor.extract_slice`` with constant offsets, sizes and strides,
``tensor.insert_slice``/``tensor.insert`` at constant positions and
``tensor.concat`` build them; ``tensor.extract`` reads one back;
``arith``/``index`` ops combine them elementwise
(:mod:`~symshape_mlir.inference.rules.arith`).

``tensor.reshape`` takes its result extents from the elements of its shape
operand. It has no ``-1`` or ``0`` convention (unlike ONNX ``Reshape``): a
provably negative target element is an error; programs imported from ONNX
compute the ``-1`` entry with integer arithmetic (the element count
``floordiv`` the product of the other entries, chosen with ``arith.select``),
which propagates symbolically. A target element that is not known at all is
derived from the element count when it is the only one
(``numel floordiv product(others)``, exact because the reshape must keep the
count), else a fresh symbol.

.. code-block:: mlir

    %d = tensor.dim %x, %c0 : tensor<?x?x768xf32>          // value: batch
    %n = arith.muli %d, %s : index                         // value: batch * seq
    %t = tensor.from_elements %n, %c768 : tensor<2xindex>  // elements: [batch * seq, 768]
    %r = tensor.reshape %x(%t) ...                         // [batch * seq, 768]
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from symshape_mlir.extent import guarantee as g
from symshape_mlir.extent.canon import floordiv
from symshape_mlir.extent.canon import mul as canon_mul
from symshape_mlir.extent.guarantee import UNKNOWN, Exact, ShapeExtent, Strength
from symshape_mlir.extent.prove import prove_eq, prove_ge, prove_lt
from symshape_mlir.inference.errors import ShapeInferenceError
from symshape_mlir.inference.facts import ValueFacts
from symshape_mlir.inference.obligations import Compare, Condition, Quantity
from symshape_mlir.inference.registry import register
from symshape_mlir.inference.rules.common import (
    DYNAMIC,
    MAX_ELEMENTS,
    const_int,
    dense_i64,
    int_attr,
    is_integer_like,
    product,
    read_elements,
    result_dims,
    same_dims,
    same_size,
    segment,
    size_extent,
    value_origin,
    with_origins,
)
from symshape_mlir.inference.state import CacheKind, InferenceState, const_extent, describe
from symshape_mlir.shapes.rules import concat_shape

__all__ = ["mixed_sizes", "propagates_elements"]

# Strength members, hoisted (see Strength).
_EXACT = Strength.EXACT
_UNKNOWN = Strength.UNKNOWN

Facts = list[ValueFacts | None]
_ONE = const_extent(1)


def propagates_elements(type_: ir.Type) -> bool:
    """Whether values of ``type_`` carry their elements (short 0-d/1-D integer tensors)."""
    if not isinstance(type_, ir.RankedTensorType) or type_.rank > 1:
        return False
    if not is_integer_like(type_.element_type):
        return False
    return type_.rank == 0 or 0 <= type_.shape[0] <= MAX_ELEMENTS


def mixed_sizes(
    op: ir.Operation, state: InferenceState, static_attr: str, dynamic: Sequence[ir.Value],
    *, sizes: bool = True,
) -> list[ShapeExtent]:
    """Entries of a static-sizes attribute whose dynamic entries come from operands.

    Args:
        sizes: dynamic entries are sizes (a data-dependent one gets a fresh
            symbol); otherwise offsets or strides (what is known, maybe
            unknown).
    """
    static = dense_i64(op, static_attr, state)
    values = iter(dynamic)
    name = static_attr.removeprefix("static_").rstrip("s")
    return [
        (size_extent(state, next(values), op, f"{name} {axis}") if sizes
         else state.value(next(values))) if s == DYNAMIC else const_extent(s)
        for axis, s in enumerate(static)]


def mixed_quantities(
    op: ir.Operation, state: InferenceState, static_attr: str, dynamic: Sequence[ir.Value]
) -> list[Quantity]:
    """The run-time form of the entries of a static-sizes attribute."""
    values = iter(dynamic)
    return [Quantity.size(next(values) if s == DYNAMIC else None, s)
            for s in dense_i64(op, static_attr, state)]


def _within_source(
    op: ir.Operation, state: InferenceState, source: ir.Value, first_segment: int,
    what: str, container: str = "source",
) -> None:
    """Records that a slice (offsets, sizes, strides from segment
    ``first_segment`` on) lies within ``source``: per axis, offset >= 0 and
    ``offset + (size - 1) * stride + 1 <= dim``."""
    operands = list(op.operands)
    shape = state.shape(source, op)
    origins = state.origins(source)
    parts = []
    for index, attr in enumerate(("static_offsets", "static_sizes", "static_strides")):
        dynamic = segment(op, first_segment + index, operands)
        values = iter(dynamic)
        # A value read from data is still a true value: a fresh symbol (of
        # unknown sign unless it is a size, which has its own check).
        read = (lambda v: size_extent(state, v)) if index == 1 else \
            (lambda v: _signed_value(state, v))
        parts.append(([read(next(values)) if s == DYNAMIC else const_extent(s)
                       for s in dense_i64(op, attr, state)],
                      mixed_quantities(op, state, attr, dynamic)))
    (offsets, offset_q), (sizes, size_q), (strides, stride_q) = parts
    for axis, extent in enumerate(shape):
        offset, size, stride = offsets[axis], sizes[axis], strides[axis]
        state.require_nonneg(
            offset, op, f"offset {axis}",
            (Compare("le", Quantity.const(0), offset_q[axis]),))
        end = g.add(offset, g.add(g.mul(g.sub(size, _ONE), stride), _ONE)) \
            if const_int(stride) != 1 else g.add(offset, size)
        state.require_at_most(
            end, extent, op, f"the {what} along axis {axis} lies within the {container} extent",
            (Compare("le", Quantity.of(lambda o, n, t: o + (n - 1) * t + 1, offset_q[axis],
                                       size_q[axis], stride_q[axis]),
                     Quantity.dim(source, axis)),),
            origins[axis])


def _kept_axes(static_sizes: Sequence[int], reduced: Sequence[int]) -> list[int]:
    """Axes of a slice kept in a rank-reduced type (MLIR's rank-reduction mask:
    greedy match, unmatched axes must be static 1)."""
    kept: list[int] = []
    for axis, size in enumerate(static_sizes):
        if len(kept) < len(reduced) and size == reduced[len(kept)]:
            kept.append(axis)
        elif size != 1:
            return list(range(len(static_sizes)))
    return kept if len(kept) == len(reduced) else list(range(len(static_sizes)))


def _constants(extents: Sequence[ShapeExtent]) -> list[int] | None:
    values: list[int] = []
    for extent in extents:
        value = const_int(extent)
        if value is None:
            return None
        values.append(value)
    return values


@register("tensor.dim")
def _dim(op: ir.Operation, state: InferenceState) -> Facts:
    source, index = op.operands
    shape = state.facts_of(source).shape
    axis = const_int(state.value(index))
    if shape is None or axis is None:
        return [ValueFacts(value=UNKNOWN)]
    if not 0 <= axis < len(shape):
        raise ShapeInferenceError(
            op.location, f"dimension index {axis} is out of range for rank {len(shape)}")
    return [ValueFacts(value=shape[axis])]


@register("tensor.rank")
def _rank(op: ir.Operation, state: InferenceState) -> Facts:
    shape = state.facts_of(op.operands[0]).shape
    return [ValueFacts(value=UNKNOWN if shape is None else const_extent(len(shape)))]


@register("tensor.empty", "tensor.generate", typed=True)
def _sized_by_operands(op: ir.Operation, state: InferenceState) -> Facts:
    """The dynamic dims of the result type are the operands, in order; an
    axis sized by a bound keeps the op that made the bound as its origin."""
    return [_sized_by(op, list(op.operands), state)]


@register("bufferization.alloc_tensor", typed=True)
def _alloc_tensor(op: ir.Operation, state: InferenceState) -> Facts:
    """Sized like ``tensor.empty`` by its dynamic sizes, or shaped like the
    tensor it copies:

    .. code-block:: mlir

        %t = bufferization.alloc_tensor(%n) : tensor<?x4xf32>   // [n, 4]
        %c = bufferization.alloc_tensor() copy(%x) : tensor<?x4xf32>  // x's shape
    """
    sizes, copies, _ = op.attributes["operandSegmentSizes"]
    operands = list(op.operands)
    if copies:
        return [ValueFacts(shape=state.facts_of(operands[sizes]).shape)]
    return [_sized_by(op, operands[:sizes], state)]


def _sized_by(op: ir.Operation, sizes: list[ir.Value], state: InferenceState) -> ValueFacts:
    shape = result_dims(state, op.result.type, sizes, op)
    dynamic = iter(sizes)
    origins = tuple(
        None if d != DYNAMIC else
        None if extent.strength is _EXACT else value_origin(state, next(dynamic))
        for d, extent in zip(ir.RankedTensorType(op.result.type).shape, shape, strict=True))
    return ValueFacts(shape=shape, origins=origins)


@register("tensor.splat")
def _splat(op: ir.Operation, state: InferenceState) -> Facts:
    operands = list(op.operands)
    type_ = op.result.type
    shape = result_dims(state, type_, operands[1:], op)
    elements = None
    if propagates_elements(type_):
        count = 1 if not shape else const_int(shape[0])
        if count is not None:
            elements = (state.value(operands[0]),) * count
    return [ValueFacts(shape=shape, elements=elements)]


@register("tensor.cast", "tensor.bitcast")
def _cast(op: ir.Operation, state: InferenceState) -> Facts:
    # A cast to a static size makes it a fact; the engine unifies a fresh
    # symbol of the source with it (and rejects a provably different one).
    source = state.facts_of(op.operands[0])
    result = op.result.type
    if source.shape is None or not isinstance(result, ir.RankedTensorType):
        return [ValueFacts(elements=source.elements)]
    shape = list(source.shape)
    for axis, static in enumerate(result.shape):
        if static == DYNAMIC:
            continue
        if shape[axis].strength is _EXACT and const_int(shape[axis]) == static:
            state.requirements += 1  # holds as written
            continue
        # The cast asserts the size: a fact only once established (a bound
        # provably below it is an error of the unification).
        shape[axis] = state.unify(
            shape[axis], const_extent(static), op,
            describe("source axis {} and the static result extent {}", axis, static),
            same_size(Quantity.dim(op.operands[0], axis), Quantity.const(static)),
            source.origin(axis))
        shape[axis] = const_extent(static)
    return [ValueFacts(tuple(shape), source.value, source.elements, source.origins)]


@register("tensor.extract_slice")
def _extract_slice(op: ir.Operation, state: InferenceState) -> Facts:
    operands = list(op.operands)
    sizes = mixed_sizes(op, state, "static_sizes", segment(op, 2, operands))
    _within_source(op, state, operands[0], 1, "slice")
    reduced = ir.RankedTensorType(op.result.type).shape
    kept = _kept_axes(dense_i64(op, "static_sizes", state), reduced) \
        if len(reduced) < len(sizes) else range(len(sizes))
    elements = None
    source = read_elements(state, operands[0])
    if source is not None and len(sizes) == 1:
        offsets = _constants(mixed_sizes(op, state, "static_offsets", segment(op, 1, operands),
                                         sizes=False))
        strides = _constants(mixed_sizes(op, state, "static_strides", segment(op, 3, operands),
                                         sizes=False))
        count = const_int(sizes[0])
        if offsets is not None and strides is not None and count is not None:
            picked = [offsets[0] + i * strides[0] for i in range(count)]
            if all(0 <= p < len(source) for p in picked):
                elements = tuple(source[p] for p in picked)
    return [ValueFacts(shape=tuple(sizes[a] for a in kept), elements=elements)]


@register("tensor.insert_slice")
def _insert_slice(op: ir.Operation, state: InferenceState) -> Facts:
    operands = list(op.operands)
    source, dest = operands[0], operands[1]
    sizes = mixed_sizes(op, state, "static_sizes", segment(op, 3, operands))
    source_shape = state.shape(source, op)
    kept = _kept_axes(dense_i64(op, "static_sizes", state),
                      ir.RankedTensorType(source.type).shape) \
        if len(source_shape) < len(sizes) else list(range(len(sizes)))
    size_q = mixed_quantities(op, state, "static_sizes", segment(op, 3, operands))
    for source_axis, axis in enumerate(kept):
        state.unify(
            sizes[axis], source_shape[source_axis], op,
            describe("slice size {} and source axis {}", axis, source_axis),
            same_size(size_q[axis], Quantity.dim(source, source_axis)),
            state.origins(source)[source_axis])
    _within_source(op, state, dest, 2, "inserted slice", "destination")
    facts = state.facts_of(dest)
    elements = facts.elements
    inserted = state.elements(source)
    if elements is not None:
        offsets = _constants(mixed_sizes(op, state, "static_offsets", segment(op, 2, operands),
                                         sizes=False))
        strides = _constants(mixed_sizes(op, state, "static_strides", segment(op, 4, operands),
                                         sizes=False))
        if inserted is None or offsets is None or strides is None or len(offsets) != 1:
            elements = None
        else:
            updated = list(elements)
            for i, element in enumerate(inserted):
                position = offsets[0] + i * strides[0]
                if not 0 <= position < len(updated):
                    elements = None
                    break
                updated[position] = element
            else:
                elements = tuple(updated)
    return [ValueFacts(facts.shape, None, elements, facts.origins)]


@register("tensor.expand_shape")
def _expand_shape(op: ir.Operation, state: InferenceState) -> Facts:
    operands = list(op.operands)
    source = state.shape(operands[0], op)
    extents = mixed_sizes(op, state, "static_output_shape", operands[1:])
    quantities = mixed_quantities(op, state, "static_output_shape", operands[1:])
    for group_index, axes in enumerate(_reassociation(op, state)):
        # The one run-time check of a group: its sizes multiply to the source
        # axis (it also establishes an output size known only as a bound).
        count = same_size(Quantity.dim(operands[0], group_index),
                          Quantity.of(canon_mul, *(quantities[a] for a in axes)))
        for axis in axes:
            state.require_exact(extents[axis], op, f"expand_shape output size {axis}", count,
                                value_origin(state, operands[1]) if len(operands) > 1
                                else None)
        if not all(extents[axis].is_exact for axis in axes):
            continue
        total = product(state, [extents[axis] for axis in axes])
        state.unify(
            source[group_index], total, op,
            describe("source axis {} and the product of result axes {}", group_index,
                     list(axes)),
            count, state.origins(operands[0])[group_index])
    return [ValueFacts(shape=tuple(extents), elements=_same_elements(op, state))]


@register("tensor.collapse_shape")
def _collapse_shape(op: ir.Operation, state: InferenceState) -> Facts:
    source = state.shape(op.operands[0], op)
    return [ValueFacts(shape=tuple(
        product(state, [source[axis] for axis in axes]) for axes in _reassociation(op, state)),
        elements=_same_elements(op, state))]


def _signed_value(state: InferenceState, value: ir.Value) -> ShapeExtent:
    known = state.value(value)
    return known if known.strength is not _UNKNOWN else state.fresh_signed(value)


def _same_elements(op: ir.Operation, state: InferenceState) -> tuple[ShapeExtent, ...] | None:
    """The source's elements, for a reshaping op between short integer tensors."""
    elements = read_elements(state, op.operands[0])
    return elements if elements is not None and propagates_elements(op.result.type) else None


_REASSOCIATION: CacheKind[ir.Attribute, tuple[tuple[int, ...], ...]] = CacheKind(
    "reassociation")


def _reassociation(op: ir.Operation, state: InferenceState) -> tuple[tuple[int, ...], ...]:
    attr = op.attributes["reassociation"]
    cache = state.cache(_REASSOCIATION)
    groups = cache.get(attr)
    if groups is None:
        groups = cache[attr] = tuple(
            tuple(ir.IntegerAttr(a).value for a in ir.ArrayAttr(group))
            for group in ir.ArrayAttr(attr))
    return groups


@register("tensor.reshape")
def _reshape(op: ir.Operation, state: InferenceState) -> Facts:
    source_value, shape_value = op.operands
    source = state.shape(source_value, op)
    rank = ir.RankedTensorType(op.result.type).rank
    elements = read_elements(state, shape_value)
    targets: list[ShapeExtent] = list(elements) \
        if elements is not None and len(elements) == rank else [UNKNOWN] * rank
    for axis, target in enumerate(targets):
        if isinstance(target, Exact) and prove_lt(target.expr, 0, state.extents) is True:
            raise ShapeInferenceError(
                op.location,
                f"target extent {axis} is {target}: tensor.reshape has no -1 or 0 convention "
                "(compute the extent from the element count)")
    def count() -> Condition:
        return same_size(
            Quantity.product([(source_value, a) for a in range(len(source))]),
            Quantity.of(canon_mul, *(Quantity.element(shape_value, a) for a in range(rank))))

    for axis, target in enumerate(targets):
        state.require_exact(target, op, f"reshape shape element {axis}", count,
                            value_origin(state, shape_value))
    numel = product(state, source)
    unknown = [axis for axis, t in enumerate(targets) if t.strength is _UNKNOWN]
    if len(unknown) == 1 and isinstance(numel, Exact):
        others = product(state, [t for axis, t in enumerate(targets) if axis != unknown[0]])
        if isinstance(others, Exact) and prove_ge(others.expr, 1, state.extents) is True:
            targets[unknown[0]] = Exact(floordiv(numel.expr, others.expr))
            unknown = []
    exact = all(t.strength is _EXACT for t in targets)
    for axis in unknown:
        targets[axis] = state.fresh(("reshape", op, axis))
    for axis, target in enumerate(targets):
        state.require_nonneg(target, op, f"reshape shape element {axis}",
                             (Compare("le", Quantity.const(0),
                                      Quantity.element(shape_value, axis)),))
    if not exact:
        return [ValueFacts(shape=tuple(targets))]
    state.unify(
        numel, product(state, targets), op, lambda: "the element counts of source and result",
        count, next((o for o in state.origins(source_value) if o is not None), None))
    # A static result dim is a promise the shape operand must keep.
    for axis, static in enumerate(ir.RankedTensorType(op.result.type).shape):
        target = targets[axis]
        if static != DYNAMIC and not (isinstance(target, Exact) and prove_eq(
                target.expr, static, state.extents, fallback=False) is False):
            # (a provably different one is the engine's static-dimension error)
            targets[axis] = state.unify(
                targets[axis], const_extent(static), op,
                describe("shape element {} and the static result extent {}", axis, static),
                same_size(Quantity.element(shape_value, axis), Quantity.const(static)))
    return [ValueFacts(shape=tuple(targets))]


@register("tensor.concat")
def _concat(op: ir.Operation, state: InferenceState) -> Facts:
    operands = list(op.operands)

    def unify(kept: ShapeExtent, extent: ShapeExtent, axis: int, index: int) -> ShapeExtent:
        return state.unify(kept, extent, op,
                           describe("axis {} of operand #0 and operand #{}", axis, index),
                           same_dims(operands[0], axis, operands[index], axis),
                           state.origins(operands[index])[axis])

    shape = concat_shape([state.shape(v, op) for v in operands], int_attr(op, "dim"), unify)
    elements = None
    if propagates_elements(op.result.type):
        parts = [state.elements(v) for v in operands]
        known = [p for p in parts if p is not None]
        if len(known) == len(parts):
            elements = tuple(e for p in known for e in p)
    return [ValueFacts(shape=shape.dims, elements=elements)]


@register("tensor.pad")
def _pad(op: ir.Operation, state: InferenceState) -> Facts:
    operands = list(op.operands)
    source = state.shape(operands[0], op)
    low = mixed_sizes(op, state, "static_low", segment(op, 1, operands))
    high = mixed_sizes(op, state, "static_high", segment(op, 2, operands))
    origins = state.origins(operands[0])
    return [with_origins(
        [g.add(g.add(s, lo), hi) for s, lo, hi in zip(source, low, high, strict=True)], origins)]


@register("tensor.from_elements", typed=True)
def _from_elements(op: ir.Operation, state: InferenceState) -> Facts:
    type_ = op.result.type
    elements = None
    if propagates_elements(type_):
        elements = tuple(state.value(v) for v in op.operands)
    return [ValueFacts(shape=result_dims(state, type_, (), op), elements=elements)]


@register("tensor.extract")
def _extract(op: ir.Operation, state: InferenceState) -> Facts:
    operands = list(op.operands)
    elements = read_elements(state, operands[0])
    if elements is None or len(operands) > 2:
        return [ValueFacts(value=UNKNOWN)]
    if len(operands) == 1:
        return [ValueFacts(value=elements[0] if len(elements) == 1 else UNKNOWN)]
    position = const_int(state.value(operands[1]))
    if position is None:
        return [ValueFacts(value=UNKNOWN)]
    if not 0 <= position < len(elements):
        raise ShapeInferenceError(
            op.location, f"index {position} is out of range for {len(elements)} elements")
    return [ValueFacts(value=elements[position])]


@register("tensor.insert")
def _insert(op: ir.Operation, state: InferenceState) -> Facts:
    operands = list(op.operands)
    facts = state.facts_of(operands[1])
    elements = facts.elements
    if elements is not None:
        position = const_int(state.value(operands[2])) if len(operands) == 3 else 0
        if position is None or not 0 <= position < len(elements):
            elements = None
        else:
            updated = list(elements)
            updated[position] = state.value(operands[0])
            elements = tuple(updated)
    return [ValueFacts(facts.shape, None, elements, facts.origins)]


@register("tensor.yield")
def _yield(op: ir.Operation, state: InferenceState) -> Facts:
    return []


@register("shape.shape_of")
def _shape_of(op: ir.Operation, state: InferenceState) -> Facts:
    shape = state.facts_of(op.operands[0]).shape
    if shape is None:
        return [None]
    result = op.result.type
    stated = (const_extent(len(shape)),) if isinstance(result, ir.RankedTensorType) else None
    return [ValueFacts(shape=stated, elements=shape if len(shape) <= MAX_ELEMENTS else None)]
