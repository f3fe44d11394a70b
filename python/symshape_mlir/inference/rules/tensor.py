"""Shape rules of the ``tensor`` dialect.

Sizes given as ``index`` operands take what is known of those values; a size
that is data dependent (read from a tensor) becomes a fresh symbol.

.. code-block:: mlir

    %d = tensor.dim %x, %c0 : tensor<?x768xf32>          // value: batch
    %e = tensor.empty(%d) : tensor<?x4xf32>              // [batch, 4]
    %s = tensor.from_elements %d, %c768 : tensor<2xindex> // elements: [batch, 768]
    %r = tensor.reshape %x(%s) ...                        // [batch, 768]
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from symshape_mlir.extent import guarantee as g
from symshape_mlir.extent.expr import Const
from symshape_mlir.extent.guarantee import UNKNOWN, Exact, ShapeExtent
from symshape_mlir.inference.errors import OpUsageError, ShapeInferenceError
from symshape_mlir.inference.facts import ValueFacts
from symshape_mlir.inference.registry import register
from symshape_mlir.inference.rules.common import int_attr, size_extent, with_origins
from symshape_mlir.inference.state import InferenceState

__all__ = ["mixed_sizes"]

Facts = list[ValueFacts | None]
_DYNAMIC = ir.ShapedType.get_dynamic_size()


def mixed_sizes(
    op: ir.Operation, state: InferenceState, static_attr: str, dynamic: Sequence[ir.Value]
) -> list[ShapeExtent]:
    """Extents from a static-sizes attribute whose dynamic entries come from operands."""
    static = list(ir.DenseI64ArrayAttr(op.attributes[static_attr]))
    values = iter(dynamic)
    try:
        return [size_extent(state, next(values)) if s == _DYNAMIC else Exact(Const(s))
                for s in static]
    except StopIteration:
        raise OpUsageError(op.location, f"'{op.name}' has fewer dynamic sizes than "
                           f"'{static_attr}' needs") from None


def _operand_segments(op: ir.Operation) -> list[int]:
    return list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))


def _segment(op: ir.Operation, index: int) -> list[ir.Value]:
    sizes = _operand_segments(op)
    start = sum(sizes[:index])
    return list(op.operands)[start:start + sizes[index]]


@register("tensor.dim")
def _dim(op: ir.Operation, state: InferenceState) -> Facts:
    index = state.value(op.operands[1])
    shape = state.shape(op.operands[0], op)
    axis = index.expr.const_value if index.is_exact and index.expr is not None else None
    if axis is None or not 0 <= axis < len(shape):
        return [ValueFacts(value=UNKNOWN)]
    return [ValueFacts(value=shape[axis])]


@register("tensor.empty")
def _empty(op: ir.Operation, state: InferenceState) -> Facts:
    result = ir.RankedTensorType(op.results[0].type)
    sizes = iter(op.operands)
    return [ValueFacts(shape=tuple(
        size_extent(state, next(sizes)) if result.is_dynamic_dim(a) else Exact(Const(d))
        for a, d in enumerate(result.shape)))]


@register("tensor.splat")
def _splat(op: ir.Operation, state: InferenceState) -> Facts:
    result = ir.RankedTensorType(op.results[0].type)
    sizes = iter(list(op.operands)[1:])
    return [ValueFacts(shape=tuple(
        size_extent(state, next(sizes)) if result.is_dynamic_dim(a) else Exact(Const(d))
        for a, d in enumerate(result.shape)))]


@register("tensor.generate")
def _generate(op: ir.Operation, state: InferenceState) -> Facts:
    result = ir.RankedTensorType(op.results[0].type)
    sizes = iter(op.operands)
    return [ValueFacts(shape=tuple(
        size_extent(state, next(sizes)) if result.is_dynamic_dim(a) else Exact(Const(d))
        for a, d in enumerate(result.shape)))]


@register("tensor.cast")
def _cast(op: ir.Operation, state: InferenceState) -> Facts:
    source = op.operands[0]
    if not isinstance(source.type, ir.RankedTensorType):
        return [None]
    return [with_origins(state.shape(source, op), state.origins(source))]


@register("tensor.extract_slice")
def _extract_slice(op: ir.Operation, state: InferenceState) -> Facts:
    sizes = mixed_sizes(op, state, "static_sizes", _segment(op, 2))
    rank = ir.RankedTensorType(op.results[0].type).rank
    if rank < len(sizes):
        # Rank-reducing: drop unit sizes from the front until the rank matches.
        dropped = len(sizes) - rank
        kept = []
        for extent in sizes:
            if dropped and extent.is_exact and extent.expr is not None \
                    and extent.expr.const_value == 1:
                dropped -= 1
                continue
            kept.append(extent)
        sizes = kept
    return [ValueFacts(shape=tuple(sizes))]


@register("tensor.insert_slice")
def _insert_slice(op: ir.Operation, state: InferenceState) -> Facts:
    dest = op.operands[1]
    return [with_origins(state.shape(dest, op), state.origins(dest))]


@register("tensor.expand_shape")
def _expand_shape(op: ir.Operation, state: InferenceState) -> Facts:
    return [ValueFacts(shape=tuple(
        mixed_sizes(op, state, "static_output_shape", list(op.operands)[1:])))]


@register("tensor.collapse_shape")
def _collapse_shape(op: ir.Operation, state: InferenceState) -> Facts:
    source = state.shape(op.operands[0], op)
    extents = []
    for group in ir.ArrayAttr(op.attributes["reassociation"]):
        product: ShapeExtent = Exact(Const(1))
        for axis in ir.ArrayAttr(group):
            product = g.mul(product, source[ir.IntegerAttr(axis).value])
        extents.append(product)
    return [ValueFacts(shape=tuple(extents))]


@register("tensor.reshape")
def _reshape(op: ir.Operation, state: InferenceState) -> Facts:
    elements = state.elements(op.operands[1])
    if elements is None:
        return [None]
    return [ValueFacts(shape=tuple(elements))]


@register("tensor.concat")
def _concat(op: ir.Operation, state: InferenceState) -> Facts:
    axis = int_attr(op, "dim")
    shapes = [state.shape(v, op) for v in op.operands]
    total: ShapeExtent = Exact(Const(0))
    for shape in shapes:
        total = g.add(total, shape[axis])
    first = list(shapes[0])
    first[axis] = total
    return [ValueFacts(shape=tuple(first))]


@register("tensor.pad")
def _pad(op: ir.Operation, state: InferenceState) -> Facts:
    source = state.shape(op.operands[0], op)
    low = mixed_sizes(op, state, "static_low", _segment(op, 1))
    high = mixed_sizes(op, state, "static_high", _segment(op, 2))
    return [ValueFacts(shape=tuple(
        g.add(g.add(s, lo), hi) for s, lo, hi in zip(source, low, high)))]


@register("tensor.from_elements")
def _from_elements(op: ir.Operation, state: InferenceState) -> Facts:
    result = ir.RankedTensorType(op.results[0].type)
    elements = None
    if isinstance(result.element_type, (ir.IndexType, ir.IntegerType)) and result.rank <= 1:
        elements = tuple(state.value(v) for v in op.operands)
    return [ValueFacts(shape=None, elements=elements)]


@register("tensor.extract")
def _extract(op: ir.Operation, state: InferenceState) -> Facts:
    elements = state.elements(op.operands[0])
    if elements is None:
        return [ValueFacts(value=UNKNOWN)]
    coords = list(op.operands)[1:]
    if not coords:
        return [ValueFacts(value=elements[0] if len(elements) == 1 else UNKNOWN)]
    index = state.value(coords[0])
    position = index.expr.const_value if index.is_exact and index.expr is not None else None
    if position is None or len(coords) != 1:
        return [ValueFacts(value=UNKNOWN)]
    if not 0 <= position < len(elements):
        raise ShapeInferenceError(
            op.location, f"index {position} is out of range for {len(elements)} elements")
    return [ValueFacts(value=elements[position])]
