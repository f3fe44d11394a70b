"""Broadcasts of a tensor of lower rank over a result of extent 1 on every
axis, given opaque sizes (IREE 3.13 drops their unit loops and makes a
slice that fails to verify).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor

from symshape_mlir.inference.state import InferenceState
from symshape_mlir.lowering.index_builder import IndexBuilder
from symshape_mlir.lowering.iree.barriers import behind_barrier, opaque, redirect
from symshape_mlir.walk import collect_ops

__all__ = ["shield_unit_broadcasts"]


def _read_ranks(generic: ir.Operation) -> list[int]:
    """The ranks of the tensors ``generic`` reads: its inputs and the
    sources of ``tensor.extract`` in its body."""
    inputs = int(ir.DenseI32ArrayAttr(generic.attributes["operandSegmentSizes"])[0])
    extracts = collect_ops(generic, lambda op: op.name == "tensor.extract")
    read = [*list(generic.operands)[:inputs], *(op.operands[0] for op in extracts)]
    return [ir.RankedTensorType(value.type).rank for value in read
            if isinstance(value.type, ir.RankedTensorType)]


def _is_one(facts: InferenceState, size: ir.Value) -> bool:
    """Whether ``size`` is 1: a constant, or the ``tensor.dim`` of an axis
    that is statically 1, that inference found exactly 1, or that a
    ``tensor.empty`` made of a size that is 1 (lowering makes the slice of
    an empty tensor an empty tensor that inference never saw)."""
    if IndexBuilder.constant_of(size) == 1:
        return True
    owner = size.owner
    if not (isinstance(owner, ir.OpView) and owner.name == "tensor.dim"):
        return False
    axis = IndexBuilder.constant_of(owner.operands[1])
    if axis is None:
        return False
    type_ = ir.RankedTensorType(owner.operands[0].type)
    if type_.shape[axis] == 1:
        return True
    made = owner.operands[0].owner
    if isinstance(made, ir.OpView) and made.name == "tensor.empty" and type_.is_dynamic_dim(axis):
        position = sum(type_.is_dynamic_dim(a) for a in range(axis))
        return _is_one(facts, made.operands[position])
    shape = facts.defined_facts(owner.operands[0]).shape or ()
    extent = shape[axis] if axis < len(shape) else None
    return (extent is not None and extent.is_exact and extent.expr is not None
            and extent.expr.const_value == 1)


def _is_unit_broadcast(facts: InferenceState, op: ir.Operation) -> bool:
    """Whether ``op`` is a ``linalg.generic`` that writes a fresh
    ``tensor.empty`` of extent 1 on each of its two or more axes, never
    reads it, and reads a tensor of lower (nonzero) rank."""
    if op.name != "linalg.generic" or len(op.results) != 1:
        return False
    init = op.operands[len(op.operands) - 1]
    empty = init.owner
    type_ = ir.RankedTensorType(init.type)
    if not (isinstance(empty, ir.OpView) and empty.name == "tensor.empty" and type_.rank >= 2):
        return False
    if any(type_.shape[a] not in (1, ir.ShapedType.get_dynamic_size()) for a in range(type_.rank)):
        return False
    if not all(_is_one(facts, size) for size in empty.operands):
        return False
    out = op.regions[0].blocks[0].arguments[-1]
    return not list(out.uses) and any(0 < rank < type_.rank for rank in _read_ranks(op))


def shield_unit_broadcasts(func: ir.Operation, facts: InferenceState) -> int:
    """Gives each ``linalg.generic`` that spreads a tensor of lower rank over
    a result of extent 1 on every axis opaque sizes; returns how many.

    IREE 3.13 drops the unit loops of such an op (``FoldUnitExtentDims``):
    a rank-0 op reading one element, then ``tensor.expand_shape`` to
    ``1x1``. Reading at a constant position, the op becomes a rank-reducing
    ``tensor.extract_slice`` (``tensor<?xf32>`` to ``tensor<f32>``), and
    ``BubbleUpExpandShapes`` moves the expansion above it as a slice from
    ``tensor<?xf32>`` to ``tensor<1x1xf32>``, which fails to verify
    (``expected rank to be smaller or equal to the other rank``). A
    broadcast of an axis of extent 1 reads at position 0. With sizes IREE
    cannot see, the op keeps its loops; its result goes through a barrier
    tied to those sizes before any cast back to the static type (IREE would
    fold such a cast into the op):

    .. code-block:: mlir

        %one:2 = "util.optimization_barrier"(%c1, %c1) : (index, index) -> (index, index)
        %e = tensor.empty(%one#0, %one#1) : tensor<?x?xf32>
        %g = linalg.generic {indexing_maps = [#id], iterator_types = [...]}
            outs(%e : tensor<?x?xf32>) {
        ^bb0(%out: f32):
          %x = tensor.extract %v[%c0] : tensor<?xf32>
          linalg.yield %x : f32
        } -> tensor<?x?xf32>
        %b = "util.optimization_barrier"(%g) : (tensor<?x?xf32>) -> tensor<?x?xf32>
        %r = "flow.tensor.tie_shape"(%b, %one#0, %one#1)
            : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
    """
    generics = collect_ops(func, lambda op: _is_unit_broadcast(facts, op))
    index = ir.IndexType.get()
    for generic in generics:
        result = generic.results[0]
        static = ir.RankedTensorType(result.type)
        users = [use.owner for use in result.uses]
        with ir.InsertionPoint(generic), generic.location:
            dynamic = ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()] * static.rank,
                                              static.element_type)
            ones = opaque([arith.ConstantOp(index, 1).result] * static.rank)
            empty = ir.Operation.create("tensor.empty", results=[dynamic], operands=ones).result
        generic.operands[len(generic.operands) - 1] = empty
        result.set_type(dynamic)
        with ir.InsertionPoint.after(generic), generic.location:
            shielded = behind_barrier(result, ones)
            if static != dynamic:
                shielded = tensor.CastOp(static, shielded).result
        redirect(result, shielded, users)
    return len(generics)
