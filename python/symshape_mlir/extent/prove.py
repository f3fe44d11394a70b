"""Three-valued comparisons of extent expressions, and value bounds.

``prove_le(a, b)`` answers ``True`` only if ``a <= b`` for *every* binding of
the symbols to integers in their ranges (non-negative unless a context
declares otherwise), ``False`` only if ``a > b`` for every binding, and
``None`` otherwise. ``None`` means "not decided" and must never be read as
``False``. Bindings under which either side divides by zero are excluded.

The native procedure decides ``d = b - a >= 0`` on the polynomial normal form:

1. It eliminates non-polynomial atoms one at a time. A division by a positive
   constant ``t = x floordiv c`` is replaced by the bound of ``c * t`` that is
   sound for the sign of its coefficient (``x - c + 1 <= c * t <= x``), the
   whole inequality being scaled by ``c``; ``ceildiv`` and ``mod`` likewise.
   ``min``/``max`` atoms are split into cases (``t`` equals one of its
   arguments); when the inequality is monotone in ``t``, one case suffices.
2. What remains is a polynomial over symbols, axis extents, runtime scalars and
   opaque atoms (divisions by symbols, powers of divisions), each with an
   interval. Every atom with a finite lower bound is shifted to start at 0 and
   the polynomial's lower bound is taken term by term. This is exact for
   linear forms, so on them an undecided answer is final.
3. Because ``d`` is an integer, a scaled lower bound ``L`` of ``S * d`` proves
   ``d >= 0`` as soon as ``L > -S``.
4. Before all that, when ``d`` mentions a fresh symbol whose range has an
   end that is an expression (``min(1, batch) <= _d3 <= max(1, batch)``),
   the latest such symbol that occurs linearly (power 1, a cofactor that
   cannot be negative) is replaced by the end that bounds ``d`` from below —
   its lower end where its coefficient is positive, its upper end where it
   is negative — and the procedure is tried on the result first (before the
   ends' ``min``/``max`` are split into cases, so ``max(1, batch) - _d3`` is
   0). Linear forms over such symbols are therefore not final at step 2.

The work is bounded by a step budget. When the native procedure leaves a
nonlinear or non-polynomial question open, sympy is tried (imported lazily,
on expressions below a size cap), unless the context or the call disables it.
Answers are cached in the context.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Final, TypeAlias

from symshape_mlir.extent.context import ExtentContext
from symshape_mlir.extent.expr import (
    CeilDiv,
    Const,
    Expr,
    ExprLike,
    FloorDiv,
    InputAxis,
    Max,
    Min,
    Mod,
    Prod,
    RuntimeScalar,
    Sum,
    Sym,
    as_expr,
)

__all__ = [
    "bounds",
    "cancel_exact_divisions",
    "prove_eq",
    "prove_ge",
    "prove_gt",
    "prove_le",
    "prove_lt",
    "prove_ne",
    "prove_nonnegative",
]

logger = logging.getLogger(__name__)

_STEP_BUDGET: Final = 256
_INF: Final = float("inf")

Bound: TypeAlias = "int | float"  # a float only for +-inf
Interval: TypeAlias = "tuple[Bound, Bound]"
Mono: TypeAlias = "tuple[Expr, ...]"  # atoms sorted by canonical key, repeated per exponent
Poly: TypeAlias = "dict[Mono, int]"

_DEFAULT_CONTEXT = ExtentContext()


# ---------------------------------------------------------------------------------------
# Interval arithmetic


def _add_end(a: Bound, b: Bound) -> Bound:
    """``a + b`` where an infinite end absorbs any integer (Python cannot add
    ``inf`` and an integer beyond the float range)."""
    if isinstance(a, float):
        return a
    if isinstance(b, float):
        return b
    return a + b


def _mul_end(a: Bound, b: Bound) -> Bound:
    if a == 0 or b == 0:
        return 0
    if isinstance(a, float) or isinstance(b, float):
        return _INF if (a > 0) == (b > 0) else -_INF
    return a * b


def _imul(x: Interval, y: Interval) -> Interval:
    ends = (_mul_end(x[0], y[0]), _mul_end(x[0], y[1]), _mul_end(x[1], y[0]), _mul_end(x[1], y[1]))
    return min(ends), max(ends)


def _floor_end(a: Bound, b: Bound) -> Bound:
    """``floor(a / b)`` for a bound ``a`` and a positive bound ``b``."""
    if isinstance(b, float):
        return 0 if a >= 0 else -1
    if isinstance(a, float):
        return a
    return a // b


def _ceil_end(a: Bound, b: Bound) -> Bound:
    """``ceil(a / b)`` for a bound ``a`` and a positive bound ``b``."""
    if isinstance(b, float):
        return 1 if a > 0 else 0
    if isinstance(a, float):
        return a
    return -((-a) // b)


def _divide(num: Interval, den: Interval, end: Callable[[Bound, Bound], Bound]) -> Interval:
    """Bounds of ``num / den`` rounded by ``end``, for a divisor range of one sign."""
    if den[1] <= -1:
        num, den = (-num[1], -num[0]), (-den[1], -den[0])
    if den[0] == 0 and den[1] >= 1:
        den = (1, den[1])  # a zero divisor is excluded: the division fails there
    if den[0] < 1:
        return -_INF, _INF
    lo = end(num[0], den[1] if num[0] >= 0 else den[0])
    hi = end(num[1], den[0] if num[1] >= 0 else den[1])
    return lo, hi


class _Intervals:
    """Memoized value intervals of expressions under a context's ranges."""

    def __init__(self, ctx: ExtentContext) -> None:
        self.ctx = ctx
        self.memo: dict[Expr, Interval] = {}

    def of(self, node: Expr) -> Interval:
        found = self.memo.get(node)
        if found is None:
            found = self._compute(node)
            self.memo[node] = found
        return found

    def _compute(self, node: Expr) -> Interval:
        if isinstance(node, Const):
            return node.value, node.value
        if isinstance(node, Sym):
            low, high = self.ctx.range_of(node.name)
            plain: Interval = low, (_INF if high is None else high)
            limits = self.ctx.limits(node.name)
            if limits is None:
                return plain
            # Ends mention earlier symbols only; the plain range stops a cycle.
            self.memo[node] = plain
            least = self.of(limits[0])[0]
            most = plain[1] if limits[1] is None else min(plain[1], self.of(limits[1])[1])
            return max(plain[0], least), most
        if isinstance(node, InputAxis):
            return 0, _INF
        if isinstance(node, RuntimeScalar):
            return (-_INF, _INF) if node.semantics == "index" else (0, _INF)
        if isinstance(node, Sum):
            lo: Bound = node.const
            hi: Bound = node.const
            for term, coef in node.terms:
                t_lo, t_hi = _imul(self.of(term), (coef, coef))
                lo, hi = _add_end(lo, t_lo), _add_end(hi, t_hi)
            return lo, hi
        if isinstance(node, Prod):
            acc: Interval = (1, 1)
            for factor, exp in node.factors:
                for _ in range(exp):
                    acc = _imul(acc, self.of(factor))
            return acc
        if isinstance(node, FloorDiv):
            return _divide(self.of(node.num), self.of(node.den), _floor_end)
        if isinstance(node, CeilDiv):
            return _divide(self.of(node.num), self.of(node.den), _ceil_end)
        if isinstance(node, Mod):
            return self._mod(node)
        if isinstance(node, Min):
            parts = [self.of(a) for a in node.args]
            return min(p[0] for p in parts), min(p[1] for p in parts)
        if isinstance(node, Max):
            parts = [self.of(a) for a in node.args]
            return max(p[0] for p in parts), max(p[1] for p in parts)
        raise TypeError(f"unexpected node {node!r}")

    def _mod(self, node: Mod) -> Interval:
        num = self.of(node.num)
        den = self.of(node.den)
        if den[0] >= 1:
            hi = den[1] - 1
            if num[0] >= 0:
                if num[1] < den[0]:
                    return num
                hi = min(hi, num[1])
            return 0, hi
        if den[1] <= -1:
            return den[0] + 1, 0
        return -_INF, _INF


def bounds(expr: ExprLike, ctx: ExtentContext | None = None) -> tuple[int | None, int | None]:
    """Returns ``(lo, hi)`` with ``lo <= expr <= hi`` for every binding.

    Interval arithmetic over the symbols' ranges; ``None`` stands for an
    unbounded side. Sound, not always tight. As for the provers, bindings
    that divide by zero are excluded (``x floordiv y`` is ``>= 0`` for
    symbols: ``y >= 1`` wherever it is defined).
    """
    lo, hi = _Intervals(ctx or _DEFAULT_CONTEXT).of(as_expr(expr))
    return (None if isinstance(lo, float) else lo), (None if isinstance(hi, float) else hi)


# ---------------------------------------------------------------------------------------
# Polynomials over atoms


def _atom_key(node: Expr) -> tuple[object, ...]:
    return node._key


def _mono_of(node: Expr) -> Mono:
    if isinstance(node, Prod):
        return tuple(f for f, exp in node.factors for _ in range(exp))
    return (node,)


def _poly_of(node: Expr) -> Poly:
    if isinstance(node, Const):
        return {(): node.value} if node.value else {}
    if isinstance(node, Sum):
        poly: Poly = {(): node.const} if node.const else {}
        for term, coef in node.terms:
            poly[_mono_of(term)] = coef
        return poly
    return {_mono_of(node): 1}


def _mono_mul(a: Mono, b: Mono) -> Mono:
    if not a:
        return b
    if not b:
        return a
    return tuple(sorted(a + b, key=_atom_key))


def _accumulate(into: Poly, poly: Poly, factor: int = 1, mono: Mono = ()) -> None:
    """``into += factor * mono * poly``."""
    for m, k in poly.items():
        key = _mono_mul(mono, m)
        value = into.get(key, 0) + factor * k
        if value:
            into[key] = value
        else:
            into.pop(key, None)


def _linear(a: Poly, b: Poly, kb: int = 1, const: int = 0) -> Poly:
    """``a + kb * b + const``."""
    out = dict(a)
    _accumulate(out, b, kb)
    if const:
        _accumulate(out, {(): const})
    return out


def _without(mono: Mono, atom: Expr) -> tuple[Mono, int]:
    """Splits ``mono`` into ``(cofactor, power of atom)``."""
    rest = tuple(a for a in mono if a is not atom)
    return rest, len(mono) - len(rest)


def _substitute(poly: Poly, atom: Expr, replacement: Poly) -> Poly:
    out: Poly = {}
    for mono, coef in poly.items():
        cofactor, power = _without(mono, atom)
        term: Poly = {cofactor: coef}
        for _ in range(power):
            nxt: Poly = {}
            for m, k in term.items():
                _accumulate(nxt, replacement, k, m)
            term = nxt
        _accumulate(out, term)
    return out


def _fresh_index(symbol: Sym) -> int:
    """The number of a fresh symbol ``_dN`` (later symbols have larger ones)."""
    return int(symbol.name[2:])


def _is_compound(atom: Expr) -> bool:
    return not isinstance(atom, (Sym, InputAxis, RuntimeScalar))


def _needs_more_than_linear(poly: Poly) -> bool:
    """Whether the native lower bound may be loose (a nonlinear or non-polynomial form)."""
    return any(len(mono) > 1 or (mono and _is_compound(mono[0])) for mono in poly)


class _Prover:
    """Decides ``poly >= 0`` for every binding, within a step budget."""

    def __init__(self, ctx: ExtentContext) -> None:
        self.intervals = _Intervals(ctx)
        self.budget = _STEP_BUDGET

    def nonneg(self, poly: Poly, scale: int = 1) -> bool:
        """Whether ``scale * d >= poly`` proves the integer ``d >= 0``."""
        self.budget -= 1
        if self.budget < 0:
            return False
        # Every atom's own range may already do (a product of two floordivs of
        # non-negative sums); eliminating an atom below replaces it by a bound
        # that can lose its sign.
        if self._lower_bound(poly) > -scale:
            return True
        limited = self._limited(poly)
        if limited is not None:
            # Replaced first, before its ends are split into cases: ``max(1, b) - _d3``
            # with ``_d3 <= max(1, b)`` is 0.
            low, high = limited[1]
            if self.nonneg(self._replace(poly, limited[0], 1, _poly_of(low),
                                         {} if high is None else _poly_of(high)), scale):
                return True
        # Min and max first: splitting one substitutes an argument, which keeps
        # the divisions it shares with the rest (``P - max(0, P - 3)`` is 3
        # whatever floordivs P holds); bounding a division first would not.
        for mono in poly:
            for atom in mono:
                if isinstance(atom, (Min, Max)):
                    return self._split(poly, atom, scale)
        for mono in poly:
            for atom in mono:
                if not _is_compound(atom):
                    continue
                if self._divides_by_positive_constant(poly, atom):
                    return any(
                        self.nonneg(eliminated, scale * factor)
                        for eliminated, factor in self._eliminations(poly, atom)
                    )
        return self._lower_bound(poly) > -scale

    def _limited(self, poly: Poly) -> tuple[Sym, tuple[Expr, Expr | None]] | None:
        """The latest fresh symbol with expression ends that ``poly`` mentions
        linearly (so it can be replaced by an end), with its ends."""
        best: tuple[Sym, tuple[Expr, Expr | None]] | None = None
        ctx = self.intervals.ctx
        for mono in poly:
            for atom in mono:
                if not isinstance(atom, Sym) or (best is not None and atom is best[0]):
                    continue
                limits = ctx.limits(atom.name)
                if limits is None or not self._linear_in(poly, atom, limits[1] is not None):
                    continue
                if best is None or _fresh_index(atom) > _fresh_index(best[0]):
                    best = (atom, limits)
        return best

    def _linear_in(self, poly: Poly, atom: Sym, has_upper: bool) -> bool:
        """Whether ``atom`` occurs in ``poly`` with power 1 and a cofactor that is
        never negative, and with no negative coefficient unless it has an upper end."""
        for mono, coef in poly.items():
            cofactor, power = _without(mono, atom)
            if power > 1 or (power and (not self._cofactor_nonneg(cofactor)
                                        or (coef < 0 and not has_upper))):
                return False
        return True

    def _cofactor_nonneg(self, cofactor: Mono) -> bool:
        return all(self.intervals.of(a)[0] >= 0 for a in cofactor)

    def _divides_by_positive_constant(self, poly: Poly, atom: Expr) -> bool:
        if not isinstance(atom, (FloorDiv, CeilDiv, Mod)):
            return False
        if not isinstance(atom.den, Const) or atom.den.value < 1:
            return False
        for mono in poly:
            cofactor, power = _without(mono, atom)
            if power > 1 or (power == 1 and not self._cofactor_nonneg(cofactor)):
                return False
        return True

    def _eliminations(self, poly: Poly, atom: Expr) -> Iterator[tuple[Poly, int]]:
        """Lower bounds of ``factor * poly`` with ``atom`` replaced by a bound of itself.

        Any one of them being non-negative proves ``poly >= 0``.
        """
        assert isinstance(atom, (FloorDiv, CeilDiv, Mod)) and isinstance(atom.den, Const)
        c = atom.den.value
        x = _poly_of(atom.num)
        if isinstance(atom, FloorDiv):
            # x - c + 1 <= c * atom <= x
            yield self._replace(poly, atom, c, _linear(x, {}, const=1 - c), x), c
        elif isinstance(atom, CeilDiv):
            # x <= c * atom <= x + c - 1
            yield self._replace(poly, atom, c, x, _linear(x, {}, const=c - 1)), c
        else:
            # 0 <= atom <= c - 1, and atom <= x when x >= 0
            yield self._replace(poly, atom, 1, {}, {(): c - 1}), 1
            if self.intervals.of(atom.num)[0] >= 0:
                yield self._replace(poly, atom, 1, {}, x), 1

    @staticmethod
    def _replace(poly: Poly, atom: Expr, scale: int, lower: Poly, upper: Poly) -> Poly:
        """``scale * poly`` with ``scale * atom`` replaced by ``lower`` where its
        coefficient is positive and by ``upper`` where it is negative."""
        out: Poly = {}
        for mono, coef in poly.items():
            cofactor, power = _without(mono, atom)
            if power:
                _accumulate(out, lower if coef > 0 else upper, coef, cofactor)
            else:
                _accumulate(out, {mono: coef}, scale)
        return out

    def _split(self, poly: Poly, atom: Min | Max, scale: int) -> bool:
        signs = set()
        monotone = True
        for mono, coef in poly.items():
            cofactor, power = _without(mono, atom)
            if power:
                signs.add(coef > 0)
                monotone = monotone and power == 1 and self._cofactor_nonneg(cofactor)
        # `atom` equals one of its arguments; when poly grows with atom and atom is a
        # max (or shrinks and it is a min), poly >= poly[atom := arg] for every arg.
        one_case = monotone and len(signs) == 1 and (signs == {True}) == isinstance(atom, Max)
        cases = (_substitute(poly, atom, _poly_of(arg)) for arg in atom.args)
        if one_case:
            return any(self.nonneg(case, scale) for case in cases)
        return all(self.nonneg(case, scale) for case in cases)

    def _lower_bound(self, poly: Poly) -> Bound:
        ranges: dict[Expr, Interval] = {}
        for mono in poly:
            for atom in mono:
                if atom not in ranges:
                    ranges[atom] = self.intervals.of(atom)
        for atom, (lo, hi) in list(ranges.items()):
            if isinstance(lo, int) and lo != 0:
                poly = _substitute(poly, atom, {(): lo, (atom,): 1})
                ranges[atom] = (0, _add_end(hi, -lo))
        total: Bound = 0
        for mono, coef in poly.items():
            acc: Interval = (1, 1)
            for atom in mono:
                acc = _imul(acc, ranges[atom])
            total = _add_end(total, _mul_end(coef, acc[0] if coef > 0 else acc[1]))
        return total


# ---------------------------------------------------------------------------------------
# Public comparisons


def _nonneg(poly: Poly, ctx: ExtentContext) -> bool:
    if all(not mono for mono in poly):
        return poly.get((), 0) >= 0
    return _Prover(ctx).nonneg(poly)


def _linear_range(diff: Poly, ctx: ExtentContext) -> Interval | None:
    """The exact range of a linear form over leaves, or ``None`` for any other form."""
    lo: Bound = 0
    hi: Bound = 0
    intervals: _Intervals | None = None
    for mono, coef in diff.items():
        if not mono:
            lo, hi = _add_end(lo, coef), _add_end(hi, coef)
            continue
        if len(mono) > 1 or _is_compound(mono[0]):
            return None
        intervals = intervals or _Intervals(ctx)
        t_lo, t_hi = _imul(intervals.of(mono[0]), (coef, coef))
        lo, hi = _add_end(lo, t_lo), _add_end(hi, t_hi)
    return lo, hi


def _verdict(op: str, lo: Bound, hi: Bound) -> bool | None:
    """Decides ``d >= 0`` (le), ``d >= 1`` (lt) or ``d == 0`` (eq) from ``lo <= d <= hi``."""
    least = 1 if op == "lt" else 0
    if op == "eq":
        if lo == hi == 0:
            return True
        return False if lo > 0 or hi < 0 else None
    if lo >= least:
        return True
    return False if hi < least else None


def _exact_quotient(num: Expr, den: Expr) -> Expr | None:
    """``num / den`` when the monomial ``den`` divides every term of ``num``."""
    den_poly = _poly_of(den)
    if len(den_poly) != 1:
        return None
    ((den_mono, den_coef),) = den_poly.items()
    if not den_mono:
        return None  # a constant divisor: the canonical form already cancels
    quotient: Expr = Const(0)
    for mono, coef in _poly_of(num).items():
        if coef % den_coef:
            return None
        rest = list(mono)
        for atom in den_mono:
            if not any(r is atom for r in rest):
                return None
            rest.pop(next(i for i, r in enumerate(rest) if r is atom))
        term: Expr = Const(coef // den_coef)
        for atom in rest:
            term = term * atom
        quotient = quotient + term
    return quotient


def cancel_exact_divisions(expr: Expr) -> Expr:
    """``expr`` with exact divisions by symbolic monomials cancelled.

    The canonical form cannot do this (it must stay defined where the
    original divides by zero); a fact about a value computed by a guarded
    division can.

    ``(768 * b * s) floordiv (768 * b)`` is ``s`` wherever it is defined
    (``b != 0``): the provers exclude bindings that divide by zero, and at
    run time such a division fails its guard before any size uses it. This
    is what makes ONNX-style ``-1`` reshapes (``numel floordiv
    product(known)``) provable without sympy.
    """
    if not any(isinstance(n, (FloorDiv, CeilDiv, Mod)) for n in _nodes(expr)):
        return expr
    memo: dict[Expr, Expr] = {}

    def walk(original: Expr) -> Expr:
        done = memo.get(original)
        if done is not None:
            return done
        node = original
        children = node.children
        if children:
            rebuilt = tuple(walk(c) for c in children)
            if any(r is not c for r, c in zip(rebuilt, children, strict=True)):
                node = node._with_children(rebuilt)
        if isinstance(node, (FloorDiv, CeilDiv, Mod)):
            quotient = _exact_quotient(node.num, node.den)
            if quotient is not None:
                node = Const(0) if isinstance(node, Mod) else quotient
        memo[original] = node
        return node

    return walk(expr)


def _nodes(expr: Expr) -> Iterator[Expr]:
    stack, seen = [expr], set()
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            yield node
            stack.extend(node.children)


def _mentions_limited(poly: Poly, ctx: ExtentContext) -> bool:
    """Whether ``poly`` mentions a symbol whose range has an expression end."""
    return any(isinstance(atom, Sym) and ctx.limits(atom.name) is not None
               for mono in poly for atom in mono)


def _native(op: str, a: Expr, b: Expr, ctx: ExtentContext) -> bool | None:
    diff = _linear(_poly_of(b), _poly_of(a), -1)  # b - a
    linear = _linear_range(diff, ctx)
    if linear is not None:
        verdict = _verdict(op, *linear)
        if verdict is not None or not ctx.has_limits or not _mentions_limited(diff, ctx):
            return verdict
    if op == "le":
        if _nonneg(diff, ctx):
            return True
        if _nonneg(_linear({}, diff, -1, -1), ctx):  # a - b - 1 >= 0
            return False
        return None
    if op == "lt":
        if _nonneg(_linear(diff, {}, const=-1), ctx):  # b - a - 1 >= 0
            return True
        if _nonneg(_linear({}, diff, -1), ctx):  # a - b >= 0
            return False
        return None
    if not diff:
        return True
    if _nonneg(diff, ctx) and _nonneg(_linear({}, diff, -1), ctx):
        return True
    if _nonneg(_linear(diff, {}, const=-1), ctx) or _nonneg(_linear({}, diff, -1, -1), ctx):
        return False
    return None


def _decide(
    op: str, lhs: ExprLike, rhs: ExprLike, ctx: ExtentContext | None, fallback: bool | None
) -> bool | None:
    a, b = as_expr(lhs), as_expr(rhs)
    if a is b:
        return op != "lt"
    context = ctx or _DEFAULT_CONTEXT
    use_sympy = context.use_sympy if fallback is None else fallback
    key = (op, a, b, use_sympy)
    found, answer = context._cached_proof(key)
    if found:
        return answer
    answer = _native(op, a, b, context)
    if answer is None:
        x, y = cancel_exact_divisions(a), cancel_exact_divisions(b)
        if x is not a or y is not b:
            answer = _native(op, x, y, context) if x is not y else op != "lt"
            a, b = x, y
    if answer is None and use_sympy:
        diff = _linear(_poly_of(b), _poly_of(a), -1)
        if _needs_more_than_linear(diff):
            from symshape_mlir.extent import sympy_fallback

            answer = sympy_fallback.decide(op, a, b, context)
            logger.debug("sympy fallback for %s(%s, %s): %s", op, a, b, answer)
    context._store_proof(key, answer)
    return answer


def prove_le(
    lhs: ExprLike, rhs: ExprLike, ctx: ExtentContext | None = None, *, fallback: bool | None = None
) -> bool | None:
    """Decides ``lhs <= rhs`` for every binding.

    Args:
        lhs: left side.
        rhs: right side.
        ctx: symbol ranges (default: every symbol ranges over ``[0, inf)``).
        fallback: whether sympy may be tried on open nonlinear questions
            (default: the context's ``use_sympy``).

    Returns:
        ``True`` if it holds for every binding, ``False`` if it fails for
        every binding, ``None`` if undecided.
    """
    return _decide("le", lhs, rhs, ctx, fallback)


def prove_lt(
    lhs: ExprLike, rhs: ExprLike, ctx: ExtentContext | None = None, *, fallback: bool | None = None
) -> bool | None:
    """Decides ``lhs < rhs`` for every binding (see :func:`prove_le`)."""
    return _decide("lt", lhs, rhs, ctx, fallback)


def prove_ge(
    lhs: ExprLike, rhs: ExprLike, ctx: ExtentContext | None = None, *, fallback: bool | None = None
) -> bool | None:
    """Decides ``lhs >= rhs`` for every binding (see :func:`prove_le`)."""
    return _decide("le", rhs, lhs, ctx, fallback)


def prove_gt(
    lhs: ExprLike, rhs: ExprLike, ctx: ExtentContext | None = None, *, fallback: bool | None = None
) -> bool | None:
    """Decides ``lhs > rhs`` for every binding (see :func:`prove_le`)."""
    return _decide("lt", rhs, lhs, ctx, fallback)


def prove_eq(
    lhs: ExprLike, rhs: ExprLike, ctx: ExtentContext | None = None, *, fallback: bool | None = None
) -> bool | None:
    """Decides ``lhs == rhs``: ``True`` if equal for every binding, ``False`` if
    different for every binding, else ``None`` (see :func:`prove_le`)."""
    return _decide("eq", lhs, rhs, ctx, fallback)


def prove_ne(
    lhs: ExprLike, rhs: ExprLike, ctx: ExtentContext | None = None, *, fallback: bool | None = None
) -> bool | None:
    """Decides ``lhs != rhs`` for every binding: the three-valued negation of :func:`prove_eq`."""
    answer = _decide("eq", lhs, rhs, ctx, fallback)
    return None if answer is None else not answer


def prove_nonnegative(
    expr: ExprLike, ctx: ExtentContext | None = None, *, fallback: bool | None = None
) -> bool | None:
    """Decides ``expr >= 0`` for every binding, i.e. whether it is a valid size."""
    return _decide("le", 0, expr, ctx, fallback)
