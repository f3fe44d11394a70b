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

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import arith, tensor

from symshape_mlir.attributes import decode_shape, enum_name, reassociation
from symshape_mlir.extent import Exact, Expr, InputAxis, ShapeExtent, mul, prove_eq, prove_ne
from symshape_mlir.inference.obligations import Quantity
from symshape_mlir.inference.state import InferenceState
from symshape_mlir.lowering.checks import lower_quantity
from symshape_mlir.lowering.errors import LoweringError
from symshape_mlir.lowering.exprs import AxisBindings, ExprLowering
from symshape_mlir.lowering.generics import generic_copy, generic_from_body
from symshape_mlir.lowering.index_builder import IndexBuilder
from symshape_mlir.registry import add_unique
from symshape_mlir.walk import enclosing_function

__all__ = ["RULES", "LoweringState"]

_DYNAMIC = ir.ShapedType.get_dynamic_size()


@dataclass
class LoweringState:
    """What the rules share while lowering one function."""

    builder: IndexBuilder
    axes: AxisBindings
    #: What inference knows; used to drop checks that provably hold.
    facts: InferenceState
    #: Lowered index value of every extent-typed value seen so far.
    extents: dict[ir.Value, ir.Value] = field(default_factory=dict)
    #: Ops with a requirement inference could not prove where the op is: their
    #: run-time checks stay, whatever later facts would prove.
    unproven: set[ir.Operation] = field(default_factory=set)

    def exprs(self, op: ir.Operation) -> ExprLowering:
        return ExprLowering(self.builder, op, self.axes, self.facts)

    def proves(self, fn: Callable[[], bool | None]) -> bool:
        return fn() is True

    def extent(self, value: ir.Value) -> ir.Value:
        """The lowered index value of an extent-typed value.

        Raises:
            LoweringError: for an extent that is a block argument (it crossed
                a function or region boundary).
        """
        lowered = self.extents.get(value)
        if lowered is None:
            owner = value.owner
            where = owner.owner.location if isinstance(owner, ir.Block) else owner.location
            raise LoweringError(where, "an extent value that is a function or block argument "
                                       "cannot be lowered: extent values cannot cross function "
                                       "or region boundaries; pass an index and use "
                                       "symshape.from_index")
        return lowered


Rule = Callable[[ir.Operation, LoweringState], None]
RULES: dict[str, Rule] = {}


def rule(*names: str) -> Callable[[Rule], Rule]:
    """Registers the decorated function as the lowering rule of each op in ``names``.

    Raises:
        ValueError: an op of ``names`` already has a rule.
    """
    def register(fn: Rule) -> Rule:
        for name in names:
            add_unique(RULES, name, fn, "lowering rule")
        return fn

    return register


# -- extent ops ----------------------------------------------------------------


def _define(op: ir.Operation, state: LoweringState, value: ir.Value) -> None:
    state.extents[op.results[0]] = value


@rule("symshape.const")
def _const(op: ir.Operation, state: LoweringState) -> None:
    _define(op, state, state.builder.const(ir.IntegerAttr(op.attributes["value"]).value))


@rule("symshape.dim")
def _dim(op: ir.Operation, state: LoweringState) -> None:
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    _define(op, state, state.builder.dim(op.operands[0], axis))


@rule("symshape.bound")
def _bound(op: ir.Operation, state: LoweringState) -> None:
    # Exactly the value inference gave it: the bound expression computed from
    # the arguments' axes, or else (a fresh symbol, or the exact size) the
    # size of the axis.
    value = state.facts.defined_facts(op.results[0]).value
    func = enclosing_function(op)
    if isinstance(value, Exact) and func is not None:
        axes = state.facts.argument_axes(func)
        if value.expr.free_symbols <= axes.keys():
            symbols = sorted(value.expr.free_symbols)
            quantity = Quantity(
                value.expr.substitute({s: InputAxis(i, axes[s][1]) for i, s in enumerate(symbols)}),
                tuple(axes[s][0] for s in symbols))
            where = state.exprs(op).where()
            _define(op, state, lower_quantity(state.builder, quantity, state.axes, op, where))
            return
    _dim(op, state)


@rule("symshape.runtime_scalar")
def _runtime_scalar(op: ir.Operation, state: LoweringState) -> None:
    semantics = enum_name(op.attributes["semantics"])
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
    divisor = state.facts.value(op.operands[1])
    guard = not (isinstance(divisor, Exact) and state.proves(
        lambda: prove_ne(divisor.expr, 0, state.facts.extents)))
    _define(op, state, getattr(state.builder, kind)(lhs, rhs, message, guard=guard))


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


def _groups(src: Sequence[ShapeExtent], dst: Sequence[ShapeExtent], state: LoweringState
            ) -> list[tuple[list[int], list[int]]] | None:
    """Splits a reshape into groups of one source axis to many target axes (or
    many to one) whose products the native prover shows equal; None when it
    cannot (a general ``tensor.reshape`` then; sympy would take about 0.2 s
    per reshape of an attention block to refute the groups that do not
    match)."""
    if not all(e.is_exact for e in (*src, *dst)) or not src or not dst:
        return None
    ctx = state.facts.extents

    def product(extents: Sequence[ShapeExtent]) -> Expr:
        return mul(1, *(e.expr for e in extents if e.expr is not None))

    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(src) and j < len(dst):
        for k in range(1, max(len(src) - i, len(dst) - j) + 1):
            if i + k <= len(src) and prove_eq(
                    product(src[i:i + k]), product(dst[j:j + 1]), ctx, fallback=False) is True:
                groups.append((list(range(i, i + k)), [j]))
                i, j = i + k, j + 1
                break
            if k > 1 and j + k <= len(dst) and prove_eq(
                    product(src[i:i + 1]), product(dst[j:j + k]), ctx, fallback=False) is True:
                groups.append(([i], list(range(j, j + k))))
                i, j = i + 1, j + k
                break
        else:
            return None
    return groups if i == len(src) and j == len(dst) else None


def _reshape_by_groups(source: ir.Value, result_type: ir.RankedTensorType,
                       groups: list[tuple[list[int], list[int]]],
                       targets: list[ir.Value]) -> ir.Value | None:
    """``tensor.collapse_shape`` or ``tensor.expand_shape`` when the groups allow."""
    source_type = ir.RankedTensorType(source.type)
    if all(len(out) == 1 for _, out in groups):
        dims = []
        for ins, _ in groups:
            sizes = [source_type.shape[a] for a in ins]
            dims.append(_DYNAMIC if any(source_type.is_dynamic_dim(a) for a in ins)
                        else math.prod(sizes))
        natural = ir.RankedTensorType.get(dims, result_type.element_type)
        collapsed = tensor.CollapseShapeOp(natural, source,
                                           reassociation([g for g, _ in groups])).result
        return collapsed if natural == result_type else tensor.CastOp(result_type, collapsed).result
    if all(len(ins) == 1 for ins, _ in groups):
        # Constant targets are static in the expanded type; a static source
        # axis must expand into static axes only.
        constants = [IndexBuilder.constant_of(v) for v in targets]
        static = [_DYNAMIC if c is None else c for c in constants]
        for (axis,), outs in groups:
            if not source_type.is_dynamic_dim(axis) and any(static[a] == _DYNAMIC for a in outs):
                return None
        natural = ir.RankedTensorType.get(static, result_type.element_type)
        dynamic = [targets[a] for a, size in enumerate(static) if size == _DYNAMIC]
        expanded = tensor.ExpandShapeOp(natural, source, reassociation([g for _, g in groups]),
                                        dynamic, ir.DenseI64ArrayAttr.get(static)).result
        return expanded if natural == result_type else tensor.CastOp(result_type, expanded).result
    return None


@rule("symshape.reshape")
def _reshape(op: ir.Operation, state: LoweringState) -> None:
    b = state.builder
    where = state.exprs(op).where()
    source = op.operands[0]
    source_type = ir.RankedTensorType(source.type)
    result_type = ir.RankedTensorType(op.results[0].type)
    targets = _targets(op, state, "target", "reshape target")
    _sizes_for(result_type, targets, state, "reshape target")
    source_extents = state.facts.shape(source)
    target_extents = [state.exprs(op).extent(tree) for _, tree in
                      decode_shape(op.attributes["target"]) if tree is not None]
    groups = None if op in state.unproven else _groups(source_extents, target_extents, state)
    if groups is None:
        # Not provably a pure split or merge of axes: check the element count
        # (unless provable) and reshape through an i64 shape tensor.
        count = b.product(targets)
        source_count = b.product([b.dim(source, a) for a in range(source_type.rank)])
        if op in state.unproven or not _same_count(source_extents, target_extents, state):
            b.check(b.cmp("eq", count, source_count),
                    f"symshape: reshape target changes the element count ({where})")
        result = None
    else:
        result = _reshape_by_groups(source, result_type, groups, targets)
    if result is None:
        i64 = ir.IntegerType.get_signless(64)
        shape_type = ir.RankedTensorType.get([len(targets)], i64)
        elements = [arith.IndexCastOp(i64, v).result for v in targets]
        shape = tensor.FromElementsOp(shape_type, elements).result
        result = tensor.ReshapeOp(result_type, source, shape).result
    op.results[0].replace_all_uses_with(result)


def _same_count(src: Sequence[ShapeExtent], dst: Sequence[ShapeExtent], state: LoweringState
                ) -> bool:
    if not all(e.is_exact for e in (*src, *dst)):
        return False
    have = mul(1, *(e.expr for e in src if e.expr is not None))
    want = mul(1, *(e.expr for e in dst if e.expr is not None))
    return prove_eq(have, want, state.facts.extents) is True


def _broadcast_proven(state: LoweringState, op: ir.Operation, in_axis: int, out_axis: int
                      ) -> bool:
    """Whether input axis ``in_axis`` provably equals its target extent."""
    if op in state.unproven:
        return False
    have = state.facts.shape(op.operands[0])[in_axis]
    tree = decode_shape(op.attributes["target"])[out_axis][1]
    want = state.exprs(op).extent(tree) if tree is not None else None
    return bool(isinstance(have, Exact) and isinstance(want, Exact) and
                prove_eq(have.expr, want.expr, state.facts.extents) is True)


@rule("symshape.broadcast_in_dim")
def _broadcast_in_dim(op: ir.Operation, state: LoweringState) -> None:
    b = state.builder
    where = state.exprs(op).where()
    source = op.operands[0]
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
        if _broadcast_proven(state, op, in_axis, out_axis):
            selects.append(None)
            continue
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
        result = generic_copy(source, in_map, result_type, sizes)
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

    op.results[0].replace_all_uses_with(generic_from_body(result_type, sizes, body))


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
    # The verifier rejects a static offset 0 into a static extent 0.
    empty = [source_type.shape[a] == 0 for a in range(rank)]
    result = tensor.ExtractSliceOp(
        result_type, source, [b.const(0) for e in empty if e],
        [s for s in sizes if isinstance(s, ir.Value)], [],
        ir.DenseI64ArrayAttr.get([_DYNAMIC if e else 0 for e in empty]),
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
    # Every slice fits in the operand; the start along each mapped axis is
    # clamped to [0, dim - slice size].
    limits = {}
    for axis in range(operand_type.rank):
        limit = b.sub(operand_dims[axis], slice_sizes[axis])
        constant = b.constant_of(limit)
        if constant is None or constant < 0:
            b.check(b.cmp("sge", limit, b.const(0)),
                    f"symshape: gather slice_sizes extent {axis} exceeds the operand "
                    f"dimension ({where})")
        if axis in start_map:
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
                # Clamping to 0 first, then to the limit (>= 0, checked above),
                # is the same clamp to [0, limit].
                start = b.scalar_at(indices, [*batch, b.const(k)], clamp_nonneg=True)
                start = b.min(start, limits[axis])
                coord = b.add(start, coord)
            coords.append(coord)
        return tensor.ExtractOp(operand, coords).result

    op.results[0].replace_all_uses_with(generic_from_body(result_type, sizes, body))
