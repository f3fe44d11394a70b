"""Reductions: ``sum prod mean max min all any`` with ``axis`` and ``keepdims``.

Shapes come from :func:`symshape_mlir.shapes.reduce_shape` (``axis=None``
reduces everything to rank 0). Each reduction is a ``linalg.generic`` with
``reduction`` iterators into a filled accumulator; ``keepdims`` re-inserts
the reduced axes with ``tensor.expand_shape``. Types follow numpy: ``sum``
and ``prod`` of booleans and of integers narrower than 64 bits are ``i64``,
``mean`` of integers is ``f64``, ``all`` and ``any`` are ``i1``. ``mean``
divides by the element count read at run time (``NaN`` for an empty
reduction, as numpy); ``max`` and ``min`` of an empty float reduction are
``-inf`` and ``inf`` (numpy raises).

Example:
    >>> def f(x):                        # x: [batch, seq, 64]
    ...     return x.mean(axis=-1, keepdims=True)       # [batch, seq, 1]
"""

from __future__ import annotations

from collections.abc import Sequence

from symshape_mlir.frontend.dtypes import DType, i1, i64, u64
from symshape_mlir.frontend.errors import FrontendError, ShapeError
from symshape_mlir.frontend.ops.elementwise import astype, elementwise, equal
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_fill, emit_generic
from symshape_mlir.frontend.ops.shape_ops import expand_like, insert_unit_axes
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.frontend.vjp import Cotangents, Node, composite, primitive, save, vjp_rule
from symshape_mlir.shapes.rules import normalize_axes, reduce_shape

__all__ = [
    "COMBINE",
    "all",
    "any",
    "combine_op",
    "identity",
    "max",
    "mean",
    "min",
    "prod",
    "reduce",
    "reduced_axes",
    "sum",
]

Axis = int | Sequence[int] | None


def reduced_axes(op: str, x: Tensor, axis: Axis, where: SourceLocation) -> tuple[int, ...]:
    """The axes ``axis`` names (all for None), normalized.

    Raises:
        ShapeError: an axis out of range, or named twice.
        FrontendError: an axis that is not an int.
    """
    items = (axis,) if isinstance(axis, int) else axis
    # (`any` and `all` are this module's reductions.)
    if axis is not None and (isinstance(axis, bool) or not isinstance(items, Sequence) or [
            a for a in items if isinstance(a, bool) or not isinstance(a, int)]):
        raise FrontendError(f"{op} at {where}: axis must be an int, a sequence of ints or "
                            f"None, not {axis!r}")
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
    if kind == "max":
        return float("-inf") if dtype.is_float else dtype.int_range[0]
    return float("inf") if dtype.is_float else dtype.int_range[1]


#: Per reduction kind, its combining op for (floating-point, signed integer) types.
COMBINE = {
    "sum": ("arith.addf", "arith.addi"),
    "prod": ("arith.mulf", "arith.muli"),
    "max": ("arith.maximumf", "arith.maxsi"),
    "min": ("arith.minimumf", "arith.minsi"),
}
_UNSIGNED = {"sum": "arith.addi", "prod": "arith.muli", "max": "arith.maxui",
             "min": "arith.minui"}


def combine_op(kind: str, dtype: DType) -> str:
    """The op combining two values of ``dtype`` in a reduction of ``kind``."""
    if dtype.is_float:
        return COMBINE[kind][0]
    return _UNSIGNED[kind] if dtype.is_unsigned or dtype.is_bool else COMBINE[kind][1]


@primitive("reduce", label_from="kind")
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
    axes = reduced_axes(kind, x, axis, where)
    if kind in ("sum", "prod") and not x.dtype.is_float and (x.dtype.is_bool or x.dtype.bits < 64):
        x = astype(x, u64 if x.dtype.is_unsigned else i64, where)
    save(axes=axes)
    reduced = set(axes)
    kept = [a for a in range(x.ndim) if a not in reduced]
    shape = reduce_shape(x.symbolic_shape, axes)
    trace = x.trace
    init = emit_empty(trace, shape, x.dtype, [(x, a) for a in kept], where)
    filled = emit_fill(
        trace, init, x.dtype, identity(kind, x.dtype), tensor_type(shape, x.dtype), where
    )
    dtype = x.dtype
    op = combine_op(kind, dtype)

    def body(block: Body, args: list[str]) -> str:
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


@composite
def sum(x: Tensor, axis: Axis = None, *, keepdims: bool = False) -> Tensor:
    """``numpy.sum``."""
    return reduce("sum", x, axis, keepdims=keepdims, where=user_location())


@composite
def max(x: Tensor, axis: Axis = None, *, keepdims: bool = False) -> Tensor:
    """``numpy.max`` (``-inf`` for an empty float reduction, where numpy raises)."""
    return reduce("max", x, axis, keepdims=keepdims, where=user_location())


@composite
def min(x: Tensor, axis: Axis = None, *, keepdims: bool = False) -> Tensor:
    """``numpy.min`` (``inf`` for an empty float reduction, where numpy raises)."""
    return reduce("min", x, axis, keepdims=keepdims, where=user_location())


@composite
def prod(x: Tensor, axis: Axis = None, *, keepdims: bool = False) -> Tensor:
    """``numpy.prod``."""
    return reduce("prod", x, axis, keepdims=keepdims, where=user_location())


@composite
def all(x: Tensor, axis: Axis = None, *, keepdims: bool = False) -> Tensor:
    """``numpy.all`` (an ``i1`` tensor; true for an empty reduction)."""
    where = user_location()
    return reduce("min", astype(x, i1, where), axis, keepdims=keepdims, where=where)


@composite
def any(x: Tensor, axis: Axis = None, *, keepdims: bool = False) -> Tensor:
    """``numpy.any`` (an ``i1`` tensor; false for an empty reduction)."""
    where = user_location()
    return reduce("max", astype(x, i1, where), axis, keepdims=keepdims, where=where)


def element_count(x: Tensor, axes: Sequence[int], dtype: DType, where: SourceLocation) -> str:
    """The number of elements ``axes`` of ``x`` hold, read at run time, as a
    scalar of the float type ``dtype``."""
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
    trace.emit(f"{scalar} = arith.sitofp {wide} : i64 to {dtype.mlir}", where)
    return scalar


@primitive("mean")
def mean(x: Tensor, axis: Axis = None, *, keepdims: bool = False) -> Tensor:
    """``numpy.mean`` (integers as ``f64``)."""
    where = user_location()
    if not x.dtype.is_float:
        x = astype(x, "f64", where)
    axes = reduced_axes("mean", x, axis, where)
    save(axes=axes)
    total = reduce("sum", x, axes, keepdims=keepdims, where=where)
    scalar = element_count(x, axes, x.dtype, where)

    def body(block: Body, values: list[str], dtype: DType) -> str:
        return block.op(f"arith.divf {values[0]}, {scalar}", dtype.mlir)

    return elementwise("mean", [total], body, where)


# -- VJP rules -------------------------------------------------------------------------


def _spread(node: Node, value: Tensor, axes: Sequence[int], keepdims: bool) -> Tensor:
    """A reduction's result (or cotangent) over the input's shape: the reduced
    axes put back as 1 (unless kept), then repeated along them."""
    if not keepdims and axes:
        value = insert_unit_axes(value, sorted(axes), node.where)
    return expand_like(value, node.args["x"], node.where)


@vjp_rule("reduce")
def _reduce_vjp(node: Node, ct: Tensor) -> Cotangents:
    kind: str = node.args["kind"]
    x: Tensor = node.args["x"]
    axes: tuple[int, ...] = node.saved["axes"]
    keepdims: bool = node.args["keepdims"]
    if kind == "sum":
        return {"x": _spread(node, ct, axes, keepdims)}
    if kind == "prod":
        return {"x": _spread(node, ct, axes, keepdims) * _others_product(x, axes, node.where)}
    # max and min: the cotangent is shared by the entries equal to the result
    # (evenly among ties, as jax). Broadcasting reads the kept axes of 1 at 0.
    kept, top = ct, node.out
    if not keepdims and axes:
        kept = insert_unit_axes(ct, sorted(axes), node.where)
        top = insert_unit_axes(top, sorted(axes), node.where)
    hit = astype(equal(x, top), x.dtype, node.where)
    count = reduce("sum", hit, axes, keepdims=True, where=node.where)
    return {"x": hit * (kept / count)}


def _others_product(x: Tensor, axes: Sequence[int], where: SourceLocation) -> Tensor:
    """Per entry of ``x``, the product of the other entries of its reduction
    over ``axes`` (no division: right where entries are 0). Quadratic in the
    reduced size, as the scans are."""
    trace, dtype, rank = x.trace, x.dtype, x.ndim
    init = emit_empty(trace, x.symbolic_shape, dtype, [(x, a) for a in range(rank)], where)
    filled = emit_fill(trace, init, dtype, 1.0, x.mlir_type, where)
    reduced = sorted(axes)
    # Loops: the entry's position (d0..), then the other entry's reduced axes.
    other = tuple(f"d{rank + reduced.index(a)}" if a in reduced else f"d{a}"
                  for a in range(rank))

    def body(block: Body, args: list[str]) -> str:
        value, acc = args
        same: str | None = None
        for k, a in enumerate(reduced):
            here = block.op(f"linalg.index {a}", "index")
            there = block.op(f"linalg.index {rank + k}", "index")
            equal_ = block.op(f"arith.cmpi eq, {here}, {there}", "index")
            same = equal_ if same is None else block.op(f"arith.andi {same}, {equal_}", "i1")
        assert same is not None
        term = block.op(f"arith.select {same}, {block.const(dtype, 1.0)}, {value}", dtype.mlir)
        return block.op(f"arith.mulf {acc}, {term}", dtype.mlir)

    return emit_generic(trace, [Operand(x, other)], rank + len(reduced),
                        ["parallel"] * rank + ["reduction"] * len(reduced),
                        [f"d{a}" for a in range(rank)], x.symbolic_shape, dtype, filled, body,
                        where)


@vjp_rule("mean")
def _mean_vjp(node: Node, ct: Tensor) -> Cotangents:
    x: Tensor = node.args["x"]
    axes: tuple[int, ...] = node.saved["axes"]
    spread = _spread(node, ct, axes, node.args["keepdims"])
    count = element_count(x, axes, spread.dtype, node.where)

    def body(block: Body, values: list[str], dtype: DType) -> str:
        return block.op(f"arith.divf {values[0]}, {count}", dtype.mlir)

    return {"x": elementwise("mean", [spread], body, node.where)}
