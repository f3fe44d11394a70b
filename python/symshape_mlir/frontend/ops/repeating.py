"""Repeating a tensor: ``tile`` and ``repeat``, with ``int`` counts.

Both broadcast a new axis of the count's extent beside an existing one and
merge the two (``tile`` puts the copies before the axis, ``repeat`` after
each entry), so the axes may be symbolic: ``tile(x, 2)`` on ``[n]`` is
``[2 * n]``.

Example:
    >>> def f(x):                        # x: [batch, 4]
    ...     return tile(x, (1, 3)), repeat(x, 2, axis=0)   # [batch, 12], [2 * batch, 4]
"""

from __future__ import annotations

from collections.abc import Sequence

from symshape_mlir.extent.expr import Const
from symshape_mlir.extent.guarantee import Exact
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.ops.reductions import reduced_axes
from symshape_mlir.frontend.ops.shape_ops import broadcast_to, insert_unit_axes, reshape
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.vjp import composite

__all__ = ["repeat", "tile"]


def _count(op: str, value: object, where: SourceLocation) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FrontendError(f"{op} at {where}: counts must be ints, not {value!r}")
    if value < 0:
        raise FrontendError(f"{op} at {where}: negative count {value}")
    return value


@composite
def tile(x: Tensor, reps: int | Sequence[int]) -> Tensor:
    """``numpy.tile``: ``x`` repeated ``reps[i]`` times along axis ``i``."""
    where = user_location()
    counts = [_count("tile", r, where) for r in (reps if isinstance(reps, list | tuple)
                                                 else [reps])]
    if len(counts) > x.ndim:
        x = insert_unit_axes(x, list(range(len(counts) - x.ndim)), where)
    counts = [1] * (x.ndim - len(counts)) + counts
    if all(c == 1 for c in counts):
        return x
    # [s0, s1] -> [1, s0, 1, s1] -> [r0, s0, r1, s1] -> [r0 * s0, r1 * s1]
    spread = insert_unit_axes(x, [2 * a for a in range(x.ndim)], where)
    target = [e for a in range(x.ndim) for e in (Exact(Const(counts[a])), x.shape[a])]
    copies = broadcast_to(spread, target)
    return reshape(copies, [x.shape[a] * counts[a] for a in range(x.ndim)])


@composite
def repeat(x: Tensor, repeats: int, axis: int | None = None) -> Tensor:
    """``numpy.repeat`` with one ``int`` count: each entry ``repeats`` times in a
    row along ``axis`` (the flattened tensor for None)."""
    where = user_location()
    count = _count("repeat", repeats, where)
    if axis is None:
        x, axis = reshape(x, [-1]) if x.ndim != 1 else x, 0
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise FrontendError(f"repeat at {where}: axis must be an int or None, not {axis!r}")
    (axis,) = reduced_axes("repeat", x, axis, where)
    spread = insert_unit_axes(x, [axis + 1], where)
    target = list(spread.shape)
    target[axis + 1] = Exact(Const(count))
    copies = broadcast_to(spread, target)
    merged = [*x.shape[:axis], x.shape[axis] * count, *x.shape[axis + 1:]]
    return reshape(copies, merged)
