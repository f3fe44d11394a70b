"""Per-op lowering rules of ``symshape-resolve``, keyed by op name.

Extent ops become ``index`` arithmetic; the shape-sensitive tensor ops
become upstream ``tensor``/``linalg`` ops with runtime checks where the
dialect's semantics need them:

.. code-block:: mlir

    %r = symshape.reshape %x to [dim(0, 0) * 2, 256]
        : (tensor<?x512xf32>) -> tensor<?x256xf32>
    // becomes
    %d = tensor.dim %x, %c0 : tensor<?x512xf32>
    %n = arith.muli %d, %c2 : index
    ...                                  // element-count check
    %s = tensor.from_elements %n_i64, %c256_i64 : tensor<2xi64>
    %r = tensor.reshape %x(%s) : (tensor<?x512xf32>, tensor<2xi64>) -> tensor<?x256xf32>
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import arith, linalg, tensor

from symshape_mlir.attributes import decode_shape
from symshape_mlir.lowering.errors import LoweringError
from symshape_mlir.lowering.exprs import AxisBindings, ExprLowering
from symshape_mlir.lowering.index_builder import IndexBuilder

__all__ = ["RULES", "LoweringState"]

_DYNAMIC = ir.ShapedType.get_dynamic_size()


@dataclass
class LoweringState:
    """What the rules share while lowering one function."""

    builder: IndexBuilder
    axes: AxisBindings
    #: Lowered index value of every extent-typed value seen so far.
    extents: dict[ir.Value, ir.Value] = field(default_factory=dict)

    def exprs(self, op: ir.Operation) -> ExprLowering:
        return ExprLowering(self.builder, op, self.axes)

    def extent(self, value: ir.Value) -> ir.Value:
        return self.extents[value]


Rule = Callable[[ir.Operation, LoweringState], None]
RULES: dict[str, Rule] = {}


def rule(*names: str) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for name in names:
            RULES[name] = fn
        return fn

    return register


# -- extent ops ----------------------------------------------------------------


def _define(op: ir.Operation, state: LoweringState, value: ir.Value) -> None:
    state.extents[op.results[0]] = value


@rule("symshape.const")
def _const(op: ir.Operation, state: LoweringState) -> None:
    _define(op, state, state.builder.const(ir.IntegerAttr(op.attributes["value"]).value))


@rule("symshape.dim", "symshape.bound")
def _dim(op: ir.Operation, state: LoweringState) -> None:
    # The exact size is always a sound upper bound: `symshape.bound` lowers
    # to the size of the axis once the tensor exists.
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    _define(op, state, state.builder.dim(op.operands[0], axis))


@rule("symshape.runtime_scalar")
def _runtime_scalar(op: ir.Operation, state: LoweringState) -> None:
    # Printed as `#symshape<semantics NAME>`.
    semantics = str(op.attributes["semantics"]).split()[-1].rstrip(">")
    _define(op, state, state.exprs(op).lower(("scalar", 0, semantics)))


@rule(*(f"symshape.{k}" for k in ("add", "sub", "mul", "min", "max")))
def _arith(op: ir.Operation, state: LoweringState) -> None:
    kind = op.name.removeprefix("symshape.")
    lhs, rhs = (state.extent(v) for v in op.operands)
    _define(op, state, getattr(state.builder, kind)(lhs, rhs))


@rule("symshape.floordiv", "symshape.ceildiv", "symshape.mod")
def _division(op: ir.Operation, state: LoweringState) -> None:
    kind = op.name.removeprefix("symshape.")
    lhs, rhs = (state.extent(v) for v in op.operands)
    where = state.exprs(op).where()
    message = f"symshape: division by zero in {kind} ({where})"
    _define(op, state, getattr(state.builder, kind)(lhs, rhs, message))


@rule("symshape.from_index")
def _from_index(op: ir.Operation, state: LoweringState) -> None:
    _define(op, state, op.operands[0])


@rule("symshape.to_index")
def _to_index(op: ir.Operation, state: LoweringState) -> None:
    op.results[0].replace_all_uses_with(state.extent(op.operands[0]))


# -- shape-sensitive tensor ops -----------------------------------------------------


def _targets(op: ir.Operation, state: LoweringState, attr_name: str, field_name: str
             ) -> list[ir.Value]:
    lowering = state.exprs(op)
    values = []
    for i, (guarantee, tree) in enumerate(decode_shape(op.attributes[attr_name])):
        if guarantee != "exact" or tree is None:
            # The verifier rejects this; resolve never turns a bound into a size.
            raise LoweringError(op.location, f"{field_name} extent {i} is not exact")
        values.append(lowering.lower_size(tree, f"{field_name} extent {i}"))
    return values


def _sizes_for(result_type: ir.RankedTensorType, values: Sequence[ir.Value],
               state: LoweringState, what: str) -> list[ir.Value | int]:
    """Static dims of ``result_type`` stay static (checked), others use ``values``."""
    b = state.builder
    sizes: list[ir.Value | int] = []
    for axis, value in enumerate(values):
        if result_type.is_dynamic_dim(axis):
            sizes.append(value)
            continue
        static = result_type.shape[axis]
        if b.constant_of(value) != static:
            b.check(b.cmp("eq", value, b.const(static)),
                    f"symshape: {what} extent {axis} differs from the static result "
                    f"dimension {static}")
        sizes.append(static)
    return sizes


def _product(b: IndexBuilder, values: Sequence[ir.Value]) -> ir.Value:
    result = b.const(1)
    for value in values:
        result = b.mul(result, value)
    return result


@rule("symshape.reshape")
def _reshape(op: ir.Operation, state: LoweringState) -> None:
    b = state.builder
    where = state.exprs(op).where()
    source = op.operands[0]
    source_type = ir.RankedTensorType(source.type)
    result_type = ir.RankedTensorType(op.results[0].type)
    targets = _targets(op, state, "target", "reshape target")
    _sizes_for(result_type, targets, state, "reshape target")
    count = _product(b, targets)
    source_count = _product(b, [b.dim(source, a) for a in range(source_type.rank)])
    if b.constant_of(count) is None or b.constant_of(count) != b.constant_of(source_count):
        b.check(b.cmp("eq", count, source_count),
                f"symshape: reshape target changes the element count ({where})")
    i64 = ir.IntegerType.get_signless(64)
    shape_type = ir.RankedTensorType.get([len(targets)], i64)
    elements = [arith.IndexCastOp(i64, v).result for v in targets]
    shape = tensor.FromElementsOp(shape_type, elements).result
    result = tensor.ReshapeOp(result_type, source, shape).result
    op.results[0].replace_all_uses_with(result)


def _parallel(rank: int) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * rank)


def _generic_from_body(result_type: ir.RankedTensorType, sizes: list[ir.Value | int],
                       body: Callable[[list[ir.Value]], ir.Value]) -> ir.Value:
    """A ``linalg.generic`` over ``result_type`` whose body computes each element
    from the iteration indices (reading other tensors with ``tensor.extract``)."""
    rank = result_type.rank
    init = tensor.empty(sizes, result_type.element_type)
    identity = ir.AffineMapAttr.get(ir.AffineMap.get_identity(rank))
    generic = linalg.GenericOp([result_type], [], [init], ir.ArrayAttr.get([identity]),
                               _parallel(rank))
    block = generic.regions[0].blocks.append(result_type.element_type)
    with ir.InsertionPoint(block):
        indices = [linalg.IndexOp(ir.IntegerAttr.get(ir.IntegerType.get_signless(64), d)).result
                   for d in range(rank)]
        linalg.YieldOp([body(indices)])
    return generic.results[0]


def _generic_copy(source: ir.Value, in_map: ir.AffineMap, result_type: ir.RankedTensorType,
                  sizes: list[ir.Value | int]) -> ir.Value:
    """A ``linalg.generic`` that copies ``source`` through ``in_map``."""
    rank = result_type.rank
    init = tensor.empty(sizes, result_type.element_type)
    maps = [ir.AffineMapAttr.get(in_map),
            ir.AffineMapAttr.get(ir.AffineMap.get_identity(rank))]
    generic = linalg.GenericOp([result_type], [source], [init], ir.ArrayAttr.get(maps),
                               _parallel(rank))
    element = result_type.element_type
    block = generic.regions[0].blocks.append(element, element)
    with ir.InsertionPoint(block):
        linalg.YieldOp([block.arguments[0]])
    return generic.results[0]


@rule("symshape.broadcast_in_dim")
def _broadcast_in_dim(op: ir.Operation, state: LoweringState) -> None:
    b = state.builder
    where = state.exprs(op).where()
    source = op.operands[0]
    source_type = ir.RankedTensorType(source.type)
    result_type = ir.RankedTensorType(op.results[0].type)
    dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
    targets = _targets(op, state, "target", "broadcast_in_dim target")
    sizes = _sizes_for(result_type, targets, state, "broadcast_in_dim target")
    # Each input axis has size 1 (broadcast) or the target size (copied).
    selects: list[ir.Value | None] = []
    for in_axis, out_axis in enumerate(dims):
        size = b.dim(source, in_axis)
        if b.constant_of(size) == 1:
            selects.append(b.const(0))
            continue
        target = targets[out_axis]
        if b.constant_of(size) is None or b.constant_of(size) != b.constant_of(target):
            ok = b.cmp("eq", size, target)
            if b.constant_of(size) is None:
                ok = arith.OrIOp(ok, b.cmp("eq", size, b.const(1))).result
            b.check(ok, f"symshape: broadcast_in_dim input axis {in_axis} is neither 1 "
                        f"nor the target extent ({where})")
        selects.append(None if b.constant_of(size) is not None else b.cmp("eq", size, b.const(1)))

    if all(pick is None or b.constant_of(pick) == 0 for pick in selects):
        # Every input axis is copied or statically broadcast: an affine map.
        exprs = [ir.AffineConstantExpr.get(0) if pick is not None
                 else ir.AffineDimExpr.get(out_axis)
                 for pick, out_axis in zip(selects, dims)]
        in_map = ir.AffineMap.get(result_type.rank, 0, exprs)
        result = _generic_copy(source, in_map, result_type, sizes)
        op.results[0].replace_all_uses_with(result)
        return

    def body(indices: list[ir.Value]) -> ir.Value:
        coords = []
        for in_axis, out_axis in enumerate(dims):
            pick = selects[in_axis]
            if pick is None:
                coords.append(indices[out_axis])
            elif b.constant_of(pick) == 0:
                coords.append(pick)
            else:
                coords.append(b.select(pick, b.const(0), indices[out_axis]))
        return tensor.ExtractOp(source, coords).result

    op.results[0].replace_all_uses_with(_generic_from_body(result_type, sizes, body))


@rule("symshape.dynamic_truncate")
def _dynamic_truncate(op: ir.Operation, state: LoweringState) -> None:
    b = state.builder
    source = op.operands[0]
    source_type = ir.RankedTensorType(source.type)
    result_type = ir.RankedTensorType(op.results[0].type)
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    lowering = state.exprs(op)
    kept = lowering.lower(("min", ("scalar", 1, "truncate_size"), ("dim", 0, axis)))
    values = [kept if a == axis else b.dim(source, a) for a in range(source_type.rank)]
    sizes = _sizes_for(result_type, values, state, "dynamic_truncate")
    rank = source_type.rank
    result = tensor.ExtractSliceOp(
        result_type, source, [], [s for s in sizes if isinstance(s, ir.Value)], [],
        ir.DenseI64ArrayAttr.get([0] * rank),
        ir.DenseI64ArrayAttr.get([s if isinstance(s, int) else _DYNAMIC for s in sizes]),
        ir.DenseI64ArrayAttr.get([1] * rank),
    ).result
    op.results[0].replace_all_uses_with(result)


@rule("symshape.gather")
def _gather(op: ir.Operation, state: LoweringState) -> None:
    b = state.builder
    where = state.exprs(op).where()
    operand, indices = op.operands[0], op.operands[1]
    operand_type = ir.RankedTensorType(operand.type)
    indices_type = ir.RankedTensorType(indices.type)
    result_type = ir.RankedTensorType(op.results[0].type)
    start_map = list(ir.DenseI64ArrayAttr(op.attributes["start_index_map"]))
    collapsed = set(ir.DenseI64ArrayAttr(op.attributes["collapsed_slice_dims"]))
    slice_sizes = _targets(op, state, "slice_sizes", "gather slice_sizes")
    batch_rank = indices_type.rank - 1
    operand_dims = [b.dim(operand, a) for a in range(operand_type.rank)]
    # The start along each mapped axis is clamped to [0, dim - slice size].
    limits = {}
    for axis in start_map:
        limit = b.sub(operand_dims[axis], slice_sizes[axis])
        if b.constant_of(limit) is None or b.constant_of(limit) < 0:  # type: ignore[operator]
            b.check(b.cmp("sge", limit, b.const(0)),
                    f"symshape: gather slice_sizes extent {axis} exceeds the operand "
                    f"dimension ({where})")
        limits[axis] = limit
    result_values = [b.dim(indices, d) for d in range(batch_rank)]
    result_values += [slice_sizes[a] for a in range(operand_type.rank) if a not in collapsed]
    sizes = _sizes_for(result_type, result_values, state, "gather result")

    def body(ivs: list[ir.Value]) -> ir.Value:
        batch = ivs[:batch_rank]
        offsets = iter(ivs[batch_rank:])
        coords = []
        for axis in range(operand_type.rank):
            coord = b.const(0) if axis in collapsed else next(offsets)
            if axis in limits:
                k = start_map.index(axis)
                start = b.scalar_at(indices, [*batch, b.const(k)])
                start = b.max(b.min(start, limits[axis]), b.const(0))
                coord = b.add(start, coord)
            coords.append(coord)
        return tensor.ExtractOp(operand, coords).result

    op.results[0].replace_all_uses_with(_generic_from_body(result_type, sizes, body))
