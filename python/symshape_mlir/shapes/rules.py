"""Shape rules of the elementwise, reduction and matmul op families.

Seed rules extended to symbolic extents: unary ops keep the shape; binary
elementwise ops broadcast (:func:`~symshape_mlir.shapes.broadcast.broadcast_shapes`);
a full reduction gives rank 0 (never ``[1]``); an axis reduction rejects
out-of-range and repeated axes (negative axes count from the end); matmul
needs rank >= 2 on both sides, equal contraction extents and broadcasts the
batch dimensions; a concatenation unifies the other axes and sums its own.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence

from symshape_mlir.extent.context import ExtentContext
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.extent.prove import prove_eq
from symshape_mlir.shapes.broadcast import broadcast_shapes
from symshape_mlir.shapes.checks import ShapeCheck
from symshape_mlir.shapes.errors import AxisConflictError, ShapeError
from symshape_mlir.shapes.shape import Shape, ShapeLike, as_shape
from symshape_mlir.shapes.unify import unify_extents

__all__ = [
    "concat_shape",
    "elementwise_shape",
    "matmul_shape",
    "normalize_axes",
    "reduce_all_shape",
    "reduce_shape",
    "unary_shape",
]


def unary_shape(x: ShapeLike) -> Shape:
    """Result shape of a unary elementwise op: the input shape."""
    return as_shape(x)


def elementwise_shape(*inputs: ShapeLike, ctx: ExtentContext | None = None) -> Shape:
    """Result shape of an n-ary elementwise op: the broadcast of the inputs."""
    return broadcast_shapes(*inputs, ctx=ctx)


def reduce_all_shape(x: ShapeLike) -> Shape:
    """Result shape of a full reduction: rank 0 (a scalar), whatever the input."""
    as_shape(x)
    return Shape()


def normalize_axes(axes: Iterable[int], rank: int) -> tuple[int, ...]:
    """Validates axes for a tensor of ``rank`` and makes them non-negative.

    Raises:
        ShapeError: an axis outside ``[-rank, rank)`` or one given twice
            (also as ``a`` and ``a - rank``).
        TypeError: an axis that is not an integer.
    """
    seen: dict[int, int] = {}
    for raw in axes:
        if isinstance(raw, bool):
            raise TypeError("a bool is not an axis")
        axis = operator.index(raw)
        if not -rank <= axis < rank:
            raise ShapeError(f"axis {axis} is out of range for rank {rank}")
        normal = axis % rank
        if normal in seen:
            raise ShapeError(f"axis {axis} repeats axis {seen[normal]} (both are axis {normal})")
        seen[normal] = axis
    return tuple(seen)


def reduce_shape(x: ShapeLike, axes: Iterable[int], *, keepdims: bool = False) -> Shape:
    """Result shape of a reduction over ``axes`` (empty: nothing is reduced).

    Args:
        x: the input shape.
        axes: the reduced axes; negative ones count from the end.
        keepdims: keep reduced axes as extent 1 instead of removing them.

    Raises:
        ShapeError: an out-of-range or repeated axis.
    """
    shape = as_shape(x)
    reduced = set(normalize_axes(axes, shape.rank))
    one = Exact(1)
    dims: list[ShapeExtent] = []
    for axis, extent in enumerate(shape):
        if axis not in reduced:
            dims.append(extent)
        elif keepdims:
            dims.append(one)
    return Shape(dims)


def matmul_shape(lhs: ShapeLike, rhs: ShapeLike, *, ctx: ExtentContext | None = None) -> Shape:
    """Result shape of ``lhs @ rhs``: ``broadcast(batch_l, batch_r) ++ [M, N]``.

    An undecided contraction size (``k`` against ``n``) records an ``equal``
    check; undecided batch dimensions record broadcast checks.

    Raises:
        ShapeError: an operand of rank < 2, or contraction extents that are
            provably different.
        BroadcastError: incompatible batch dimensions.
    """
    a, b = as_shape(lhs), as_shape(rhs)
    for index, operand in enumerate((a, b)):
        if operand.rank < 2:
            raise ShapeError(
                f"matmul needs operands of rank >= 2: input {index} {operand} "
                f"has rank {operand.rank}"
            )
    k_lhs, k_rhs = a[-1], b[-2]
    checks: list[ShapeCheck] = []
    equal = (True if k_lhs == k_rhs and k_lhs.is_exact else prove_eq(k_lhs.expr, k_rhs.expr, ctx)
             if isinstance(k_lhs, Exact) and isinstance(k_rhs, Exact) else None)
    if equal is False:
        raise ShapeError(
            f"matmul contraction extents differ: input 0 axis {a.rank - 1} has {k_lhs}, "
            f"input 1 axis {b.rank - 2} has {k_rhs}"
        )
    if equal is None:
        checks.append(ShapeCheck("equal", ((0, a.rank - 1), (1, b.rank - 2)), (k_lhs, k_rhs), None))
    batch = broadcast_shapes(a[:-2], b[:-2], ctx=ctx)
    return Shape((*batch, a[-2], b[-1]), checks=(*batch.checks, *checks))


#: How a concatenation unifies one extent of a later operand with the one kept so
#: far: ``unify(kept, extent, axis, operand)`` returns the extent to keep.
Unify = Callable[[ShapeExtent, ShapeExtent, int, int], ShapeExtent]


def _unify_axis(kept: ShapeExtent, extent: ShapeExtent, axis: int, operand: int) -> ShapeExtent:
    """:func:`~symshape_mlir.shapes.unify.unify_extents`, its conflict naming ``axis`` and
    ``operand``."""
    try:
        unified, _ = unify_extents(kept, extent)
    except AxisConflictError as err:
        raise AxisConflictError(err.reason, err.extents, axis, operand) from None
    return unified


def concat_shape(shapes: Sequence[ShapeLike], axis: int, unify: Unify = _unify_axis) -> Shape:
    """Result shape of ``numpy.concatenate`` along ``axis`` (non-negative):
    the other axes unified operand by operand, ``axis`` the sum of its extents.

    ``unify`` is the unification of two extents of one axis; by default
    :func:`~symshape_mlir.shapes.unify.unify_extents` (inference passes its
    own, which records what it cannot prove as an obligation).

    Example:
        >>> str(concat_shape([["batch", 4], ["batch", "n"]], 1))
        '[batch, n + 4]'

    Raises:
        ShapeError: no operands, or operands of different ranks.
        AxisConflictError: another axis cannot be the same in every operand;
            ``axis`` and ``operand`` name where.
    """
    if not shapes:
        raise ShapeError("concatenation needs at least one operand")
    operands = [as_shape(s) for s in shapes]
    ranks = sorted({s.rank for s in operands})
    if len(ranks) != 1:
        raise ShapeError(f"ranks differ: {ranks}")
    dims = list(operands[0])
    for index, shape in enumerate(operands[1:], start=1):
        for a, extent in enumerate(shape):
            dims[a] = dims[a] + extent if a == axis else unify(dims[a], extent, a, index)
    return Shape(dims)
