"""Canonicalizing constructors: the only way expression nodes are built.

Each constructor returns the canonical form of its result (see
:mod:`symshape_mlir.extent.expr` for the normal form), so that structurally
equal results are the same interned node. The form is a fixpoint: rebuilding a
canonical node from its own children returns that node, which is what makes
printing/parsing and serialization round-trip to the identical object.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from math import gcd
from typing import Final

from symshape_mlir.extent.errors import ExpressionTooLargeError
from symshape_mlir.extent.expr import (
    CeilDiv,
    Const,
    Expr,
    ExprLike,
    FloorDiv,
    Max,
    Min,
    Mod,
    Prod,
    Sum,
    _interned,
    as_expr,
)
from symshape_mlir.extent.expr import canon as _table

__all__ = [
    "MAX_TERMS",
    "add",
    "ceildiv",
    "floordiv",
    "maximum",
    "minimum",
    "mod",
    "mul",
    "neg",
    "sub",
]

MAX_TERMS: Final = 512
"""Most monomials one polynomial may hold; expanding past it raises."""

_MERGE_LIMIT: Final = 2**31
"""Largest divisor that merging nested divisions may create."""


_ZERO = Const(0)
_ONE = Const(1)


def _poly(node: Expr) -> tuple[int, dict[Expr, int]]:
    """``node`` as ``(constant, {monomial: coefficient})``."""
    if isinstance(node, Const):
        return node.value, {}
    if isinstance(node, Sum):
        return node.const, dict(node.terms)
    return 0, {node: 1}


def _term_key(term: tuple[Expr, int]) -> tuple[object, ...]:
    return term[0]._key


def _factor_key(factor: tuple[Expr, int]) -> tuple[object, ...]:
    return factor[0]._key


def _from_poly(const: int, terms: Mapping[Expr, int]) -> Expr:
    items = [(t, k) for t, k in terms.items() if k]
    if not items:
        return Const(const)
    if const == 0 and len(items) == 1 and items[0][1] == 1:
        return items[0][0]
    if len(items) > MAX_TERMS:
        raise ExpressionTooLargeError(
            f"a sum of {len(items)} terms exceeds the limit of {MAX_TERMS}"
        )
    items.sort(key=_term_key)
    return _interned(Sum, (const, tuple(items)))


def add(*operands: ExprLike) -> Expr:
    """Returns the canonical sum of ``operands`` (zero when there are none)."""
    const = 0
    terms: dict[Expr, int] = {}
    for value in operands:
        node = as_expr(value)
        if isinstance(node, Const):
            const += node.value
        elif isinstance(node, Sum):
            const += node.const
            for t, k in node.terms:
                terms[t] = terms.get(t, 0) + k
        else:
            terms[node] = terms.get(node, 0) + 1
    return _from_poly(const, terms)


def sub(lhs: ExprLike, rhs: ExprLike) -> Expr:
    """Returns the canonical ``lhs - rhs``."""
    return add(lhs, _scale(as_expr(rhs), -1))


def neg(operand: ExprLike) -> Expr:
    """Returns the canonical ``-operand``."""
    return _scale(as_expr(operand), -1)


def _scale(node: Expr, factor: int) -> Expr:
    if factor == 0:
        return _ZERO
    if factor == 1:
        return node
    const, terms = _poly(node)
    return _from_poly(const * factor, {t: k * factor for t, k in terms.items()})


def _factors(monomial: Expr) -> dict[Expr, int]:
    if isinstance(monomial, Prod):
        return dict(monomial.factors)
    return {monomial: 1}


def _monomial_product(a: Expr, b: Expr) -> Expr:
    factors = _factors(a)
    for atom, exp in _factors(b).items():
        factors[atom] = factors.get(atom, 0) + exp
    if len(factors) == 1:
        ((atom, exp),) = factors.items()
        if exp == 1:
            return atom
    return _interned(Prod, (tuple(sorted(factors.items(), key=_factor_key)),))


def _mul2(a: Expr, b: Expr) -> Expr:
    if isinstance(a, Const):
        return _scale(b, a.value)
    if isinstance(b, Const):
        return _scale(a, b.value)
    ca, ta = _poly(a)
    cb, tb = _poly(b)
    size = (len(ta) + (ca != 0)) * (len(tb) + (cb != 0))
    if size > MAX_TERMS:
        raise ExpressionTooLargeError(
            f"expanding a product of {len(ta) + 1} by {len(tb) + 1} terms exceeds "
            f"the limit of {MAX_TERMS}"
        )
    terms: dict[Expr, int] = {}
    for t1, k1 in ta.items():
        if cb:
            terms[t1] = terms.get(t1, 0) + k1 * cb
        for t2, k2 in tb.items():
            m = _monomial_product(t1, t2)
            terms[m] = terms.get(m, 0) + k1 * k2
    if ca:
        for t2, k2 in tb.items():
            terms[t2] = terms.get(t2, 0) + ca * k2
    return _from_poly(ca * cb, terms)


def mul(*operands: ExprLike) -> Expr:
    """Returns the canonical product of ``operands`` (one when there are none).

    Raises:
        ExpressionTooLargeError: expanding the product exceeds :data:`MAX_TERMS`.
    """
    result: Expr = _ONE
    for value in operands:
        result = _mul2(result, as_expr(value))
    return result


def _split_multiples(
    const: int, terms: Mapping[Expr, int], divisor: int
) -> tuple[Expr, int, dict[Expr, int]]:
    """Splits ``const + sum(k * t)`` as ``divisor * quotient + (rest_const + rest)``.

    The constant remainder is in ``[0, divisor)``; coefficients are reduced
    toward zero, keeping their sign.
    """
    q0, r0 = divmod(const, divisor)
    quotient: dict[Expr, int] = {}
    rest: dict[Expr, int] = {}
    for t, k in terms.items():
        q = k // divisor if k >= 0 else -((-k) // divisor)
        if q:
            quotient[t] = q
        if k - q * divisor:
            rest[t] = k - q * divisor
    return _from_poly(q0, quotient), r0, rest


def _divide_by_constant(cls: type[FloorDiv] | type[CeilDiv], num: Expr, divisor: int) -> Expr:
    """Canonical ``num floordiv divisor`` / ``num ceildiv divisor`` for ``divisor >= 2``."""
    const, terms = _poly(num)
    quotient, r0, rest = _split_multiples(const, terms, divisor)
    if len(rest) == 1:
        ((inner, k),) = rest.items()
        if (
            k == 1
            and isinstance(inner, cls)
            and isinstance(inner.den, Const)
            and 0 < inner.den.value * divisor <= _MERGE_LIMIT
        ):
            # floor((floor(x / a) + r) / b) == floor((x + r * a) / (a * b)) for positive
            # a, b; the same holds for ceil. Merging stops before the divisor could leave
            # the int64 range, where the nested form still evaluates.
            a = inner.den.value
            return add(quotient, _divide_by_constant(cls, add(inner.num, r0 * a), a * divisor))
    g = gcd(divisor, r0, *rest.values())
    if g > 1:
        divisor //= g
        r0 //= g
        rest = {t: k // g for t, k in rest.items()}
    if not rest:
        remainder = r0 // divisor if cls is FloorDiv else -((-r0) // divisor)
        return add(quotient, remainder)
    if divisor == 1:
        return add(quotient, _from_poly(r0, rest))
    return add(quotient, _interned(cls, (_from_poly(r0, rest), Const(divisor))))


def floordiv(num: ExprLike, den: ExprLike) -> Expr:
    """Returns the canonical ``num floordiv den`` (Python ``//``)."""
    return _division(FloorDiv, num, den, lambda n, d: n // d)


def ceildiv(num: ExprLike, den: ExprLike) -> Expr:
    """Returns the canonical ``num ceildiv den`` (``-((-num) // den)``)."""
    return _division(CeilDiv, num, den, lambda n, d: -((-n) // d))


def _division(cls: type[FloorDiv] | type[CeilDiv], num: ExprLike, den: ExprLike,
              fold: Callable[[int, int], int]) -> Expr:
    """A rounding division ``cls``; ``fold`` divides two constants the same way.

    By a negative constant, both roundings divide the negated dividend:
    ``x floordiv -d == (-x) floordiv d``, and likewise for ``ceildiv``.
    """
    n, d = as_expr(num), as_expr(den)
    if isinstance(d, Const):
        dv = d.value
        if dv == 0:
            return _interned(cls, (n, d))
        if isinstance(n, Const):
            return Const(fold(n.value, dv))
        if dv == 1:
            return n
        if dv == -1:
            return neg(n)
        if dv < 0:
            return _divide_by_constant(cls, neg(n), -dv)
        return _divide_by_constant(cls, n, dv)
    return _interned(cls, (n, d))


def mod(num: ExprLike, den: ExprLike) -> Expr:
    """Returns the canonical ``num mod den`` (Python ``%``: the sign of the divisor)."""
    n, d = as_expr(num), as_expr(den)
    if isinstance(d, Const):
        dv = d.value
        if dv == 0:
            return _interned(Mod, (n, d))
        if isinstance(n, Const):
            return Const(n.value % dv)
        if dv in (1, -1):
            return _ZERO
        if dv < 0:
            # x % -d == -((-x) % d)
            return neg(mod(neg(n), -dv))
        const, terms = _poly(n)
        rest = {t: k % dv for t, k in terms.items() if k % dv}
        r0 = const % dv
        if not rest:
            return Const(r0)
        g = gcd(dv, r0, *rest.values())
        inner = _from_poly(r0 // g, {t: k // g for t, k in rest.items()})
        return _scale(_interned(Mod, (inner, Const(dv // g))), g)
    return _interned(Mod, (n, d))


def _provably_le(a: Expr, b: Expr) -> bool:
    """Whether ``a <= b`` for every binding, judged from the structure of ``b - a``."""
    ca, ta = _poly(a)
    cb, tb = _poly(b)
    if cb < ca:
        return False
    diff = dict(tb)
    for t, k in ta.items():
        diff[t] = diff.get(t, 0) - k
    return all(k == 0 or (k > 0 and t._nonneg) for t, k in diff.items())


def _extremum(cls: type[Min] | type[Max], operands: Iterable[ExprLike]) -> Expr:
    args: list[Expr] = []
    for value in operands:
        node = as_expr(value)
        args.extend(node.args if isinstance(node, cls) else (node,))
    if not args:
        raise TypeError(f"{cls._word}() needs at least one operand")
    unique = list(dict.fromkeys(args))
    consts = [a for a in unique if isinstance(a, Const)]
    if len(consts) > 1:
        pick = min if cls is Min else max
        best = pick(consts, key=lambda c: c.value)
        unique = [a for a in unique if not isinstance(a, Const) or a is best]

    def dominated(y: Expr) -> bool:
        if cls is Min:
            return any(x is not y and _provably_le(x, y) for x in unique)
        return any(x is not y and _provably_le(y, x) for x in unique)

    kept = [y for y in unique if not dominated(y)]
    if len(kept) == 1:
        return kept[0]
    kept.sort(key=lambda e: e._key)
    return _interned(cls, (tuple(kept),))


def minimum(*operands: ExprLike) -> Expr:
    """Returns the canonical ``min`` of one or more operands."""
    return _extremum(Min, operands)


def maximum(*operands: ExprLike) -> Expr:
    """Returns the canonical ``max`` of one or more operands."""
    return _extremum(Max, operands)


# The node methods of extent.expr build through these (see expr._Constructors).
_table.add, _table.sub, _table.neg, _table.mul = add, sub, neg, mul
_table.floordiv, _table.ceildiv, _table.mod = floordiv, ceildiv, mod
_table.minimum, _table.maximum = minimum, maximum
