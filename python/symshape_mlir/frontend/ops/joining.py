"""Joining and splitting along an axis: ``stack`` and ``split``.

``stack`` inserts the new axis in every input and concatenates them.
``split`` takes a number of equal sections (the axis must divide: checked
now when its extent is a constant, else at run time, as numpy raises) or
split points (``int`` values, extents of traced shapes or run-time
integers, read as numpy slice bounds).

Example:
    >>> def f(x):                                 # x: [batch, 3 * d]
    ...     q, k, v = split(x, 3, axis=1)         # each [batch, d]
    ...     return stack([q, k, v])               # [3, batch, d]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.index import IndexBuilder
from symshape_mlir.frontend.ops.indexing import getitem, slice_axis
from symshape_mlir.frontend.ops.reductions import reduced_axes
from symshape_mlir.frontend.ops.shape_ops import concatenate, expand_dims
from symshape_mlir.frontend.source import user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.vjp import composite

__all__ = ["split", "stack"]


@composite
def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """``numpy.stack``: the tensors (of one shape) along a new axis."""
    where = user_location()
    tensors = list(tensors)
    if not tensors:
        raise FrontendError(f"stack at {where}: needs at least one tensor")
    if any(not isinstance(t, Tensor) for t in tensors):
        raise FrontendError(f"stack at {where}: expects traced tensors")
    ranks = {t.ndim for t in tensors}
    if len(ranks) != 1:
        raise FrontendError(f"stack at {where}: all input arrays must have the same shape "
                            f"(ranks {sorted(ranks)})")
    rank = tensors[0].ndim + 1
    if isinstance(axis, bool) or not isinstance(axis, int) or not -rank <= axis < rank:
        raise FrontendError(f"stack at {where}: axis {axis!r} is out of bounds for rank {rank}")
    position = axis % rank
    return concatenate([expand_dims(t, position) for t in tensors], axis=position)


@composite
def split(x: Tensor, indices_or_sections: Any, axis: int = 0) -> list[Tensor]:
    """``numpy.split``: equal sections, or the pieces between split points."""
    where = user_location()
    (axis,) = reduced_axes("split", x, axis, where)
    if isinstance(indices_or_sections, list | tuple):
        points = list(indices_or_sections)
        bounds = [None, *points, None]
        pieces = []
        for start, stop in itertools.pairwise(bounds):
            key = tuple(slice(start, stop) if a == axis else slice(None) for a in range(x.ndim))
            pieces.append(getitem(x, key))
        return pieces
    if isinstance(indices_or_sections, bool) or not isinstance(indices_or_sections, int):
        raise FrontendError(f"split at {where}: indices_or_sections must be an int or a list "
                            f"of split points, not {indices_or_sections!r}")
    sections = indices_or_sections
    if sections <= 0:
        raise FrontendError(f"split at {where}: number sections must be larger than 0")
    b = IndexBuilder(x.trace, where)
    n = b.dim(x, axis)
    if n.const is not None and n.const % sections:
        raise FrontendError(f"split at {where}: array split does not result in an equal "
                            f"division ({n.const} entries in {sections} sections)")
    if n.const is None:
        trace = x.trace
        rest = b.sub(n, b.mul(b.floordiv(n, b.const(sections)), b.const(sections)))
        even = trace.ssa("i")
        trace.emit(f"{even} = arith.cmpi eq, {b.ssa(rest)}, {b.ssa(b.const(0))} : index", where)
        trace.check(even, f"split into {sections} sections: the axis does not divide", where)
    size = b.floordiv(n, b.const(sections))
    return [slice_axis(x, axis, b.mul(b.const(k), size), size, where) for k in range(sections)]
