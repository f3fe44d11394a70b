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
* two different named axes (``batch`` with ``time``) that are not provably
  equal: :class:`BroadcastError` too (seed 004's name unification: different
  axes unless proven equal, as for a matmul's contraction);
* undecided (``batch`` with ``4``, ``batch`` with ``2 * seq``, any pair
  involving an upper bound or unknown extent unless one side is exactly 1):
  the result is still computed, and the returned shape records a
  :class:`~symshape_mlir.shapes.checks.ShapeCheck` for that dimension listing
  the operand axes and the condition they must meet at run time. Nothing is
  assumed silently.

An unnamed axis (unknown, or exactly a fresh symbol ``_dN``) *adopts* the
one named extent of its column: ``[batch] + [?]`` is ``[batch]``, the
unnamed axis being checked at run time to be 1 or ``batch``. Otherwise the
result extent of each column follows
:func:`symshape_mlir.extent.guarantee.broadcast` (exact when it can be, e.g.
``min(max(batch, 4), 4 * batch)``, which is the numpy result for every
compatible pair).
"""

from __future__ import annotations

from symshape_mlir.extent import guarantee
from symshape_mlir.extent.context import ExtentContext
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.extent.prove import prove_eq
from symshape_mlir.shapes.checks import ShapeCheck
from symshape_mlir.shapes.compare import Verdict, broadcastable, equality
from symshape_mlir.shapes.errors import BroadcastError
from symshape_mlir.shapes.shape import Shape, ShapeLike, as_shape, axis_name, is_placeholder

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


def _named_apart(x: ShapeExtent, y: ShapeExtent, ctx: ExtentContext | None) -> bool:
    """Whether ``x`` and ``y`` are two different named axes, not provably equal
    (nor provably 1, which broadcasts to anything)."""
    if axis_name(x) is None or axis_name(y) is None:
        return False
    return equality(x, y, ctx) is Verdict.NAMED_APART and not _is_one(x, ctx) \
        and not _is_one(y, ctx)


def _adopted(column: list[tuple[int, int, ShapeExtent]],
             ctx: ExtentContext | None) -> ShapeExtent | None:
    """The named extent the unnamed axes of a column adopt, if the column has
    unnamed axes and one named extent (up to proven equality) besides ones."""
    named: ShapeExtent | None = None
    unnamed = False
    for _, _, extent in column:
        if is_placeholder(extent):
            unnamed = True
            continue
        if not isinstance(extent, Exact):
            return None
        if _is_one(extent, ctx):
            continue
        if named is None:
            named = extent
        elif named != extent and equality(named, extent, ctx) is not Verdict.PROVEN:
            return None
    return named if unnamed else None


def _plain_broadcast(operands: list[Shape], rank: int) -> Shape | None:
    """The broadcast of exact shapes whose every column holds one extent besides ones
    (the common case: equal shapes, a bias, a mask), found without building columns;
    ``None`` when some column needs the general rule."""
    dims = [_ONE] * rank
    for shape in operands:
        offset = rank - shape.rank
        for axis, extent in enumerate(shape.dims, offset):
            if type(extent) is not Exact:
                return None
            current = dims[axis]
            if extent in (current, _ONE):
                continue
            if current != _ONE:
                return None
            dims[axis] = extent
    return Shape(dims)


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
    rank = max((s.rank for s in operands), default=0)
    plain = _plain_broadcast(operands, rank)
    if plain is not None:
        return plain
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
                if verdict is None and _named_apart(x, y, ctx):
                    raise BroadcastError(dim, (x, y), (i, j),
                                         "different axes unless proven equal")
                undecided = undecided or verdict is None
        adopted = _adopted(column, ctx)
        result = _ONE if adopted is None else adopted
        if adopted is None:
            for _, _, extent in column:
                result = guarantee.broadcast(result, extent, ctx)
        dims.append(result)
        if undecided:
            involved = [(i, axis, e) for i, axis, e in column if not _is_one(e, ctx)]
            if adopted is not None:
                # The named extent first, then the unnamed ones that adopt it.
                involved.sort(key=lambda entry: is_placeholder(entry[2]))
            checks.append(
                ShapeCheck(
                    "broadcast" if adopted is None else "adopt",
                    tuple((i, axis) for i, axis, _ in involved),
                    tuple(e for _, _, e in involved),
                    dim,
                )
            )
    return Shape(dims, checks=checks)
