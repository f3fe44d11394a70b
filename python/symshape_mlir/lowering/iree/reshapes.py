"""Reshapes at run-time sizes: their target sizes, and sources IREE
cannot look into, passed through barriers.
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.lowering.iree.barriers import (
    TIES,
    barrier,
    behind_barrier,
    chain,
    dynamic_sizes,
    producer,
)
from symshape_mlir.lowering.iree.folding import folded
from symshape_mlir.walk import collect_ops

__all__ = ["shield_reshape_sizes", "shield_reshape_sources"]


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


# Producers IREE cannot look into when it partitions: loops, branches,
# barriers.
_OPAQUE = ("scf.for", "scf.while", "scf.if", "util.optimization_barrier")


def _readers(value: ir.Value) -> list[ir.Operation]:
    """The ops that read ``value``, through casts and shape ties (a
    ``tensor.dim`` reads only its size)."""
    readers = []
    for use in value.uses:
        owner = use.owner.operation if isinstance(use.owner, ir.OpView) else use.owner
        if owner.name in TIES:
            readers += _readers(owner.results[0])
        elif owner.name != "tensor.dim":
            readers.append(owner)
    return readers


def _runtime_target(reshape: ir.Operation) -> bool:
    """Whether some target size of a ``tensor.reshape`` does not fold."""
    shape = reshape.operands[1].owner
    if not (isinstance(shape, ir.OpView) and shape.name == "tensor.from_elements"):
        return not (isinstance(shape, ir.OpView) and shape.name == "arith.constant")
    return any(folded(size) is None for size in shape.operands)


def shield_reshape_sources(func: ir.Operation) -> int:
    """Passes the source of each ``tensor.reshape`` at run-time sizes that
    comes from a loop, a branch or a barrier (possibly cast or tied to its
    sizes) and is read by other ops too through ``util.optimization_barrier``
    (and its sizes); returns how many.

    IREE 3.13 fails to order the partitions around such a source (``failed
    to schedule execution partitions without cyclic dependencies``): a
    choice flattened and also truncated, a checked cast to a static size
    (`shield_static_casts` puts it behind a barrier) flattened and also
    added to itself. With the reshape reading its own barrier it compiles:

    .. code-block:: mlir

        %v = scf.if %c -> (tensor<?x?xf32>) { ... }
        %b = "util.optimization_barrier"(%v) : (tensor<?x?xf32>) -> tensor<?x?xf32>
        %t = "flow.tensor.tie_shape"(%b, %rows, %cols)
            : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
        %flat = tensor.reshape %t(%shape) : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?xf32>
        %head = tensor.extract_slice %v[0, 0] [%k, %cols] [1, 1]
            : tensor<?x?xf32> to tensor<?x?xf32>
    """
    shielded = 0
    for op in collect_ops(func, lambda op: op.name == "tensor.reshape" and _runtime_target(op)):
        source = op.operands[0]
        origin = chain(source, TIES)[-1]
        owner = origin.owner
        if not (isinstance(owner, ir.OpView) and owner.name in _OPAQUE):
            continue
        if len(_readers(origin)) < 2:
            continue
        with ir.InsertionPoint(op), op.location:
            op.operands[0] = behind_barrier(source, dynamic_sizes(source))
        shielded += 1
    return shielded
