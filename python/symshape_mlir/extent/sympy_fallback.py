"""The sympy fallback prover (imported only when the native prover is undecided).

Expressions are translated to sympy with integer symbols carrying the sign
assumptions the context allows (a declared lower bound ``lo`` becomes
``lo + s`` with ``s >= 0``; upper bounds are dropped, which is sound). The
difference of the two sides is expanded and factored, then sympy's assumption
system is asked for its sign; a form sympy cannot handle (a constant zero
divisor) leaves the question undecided. To keep sympy from running away, inputs above
:data:`MAX_INPUT_NODES` nodes or :data:`MAX_EXTREMA` ``min``/``max`` nodes, and
intermediate forms above :data:`MAX_OPERATIONS` operations, are not attempted
(sympy compares the arguments of every ``Min``/``Max`` pairwise while building
it: nested clamps such as ``min(max(0, n floordiv 2 - max(0, 1 - n)
floordiv 2), ...)`` of chained convolutions and pads cost seconds each).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Final

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
    Prod,
    RuntimeScalar,
    Sum,
    Sym,
)

if TYPE_CHECKING:
    import sympy

__all__ = ["MAX_EXTREMA", "MAX_INPUT_NODES", "MAX_OPERATIONS", "decide", "to_sympy"]

logger = logging.getLogger(__name__)

MAX_INPUT_NODES: Final = 64
MAX_OPERATIONS: Final = 256
MAX_EXTREMA: Final = 4


def to_sympy(expr: Expr, ctx: ExtentContext) -> sympy.Expr:
    """Translates ``expr``; each leaf becomes a sympy symbol with its sign assumptions."""
    import sympy

    leaves: dict[Expr, sympy.Expr] = {}
    memo: dict[Expr, sympy.Expr] = {}

    def leaf(node: Expr) -> sympy.Expr:
        found = leaves.get(node)
        if found is None:
            if isinstance(node, Sym):
                lo, _ = ctx.range_of(node.name)
                found = lo + sympy.Dummy(node.name, integer=True, nonnegative=True)
            elif isinstance(node, RuntimeScalar) and node.semantics == "index":
                found = sympy.Dummy(str(node), integer=True)
            else:
                found = sympy.Dummy(str(node), integer=True, nonnegative=True)
            leaves[node] = found
        return found

    def convert(node: Expr) -> sympy.Expr:
        done = memo.get(node)
        if done is not None:
            return done
        out: sympy.Expr
        if isinstance(node, Const):
            out = sympy.Integer(node.value)
        elif isinstance(node, (Sym, InputAxis, RuntimeScalar)):
            out = leaf(node)
        elif isinstance(node, Sum):
            out = sympy.Add(sympy.Integer(node.const), *(k * convert(t) for t, k in node.terms))
        elif isinstance(node, Prod):
            out = sympy.Mul(*(convert(f) ** e for f, e in node.factors))
        elif isinstance(node, FloorDiv):
            out = sympy.floor(convert(node.num) / convert(node.den))
        elif isinstance(node, CeilDiv):
            out = sympy.ceiling(convert(node.num) / convert(node.den))
        elif isinstance(node, Mod):
            out = sympy.Mod(convert(node.num), convert(node.den))
        elif isinstance(node, Min):
            out = sympy.Min(*(convert(a) for a in node.args))
        elif isinstance(node, Max):
            out = sympy.Max(*(convert(a) for a in node.args))
        else:
            raise TypeError(f"unexpected node {node!r}")
        memo[node] = out
        return out

    return convert(expr)


def decide(op: str, lhs: Expr, rhs: Expr, ctx: ExtentContext) -> bool | None:
    """Decides ``lhs op rhs`` (``op`` is ``le``, ``lt`` or ``eq``) with sympy.

    Returns:
        ``True``/``False`` as in :func:`symshape_mlir.extent.prove_le`, or
        ``None`` when sympy is missing, the input is over the size cap, or
        sympy cannot tell.
    """
    if lhs.node_count() + rhs.node_count() > MAX_INPUT_NODES:
        return None
    if _extrema(lhs) + _extrema(rhs) > MAX_EXTREMA:
        return None
    try:
        import sympy
        from sympy.polys.polyerrors import BasePolynomialError
    except ImportError:
        return None
    try:
        diff = sympy.expand(to_sympy(rhs, ctx) - to_sympy(lhs, ctx))
        if sympy.count_ops(diff) > MAX_OPERATIONS:
            return None
        diff = sympy.factor(diff)
        if op == "le":
            return _truth(diff.is_nonnegative, diff.is_negative)
        if op == "lt":
            return _truth(diff.is_positive, diff.is_nonpositive)
        return _truth(diff.is_zero, diff.is_zero is False)
    except (ArithmeticError, ValueError, TypeError, RecursionError, BasePolynomialError) as err:
        # sympy failing on a form (a constant zero divisor, say) means it cannot decide.
        logger.debug("sympy cannot decide %s(%s, %s): %s", op, lhs, rhs, err)
        return None


def _extrema(expr: Expr) -> int:
    """The number of distinct ``min``/``max`` nodes of ``expr``."""
    seen: set[Expr] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(node.children)
    return sum(isinstance(node, (Min, Max)) for node in seen)


def _truth(holds: bool | None, fails: bool | None) -> bool | None:
    if holds:
        return True
    if fails:
        return False
    return None
