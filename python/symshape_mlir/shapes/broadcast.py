"""Numpy broadcasting over symbolic extents, with one explicit policy.

Shapes are right-aligned (missing leading axes count as 1). For each result
dimension the extents in that column are compared pairwise, where ``a == b``,
``a == 1`` and ``b == 1`` are each *proven*, *refuted* or *undecided* by the
extent provers under the context's ranges:

* compatible (one of the three proven, e.g. ``batch`` with ``1`` or with
  ``batch``): nothing to check;
* incompatible (all three refuted, e.g. ``3`` with ``4``, or ``n + 1`` with
  ``n`` when ``n >= 1``): :class:`BroadcastError` naming the dimension, the
  two extents and their inputs — the first such pair in dimension order,
  then input order;
* undecided (``batch`` with ``seq``, ``batch`` with ``4``, any pair involving
  an upper bound or unknown extent unless one side is exactly 1): the result
  is still computed, and the returned shape records a
  :class:`~symshape_mlir.shapes.checks.ShapeCheck` for that dimension listing
  the operand axes and the condition they must meet at run time. Nothing is
  assumed silently.

The result extent of each column follows
:func:`symshape_mlir.extent.guarantee.broadcast` (exact when it can be, e.g.
``min(max(batch, seq), batch * seq)`` for two unrelated symbols, which is the
numpy result for every compatible pair).
"""

from __future__ import annotations

from symshape_mlir.extent import guarantee
from symshape_mlir.extent.context import ExtentContext
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.extent.prove import prove_eq
from symshape_mlir.shapes.checks import ShapeCheck
from symshape_mlir.shapes.compare import Verdict, broadcastable
from symshape_mlir.shapes.errors import BroadcastError
from symshape_mlir.shapes.shape import Shape, ShapeLike, as_shape

__all__ = ["broadcast_shapes"]

_ONE = Exact(1)


def _is_one(extent: ShapeExtent, ctx: ExtentContext | None) -> bool | None:
    if not isinstance(extent, Exact):
        return None
    return prove_eq(extent.expr, 1, ctx)


def _compatibility(x: ShapeExtent, y: ShapeExtent, ctx: ExtentContext | None) -> bool | None:
    """``True`` if provably compatible, ``False`` if provably not, else ``None``."""
    forward, backward = broadcastable(x, y, ctx), broadcastable(y, x, ctx)
    if Verdict.PROVEN in (forward, backward):
        return True
    if forward is backward is Verdict.REFUTED:
        return False
    return None


def broadcast_shapes(*shapes: ShapeLike, ctx: ExtentContext | None = None) -> Shape:
    """Broadcasts shapes numpy-style; see the module docstring for the policy.

    Args:
        *shapes: shapes (or their items: ``int``, axis-name ``str``,
            ``Expr``, ``ShapeExtent``).
        ctx: symbol ranges for the proofs.

    Returns:
        The broadcast shape, with a :class:`ShapeCheck` per dimension whose
        compatibility could not be decided (``checks`` is empty for concrete
        shapes).

    Raises:
        BroadcastError: two extents in one dimension are provably incompatible.
    """
    operands = [as_shape(s) for s in shapes]
    if operands and all(s.dims == operands[0].dims and s.is_exact for s in operands):
        return Shape(operands[0].dims)  # one exact shape: nothing to broadcast or check
    rank = max((s.rank for s in operands), default=0)
    dims: list[ShapeExtent] = []
    checks: list[ShapeCheck] = []
    for dim in range(rank):
        column = [
            (i, dim - (rank - s.rank), s[dim - (rank - s.rank)])
            for i, s in enumerate(operands)
            if dim >= rank - s.rank
        ]
        distinct = {e for _, _, e in column if e != _ONE}
        if len(distinct) <= 1 and all(e.is_exact for e in distinct):
            # Equal exact extents and ones: compatible, nothing to prove.
            dims.append(distinct.pop() if distinct else _ONE)
            continue
        undecided = False
        for p, (i, _, x) in enumerate(column):
            for j, _, y in column[p + 1 :]:
                verdict = _compatibility(x, y, ctx)
                if verdict is False:
                    raise BroadcastError(dim, (x, y), (i, j))
                undecided = undecided or verdict is None
        result: ShapeExtent = _ONE
        for _, _, extent in column:
            result = guarantee.broadcast(result, extent, ctx)
        dims.append(result)
        if undecided:
            involved = [(i, axis, e) for i, axis, e in column if not _is_one(e, ctx)]
            checks.append(
                ShapeCheck(
                    "broadcast",
                    tuple((i, axis) for i, axis, _ in involved),
                    tuple(e for _, _, e in involved),
                    dim,
                )
            )
    return Shape(dims, checks=checks)
