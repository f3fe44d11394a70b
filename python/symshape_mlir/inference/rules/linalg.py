"""Shape rules of ``linalg`` ops.

Every linalg op here is in destination-passing style: result ``i`` has the
shape (and the type) of init ``i``. The rule also checks the op's iteration
space: operand axes that the indexing maps send to the same loop dimension
must have the same extent. For ``linalg.generic`` (and named ops carrying
``indexing_maps``: ``matmul``, ``batch_matmul``, ``contract``,
``elementwise``) the maps come from the op; for the other named ops from
their definition:

==================  ============================================================
op                  loops per operand axis
==================  ============================================================
fill                scalar input; init axes are the loops
copy, map, add...   every operand axis ``a`` is loop ``a`` (identity maps)
transpose           init axis ``i`` is loop ``i``; input axis ``perm[i]`` too
broadcast           init axes are the loops; the input's axes are the init
                    axes not in ``dimensions``, in order
reduce              input axes are the loops; the inits' axes are the input
                    axes not in ``dimensions``, in order
matvec, vecmat,     ``(m, k) (k) -> (m)``, ``(k) (k, n) -> (n)``,
dot                 ``(k) (k) -> ()``
==================  ============================================================

So elementwise ops, broadcasts and transposes written as ``linalg.generic``,
reductions (a reduction loop appears in inputs only) and contractions (a
matmul's ``K``) are all checked the same way: extents of one loop are
unified (:meth:`~symshape_mlir.inference.state.InferenceState.unify`: a
fresh symbol adopts the other extent), and provably different ones — or two
different named axes — are a :class:`ShapeInferenceError` naming the loop,
both operands and both axes.

A map result that is not a plain loop (``d2 * 2 + d5``: a strided, dilated
window of a convolution or a pooling; a constant ``0`` reading a broadcast
axis; ``-d0 + 3`` reading backwards; ``d0 floordiv 2``, ``d0 mod 4``) reads
the indices of its :class:`IndexRange`: one past the greatest must be at
most the operand's extent, an ``at_most`` obligation whose extent must be a
true size (proven, checked at run time, or a violation for an upper bound);
upper bounds on the loops bound what is read. Where the least index can be
negative it must be ``>= 0`` too. A call in which some loop is empty reads
nothing and passes the run-time checks; the compile-time proof does not
look at empty loops. A map result over a loop that no operand axis
iterates needs the operand's extent exact and is not range-checked (linalg
itself cannot size such a loop).

.. code-block:: mlir

    %y = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x10xf32>)
                       outs(%init : tensor<?x10xf32>) -> tensor<?x10xf32>
    // [batch, 10], the shape of %init; %x's axis 1 and %w's axis 0 agree (64)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from mlir import ir

from symshape_mlir.extent.canon import ceildiv, floordiv, minimum
from symshape_mlir.extent.expr import Const, Expr
from symshape_mlir.extent.guarantee import UNKNOWN, Exact, ShapeExtent, Strength, UpperBound
from symshape_mlir.inference.facts import ValueFacts
from symshape_mlir.inference.obligations import NO_CHECK, Compare, Quantity
from symshape_mlir.inference.registry import register
from symshape_mlir.inference.rules.common import dense_i64, same_dims
from symshape_mlir.inference.state import CacheKind, InferenceState, describe

__all__ = ["operand_loops"]

# Strength members, hoisted (see Strength).
_EXACT = Strength.EXACT
_UNKNOWN = Strength.UNKNOWN

Facts = list[ValueFacts | None]
Loops = tuple[tuple[int, ...] | None, ...]
"""Per operand, the loop of each axis (-1: none); ``None`` for a non-tensor operand."""

_IDENTITY_OPS = (
    "linalg.copy", "linalg.map", "linalg.softmax", "linalg.add", "linalg.sub",
    "linalg.mul", "linalg.div", "linalg.div_unsigned", "linalg.max", "linalg.min",
    "linalg.powf", "linalg.exp", "linalg.log", "linalg.abs", "linalg.ceil", "linalg.floor",
    "linalg.negf", "linalg.reciprocal", "linalg.round", "linalg.sqrt", "linalg.rsqrt",
    "linalg.square", "linalg.tanh", "linalg.erf", "linalg.select",
)
# Named convolutions and poolings: their maps (windows included) are the
# ``linalg.memoized_indexing_maps`` verification leaves on them.
_WINDOW_OPS = (
    "linalg.conv_1d_ncw_fcw", "linalg.conv_2d_nchw_fchw", "linalg.conv_3d_ncdhw_fcdhw",
    "linalg.depthwise_conv_1d_ncw_cw", "linalg.depthwise_conv_2d_nchw_chw",
    "linalg.depthwise_conv_3d_ncdhw_cdhw", "linalg.conv_2d_ngchw_gfchw",
    "linalg.pooling_ncw_max", "linalg.pooling_nchw_max", "linalg.pooling_ncw_sum",
    "linalg.pooling_nchw_sum", "linalg.conv_2d_nhwc_hwcf",
)
_MAPPED_OPS = (
    "linalg.generic", "linalg.matmul", "linalg.batch_matmul", "linalg.contract",
    "linalg.elementwise", "linalg.matvec", "linalg.vecmat", "linalg.dot",
    "linalg.batch_matvec", "linalg.batch_vecmat", "linalg.batch_reduce_matmul",
    *_WINDOW_OPS,
)
_OTHER_OPS = ("linalg.transpose", "linalg.broadcast", "linalg.reduce")
# Without an indexing_maps attribute: loops per operand, by operand ranks.
_FIXED: dict[str, tuple[tuple[int, ...], ...]] = {
    "linalg.matmul": ((0, 2), (2, 1), (0, 1)),
    "linalg.batch_matmul": ((0, 1, 3), (0, 3, 2), (0, 1, 2)),
    "linalg.batch_reduce_matmul": ((0, 1, 3), (0, 3, 2), (1, 2)),
    "linalg.matvec": ((0, 1), (1,), (0,)),
    "linalg.vecmat": ((1,), (1, 0), (0,)),
    "linalg.dot": ((0,), (0,), ()),
    "linalg.batch_matvec": ((0, 1, 2), (0, 2), (0, 1)),
    "linalg.batch_vecmat": ((0, 2), (0, 2, 1), (0, 1)),
}
_LOOP_NAMES: dict[str, tuple[str, ...]] = {
    "linalg.matmul": ("m", "n", "k"),
    "linalg.batch_matmul": ("batch", "m", "n", "k"),
    "linalg.matvec": ("m", "k"),
    "linalg.vecmat": ("n", "k"),
    "linalg.dot": ("k",),
}


class IndexRange:
    """The least and the greatest index an affine map result reads, as
    expressions over the extents of the loops it reads.

    With every loop ``d`` in ``[0, e_d - 1]``, sums and constant factors
    take the ends of their operands' ranges (a negative factor swaps them);
    ``floordiv`` and ``ceildiv`` by a positive constant are monotone; ``mod
    c`` lies in ``[0, c - 1]``, and below the greatest index of its operand
    when that operand cannot be negative. The greatest index never
    decreases and the least never increases as a loop grows, so upper
    bounds on the loops bound what is read.

    Example: ``-d0 + d1 floordiv 2 + 3`` over ``e0``, ``e1`` reads
    ``[3 - (e0 - 1), (e1 - 1) floordiv 2 + 3]``.
    """

    def __init__(self, loops: frozenset[int], low: _Bound, high: _Bound, nonneg: bool) -> None:
        self.loops = tuple(sorted(loops))
        self._low, self._high = low, high
        self.nonneg = nonneg
        """Whether the least index is ``>= 0`` whatever the loop extents."""

    def low(self, *extents: Expr) -> Expr:
        """The least index read, given the extents of :attr:`loops` in order."""
        return self._low(dict(zip(self.loops, extents, strict=True)))

    def reach(self, *extents: Expr) -> Expr:
        """One past the greatest index read, given the extents of :attr:`loops`."""
        return self._high(dict(zip(self.loops, extents, strict=True))) + 1

    @staticmethod
    def of(expr: ir.AffineExpr) -> IndexRange | None:
        """The range of ``expr``; ``None`` for a symbol or a divisor that is
        not a positive constant."""
        if isinstance(expr, ir.AffineDimExpr):
            d = expr.position
            return IndexRange(frozenset((d,)), lambda e: Const(0), lambda e: e[d] - 1, True)
        if isinstance(expr, ir.AffineConstantExpr):
            c = expr.value
            return IndexRange(frozenset(), lambda e: Const(c), lambda e: Const(c), c >= 0)
        if not isinstance(expr, ir.AffineBinaryExpr):
            return None
        lhs = IndexRange.of(expr.lhs)
        if isinstance(expr, ir.AffineAddExpr):
            rhs = IndexRange.of(expr.rhs)
            if lhs is None or rhs is None:
                return None
            return IndexRange(frozenset(lhs.loops + rhs.loops),
                              lambda e: lhs._low(e) + rhs._low(e),
                              lambda e: lhs._high(e) + rhs._high(e), lhs.nonneg and rhs.nonneg)
        if lhs is None or not isinstance(expr.rhs, ir.AffineConstantExpr):
            return None
        c = expr.rhs.value
        loops = frozenset(lhs.loops)
        if isinstance(expr, ir.AffineMulExpr):
            if c >= 0:
                return IndexRange(loops, lambda e: lhs._low(e) * c,
                                  lambda e: lhs._high(e) * c, lhs.nonneg)
            return IndexRange(loops, lambda e: lhs._high(e) * c,
                              lambda e: lhs._low(e) * c, False)
        if c <= 0:
            return None
        if isinstance(expr, ir.AffineFloorDivExpr):
            return IndexRange(loops, lambda e: floordiv(lhs._low(e), c),
                              lambda e: floordiv(lhs._high(e), c), lhs.nonneg)
        if isinstance(expr, ir.AffineCeilDivExpr):
            return IndexRange(loops, lambda e: ceildiv(lhs._low(e), c),
                              lambda e: ceildiv(lhs._high(e), c), lhs.nonneg)
        if isinstance(expr, ir.AffineModExpr):
            if lhs.nonneg:
                return IndexRange(loops, lambda e: Const(0),
                                  lambda e: minimum(lhs._high(e), c - 1), True)
            return IndexRange(loops, lambda e: Const(0), lambda e: Const(c - 1), True)
        return None


_Bound = Callable[[Mapping[int, Expr]], Expr]
"""An end of an :class:`IndexRange`, from the extent of each loop read."""

Window = tuple[int, int, str, IndexRange | None]
"""``(operand, axis, text, range or None)`` of a map result that is not a plain loop."""


DecodedMaps = tuple[tuple[tuple[int, ...], ...], tuple[Window, ...]]
"""Per operand the loop of each axis (-1: not a plain loop), and the windows."""

_INDEXING_MAPS: CacheKind[ir.Attribute, DecodedMaps] = CacheKind("indexing_maps")


def _decoded_maps(attr: ir.Attribute, state: InferenceState) -> DecodedMaps:
    """The loop of every operand axis (-1: not a plain loop) and the windows
    (map results that are not plain loops) of an ``indexing_maps`` attribute."""
    cache = state.cache(_INDEXING_MAPS)
    decoded = cache.get(attr)
    if decoded is None:
        maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(attr)]
        loops = tuple(
            tuple(r.position if isinstance(r, ir.AffineDimExpr) else -1 for r in m.results)
            for m in maps)
        windows = tuple(
            (index, axis, str(r), IndexRange.of(r))
            for index, m in enumerate(maps) for axis, r in enumerate(m.results)
            if not isinstance(r, ir.AffineDimExpr))
        decoded = cache[attr] = (loops, windows)
    return decoded


def _maps_attribute(op: ir.Operation) -> ir.Attribute | None:
    attributes = op.attributes
    for key in ("indexing_maps", "linalg.memoized_indexing_maps"):
        if key in attributes:
            return attributes[key]
    if op.name in _WINDOW_OPS and op.verify():
        # Verifying a named window op memoizes its maps on it.
        return attributes["linalg.memoized_indexing_maps"]
    return None


def _check_windows(
    op: ir.Operation, state: InferenceState, shapes: Sequence[tuple[ShapeExtent, ...]],
    loops: Loops,
) -> None:
    """Records that every map result that is not a plain loop reads within its
    operand axis: from index 0 (unless it cannot be negative) to one below the
    extent. A call where some loop is empty reads nothing and passes the
    run-time checks."""
    attr = _maps_attribute(op)
    if attr is None:
        return
    windows = _decoded_maps(attr, state)[1]
    if not windows:
        return
    operands = tuple(op.operands)
    plain: dict[int, tuple[int, int]] = {}
    for index, axes in enumerate(loops):
        for axis, loop in enumerate(axes or ()):
            if loop >= 0:
                plain.setdefault(loop, (index, axis))
    nothing_read = tuple(Compare("le", Quantity.dim(operands[i], a), Quantity.const(0))
                         for i, a in plain.values())
    for index, axis, text, reads in windows:
        extent = shapes[index][axis]
        field = f"operand #{index} axis {axis} ({text})"
        origin = state.facts_of(operands[index]).origin(axis)
        if reads is None or any(loop not in plain for loop in reads.loops):
            state.require_exact(extent, op, f"{field} extent", origin=origin)
            continue
        sources = [plain[loop] for loop in reads.loops]
        loop_extents = [shapes[i][a] for i, a in sources]
        dims = [Quantity.dim(operands[i], a) for i, a in sources]
        bounds = [e.expr for e in loop_extents if e.expr is not None]
        known = len(bounds) == len(loop_extents)
        exact = known and all(e.is_exact for e in loop_extents)
        need: ShapeExtent = UNKNOWN
        if known:
            total = reads.reach(*bounds)
            need = Exact(total) if exact else UpperBound(total)
        state.require_at_most(
            need, extent, op, f"the window of {field} lies within the operand extent",
            (Compare("le", Quantity.of(reads.reach, *dims), Quantity.dim(operands[index], axis)),
             *nothing_read),
            origin)
        if not reads.nonneg:
            # Only a true least index proves that nothing before 0 is read.
            least = Exact(reads.low(*bounds)) if exact else UNKNOWN
            state.require_at_most(
                Exact(Const(0)), least, op, f"the window of {field} starts at index 0 or later",
                (Compare("le", Quantity.const(0), Quantity.of(reads.low, *dims)), *nothing_read),
                origin)


def _kept(rank: int, dropped: Sequence[int]) -> tuple[int, ...]:
    return tuple(a for a in range(rank) if a not in dropped)


def operand_loops(
    op: ir.Operation, ranks: Sequence[int | None], state: InferenceState
) -> Loops | None:
    """The loop of every operand axis of a linalg op (``None`` if not modelled).

    Args:
        op: the linalg op.
        ranks: per operand, its rank (``None`` for a scalar).
        state: the run (caches decoded maps).
    """
    name = op.name
    if name in _MAPPED_OPS:
        attr = _maps_attribute(op)
        return _decoded_maps(attr, state)[0] if attr is not None else _FIXED.get(name)
    if name in _IDENTITY_OPS:
        return tuple(None if r is None else tuple(range(r)) for r in ranks)
    if name == "linalg.transpose":
        perm = dense_i64(op, "permutation", state)
        inverse = [0] * len(perm)
        for i, p in enumerate(perm):
            inverse[p] = i
        return (tuple(inverse), tuple(range(len(perm))))
    init_rank = ranks[-1] or 0
    if name == "linalg.broadcast":
        return (_kept(init_rank, dense_i64(op, "dimensions", state)), tuple(range(init_rank)))
    if name == "linalg.reduce":
        results = len(op.results) or len(ranks) // 2
        inputs = len(ranks) - results
        rank = ranks[0] or 0
        kept = _kept(rank, dense_i64(op, "dimensions", state))
        return tuple(tuple(range(rank)) if i < inputs else kept for i in range(len(ranks)))
    return None


def _loop_name(op: ir.Operation, loop: int) -> str:
    names = _LOOP_NAMES.get(op.name)
    return names[loop] if names is not None and loop < len(names) else f"d{loop}"


def _init_facts(facts: ValueFacts) -> ValueFacts:
    if facts.value is None and facts.elements is None:
        return facts
    return ValueFacts(facts.shape, None, None, facts.origins)


@register("linalg.fill", regions="skip", typed=True)
def _fill(op: ir.Operation, state: InferenceState) -> Facts:
    # A scalar into the init: nothing to check.
    return [_init_facts(state.facts_of(op.operands[1]))]


Groups = tuple[tuple[int, tuple[tuple[int, int], ...]], ...]
"""Per loop seen on two operand axes or more: the loop and those ``(operand, axis)`` pairs."""

_LOOP_GROUPS: CacheKind[Loops, Groups] = CacheKind("loop_groups")


def _groups(loops: Loops, state: InferenceState) -> Groups:
    """Per loop seen on two operand axes or more, the loop and those ``(operand, axis)`` pairs."""
    cache = state.cache(_LOOP_GROUPS)
    groups = cache.get(loops)
    if groups is None:
        by_loop: dict[int, list[tuple[int, int]]] = {}
        for index, axes in enumerate(loops):
            for axis, loop in enumerate(axes or ()):
                if loop >= 0:
                    by_loop.setdefault(loop, []).append((index, axis))
        groups = cache[loops] = tuple(
            (loop, tuple(pairs)) for loop, pairs in sorted(by_loop.items()) if len(pairs) > 1)
    return groups


@register(*_MAPPED_OPS, *_IDENTITY_OPS, *_OTHER_OPS, regions="skip", typed=True)
def _destination_passing(op: ir.Operation, state: InferenceState) -> Facts:
    operands = tuple(op.operands)
    facts = state.facts_list(operands)
    ranks = [None if f.shape is None else len(f.shape) for f in facts]
    # An operand without a shape has no axes: no loop group or window names one.
    shapes = [f.shape or () for f in facts]
    generation = state.generation
    loops = operand_loops(op, ranks, state)
    if loops is not None:
        for loop, group in _groups(loops, state):
            first, first_axis = group[0]
            known = shapes[first][first_axis]
            for index, axis in group[1:]:
                extent = shapes[index][axis]
                if (known is extent and known.strength is not _UNKNOWN) or (
                        known.strength is _EXACT and extent.strength is _EXACT
                        and known.expr is extent.expr):
                    state.requirements += 1  # holds as written
                    continue
                known = state.unify(
                    known, extent, op, describe(
                        "'{}' loop {}: operand #{} axis {} and operand #{} axis {}", op.name,
                        _loop_name(op, loop), first, first_axis, index, axis),
                    same_dims(operands[first], first_axis, operands[index], axis),
                    facts[index].origin(axis) or facts[first].origin(first_axis))
        if op.name in _MAPPED_OPS:
            _check_windows(op, state, shapes, loops)
    inits = len(operands) - len(op.results)
    if loops is None or op.name == "linalg.broadcast":
        _inits_are_sizes(op, state, facts, inits, loops)
    if state.generation != generation:
        return [_init_facts(f) for f in state.facts_list(operands[inits:])]
    return [_init_facts(f) for f in facts[inits:]]


def _inits_are_sizes(
    op: ir.Operation, state: InferenceState, facts: Sequence[ValueFacts], inits: int,
    loops: Loops | None,
) -> None:
    """Init axes no input axis shares a loop with are true sizes the op
    iterates over: they must be exact. Nothing relates them to another
    extent, so deferred (``mode=defer``) they need no run-time check: the op
    iterates over the init's own size, as ``symshape.broadcast_in_dim`` does
    over an added axis. Every init axis of an op whose loops are not modelled
    is one."""
    covered = set()
    if loops is not None:
        covered = {loop for axes in loops[:inits] for loop in axes or () if loop >= 0}
    for index, init in enumerate(facts[inits:]):
        init_loops = loops[inits + index] if loops is not None else None
        for axis, extent in enumerate(init.shape or ()):
            if init_loops is not None and init_loops[axis] in covered:
                continue
            name = "broadcast init" if op.name == "linalg.broadcast" else f"init #{index}"
            state.require_exact(extent, op, f"{name} extent {axis}", NO_CHECK,
                                init.origin(axis))


@register("linalg.*", regions="skip", typed=True)
def _unmodelled(op: ir.Operation, state: InferenceState) -> Facts:
    """Any other ``linalg`` op: results are their inits, whose extents must be exact."""
    operands = tuple(op.operands)
    facts = state.facts_list(operands)
    inits = len(operands) - len(op.results)
    _inits_are_sizes(op, state, facts, inits, None)
    return [_init_facts(f) for f in facts[inits:]]


@register("linalg.yield", "linalg.index", regions="skip")
def _payload(op: ir.Operation, state: InferenceState) -> Facts:
    # Payload ops of linalg bodies (never visited: bodies are skipped).
    return [None] * len(op.results)
