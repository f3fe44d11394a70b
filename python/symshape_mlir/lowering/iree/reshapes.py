"""Run-time target sizes of reshapes, passed through barriers (IREE 3.13
re-derives them as if no axis could be 0).
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.lowering.iree.barriers import barrier, producer
from symshape_mlir.lowering.iree.folding import folded
from symshape_mlir.walk import collect_ops

__all__ = ["shield_reshape_sizes"]


def _is_reshaped(value: ir.Value) -> bool:
    """Whether ``value`` comes from a reshape, possibly cast."""
    owner = producer(value)
    return owner is not None and owner.name in (
        "tensor.reshape", "tensor.expand_shape", "tensor.collapse_shape")


def shield_reshape_sizes(func: ir.Operation) -> int:
    """Passes the run-time target sizes of each ``tensor.reshape``, and of
    each ``tensor.expand_shape`` of a reshaped tensor, through
    ``util.optimization_barrier``; returns how many sizes.

    IREE 3.13 re-derives the sizes of such a reshape from the element count
    as if no axis could be 0: reshaping a ``0 x 4`` tensor to ``[rows,
    rows]`` (``0 x 0``) returned a ``0 x 4`` result. Sizes it cannot look
    through are taken as given. Sizes that fold to constants (`folded`)
    stay in plain sight: IREE sizes those right, and a constant behind a
    barrier made it fail to order the partitions around a loop result that
    is reshaped and also read (``failed to schedule execution partitions
    without cyclic dependencies``):

    .. code-block:: mlir

        %n = arith.index_cast %rows : index to i64
        %b = "util.optimization_barrier"(%n) : (i64) -> i64
        %s = tensor.from_elements %b, %b : tensor<2xi64>
        %r = tensor.reshape %x(%s) : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
    """
    shielded = 0
    for op in collect_ops(func, lambda op: op.name == "tensor.reshape" or (
            op.name == "tensor.expand_shape" and _is_reshaped(op.operands[0]))):
        if op.name == "tensor.reshape":
            shape = op.operands[1].owner
            if not (isinstance(shape, ir.OpView) and shape.name == "tensor.from_elements"):
                continue
            sizes, first = shape, 0
        else:
            sizes, first = op, 1
        for i in range(first, len(sizes.operands)):
            if folded(sizes.operands[i]) is None:
                with ir.InsertionPoint(sizes), sizes.location:
                    sizes.operands[i] = barrier(sizes.operands[i])
                shielded += 1
    return shielded
