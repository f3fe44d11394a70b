"""Numpy broadcasting of traced tensors, with the shape from :mod:`symshape_mlir.shapes`.

Per operand axis: an extent proven equal to the result's is read as is
(``d<j>`` in the indexing map), a static 1 is read at index 0 (``0``);
any other (``batch`` against ``seq``, an upper bound against an exact
extent) is broadcast at run time by ``symshape.broadcast_in_dim`` to the
result's extents, which must then be exact.

Example:
    >>> plan = broadcast_operands("add", [x, bias], where)     # doctest: +SKIP
    >>> [o.map for o in plan.operands]                          # doctest: +SKIP
    [('d0', 'd1'), ('d1',)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from symshape_mlir.extent.expr import Const
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.extent.prove import prove_eq
from symshape_mlir.frontend.ops.generic import Operand
from symshape_mlir.frontend.source import SourceLocation
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import FunctionTrace, tensor_type
from symshape_mlir.shapes.broadcast import broadcast_shapes
from symshape_mlir.shapes.errors import BroadcastError
from symshape_mlir.shapes.shape import Shape, axis_name

__all__ = [
    "Broadcast",
    "broadcast_operands",
    "emit_broadcast_in_dim",
    "is_one",
    "located_broadcast_error",
    "read_leading_axes",
    "same_extent",
]


def is_one(extent: ShapeExtent) -> bool:
    """Whether ``extent`` is exactly the constant 1."""
    return extent.is_exact and extent.expr == Const(1)


def same_extent(a: ShapeExtent, b: ShapeExtent) -> bool:
    """Whether ``a`` and ``b`` are equal or provably equal exact extents."""
    if a == b:
        return True
    return isinstance(a, Exact) and isinstance(b, Exact) and prove_eq(a.expr, b.expr) is True


@dataclass(frozen=True)
class Broadcast:
    """Operands ready for a generic op over the broadcast result shape.

    Attributes:
        shape: the result shape.
        operands: each tensor operand with its indexing map.
        sources: per result axis, an operand axis carrying its run-time size.
    """

    shape: Shape
    operands: tuple[Operand, ...]
    sources: tuple[tuple[Tensor, int] | None, ...]


def located_broadcast_error(
    op: str, where: SourceLocation, err: BroadcastError, shapes: Sequence[Shape]
) -> BroadcastError:
    """``err`` with the op, the source line and the operand axes (names) in its message."""
    rank = max(s.rank for s in shapes)
    parts = []
    for extent, index in zip(err.extents, err.inputs, strict=True):
        axis = err.dim - (rank - shapes[index].rank)
        name = axis_name(extent)
        named = f" '{name}'" if name else ""
        parts.append(f"{extent} (input {index} axis {axis}{named})")
    located = BroadcastError(err.dim, err.extents, err.inputs, err.reason)
    reason = f": {err.reason}" if err.reason else ""
    located.args = (
        f"{op} at {where}: cannot broadcast dimension {err.dim}: {parts[0]} vs {parts[1]}"
        f"{reason}",
    )
    return located


def emit_broadcast_in_dim(
    trace: FunctionTrace,
    op: str,
    tensor: Tensor,
    dims: Sequence[int],
    target: Shape,
    where: SourceLocation,
) -> Tensor:
    """Emits ``symshape.broadcast_in_dim`` of ``tensor`` to exact ``target`` extents.

    Raises:
        ContractError: a target extent is only an upper bound.
    """
    trace.require_exact(op, "broadcast target extent", target.dims, where)
    payload, shape_operands = trace.payload(target.dims, 1, op=op, where=where)
    operands = [tensor, *shape_operands]
    name = trace.ssa("bc")
    values = ", ".join(t.value for t in operands)
    types = ", ".join(t.mlir_type for t in operands)
    dims_text = ", ".join(str(d) for d in dims)
    trace.emit(
        f"{name} = symshape.broadcast_in_dim {values} dims [{dims_text}] to {payload} : "
        f"({types}) -> {tensor_type(target, tensor.dtype)}",
        where,
    )
    return Tensor(trace, name, target, tensor.dtype)


def broadcast_operands(op: str, tensors: Sequence[Tensor], where: SourceLocation) -> Broadcast:
    """Broadcasts ``tensors`` numpy-style (see the module docstring).

    Raises:
        BroadcastError: provably incompatible extents (names the dimension,
            both extents, the operands' axes and their names).
        ContractError: a run-time broadcast to an upper-bound extent.
    """
    shapes = [t.symbolic_shape for t in tensors]
    try:
        result = broadcast_shapes(*shapes)
    except BroadcastError as err:
        raise located_broadcast_error(op, where, err, shapes) from None
    operands: list[Operand] = []
    sources: list[tuple[Tensor, int] | None] = [None] * result.rank
    for tensor in tensors:
        tensor, exprs = read_leading_axes(op, tensor, tensor.ndim, result.dims, result, sources,
                                          where)
        operands.append(Operand(tensor, tuple(exprs)))
    return Broadcast(Shape(result.dims), tuple(operands), tuple(sources))


def read_leading_axes(
    op: str, tensor: Tensor, count: int, out: Sequence[ShapeExtent], target: Shape,
    sources: list[tuple[Tensor, int] | None], where: SourceLocation,
) -> tuple[Tensor, list[str]]:
    """How a loop nest over the result axes ``out`` reads the first ``count``
    axes of ``tensor`` (right-aligned to ``out``).

    An axis of the result's extent reads ``d<i>``, a static 1 reads ``0``;
    if any axis needs a run-time broadcast, the tensor is first broadcast to
    ``target`` (its ``count`` axes onto ``out``, the rest kept) and every
    axis reads ``d<i>``. ``sources`` records, per result axis, the first
    tensor axis that gives it its size.

    Returns:
        The tensor to read (``tensor`` or its broadcast) and the index
        expression of each of those axes (``["d0", "0", "d2"]``).
    """
    offset = len(out) - count
    exprs: list[str] = []
    runtime = False
    for axis in range(count):
        extent = tensor.shape[axis]
        if same_extent(extent, out[axis + offset]):
            exprs.append(f"d{axis + offset}")
        elif is_one(extent):
            exprs.append("0")
        else:
            runtime = True
    if runtime:
        dims = range(offset, len(out) + tensor.ndim - count)
        tensor = emit_broadcast_in_dim(tensor.trace, op, tensor, dims, target, where)
        offset, exprs = 0, [f"d{j}" for j in range(len(out))]
    for axis, expr in enumerate(exprs):
        if expr != "0" and sources[axis + offset] is None:
            sources[axis + offset] = (tensor, axis)
    return tensor, exprs
