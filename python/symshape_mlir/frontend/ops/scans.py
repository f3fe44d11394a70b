"""Scans: ``cumsum`` and ``cumprod`` along an axis (inclusive or exclusive, either way).

A scan is one ``linalg.generic`` with an extra reduction loop ``j`` over the
scanned axis: ``out[..., i, ...]`` combines ``x[..., j, ...]`` for every
``j <= i`` (``j < i`` when exclusive; ``j >= i`` / ``j > i`` in reverse),
the others contributing the identity. The work is quadratic in the axis's
extent and fully parallel across it, which suits the short axes scans meet
in models (positions from a mask over ``seq``).

Example:
    >>> def positions(mask):                  # mask: [batch, seq] i64
    ...     return cumsum(mask, axis=1)        # [batch, seq]

    .. code-block:: mlir

        %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                              affine_map<(d0, d1, d2) -> (d0, d1)>],
                             iterator_types = ["parallel", "parallel", "reduction"]} ...
"""

from __future__ import annotations

from symshape_mlir.frontend.errors import FrontendError, ShapeError
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_fill, emit_generic
from symshape_mlir.frontend.ops.reductions import COMBINE, identity
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.shapes.rules import normalize_axes

__all__ = ["cumprod", "cumsum", "scan"]


def scan(
    kind: str,
    x: Tensor,
    axis: int,
    *,
    exclusive: bool = False,
    reverse: bool = False,
    where: SourceLocation | None = None,
) -> Tensor:
    """The running ``kind`` (``"sum"`` or ``"prod"``) of ``x`` along ``axis``.

    Raises:
        FrontendError: a boolean tensor.
        ShapeError: ``axis`` out of range.
    """
    where = where or user_location()
    if x.dtype.is_bool:
        raise FrontendError(f"cum{kind} at {where}: element type i1 is not supported")
    try:
        (axis,) = normalize_axes((axis,), x.ndim)
    except ShapeError as err:
        raise ShapeError(f"cum{kind} at {where}: {err}") from None
    trace, dtype = x.trace, x.dtype
    init = emit_empty(trace, x.symbolic_shape, dtype, [(x, a) for a in range(x.ndim)], where)
    filled = emit_fill(trace, init, dtype, identity(kind, dtype),
                       tensor_type(x.shape, dtype), where)
    rank = x.ndim
    outer = [f"d{a}" for a in range(rank)]
    inner = [f"d{rank}" if a == axis else f"d{a}" for a in range(rank)]
    float_op, int_op = COMBINE[kind]
    combine = float_op if dtype.is_float else int_op
    predicate = {(False, False): "ule", (True, False): "ult",
                 (False, True): "uge", (True, True): "ugt"}[(exclusive, reverse)]

    def body(block: Body, args: list[str]) -> str:
        i = block.op(f"linalg.index {axis}", "index")
        j = block.op(f"linalg.index {rank}", "index")
        taken = block.op(f"arith.cmpi {predicate}, {j}, {i}", "index")
        value = block.op(f"arith.select {taken}, {args[0]}, "
                         f"{block.const(dtype, identity(kind, dtype))}", dtype.mlir)
        return block.op(f"{combine} {args[1]}, {value}", dtype.mlir)

    return emit_generic(
        trace, [Operand(x, tuple(inner))], rank + 1, ["parallel"] * rank + ["reduction"],
        outer, x.symbolic_shape, dtype, filled, body, where,
    )


def cumsum(x: Tensor, axis: int | None = None) -> Tensor:
    """``numpy.cumsum`` (``axis=None`` scans the flattened tensor)."""
    where = user_location()
    if axis is None:
        x, axis = x.reshape(-1), 0
    return scan("sum", x, axis, where=where)


def cumprod(x: Tensor, axis: int | None = None) -> Tensor:
    """``numpy.cumprod`` (``axis=None`` scans the flattened tensor)."""
    where = user_location()
    if axis is None:
        x, axis = x.reshape(-1), 0
    return scan("prod", x, axis, where=where)
