"""Extents with a guarantee: exact, upper bound, or unknown.

A :class:`ShapeExtent` says what is known about the runtime value ``X`` of one
tensor extent:

* ``Exact(a)``: ``X == a`` (``a`` need not be constant);
* ``UpperBound(a)``: ``X <= a``; never a legal stand-in for the true size;
* ``Unknown``: nothing.

Their :class:`Strength` orders them: unknown < upper bound < exact.

Combinators compute what is known about the result of an operation and
*never upgrade*: they claim only what follows from their operands. Operand
values are extents, so ``X >= 0`` and ``Y >= 0`` at run time (the public
combinators rely on that, and on a zero divisor failing rather than
producing a value). :func:`instantiate`, which evaluates a whole expression
over extents, tracks signs itself and drops to weaker guarantees where an
intermediate value may be negative.

Full table (``a``, ``b`` the operands' expressions; ``E`` exact, ``U`` upper
bound, ``?`` unknown; ``E|U(a)`` either of them)::

    op        E(a),E(b)    E(a),U(b)       U(a),E(b)       U(a),U(b)       E|U(a),?  ?,E|U(b)  ?,?
    add       E(a+b)       U(a+b)          U(a+b)          U(a+b)          ?         ?         ?
    sub       E(a-b)       U(a) [1]        U(a-b)          U(a) [1]        U(a) [1]  ?         ?
    mul       E(a*b)       U(a*b)          U(a*b)          U(a*b)          ?         ?         ?
    floordiv  E(a fd b)    U(a) [2]        U(a fd b)       U(a) [2]        U(a) [2]  ?         ?
    ceildiv   E(a cd b)    U(a) [2]        U(a cd b)       U(a) [2]        U(a) [2]  ?         ?
    mod       E(a mod b)   U(min(a,b-1))   U(min(a,b-1))   U(min(a,b-1))   U(a) [3]  U(b-1)    ?
    min       E(min(a,b))  U(min(a,b))     U(min(a,b))     U(min(a,b))     U(a)      U(b)      ?
    max       E(max(a,b))  U(max(a,b))     U(max(a,b))     U(max(a,b))     ?         ?         ?
    join      [4]          U(max(a,b))     U(max(a,b))     U(max(a,b))     ?         ?         ?
    broadcast see below

    [1] a - Y <= a because Y >= 0: subtracting an upper bound gives no bound
        of the form a - b.
    [2] X fd Y <= X and X cd Y <= X for X >= 0 and Y >= 1.
    [3] X mod Y <= X for X >= 0 and Y >= 1; also X mod Y <= Y - 1.
    [4] E(a) if a == b is proven (the simpler of the two), else U(max(a, b)).

``join`` merges the two branches of a conditional (``scf.if``): the value is
one of them. ``broadcast`` gives the extent of a numpy-broadcast result axis
*assuming the operands are compatible at run time* (equal, or one is 1;
:func:`symshape_mlir.shapes.broadcast_shapes` decides or records that
condition)::

    E(a),E(b)  a == b proven  -> E(a)           (the simpler of a, b)
               a == 1 proven  -> E(b); b == 1 proven -> E(a)
               a != 1 proven  -> E(a); b != 1 proven -> E(b)
               otherwise      -> E(min(max(a, b), a * b))   (exact for every
                                 compatible pair, including 1 with 0)
    E(a),U(b)  a == 1 proven  -> U(b); a != 1 proven -> E(a); else U(max(a, b))
    U(a),U(b)  U(max(a, b))
    E(a),?     a != 1 proven  -> E(a); else ?
    U(a),?     ?;   ?,? -> ?

Every binary rule is symmetric in its operands where the operation is.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from enum import IntEnum
from typing import Final, TypeAlias

from symshape_mlir.extent import canon
from symshape_mlir.extent import expr as ex
from symshape_mlir.extent.context import ExtentContext, is_fresh_name
from symshape_mlir.extent.expr import (
    CeilDiv,
    Const,
    DimSource,
    Expr,
    ExprLike,
    FloorDiv,
    InputAxis,
    Max,
    Min,
    Mod,
    Prod,
    RuntimeScalar,
    ScalarSource,
    Sum,
    Sym,
    as_expr,
)
from symshape_mlir.extent.prove import prove_eq, prove_ne, prove_nonnegative

__all__ = [
    "UNKNOWN",
    "Combine",
    "Exact",
    "ExtentLike",
    "ShapeExtent",
    "Strength",
    "Unknown",
    "UpperBound",
    "add",
    "add_signed",
    "as_extent",
    "broadcast",
    "ceildiv",
    "ceildiv_signed",
    "floordiv",
    "floordiv_signed",
    "instantiate",
    "join",
    "max_signed",
    "maximum",
    "min_signed",
    "minimum",
    "mod",
    "mod_signed",
    "mul",
    "mul_signed",
    "preferred",
    "sub",
    "sub_signed",
    "upgrades",
]


class Strength(IntEnum):
    """How much an extent guarantees, weakest first: a greater strength claims more.

    Modules that compare strengths in hot paths bind the members they use to
    module constants (``_EXACT = Strength.EXACT``) and compare with ``is``: on
    Python 3.11 every ``Strength.X`` lookup goes through the slow attribute hook
    of ``EnumType.__getattr__``.
    """

    UNKNOWN = 0
    """Nothing is known (:class:`Unknown`)."""
    UPPER_BOUND = 1
    """The expression bounds the runtime value from above (:class:`UpperBound`)."""
    EXACT = 2
    """The expression is the runtime value (:class:`Exact`)."""


# Strength members, hoisted (see Strength).
_EXACT = Strength.EXACT
_UPPER_BOUND = Strength.UPPER_BOUND
_UNKNOWN = Strength.UNKNOWN


class ShapeExtent:
    """What is known about one runtime extent; see the module docstring.

    Supports ``+ - * // %`` with other extents, expressions and integers
    (an expression or integer operand is exact).
    """

    __slots__ = ()

    strength: Strength
    """How much the extent guarantees."""

    @property
    def expr(self) -> Expr | None:
        """The exact value or the upper bound; ``None`` when unknown."""
        return None

    @property
    def is_exact(self) -> bool:
        """Whether the expression is the runtime value."""
        return self.strength is _EXACT

    @property
    def is_upper_bound(self) -> bool:
        """Whether the expression only bounds the runtime value from above."""
        return self.strength is _UPPER_BOUND

    @property
    def is_unknown(self) -> bool:
        """Whether nothing is known."""
        return self.strength is _UNKNOWN

    @property
    def free_symbols(self) -> frozenset[str]:
        """Symbols of the expression (empty when unknown)."""
        return frozenset() if self.expr is None else self.expr.free_symbols

    def map_expr(self, fn: Callable[[Expr], Expr]) -> ShapeExtent:
        """The same guarantee over ``fn(expr)`` (``fn`` must preserve the value)."""
        return self

    def substitute(
        self,
        symbols: Mapping[str, ExprLike] | None = None,
        *,
        dims: DimSource[ExprLike | None] | None = None,
        scalars: ScalarSource[ExprLike | None] | None = None,
    ) -> ShapeExtent:
        """The same guarantee over the substituted expression (see :meth:`Expr.substitute`)."""
        return self.map_expr(lambda e: e.substitute(symbols, dims=dims, scalars=scalars))

    def __add__(self, other: ExtentLike) -> ShapeExtent:
        operand = _operand(other)
        return NotImplemented if operand is None else add(self, operand)

    def __radd__(self, other: ExtentLike) -> ShapeExtent:
        operand = _operand(other)
        return NotImplemented if operand is None else add(operand, self)

    def __sub__(self, other: ExtentLike) -> ShapeExtent:
        operand = _operand(other)
        return NotImplemented if operand is None else sub(self, operand)

    def __rsub__(self, other: ExtentLike) -> ShapeExtent:
        operand = _operand(other)
        return NotImplemented if operand is None else sub(operand, self)

    def __mul__(self, other: ExtentLike) -> ShapeExtent:
        operand = _operand(other)
        return NotImplemented if operand is None else mul(self, operand)

    def __rmul__(self, other: ExtentLike) -> ShapeExtent:
        operand = _operand(other)
        return NotImplemented if operand is None else mul(operand, self)

    def __index__(self) -> int:
        """The value of an exact constant (so it can be used as an ``int``).

        Raises:
            TypeError: the extent is not an exact constant.
        """
        expr = self.expr
        value = expr.const_value if self.is_exact and expr is not None else None
        if value is None:
            raise TypeError(f"the extent {self} is not a constant: it has no int value")
        return value

    __int__ = __index__

    def __float__(self) -> float:
        return float(self.__index__())

    def __floordiv__(self, other: ExtentLike) -> ShapeExtent:
        operand = _operand(other)
        return NotImplemented if operand is None else floordiv(self, operand)

    def __rfloordiv__(self, other: ExtentLike) -> ShapeExtent:
        operand = _operand(other)
        return NotImplemented if operand is None else floordiv(operand, self)

    def __mod__(self, other: ExtentLike) -> ShapeExtent:
        operand = _operand(other)
        return NotImplemented if operand is None else mod(self, operand)

    def __rmod__(self, other: ExtentLike) -> ShapeExtent:
        operand = _operand(other)
        return NotImplemented if operand is None else mod(operand, self)


class Exact(ShapeExtent):
    """The runtime extent is exactly ``expr``."""

    __slots__ = ("_expr",)
    __match_args__ = ("expr",)
    strength = Strength.EXACT

    def __init__(self, expr: ExprLike) -> None:
        self._expr = as_expr(expr)

    @property
    def expr(self) -> Expr:
        return self._expr

    def map_expr(self, fn: Callable[[Expr], Expr]) -> Exact:
        return Exact(fn(self._expr))

    def __eq__(self, other: object) -> bool:
        """Exact extents are equal when their expressions are (interned: identical); a
        constant one also equals its ``int``, as a static numpy axis would
        (``x.shape[1] == 4`` while tracing)."""
        if type(other) is Exact:
            return other._expr is self._expr
        if isinstance(other, int) and not isinstance(other, bool):
            return type(self._expr) is Const and self._expr.value == other
        return False

    def __hash__(self) -> int:
        expr = self._expr
        return hash(expr.value) if type(expr) is Const else hash((Exact, expr))

    def __str__(self) -> str:
        return str(self._expr)

    def __repr__(self) -> str:
        return f"Exact({str(self._expr)!r})"


class UpperBound(ShapeExtent):
    """The runtime extent is at most ``expr``; never usable as the true size."""

    __slots__ = ("_expr",)
    __match_args__ = ("expr",)
    strength = Strength.UPPER_BOUND

    def __init__(self, expr: ExprLike) -> None:
        self._expr = as_expr(expr)

    @property
    def expr(self) -> Expr:
        return self._expr

    def map_expr(self, fn: Callable[[Expr], Expr]) -> UpperBound:
        return UpperBound(fn(self._expr))

    def __eq__(self, other: object) -> bool:
        return type(other) is UpperBound and other._expr is self._expr

    def __hash__(self) -> int:
        return hash((UpperBound, self._expr))

    def __str__(self) -> str:
        return f"ub({self._expr})"

    def __repr__(self) -> str:
        return f"UpperBound({str(self._expr)!r})"


class Unknown(ShapeExtent):
    """Nothing is known about the runtime extent (use the singleton :data:`UNKNOWN`)."""

    __slots__ = ()
    strength = Strength.UNKNOWN
    _instance: Unknown | None = None

    def __new__(cls) -> Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __reduce__(self) -> tuple[type[Unknown], tuple[()]]:
        return Unknown, ()

    def __str__(self) -> str:
        return "?"

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Final = Unknown()

ExtentLike: TypeAlias = ShapeExtent | Expr | int


def _operand(value: object) -> ShapeExtent | None:
    """``value`` as an extent operand of an operator; None for other types (the
    other operand's reflected operator then decides: a traced tensor's)."""
    if isinstance(value, ShapeExtent):
        return value
    if isinstance(value, Expr):
        return Exact(value)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return Exact(int(value))  # numpy's integers too
    return None


def as_extent(value: ExtentLike) -> ShapeExtent:
    """Returns ``value`` as an extent: expressions and integers are exact."""
    if isinstance(value, ShapeExtent):
        return value
    return Exact(value)


def upgrades(before: ShapeExtent, after: ShapeExtent) -> bool:
    """Whether replacing ``before`` by ``after`` claims a stronger guarantee."""
    return after.strength > before.strength


# ---------------------------------------------------------------------------------------
# Combinators. The private forms take, per operand, whether its runtime value is known
# to be non-negative; the public ones assume it (operands are extents).

Combine: TypeAlias = Callable[[ShapeExtent, bool, ShapeExtent, bool], ShapeExtent]
"""A combinator that takes, per operand, whether its value is known ``>= 0``."""
_Combine = Combine


def _add(x: ShapeExtent, xn: bool, y: ShapeExtent, yn: bool) -> ShapeExtent:
    if x.expr is None or y.expr is None:
        return UNKNOWN
    total = x.expr + y.expr
    return Exact(total) if x.is_exact and y.is_exact else UpperBound(total)


def _sub(x: ShapeExtent, xn: bool, y: ShapeExtent, yn: bool) -> ShapeExtent:
    if x.expr is None:
        return UNKNOWN
    if isinstance(y, Exact):
        diff = x.expr - y.expr
        return Exact(diff) if x.is_exact else UpperBound(diff)
    return UpperBound(x.expr) if yn else UNKNOWN


def _mul(x: ShapeExtent, xn: bool, y: ShapeExtent, yn: bool) -> ShapeExtent:
    if x.expr is None or y.expr is None:
        return UNKNOWN
    product = x.expr * y.expr
    if x.is_exact and y.is_exact:
        return Exact(product)
    # X <= a and Y == b >= 0 give X * Y <= a * b; two bounds need X, Y >= 0.
    if x.is_exact:
        sound = xn
    elif y.is_exact:
        sound = yn
    else:
        sound = xn and yn
    return UpperBound(product) if sound else UNKNOWN


def _divide(build: Callable[[Expr, Expr], Expr]) -> _Combine:
    def combine(x: ShapeExtent, xn: bool, y: ShapeExtent, yn: bool) -> ShapeExtent:
        if x.expr is None:
            return UNKNOWN
        if isinstance(y, Exact):
            quotient = build(x.expr, y.expr)
            if x.is_exact:
                return Exact(quotient)
            # Monotone in X for a positive divisor.
            return UpperBound(quotient) if yn else UNKNOWN
        # X / Y <= X for X >= 0 and Y >= 1.
        return UpperBound(x.expr) if xn and yn else UNKNOWN

    return combine


_floordiv = _divide(canon.floordiv)
_ceildiv = _divide(canon.ceildiv)


def _mod(x: ShapeExtent, xn: bool, y: ShapeExtent, yn: bool) -> ShapeExtent:
    if isinstance(x, Exact) and isinstance(y, Exact):
        return Exact(canon.mod(x.expr, y.expr))
    if not yn:
        return UNKNOWN
    # 0 <= X mod Y <= Y - 1, and X mod Y <= X when X >= 0.
    below_divisor = None if y.expr is None else y.expr - 1
    below_dividend = x.expr if xn else None
    if below_dividend is None:
        return UNKNOWN if below_divisor is None else UpperBound(below_divisor)
    if below_divisor is None:
        return UpperBound(below_dividend)
    return UpperBound(canon.minimum(below_dividend, below_divisor))


def _min(x: ShapeExtent, xn: bool, y: ShapeExtent, yn: bool) -> ShapeExtent:
    if x.expr is None or y.expr is None:
        known = x.expr if y.expr is None else y.expr
        return UNKNOWN if known is None else UpperBound(known)
    low = canon.minimum(x.expr, y.expr)
    return Exact(low) if x.is_exact and y.is_exact else UpperBound(low)


def _max(x: ShapeExtent, xn: bool, y: ShapeExtent, yn: bool) -> ShapeExtent:
    if x.expr is None or y.expr is None:
        return UNKNOWN
    high = canon.maximum(x.expr, y.expr)
    return Exact(high) if x.is_exact and y.is_exact else UpperBound(high)


# The signed forms: for values that may be negative (extent arithmetic in
# between sizes), with each operand's proven sign.
add_signed: Final[Combine] = _add
sub_signed: Final[Combine] = _sub
mul_signed: Final[Combine] = _mul
floordiv_signed: Final[Combine] = _floordiv
ceildiv_signed: Final[Combine] = _ceildiv
mod_signed: Final[Combine] = _mod
min_signed: Final[Combine] = _min
max_signed: Final[Combine] = _max


def add(x: ShapeExtent, y: ShapeExtent) -> ShapeExtent:
    """Extent of ``x + y`` (see the table)."""
    return _add(x, True, y, True)


def sub(x: ShapeExtent, y: ShapeExtent) -> ShapeExtent:
    """Extent of ``x - y`` (see the table)."""
    return _sub(x, True, y, True)


def mul(x: ShapeExtent, y: ShapeExtent) -> ShapeExtent:
    """Extent of ``x * y`` (see the table)."""
    return _mul(x, True, y, True)


def floordiv(x: ShapeExtent, y: ShapeExtent) -> ShapeExtent:
    """Extent of ``x floordiv y`` (see the table)."""
    return _floordiv(x, True, y, True)


def ceildiv(x: ShapeExtent, y: ShapeExtent) -> ShapeExtent:
    """Extent of ``x ceildiv y`` (see the table)."""
    return _ceildiv(x, True, y, True)


def mod(x: ShapeExtent, y: ShapeExtent) -> ShapeExtent:
    """Extent of ``x mod y`` (see the table)."""
    return _mod(x, True, y, True)


def minimum(x: ShapeExtent, y: ShapeExtent) -> ShapeExtent:
    """Extent of ``min(x, y)`` (see the table)."""
    return _min(x, True, y, True)


def maximum(x: ShapeExtent, y: ShapeExtent) -> ShapeExtent:
    """Extent of ``max(x, y)`` (see the table)."""
    return _max(x, True, y, True)


def _preference(e: Expr) -> tuple[int, tuple[object, ...]]:
    """Orders equal alternatives: constants, named symbols, fresh symbols, the rest."""
    if isinstance(e, Const):
        rank = 0
    elif isinstance(e, Sym):
        rank = 2 if is_fresh_name(e.name) else 1
    else:
        rank = 3
    return rank, e._key


def preferred(a: Expr, b: Expr) -> Expr:
    """The simpler of two expressions known to be equal (a symmetric choice)."""
    return min(a, b, key=_preference)


def join(x: ShapeExtent, y: ShapeExtent, ctx: ExtentContext | None = None) -> ShapeExtent:
    """Extent of a value that is either ``x`` or ``y`` (the merge of ``scf.if`` branches)."""
    if x.expr is None or y.expr is None:
        return UNKNOWN
    if x.is_exact and y.is_exact and prove_eq(x.expr, y.expr, ctx) is True:
        return Exact(preferred(x.expr, y.expr))
    return UpperBound(canon.maximum(x.expr, y.expr))


def broadcast(x: ShapeExtent, y: ShapeExtent, ctx: ExtentContext | None = None) -> ShapeExtent:
    """Extent of a broadcast result axis, assuming ``x`` and ``y`` are compatible at run time."""
    if x.strength < y.strength:
        x, y = y, x
    if not x.is_exact:
        if x.expr is None or y.expr is None:
            return UNKNOWN
        return UpperBound(canon.maximum(x.expr, y.expr))
    a = x.expr
    assert a is not None
    if y.is_exact:
        b = y.expr
        assert b is not None
        if prove_eq(a, b, ctx) is True:
            return Exact(preferred(a, b))
        if prove_eq(a, 1, ctx) is True:
            return Exact(b)
        if prove_eq(b, 1, ctx) is True:
            return Exact(a)
        a_not_one = prove_ne(a, 1, ctx) is True
        b_not_one = prove_ne(b, 1, ctx) is True
        if a_not_one and b_not_one:
            return Exact(preferred(a, b))
        if a_not_one or b_not_one:
            return Exact(a if a_not_one else b)
        return Exact(canon.minimum(canon.maximum(a, b), a * b))
    if prove_ne(a, 1, ctx) is True:
        return Exact(a)
    if y.expr is None:
        return UNKNOWN
    if prove_eq(a, 1, ctx) is True:
        return UpperBound(y.expr)
    return UpperBound(canon.maximum(a, y.expr))


# ---------------------------------------------------------------------------------------
# Whole expressions over extents

_Tracked: TypeAlias = tuple[ShapeExtent, bool]
"""An extent and whether its runtime value is known to be non-negative."""


def instantiate(
    expr: Expr,
    *,
    symbols: Mapping[str, ExtentLike] | None = None,
    dims: DimSource[ExtentLike | None] | None = None,
    scalars: ScalarSource[ExtentLike | None] | None = None,
    ctx: ExtentContext | None = None,
) -> ShapeExtent:
    """Evaluates ``expr`` over extents: what is known of its value.

    This is how an op's payload (written over ``dim(i, axis)`` and
    ``scalar(i, semantics)``) becomes the guarantee of a result extent.
    When every replacement is exact, the result is exact (the substituted
    expression); otherwise the table's rules apply node by node, with the
    signs of intermediate values tracked so that no rule relies on a
    non-negativity that does not hold.

    Args:
        expr: the expression.
        symbols: replacements for symbols (absent ones stay exact symbols).
        dims: extents of operand axes for ``dim(i, axis)`` leaves (a missing
            one stays an exact leaf).
        scalars: what is known of operand ``i``'s *raw* value for
            ``scalar(i, semantics)`` leaves; the semantics is applied.
        ctx: symbol ranges for the sign proofs.

    Returns:
        The guarantee of the value.
    """
    walker = _Instantiation(symbols, dims, scalars, ctx)
    leaves = {leaf: walker.leaf(leaf) for leaf in expr.leaves()}
    exact = {leaf: extent.expr for leaf, (extent, _) in leaves.items() if isinstance(extent, Exact)}
    if len(exact) == len(leaves):
        return Exact(expr.replace(exact))
    walker.memo.update(leaves)
    return walker.walk(expr)[0]


class _Instantiation:
    def __init__(
        self,
        symbols: Mapping[str, ExtentLike] | None,
        dims: DimSource[ExtentLike | None] | None,
        scalars: ScalarSource[ExtentLike | None] | None,
        ctx: ExtentContext | None,
    ) -> None:
        self.symbols = symbols or {}
        self.dims = ex._dim_lookup(dims)
        self.scalars = ex._scalar_lookup(scalars)
        self.ctx = ctx
        self.memo: dict[Expr, _Tracked] = {}

    def _nonneg(self, extent: ShapeExtent) -> bool:
        return isinstance(extent, Exact) and prove_nonnegative(
            extent.expr, self.ctx, fallback=False) is True

    def leaf(self, node: Expr) -> _Tracked:
        value: ExtentLike | None = None
        if isinstance(node, Sym):
            value = self.symbols.get(node.name)
        elif isinstance(node, InputAxis) and self.dims is not None:
            try:
                value = self.dims(node.operand, node.axis)
            except (IndexError, KeyError):
                value = None
        elif isinstance(node, RuntimeScalar) and self.scalars is not None:
            try:
                value = self.scalars(node.operand)
            except (IndexError, KeyError):
                value = None
            if value is not None:
                raw = as_extent(value)
                if node.semantics == "index":
                    return raw, self._nonneg(raw)
                return _max(raw, self._nonneg(raw), Exact(0), True), True
        if value is None:
            return Exact(node), node.is_nonnegative
        # A symbol or an axis extent is a size: non-negative.
        return as_extent(value), True

    def walk(self, node: Expr) -> _Tracked:
        done = self.memo.get(node)
        if done is None:
            done = self._compute(node)
            self.memo[node] = done
        return done

    def _compute(self, node: Expr) -> _Tracked:
        if isinstance(node, Const):
            return Exact(node), node.value >= 0
        if isinstance(node, Sum):
            plus: _Tracked = (Exact(max(node.const, 0)), True)
            minus: _Tracked = (Exact(max(-node.const, 0)), True)
            for term, coef in node.terms:
                scaled = self._apply(
                    _mul, (Exact(abs(coef)), True), self.walk(term), lambda xn, yn: xn and yn
                )
                if coef > 0:
                    plus = self._apply(_add, plus, scaled, lambda xn, yn: xn and yn)
                else:
                    minus = self._apply(_add, minus, scaled, lambda xn, yn: xn and yn)
            return self._apply(_sub, plus, minus, lambda xn, yn: False)
        if isinstance(node, Prod):
            acc: _Tracked = (Exact(1), True)
            for factor, exp in node.factors:
                for _ in range(exp):
                    acc = self._apply(_mul, acc, self.walk(factor), lambda xn, yn: xn and yn)
            return acc
        if isinstance(node, (FloorDiv, CeilDiv, Mod)):
            rule = (
                _floordiv
                if isinstance(node, FloorDiv)
                else _ceildiv
                if isinstance(node, CeilDiv)
                else _mod
            )
            sign = (lambda xn, yn: yn) if isinstance(node, Mod) else (lambda xn, yn: xn and yn)
            return self._apply(rule, self.walk(node.num), self.walk(node.den), sign)
        if isinstance(node, (Min, Max)):
            parts = [self.walk(a) for a in node.args]
            acc = parts[0]
            for part in parts[1:]:
                if isinstance(node, Min):
                    acc = self._apply(_min, acc, part, lambda xn, yn: xn and yn)
                else:
                    acc = self._apply(_max, acc, part, lambda xn, yn: xn or yn)
            return acc
        return self.leaf(node)

    def _apply(
        self, rule: _Combine, x: _Tracked, y: _Tracked, sign: Callable[[bool, bool], bool]
    ) -> _Tracked:
        result = rule(x[0], x[1], y[0], y[1])
        nonneg = sign(x[1], y[1]) or self._nonneg(result)
        return result, nonneg
