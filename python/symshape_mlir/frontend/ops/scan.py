"""Running totals: ``cumsum`` and ``cumprod`` along an axis, and ``scan`` (ONNX ``CumSum``).

Entry ``i`` combines the entries ``j <= i`` (``j < i`` when exclusive; ``j >=
i`` / ``j > i`` in reverse): one ``linalg.generic`` whose reduction loop runs
over the whole axis and keeps those entries (``linalg.index``), so the work is
quadratic in the axis's extent and fully parallel across it, which suits the
short axes scans meet in models. ``cumsum``/``cumprod`` types follow numpy
(booleans and integers narrower than 64 bits give ``i64``; ``axis=None`` scans
the flattened tensor); ``scan`` keeps the element type.

Example:
    >>> def f(x):                        # x: [batch, seq] f32
    ...     return cumsum(x, axis=1)     # [batch, seq]
"""

from __future__ import annotations

from symshape_mlir.frontend.dtypes import i64, u64
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.ops.elementwise import astype
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_fill, emit_generic
from symshape_mlir.frontend.ops.reductions import combine_op, identity, reduced_axes
from symshape_mlir.frontend.ops.shape_ops import reshape
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.vjp import (
    ADError,
    Cotangents,
    Node,
    composite,
    primitive,
    save,
    vjp_rule,
)

__all__ = ["cumprod", "cumsum", "scan"]


@composite
def cumsum(x: Tensor, axis: int | None = None) -> Tensor:
    """``numpy.cumsum``."""
    return _scan("cumsum", "sum", x, axis, user_location())


@composite
def cumprod(x: Tensor, axis: int | None = None) -> Tensor:
    """``numpy.cumprod``."""
    return _scan("cumprod", "prod", x, axis, user_location())


def _scan(op: str, kind: str, x: Tensor, axis: int | None, where: SourceLocation) -> Tensor:
    if axis is None:
        x, axis = reshape(x, [-1]) if x.ndim != 1 else x, 0
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise FrontendError(f"{op} at {where}: axis must be an int or None, not {axis!r}")
    if not x.dtype.is_float and (x.dtype.is_bool or x.dtype.bits < 64):
        x = astype(x, u64 if x.dtype.is_unsigned else i64, where)
    return scan(kind, x, axis, where=where, op=op)


@primitive("scan", label_from="op")
def scan(kind: str, x: Tensor, axis: int, *, exclusive: bool = False, reverse: bool = False,
         where: SourceLocation | None = None, op: str = "scan") -> Tensor:
    """The running ``kind`` (``"sum"`` or ``"prod"``) of ``x`` along ``axis``, in ``x``'s
    element type.

    Raises:
        FrontendError: a boolean tensor.
        ShapeError: ``axis`` out of range.
    """
    where = where or user_location()
    if x.dtype.is_bool:
        raise FrontendError(f"{op} at {where}: element type i1 is not supported")
    (axis,) = reduced_axes(op, x, axis, where)
    save(axis=axis)
    trace = x.trace
    dtype = x.dtype
    rank = x.ndim
    init = emit_empty(trace, x.symbolic_shape, dtype, [(x, a) for a in range(rank)], where)
    filled = emit_fill(trace, init, dtype, identity(kind, dtype), x.mlir_type, where)
    # Loops d0..d{rank-1} are the result's; d{rank} runs over the axis read.
    read = tuple(f"d{rank}" if a == axis else f"d{a}" for a in range(rank))
    op_name = combine_op(kind, dtype)
    predicate = {(False, False): "ule", (True, False): "ult",
                 (False, True): "uge", (True, True): "ugt"}[(exclusive, reverse)]

    def body(block: Body, args: list[str]) -> str:
        value, acc = args
        here = block.op(f"linalg.index {axis}", "index")
        there = block.op(f"linalg.index {rank}", "index")
        kept = block.op(f"arith.cmpi {predicate}, {there}, {here}", "index")
        neutral = block.const(dtype, identity(kind, dtype))
        term = block.op(f"arith.select {kept}, {value}, {neutral}", dtype.mlir)
        return block.op(f"{op_name} {acc}, {term}", dtype.mlir)

    return emit_generic(
        trace, [Operand(x, read)], rank + 1, ["parallel"] * rank + ["reduction"],
        [f"d{a}" for a in range(rank)], x.symbolic_shape, dtype, filled, body, where)


@vjp_rule("scan")
def _scan_vjp(node: Node, ct: Tensor) -> Cotangents:
    # A running sum's cotangent is the running sum of ct the other way.
    if node.args["kind"] != "sum":
        raise ADError(f"{node.describe()}: a running product has no VJP rule",
                      primitive=node.label, location=node.where)
    return {"x": scan("sum", ct, node.saved["axis"], exclusive=node.args["exclusive"],
                      reverse=not node.args["reverse"], where=node.where)}
