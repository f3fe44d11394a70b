"""Reductions: ``sum``, ``mean``, ``max``, ``min`` with ``axis`` and ``keepdims``.

Shapes come from :func:`symshape_mlir.shapes.reduce_shape` (``axis=None``
reduces everything to rank 0). Each reduction is a ``linalg.generic`` with
``reduction`` iterators into a filled accumulator; ``keepdims`` re-inserts
the reduced axes with ``tensor.expand_shape``. ``mean`` divides by the
element count read at run time (``NaN`` for an empty reduction, as numpy).

Example:
    >>> def f(x):                        # x: [batch, seq, 64]
    ...     return x.mean(axis=-1, keepdims=True)       # [batch, seq, 1]
"""

from __future__ import annotations

from collections.abc import Sequence

from symshape_mlir.frontend.dtypes import DType
from symshape_mlir.frontend.errors import ShapeError
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_fill, emit_generic
from symshape_mlir.frontend.ops.shape_ops import insert_unit_axes
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.shapes.rules import normalize_axes, reduce_shape

__all__ = ["COMBINE", "identity", "max", "mean", "min", "reduce", "sum"]

Axis = int | Sequence[int] | None


def _axes(op: str, x: Tensor, axis: Axis, where: SourceLocation) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(x.ndim))
    try:
        return normalize_axes((axis,) if isinstance(axis, int) else axis, x.ndim)
    except ShapeError as err:
        raise ShapeError(f"{op} at {where}: {err}") from None


def identity(kind: str, dtype: DType) -> float | int:
    """The identity of reduction ``kind`` (``sum``, ``prod``, ``max``, ``min``) in ``dtype``."""
    if kind == "sum":
        return 0.0 if dtype.is_float else 0
    if kind == "prod":
        return 1.0 if dtype.is_float else 1
    bits = 8 * dtype.numpy.itemsize
    if kind == "max":
        return float("-inf") if dtype.is_float else -(2 ** (bits - 1))
    return float("inf") if dtype.is_float else 2 ** (bits - 1) - 1


#: Per reduction kind, its combining op for (floating-point, integer) types.
COMBINE = {
    "sum": ("arith.addf", "arith.addi"),
    "prod": ("arith.mulf", "arith.muli"),
    "max": ("arith.maximumf", "arith.maxsi"),
    "min": ("arith.minimumf", "arith.minsi"),
}


def reduce(
    kind: str,
    x: Tensor,
    axis: Axis = None,
    *,
    keepdims: bool = False,
    where: SourceLocation | None = None,
) -> Tensor:
    """Reduces ``x`` over ``axis`` with ``kind`` (``"sum"``, ``"prod"``, ``"max"`` or ``"min"``)."""
    where = where or user_location()
    axes = _axes(kind, x, axis, where)
    reduced = set(axes)
    kept = [a for a in range(x.ndim) if a not in reduced]
    shape = reduce_shape(x.symbolic_shape, axes)
    trace = x.trace
    init = emit_empty(trace, shape, x.dtype, [(x, a) for a in kept], where)
    filled = emit_fill(
        trace, init, x.dtype, identity(kind, x.dtype), tensor_type(shape, x.dtype), where
    )
    float_op, int_op = COMBINE[kind]
    dtype = x.dtype

    def body(block: Body, args: list[str]) -> str:
        op = float_op if dtype.is_float else int_op
        return block.op(f"{op} {args[0]}, {args[1]}", dtype.mlir)

    loops = [f"d{a}" for a in range(x.ndim)]
    iterators = ["reduction" if a in reduced else "parallel" for a in range(x.ndim)]
    result = emit_generic(
        trace,
        [Operand(x, tuple(loops))],
        x.ndim,
        iterators,
        [f"d{a}" for a in kept],
        shape,
        dtype,
        filled,
        body,
        where,
    )
    if keepdims and reduced:
        result = insert_unit_axes(result, sorted(reduced), where)
    return result


def sum(x: Tensor, axis: Axis = None, *, keepdims: bool = False) -> Tensor:
    """``numpy.sum``."""
    return reduce("sum", x, axis, keepdims=keepdims, where=user_location())


def max(x: Tensor, axis: Axis = None, *, keepdims: bool = False) -> Tensor:
    """``numpy.max`` (``-inf`` for an empty float reduction, where numpy raises)."""
    return reduce("max", x, axis, keepdims=keepdims, where=user_location())


def min(x: Tensor, axis: Axis = None, *, keepdims: bool = False) -> Tensor:
    """``numpy.min`` (``inf`` for an empty float reduction, where numpy raises)."""
    return reduce("min", x, axis, keepdims=keepdims, where=user_location())


def mean(x: Tensor, axis: Axis = None, *, keepdims: bool = False) -> Tensor:
    """``numpy.mean`` (floating-point types only)."""
    where = user_location()
    if not x.dtype.is_float:
        raise ShapeError(f"mean at {where}: needs a floating-point type, not {x.dtype}")
    axes = _axes("mean", x, axis, where)
    total = reduce("sum", x, axes, keepdims=keepdims, where=where)
    trace = x.trace
    count = trace.index_const(1, where)
    for a in axes:
        size = trace.dim_index(x, a, where)
        product = trace.ssa("i")
        trace.emit(f"{product} = arith.muli {count}, {size} : index", where)
        count = product
    wide = trace.ssa("i")
    trace.emit(f"{wide} = arith.index_cast {count} : index to i64", where)
    scalar = trace.ssa("s")
    trace.emit(f"{scalar} = arith.sitofp {wide} : i64 to {x.dtype.mlir}", where)
    from symshape_mlir.frontend.ops.elementwise import elementwise

    def body(block: Body, values: list[str], dtype: DType) -> str:
        return block.op(f"arith.divf {values[0]}, {scalar}", dtype.mlir)

    return elementwise("mean", [total], body, where)
