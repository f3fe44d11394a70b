"""IR helpers the shields share: a tensor's dynamic sizes, ties of a tensor
to sizes (``flow.tensor.tie_shape``), values IREE cannot look through
(``util.optimization_barrier``), and the op a value comes from before any
``tensor.cast``.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor

__all__ = [
    "TIES",
    "barrier",
    "behind_barrier",
    "chain",
    "dynamic_sizes",
    "opaque",
    "producer",
    "redirect",
    "tie_shape",
]


def dynamic_sizes(value: ir.Value) -> list[ir.Value]:
    """``tensor.dim`` of each dynamic axis of ``value``, at the insertion point."""
    type_ = ir.RankedTensorType(value.type)
    index = ir.IndexType.get()
    return [tensor.DimOp(value, arith.ConstantOp(index, axis).result).result
            for axis in range(type_.rank) if type_.is_dynamic_dim(axis)]


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
    hidden = barrier(value)
    return tie_shape(hidden, sizes) if sizes else hidden
