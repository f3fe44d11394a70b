"""Simplification under a context's symbol ranges.

Construction already yields the canonical form, which needs no context. With
declared ranges more holds: ``min(batch, 4096)`` is ``batch`` when
``batch <= 4096``, ``x mod 8`` is ``x`` when ``0 <= x < 8``. :func:`simplify`
rewrites bottom-up with those facts: ``min``/``max`` arguments are dropped
when the native prover shows another argument bounds them, divisions are
folded when the interval bounds of their dividend allow it.
"""

from __future__ import annotations

from symshape_mlir.extent.canon import maximum, minimum
from symshape_mlir.extent.context import ExtentContext
from symshape_mlir.extent.expr import (
    CeilDiv,
    Const,
    Expr,
    FloorDiv,
    InputAxis,
    Max,
    Min,
    Mod,
    RuntimeScalar,
    Sum,
    Sym,
)
from symshape_mlir.extent.prove import bounds, prove_le

__all__ = ["simplify"]


def simplify(expr: Expr, ctx: ExtentContext | None = None) -> Expr:
    """Returns an expression equal to ``expr`` for every binding in ``ctx``'s ranges.

    Rewrites, bottom-up:

    * ``min``/``max``: drops every argument another argument provably bounds;
    * ``x floordiv c`` is 0 and ``x mod c`` is ``x`` when the bounds of ``x``
      lie in ``[0, c)``;
    * ``x ceildiv c`` is 1 when they lie in ``[1, c]``, 0 when ``x`` is 0.

    Args:
        expr: the expression.
        ctx: symbol ranges (default: every symbol in ``[0, inf)``).
    """
    memo: dict[Expr, Expr] = {}

    def visit(node: Expr) -> Expr:
        done = memo.get(node)
        if done is None:
            children = node.children
            new = tuple(visit(c) for c in children)
            rebuilt = (
                node
                if all(a is b for a, b in zip(new, children, strict=True))
                else node._with_children(new)
            )
            done = _rewrite(rebuilt, ctx)
            memo[node] = done
        return done

    return visit(expr)


def _is_leaf_linear(node: Expr) -> bool:
    if isinstance(node, Sum):
        return all(isinstance(t, (Sym, InputAxis, RuntimeScalar)) for t, _ in node.terms)
    return isinstance(node, (Const, Sym, InputAxis, RuntimeScalar))


def _construction_decided(node: Min | Max, ctx: ExtentContext | None) -> bool:
    """Whether construction already pruned every argument the prover could.

    For linear forms over leaves with no declared range, the structural check
    of the constructors is exact.
    """
    if not all(_is_leaf_linear(a) for a in node.args):
        return False
    return ctx is None or all(ctx.range_of(name) == (0, None) and ctx.limits(name) is None
                              for name in node.free_symbols)


def _rewrite(node: Expr, ctx: ExtentContext | None) -> Expr:
    if isinstance(node, (Min, Max)):
        if _construction_decided(node, ctx):
            return node
        args = list(node.args)
        kept: list[Expr] = []
        for i, y in enumerate(args):
            others = kept + args[i + 1 :]
            if isinstance(node, Min):
                dominated = any(prove_le(x, y, ctx, fallback=False) for x in others)
            else:
                dominated = any(prove_le(y, x, ctx, fallback=False) for x in others)
            if not dominated:
                kept.append(y)
        if len(kept) == len(args):
            return node
        return minimum(*kept) if isinstance(node, Min) else maximum(*kept)
    if (
        isinstance(node, (FloorDiv, CeilDiv, Mod))
        and isinstance(node.den, Const)
        and node.den.value > 0
    ):
        lo, hi = bounds(node.num, ctx)
        c = node.den.value
        if lo is None or lo < 0 or hi is None or hi > c:
            return node
        if isinstance(node, CeilDiv):
            return Const(0) if hi == 0 else Const(1) if lo > 0 else node
        if hi < c:
            return Const(0) if isinstance(node, FloorDiv) else node.num
    return node
