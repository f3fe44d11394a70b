"""Shape rules of gathers and scatters.

* :func:`gather_shape` — ``symshape.gather``: the batch axes of the
  indices (all but the last), then the slice sizes of the axes that are not
  collapsed;
* :func:`take_shape` — ``numpy.take`` and ONNX ``Gather``: ``a``'s axes
  with ``axis`` replaced by the axes of the indices;
* :func:`take_along_axis_shape` — ``numpy.take_along_axis`` and ONNX
  ``GatherElements``: the indices' shape, of ``a``'s rank and nowhere
  provably longer than ``a`` but along ``axis``;
* :func:`gather_nd_shape` — ONNX ``GatherND``: the indices' axes but the
  last (a constant ``k``), then ``a``'s axes after the ``batch_dims`` and
  the ``k`` indexed ones;
* :func:`scatter_nd_shape`, :func:`put_along_axis_shape` — ONNX
  ``ScatterND`` and ``ScatterElements``: the data's shape, once the ranks of
  the indices and updates fit it.

Axes may be negative (counting from the end). The rules decide only what
the extents prove: an extent of the indices that may exceed the data's is
left to the op's run-time clamping or checks.

Example:
    >>> str(take_shape(["vocab", 64], ["batch", "seq"], 0))
    '[batch, seq, 64]'
    >>> str(gather_nd_shape(["batch", "h", "w", 3], ["batch", "n", 2], 1))
    '[batch, n, 3]'
"""

from __future__ import annotations

from collections.abc import Iterable

from symshape_mlir.extent.expr import Const
from symshape_mlir.extent.guarantee import Exact
from symshape_mlir.extent.prove import prove_le
from symshape_mlir.shapes.errors import ShapeError
from symshape_mlir.shapes.rules import normalize_axes
from symshape_mlir.shapes.shape import Shape, ShapeLike, as_shape

__all__ = [
    "gather_nd_shape",
    "gather_shape",
    "put_along_axis_shape",
    "scatter_nd_shape",
    "take_along_axis_shape",
    "take_shape",
]


def gather_shape(indices: ShapeLike, slice_sizes: ShapeLike, collapsed: Iterable[int]) -> Shape:
    """Result shape of ``symshape.gather``: ``indices[:-1]`` then the ``slice_sizes``
    of the axes not in ``collapsed``.

    Example:
        >>> str(gather_shape(["n", 1], [1, "d"], [0]))
        '[n, d]'

    Raises:
        ShapeError: indices of rank 0, or a collapsed axis out of range.
    """
    index, sizes = as_shape(indices), as_shape(slice_sizes)
    if index.rank == 0:
        raise ShapeError("the indices must have rank 1 or more, not 0")
    dropped = set(normalize_axes(collapsed, sizes.rank))
    return Shape([*index[:-1], *(e for a, e in enumerate(sizes) if a not in dropped)])


def take_shape(a: ShapeLike, indices: ShapeLike, axis: int) -> Shape:
    """Result shape of ``numpy.take(a, indices, axis)``: ``a[:axis] + indices + a[axis + 1:]``.

    Raises:
        ShapeError: ``axis`` out of range for ``a``.
    """
    data, index = as_shape(a), as_shape(indices)
    (axis,) = normalize_axes((axis,), data.rank)
    return Shape([*data[:axis], *index, *data[axis + 1:]])


def _last_constant(index: Shape) -> int | None:
    """The last extent of ``index`` when it is a known constant."""
    last = index[-1] if index.rank else None
    if last is None or not last.is_exact or not isinstance(last.expr, Const):
        return None
    return last.expr.value


def take_along_axis_shape(a: ShapeLike, indices: ShapeLike, axis: int) -> Shape:
    """Result shape of ``numpy.take_along_axis``: the shape of ``indices``.

    Raises:
        ShapeError: ranks differ, ``axis`` is out of range, or an extent of
            ``indices`` off ``axis`` is provably larger than ``a``'s.
    """
    data, index = as_shape(a), as_shape(indices)
    if index.rank != data.rank:
        raise ShapeError(f"indices have rank {index.rank}, not {data.rank}")
    (axis,) = normalize_axes((axis,), data.rank)
    for k, (have, most) in enumerate(zip(index, data, strict=True)):
        if k != axis and isinstance(have, Exact) and isinstance(most, Exact) \
                and prove_le(have.expr, most.expr) is False:
            raise ShapeError(f"indices extent {have} along axis {k} exceeds {most}")
    return index


def gather_nd_shape(a: ShapeLike, indices: ShapeLike, batch_dims: int = 0) -> Shape:
    """Result shape of ONNX ``GatherND``: ``indices[:-1] + a[batch_dims + k:]``, ``k``
    the last extent of ``indices``.

    Raises:
        ShapeError: the last extent of ``indices`` is not a constant, or ``k``
            indices after ``batch_dims`` batch axes do not fit ``a``.
    """
    data, index = as_shape(a), as_shape(indices)
    k = _last_constant(index)
    if k is None:
        raise ShapeError("the last axis of the indices must have a constant extent")
    if not 0 <= batch_dims < index.rank or batch_dims + k > data.rank:
        raise ShapeError(f"{k} indices after {batch_dims} batch axes do not fit rank "
                         f"{data.rank}")
    return Shape([*index[:-1], *data[batch_dims + k:]])


def scatter_nd_shape(data: ShapeLike, indices: ShapeLike, updates: ShapeLike) -> Shape:
    """Result shape of ONNX ``ScatterND``: ``data``'s, where ``indices`` is ``[*w, k]``
    with a constant ``k`` from 1 to ``data``'s rank and ``updates`` has rank
    ``len(w) + rank - k``.

    Raises:
        ShapeError: ``k`` is not such a constant, or the rank of ``updates``
            is not that.
    """
    target, index, update = as_shape(data), as_shape(indices), as_shape(updates)
    k = _last_constant(index)
    if k is None or not 0 < k <= target.rank:
        raise ShapeError(f"the last axis of the indices must have a constant extent from 1 to "
                         f"{target.rank}")
    expected = index.rank - 1 + target.rank - k
    if update.rank != expected:
        raise ShapeError(f"updates have rank {update.rank}, not {expected} "
                         f"(indices rank - 1 + data rank - {k})")
    return target


def put_along_axis_shape(data: ShapeLike, indices: ShapeLike, updates: ShapeLike,
                         axis: int) -> Shape:
    """Result shape of ``numpy.put_along_axis`` (ONNX ``ScatterElements``): ``data``'s.

    Raises:
        ShapeError: ``data``, ``indices`` and ``updates`` differ in rank, or
            ``axis`` is out of range.
    """
    target, index, update = as_shape(data), as_shape(indices), as_shape(updates)
    if not index.rank == update.rank == target.rank:
        raise ShapeError(f"data, indices and updates have ranks {target.rank}, {index.rank} "
                         f"and {update.rank}, not one rank")
    normalize_axes((axis,), target.rank)
    return target
