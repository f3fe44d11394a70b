"""Indexing traced tensors as numpy does: ``x[1:, ::-1, k, None, ..., ids]``, ``x[mask]``.

Basic indexing: slices of any non-zero ``int`` step whose bounds are ``int``,
extents of traced shapes or run-time integers (0-d integer tensors: a
scalar input, or ``sizes[0]`` of a 1-D input), clamped and counted from
the end as numpy does; integer indices (the axis is dropped; a run-time
one too); ``None`` (a new axis of extent 1); one ``Ellipsis``. Result
extents are exact: ``x[:k]`` on an axis ``n`` keeps ``min(max(k, 0), n)``
entries when ``k >= 0`` (and ``max(n + k, 0)`` when it is negative), a
step of 2 keeps ``ceildiv(...)``. A slice with step 1 or more is a
``tensor.extract_slice``; a negative step reverses the axis first.

Advanced indexing: one integer array (a traced integer tensor, a numpy
array or a list) gathers along its axis, negative entries counting from the
end, each entry checked at run time (numpy raises ``IndexError``); a
boolean mask selects the entries where it is true (see
:mod:`~symshape_mlir.frontend.ops.masks`).

Example:
    >>> def f(x, k):                           # x: [batch, seq, 64], k: 0-d i64
    ...     return x[:, 1:k, ::-1][..., 0]     # [batch, min(max(k, 1), seq) - 1 ...]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symshape_mlir.extent.expr import Expr
from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.index import Index, IndexBuilder, is_runtime_integer
from symshape_mlir.frontend.ops.constants import constant
from symshape_mlir.frontend.ops.gather import take_checked
from symshape_mlir.frontend.ops.masks import compress
from symshape_mlir.frontend.ops.reorder import flip
from symshape_mlir.frontend.ops.shape_ops import extract_slice, insert_unit_axes, transpose
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.vjp import composite
from symshape_mlir.shapes.shape import Shape
from symshape_mlir.shapes.slices import slice_indices

__all__ = ["getitem", "slice_axis"]

_BOUNDS = (int, np.integer, Expr, ShapeExtent)


def _item(x: Tensor, item: Any, where: SourceLocation) -> Any:
    """An index item with numpy values made traced: lists and arrays of ints
    or bools become constants, numpy integers Python ints."""
    if isinstance(item, np.integer):
        return int(item)
    if isinstance(item, list | np.ndarray | np.bool_):
        data = np.asarray(item)
        if data.dtype.kind not in "iub":
            raise FrontendError(f"indexing at {where}: arrays used as indices must be of "
                                f"integer or boolean type, not {data.dtype}")
        return constant(x.trace, data, where)
    return item


def _is_array(item: Any) -> bool:
    return isinstance(item, Tensor) and item.ndim >= 1 and item.dtype.is_integer


def _is_mask(item: Any) -> bool:
    return isinstance(item, Tensor) and item.dtype.is_bool and item.ndim >= 1


@composite
def getitem(x: Tensor, key: Any) -> Tensor:
    """``x[key]`` (see the module docstring).

    Raises:
        IndexError: an integer index out of range of a static axis.
        FrontendError: an unsupported index (a float, a step of 0, two
            integer arrays, a mask beside other indices, too many indices).
    """
    where = user_location()
    items = [_item(x, item, where) for item in (key if isinstance(key, tuple) else (key,))]
    masks = [i for i, item in enumerate(items) if _is_mask(item)]
    if masks:
        rest = [item for i, item in enumerate(items) if i not in masks]
        if len(masks) > 1 or masks[0] != 0 or any(item is not Ellipsis for item in rest):
            raise FrontendError(f"indexing at {where}: a boolean mask must be the only index "
                                "(x[mask] or x[mask, ...])")
        return compress(x, items[0], where)
    for item in items:
        if isinstance(item, Tensor) and item.trace is not x.trace:
            raise FrontendError(f"indexing at {where}: the index comes from another traced "
                                "function")
        if isinstance(item, Tensor) and not (is_runtime_integer(item) or _is_array(item)):
            raise FrontendError(f"indexing at {where}: a tensor index must be an integer "
                                f"tensor or a boolean mask, not {item.mlir_type}")
    # By identity: `==` on a traced tensor item compares its elements.
    dots = [i for i, item in enumerate(items) if item is Ellipsis]
    if len(dots) > 1:
        raise FrontendError(f"indexing at {where}: an index can only have a single Ellipsis")
    used = sum(item is not None and item is not Ellipsis for item in items)
    if used > x.ndim:
        raise FrontendError(f"indexing at {where}: too many indices: {used} for rank {x.ndim}")
    at = dots[0] if dots else len(items)
    items[at : at + 1] = [slice(None)] * (x.ndim - used)
    arrays = [i for i, item in enumerate(items) if _is_array(item)]
    if len(arrays) > 1:
        raise FrontendError(f"indexing at {where}: one integer-array index at a time")
    if not arrays:
        return _basic(x, items, where)
    (position,) = arrays
    ids = items[position]
    items[position] = slice(None)
    base = _basic(x, items, where)
    # The array's axis in `base`: the kept axes before it (new ones included).
    axis = sum(1 for item in items[:position]
               if item is None or isinstance(item, slice))
    result = take_checked(base, ids, axis, where)
    scalars = [i for i, item in enumerate(items) if _is_integer(item)]
    advanced = sorted([position, *scalars])
    if scalars and advanced != list(range(advanced[0], advanced[-1] + 1)) and axis:
        # numpy puts the dimensions of separated advanced indices first.
        n = ids.ndim
        perm = [*range(axis, axis + n), *range(axis), *range(axis + n, result.ndim)]
        result = transpose(result, perm)
    return result


def _is_integer(item: Any) -> bool:
    return (isinstance(item, int) and not isinstance(item, bool)) or is_runtime_integer(item)


def _basic(x: Tensor, items: list[Any], where: SourceLocation) -> Tensor:
    """Basic indexing: ``items`` has one entry per axis (``None`` aside)."""
    b = IndexBuilder(x.trace, where)
    flips = [axis for axis, item in enumerate(i for i in items if i is not None)
             if isinstance(item, slice) and _step(item, where) < 0]
    if flips:
        x = flip(x, flips)
    offsets: list[Index] = []
    sizes: list[Index] = []
    strides: list[int] = []
    kept: list[Index] = []
    new_axes: list[int] = []
    element: int | None = None
    axis = 0
    for item in items:
        if item is None:
            new_axes.append(len(kept) + len(new_axes))
            continue
        n = b.dim(x, axis)
        if isinstance(item, slice):
            step = _step(item, where)
            start, count = _slice(b, item, step, n, where)
            offsets.append(start)
            sizes.append(count)
            strides.append(abs(step))
            kept.append(count)
        elif isinstance(item, bool):
            raise FrontendError(f"indexing at {where}: a bool is not an index")
        elif isinstance(item, int):
            static = n.const
            if static is not None and not -static <= item < static:
                raise IndexError(
                    f"indexing at {where}: index {item} is out of bounds for axis {axis} "
                    f"with extent {static}")
            offsets.append(b.wrapped(b.const(item), n))
            sizes.append(b.const(1))
            strides.append(1)
            element = offsets[-1].const
        elif is_runtime_integer(item):
            offsets.append(b.wrapped(b.size(item, "indexing", "index"), n))
            sizes.append(b.const(1))
            strides.append(1)
        else:
            raise FrontendError(f"indexing at {where}: unsupported index {item!r}")
        axis += 1
    result = extract_slice(x, offsets, sizes, strides, Shape([size.extent for size in kept]), where)
    if x.ndim == 1 and not kept and element is not None:
        x.trace.note_element(result, x, element)
    if new_axes:
        result = insert_unit_axes(result, new_axes, where)
    return result


def _step(item: slice, where: SourceLocation) -> int:
    step = item.step
    if step is None:
        return 1
    if isinstance(step, bool) or not isinstance(step, int | np.integer):
        raise FrontendError(f"indexing at {where}: a slice step must be an int, not {step!r}")
    if step == 0:
        raise FrontendError(f"indexing at {where}: slice step cannot be zero")
    return int(step)


def _slice(b: IndexBuilder, item: slice, step: int, n: Index,
           where: SourceLocation) -> tuple[Index, Index]:
    """The offset and count of ``item`` on an axis of ``n`` entries (numpy's
    ``slice.indices``, :func:`~symshape_mlir.shapes.slices.slice_indices`); a
    negative step reads the axis reversed."""
    start = None if item.start is None else _bound(b, item.start, where)
    stop = None if item.stop is None else _bound(b, item.stop, where)
    return slice_indices(b, start, stop, step, n)


def _bound(b: IndexBuilder, item: Any, where: SourceLocation) -> Index:
    """A slice bound (negative counts from the end)."""
    if isinstance(item, bool):
        raise FrontendError(f"indexing at {where}: a bool is not a slice bound")
    if isinstance(item, _BOUNDS) or is_runtime_integer(item):
        return b.size(item, "indexing", "slice bound")
    raise FrontendError(f"indexing at {where}: unsupported slice bound {item!r}")


def slice_axis(x: Tensor, axis: int, offset: Index, size: Index, where: SourceLocation) -> Tensor:
    """The ``size`` entries of ``x`` from ``offset`` along ``axis`` (exact ``index``
    values; that they lie within the axis is checked at run time unless proven)."""
    b = IndexBuilder(x.trace, where)
    offsets = [offset if a == axis else b.const(0) for a in range(x.ndim)]
    sizes = [size if a == axis else b.dim(x, a) for a in range(x.ndim)]
    return extract_slice(x, offsets, sizes, [1] * x.ndim, Shape([s.extent for s in sizes]),
                         where)
