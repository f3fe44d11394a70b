"""IR helpers the shields share: a tensor's dynamic sizes, ties of a tensor
to sizes (``flow.tensor.tie_shape``), values IREE cannot look through
(``util.optimization_barrier``), values IREE computes in another dispatch
than their readers (``iree_tensor_ext.compute_barrier.start``), and the op a
value comes from before any ``tensor.cast``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith, tensor

from symshape_mlir.attributes import reassociation

__all__ = [
    "TIES",
    "axis_sizes",
    "barrier",
    "behind_barrier",
    "chain",
    "collapse",
    "dynamic_sizes",
    "expand",
    "hidden",
    "opaque",
    "producer",
    "redirect",
    "sizes_by_axis",
    "tie_shape",
    "unfused",
]


def dynamic_sizes(value: ir.Value) -> list[ir.Value]:
    """``tensor.dim`` of each dynamic axis of ``value``, at the insertion point."""
    type_ = ir.RankedTensorType(value.type)
    index = ir.IndexType.get()
    return [tensor.DimOp(value, arith.ConstantOp(index, axis).result).result
            for axis in range(type_.rank) if type_.is_dynamic_dim(axis)]


def sizes_by_axis(type_: ir.RankedTensorType,
                  dynamic: Sequence[ir.Value]) -> list[ir.Value | int]:
    """Each axis's size of ``type_``: a static one as an int, a dynamic one
    taken in order from ``dynamic`` (a ``tensor.empty``'s operands, or
    `dynamic_sizes`)."""
    values = iter(dynamic)
    return [next(values) if type_.is_dynamic_dim(axis) else int(type_.shape[axis])
            for axis in range(type_.rank)]


def axis_sizes(value: ir.Value) -> list[ir.Value | int]:
    """Each axis's size of ``value`` (`sizes_by_axis` of its `dynamic_sizes`)."""
    return sizes_by_axis(ir.RankedTensorType(value.type), dynamic_sizes(value))


def collapse(value: ir.Value, groups: list[list[int]]) -> ir.Value:
    """``value`` with each group of axes collapsed into one (dynamic if any is)."""
    type_ = ir.RankedTensorType(value.type)
    sizes = [ir.ShapedType.get_dynamic_size() if any(type_.is_dynamic_dim(a) for a in group)
             else math.prod(type_.shape[a] for a in group) for group in groups]
    collapsed = ir.RankedTensorType.get(sizes, type_.element_type)
    return tensor.CollapseShapeOp(collapsed, value, reassociation(groups)).result


def expand(value: ir.Value, type_: ir.RankedTensorType, groups: list[list[int]],
           sizes: Sequence[ir.Value | int]) -> ir.Value:
    """``value`` with each of its axes expanded into a group of ``type_``'s,
    whose sizes are ``sizes`` (`axis_sizes` of the uncollapsed tensor)."""
    dynamic = [s for s in sizes if isinstance(s, ir.Value)]
    return tensor.ExpandShapeOp(type_, value, reassociation(groups), dynamic,
                                ir.DenseI64ArrayAttr.get(list(type_.shape))).result


def redirect(value: ir.Value, replacement: ir.Value, users: list) -> None:
    """Makes ``users`` (taken before ``replacement`` was built on ``value``)
    read ``replacement``."""
    for user in users:
        owner = user.operation if isinstance(user, ir.OpView) else user
        for i, operand in enumerate(owner.operands):
            if operand == value:
                owner.operands[i] = replacement


def tie_shape(value: ir.Value, sizes: list[ir.Value]) -> ir.Value:
    return ir.Operation.create("flow.tensor.tie_shape", results=[value.type],
                               operands=[value, *sizes]).result


def opaque(values: list[ir.Value]) -> list[ir.Value]:
    """``values`` through one ``util.optimization_barrier``: copies IREE
    cannot find equal to any other value (nor fold into their producers)."""
    if not values:
        return []
    barrier = ir.Operation.create("util.optimization_barrier",
                                  results=[value.type for value in values], operands=values)
    return list(barrier.results)


def barrier(value: ir.Value) -> ir.Value:
    return opaque([value])[0]


# Ops a tensor passes through unchanged, as metadata: casts (IREE folds
# them into the op that reads them) and the shape ties of this package.
TIES = ("tensor.cast", "flow.tensor.tie_shape")


def chain(value: ir.Value, through: tuple[str, ...] = ("tensor.cast",)) -> list[ir.Value]:
    """``value``, then the source of each op in ``through`` it comes from."""
    values = [value]
    while isinstance(owner := values[-1].owner, ir.OpView) and owner.name in through:
        values.append(owner.operands[0])
    return values


def producer(value: ir.Value) -> ir.OpView | None:
    """The op that makes ``value`` before any cast (``None``: an argument)."""
    owner = chain(value)[-1].owner
    return owner if isinstance(owner, ir.OpView) else None


def behind_barrier(value: ir.Value, sizes: list[ir.Value]) -> ir.Value:
    """``value`` through ``util.optimization_barrier``, tied to ``sizes`` (its
    dynamic sizes) so that IREE still knows them."""
    held = barrier(value)
    return tie_shape(held, sizes) if sizes else held


#: IREE's own marker that no dispatch spans (dropped once dispatches are formed).
COMPUTE_BARRIER = "iree_tensor_ext.compute_barrier.start"


def unfused(value: ir.Value) -> ir.Value:
    """``value`` through `COMPUTE_BARRIER`, with its dynamic sizes: what makes
    it and what reads it go to different dispatches of one submission. A
    ``util.optimization_barrier`` does that too but makes the host wait for
    the device before it (one more submission per call: 7 instead of 1 in
    wav2vec2's static variant, each a wake-up of the calling thread on
    ``local-task``)::

        %b = "iree_tensor_ext.compute_barrier.start"(%t, %d0)
            : (tensor<?x8xf32>, index) -> tensor<?x8xf32>
    """
    return ir.Operation.create(COMPUTE_BARRIER, results=[value.type],
                               operands=[value, *dynamic_sizes(value)]).result


def hidden(value: ir.Value) -> ir.Value:
    """``value`` `unfused` unless it already is (or is behind a barrier): IREE
    then keeps what makes it out of the dispatch that reads it."""
    owner = value.owner
    if isinstance(owner, ir.OpView) and owner.name in (
            "flow.tensor.tie_shape", "util.optimization_barrier", COMPUTE_BARRIER):
        return value
    return unfused(value)
