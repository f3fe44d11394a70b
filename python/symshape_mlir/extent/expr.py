"""Canonical, hash-consed extent expressions.

An :class:`Expr` is an immutable tree over integer arithmetic whose leaves are

* :class:`Const` — an integer literal;
* :class:`Sym` — a named symbol (``batch``) or a fresh one (``_d0``), ranging
  over the non-negative integers unless a context narrows its range;
* :class:`InputAxis` — ``dim(i, axis)``, the extent of axis ``axis`` of the
  op's operand ``i`` (op-local);
* :class:`RuntimeScalar` — ``scalar(i, semantics)``, the value of the op's 0-d
  integer operand ``i`` converted to an extent by a named semantics (op-local).

and whose operators are ``+ - * floordiv ceildiv mod min max`` with Python
integer semantics: ``floordiv`` floors, ``mod`` takes the sign of the divisor,
``ceildiv(a, b) == -((-a) // b)``.

Expressions are built only through the canonicalizing constructors of
:mod:`symshape_mlir.extent.canon` (``add``, ``mul``, ``floordiv``,
``minimum``, ...), which the Python operators call. Structurally equal
expressions are the *same object*, so ``is`` (and ``==``, which is identity)
is O(1). The canonical form is:

* a polynomial normal form: a :class:`Sum` of integer-weighted monomials plus a
  constant, each monomial an atom or a :class:`Prod` of atoms with exponents,
  with like terms combined and products of sums expanded;
* divisions by a constant with the divisor made positive, multiples of the
  divisor pulled out (``(4 * a + b + 5) floordiv 4`` is
  ``a + (b + 1) floordiv 4 + 1``), common factors cancelled and nested
  floor/ceil divisions merged;
* ``min``/``max`` flattened, deduplicated, sorted, with constants folded and
  every argument dropped that another argument provably bounds, judged from the
  structure alone (``min(a, a + b)`` is ``a``; symbols are non-negative).

Simplification keeps the value wherever the original expression is defined; a
division whose result cancels (``x floordiv y - x floordiv y``) disappears, so
the simplified form may be defined where the original divided by zero.
Divisions by a zero constant are never folded: they fail when evaluated.

Evaluation is exact and checks every intermediate value against the signed
64-bit range, raising :class:`ExtentOverflowError` rather than wrapping.
"""

from __future__ import annotations

import operator
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Final, SupportsIndex, TypeAlias, TypeVar, Union, cast

from symshape_mlir.extent.errors import (
    DivisionByZeroError,
    EvaluationError,
    ExtentOverflowError,
    MissingBindingError,
    NegativeExtentError,
    RangeViolationError,
)

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "RESERVED_WORDS",
    "SEMANTICS",
    "CeilDiv",
    "Const",
    "DimSource",
    "Expr",
    "ExprLike",
    "FloorDiv",
    "InputAxis",
    "Max",
    "Min",
    "Mod",
    "Prod",
    "RuntimeScalar",
    "ScalarSource",
    "Sum",
    "Sym",
    "as_expr",
    "is_identifier",
    "prints_as_atom",
]

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1

SEMANTICS: Final = ("index", "clamp_nonneg", "truncate_size")
"""Conversions of a runtime scalar to an extent: ``index`` keeps the value
(a negative one fails where it is used as a size); ``clamp_nonneg`` and
``truncate_size`` take ``max(value, 0)`` (``truncate_size`` is
``dynamic_truncate``'s count, which the op then limits by the axis)."""

RESERVED_WORDS: Final = frozenset(
    {"min", "max", "dim", "scalar", "floordiv", "ceildiv", "mod", "ub"}
)

_T = TypeVar("_T")
_E = TypeVar("_E", bound="Expr")

ExprLike: TypeAlias = Union["Expr", int]
DimSource: TypeAlias = Callable[[int, int], _T] | Sequence[Sequence[_T]]
"""Operand axis extents: a callable ``(operand, axis) -> value`` or the
operands' shapes indexed ``[operand][axis]``."""
ScalarSource: TypeAlias = Callable[[int], _T] | Mapping[int, _T] | Sequence[_T]
"""Operand scalar values: a callable ``operand -> value`` or a mapping or
sequence indexed by operand."""

# Printing precedence: a sum, a product-level chain, an atom.
_ADD: Final = 1
_MUL: Final = 2
_ATOM: Final = 3

_TABLE: weakref.WeakValueDictionary[tuple[object, ...], Expr] = weakref.WeakValueDictionary()
#: Small constants, held for good: sizes and indices create them over and over.
_SMALL_CONSTS: dict[int, Const] = {}
_TABLE_LOCK = threading.Lock()


def _interned(cls: type[_E], fields: tuple[object, ...]) -> _E:
    """Returns the unique node of class ``cls`` with ``fields``."""
    key = (cls, fields)
    node = _TABLE.get(key)
    if node is None:
        with _TABLE_LOCK:
            node = _TABLE.get(key)
            if node is None:
                node = object.__new__(cls)
                node._setup(*fields)
                _TABLE[key] = node
    # The key starts with ``cls``: the node stored under it is a ``cls``.
    return cast(_E, node)


def is_identifier(name: str) -> bool:
    """Whether ``name`` is a valid symbol name (``[A-Za-z_][A-Za-z0-9_]*``, not reserved)."""
    return name.isascii() and name.isidentifier() and name not in RESERVED_WORDS


class _Env:
    """Bindings of one :meth:`Expr.evaluate` call, with its memo."""

    __slots__ = ("dims", "memo", "root", "scalars", "symbols")

    def __init__(
        self,
        root: Expr,
        symbols: Mapping[str, int] | None,
        dims: DimSource[int] | None,
        scalars: ScalarSource[int] | None,
    ) -> None:
        self.root = root
        self.symbols = symbols if symbols is not None else {}
        self.dims = _dim_lookup(dims)
        self.scalars = _scalar_lookup(scalars)
        self.memo: dict[Expr, int] = {}

    def missing(self, leaf: Expr) -> MissingBindingError:
        return MissingBindingError(str(leaf), str(self.root))


class _Rewrite:
    """Replacements of one :meth:`Expr.substitute` or :meth:`Expr.replace` call, with its memo."""

    __slots__ = ("dims", "memo", "scalars", "symbols")

    def __init__(
        self,
        symbols: Mapping[str, ExprLike] | None = None,
        dims: DimSource[ExprLike | None] | None = None,
        scalars: ScalarSource[ExprLike | None] | None = None,
        nodes: Mapping[Expr, ExprLike] | None = None,
    ) -> None:
        self.symbols = symbols if symbols is not None else {}
        self.dims = _dim_lookup(dims)
        self.scalars = _scalar_lookup(scalars)
        self.memo: dict[Expr, Expr] = (
            {} if nodes is None else {k: as_expr(v) for k, v in nodes.items()}
        )


def _dim_lookup(source: DimSource[_T] | None) -> Callable[[int, int], _T] | None:
    if source is None or callable(source):
        return source
    shapes = source
    return lambda operand, axis: shapes[operand][axis]


def _scalar_lookup(source: ScalarSource[_T] | None) -> Callable[[int], _T] | None:
    if source is None or callable(source):
        return source
    values = source
    return lambda operand: values[operand]


class Expr:
    """An extent expression; build one with the operators or constructors.

    Expressions are immutable and hash-consed: two structurally equal
    expressions are the same object, so compare them with ``is`` or ``==``
    (identity). ``int`` operands are accepted by every operator.
    """

    __slots__ = ("__weakref__", "_key", "_nonneg", "_symbols", "_text")

    _key: tuple[object, ...]
    _nonneg: bool
    _symbols: frozenset[str] | None
    _text: tuple[str, int]

    def __new__(cls) -> Expr:
        raise TypeError(
            "build expressions with the operators and constructors of symshape_mlir.extent"
        )

    # -- construction hooks (subclasses) ------------------------------------------------

    _setup: Callable[..., None]
    """Fills a new node's fields; each subclass takes its own (see ``_interned``)."""

    @property
    def children(self) -> tuple[Expr, ...]:
        """Operand subexpressions, in canonical order (empty for a leaf)."""
        return ()

    def _with_children(self, children: Sequence[Expr]) -> Expr:
        """Rebuilds this node, through the canonical constructors, over ``children``."""
        return self

    def _fmt(self) -> tuple[str, int]:
        """Text and precedence, computed once per node (shared subtrees print once).

        Descendants not printed yet are printed first, deepest first, so
        :meth:`_format` only reads its children's cached text and no depth of
        nesting exhausts the Python stack.
        """
        try:
            return self._text
        except AttributeError:
            pass
        pending: list[Expr] = []
        stack: list[Expr] = [self]
        while stack:
            node = stack.pop()
            try:
                node._text  # noqa: B018
            except AttributeError:
                pending.append(node)
                stack.extend(node.children)
        for node in reversed(pending):
            if not hasattr(node, "_text"):
                node._text = node._format()
        return self._text

    def _format(self) -> tuple[str, int]:
        raise NotImplementedError

    def _eval(self, env: _Env) -> int:
        raise NotImplementedError

    def _rewrite(self, env: _Rewrite) -> Expr:
        children = self.children
        new = tuple(child._substituted(env) for child in children)
        if all(a is b for a, b in zip(new, children, strict=True)):
            return self
        return self._with_children(new)

    # -- queries ------------------------------------------------------------------------

    @property
    def const_value(self) -> int | None:
        """The value when the expression is a constant, else ``None``."""
        return None

    @property
    def free_symbols(self) -> frozenset[str]:
        """Names of the symbols the expression mentions (op-local leaves excluded)."""
        if self._symbols is None:
            names: frozenset[str] = frozenset()
            for child in self.children:
                names |= child.free_symbols
            self._symbols = names
        return self._symbols

    def leaves(self) -> frozenset[Expr]:
        """All leaves other than constants: symbols, input axes and runtime scalars."""
        out: set[Expr] = set()
        stack: list[Expr] = [self]
        seen: set[Expr] = set()
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if isinstance(node, (Sym, InputAxis, RuntimeScalar)):
                out.add(node)
            stack.extend(node.children)
        return frozenset(out)

    @property
    def is_op_local(self) -> bool:
        """Whether the expression mentions ``dim(...)`` or ``scalar(...)`` leaves."""
        return any(isinstance(leaf, (InputAxis, RuntimeScalar)) for leaf in self.leaves())

    @property
    def is_nonnegative(self) -> bool:
        """Whether the structure alone shows the value is never negative."""
        return self._nonneg

    def node_count(self) -> int:
        """Number of distinct nodes in the expression DAG."""
        seen: set[Expr] = set()
        stack: list[Expr] = [self]
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(node.children)
        return len(seen)

    # -- evaluation and substitution ----------------------------------------------------

    def evaluate(
        self,
        symbols: Mapping[str, int] | None = None,
        *,
        dims: DimSource[int] | None = None,
        scalars: ScalarSource[int] | None = None,
    ) -> int:
        """Computes the exact value.

        Args:
            symbols: a value for every symbol the expression mentions.
            dims: operand axis extents for ``dim(i, axis)`` leaves.
            scalars: raw operand scalar values for ``scalar(i, semantics)``
                leaves; the semantics is applied here.

        Returns:
            The value, which may be negative (see :meth:`evaluate_size`).

        Raises:
            MissingBindingError: a leaf has no value (names the leaf).
            RangeViolationError: a symbol is bound to a negative value, or an
                axis extent is negative.
            DivisionByZeroError: a divisor is zero (names the division).
            ExtentOverflowError: a value leaves the int64 range.
        """
        return self._value(_Env(self, symbols, dims, scalars))

    def evaluate_size(
        self,
        symbols: Mapping[str, int] | None = None,
        *,
        dims: DimSource[int] | None = None,
        scalars: ScalarSource[int] | None = None,
    ) -> int:
        """Like :meth:`evaluate`, for a value used as a size.

        Raises:
            NegativeExtentError: the value is negative.
        """
        value = self.evaluate(symbols, dims=dims, scalars=scalars)
        if value < 0:
            raise NegativeExtentError(str(self), value)
        return value

    def _value(self, env: _Env) -> int:
        value = env.memo.get(self)
        if value is None:
            value = self._eval(env)
            if not INT64_MIN <= value <= INT64_MAX:
                raise ExtentOverflowError(str(self), value)
            env.memo[self] = value
        return value

    def substitute(
        self,
        symbols: Mapping[str, ExprLike] | None = None,
        *,
        dims: DimSource[ExprLike | None] | None = None,
        scalars: ScalarSource[ExprLike | None] | None = None,
    ) -> Expr:
        """Replaces leaves by expressions and re-canonicalizes.

        Leaves without a replacement (a name missing from ``symbols``, a
        lookup that returns ``None`` or fails with ``IndexError``/``KeyError``)
        stay as they are. This is how an op's payload, written over its own
        operands, becomes an expression over function-level symbols.

        Args:
            symbols: replacements for named symbols.
            dims: replacements for ``dim(i, axis)`` leaves.
            scalars: the *raw* value of operand ``i`` for ``scalar(i, sem)``
                leaves; the semantics is applied (``index`` keeps it, the
                others take ``max(value, 0)``).

        Returns:
            The canonical result.
        """
        return self._substituted(_Rewrite(symbols, dims, scalars))

    def replace(self, nodes: Mapping[Expr, ExprLike]) -> Expr:
        """Replaces every occurrence of the given subexpressions and re-canonicalizes.

        Unlike :meth:`substitute`, a runtime scalar replaced here gets the
        replacement as is (no semantics applied).
        """
        return self._substituted(_Rewrite(nodes=nodes))

    def _substituted(self, env: _Rewrite) -> Expr:
        done = env.memo.get(self)
        if done is None:
            done = self._rewrite(env)
            env.memo[self] = done
        return done

    # -- text -----------------------------------------------------------------------------

    def __str__(self) -> str:
        """The expression in the dialect's syntax (``2 * batch + 1``).

        This printer, not the dialect's, because the algebra holds what no
        attribute can: integers beyond int64 (``a + 2**64``, which overflow
        diagnostics print before rejecting it) and nesting deeper than the
        parser accepts. Within the syntax's limits the two agree on meaning:
        the attribute ``tree_from_expr`` builds without text is the one this
        text parses to, and the dialect's text of it reads back as this
        expression (checked on random extents in ``test_dialect_python.py``;
        the spelling may differ: the dialect prints ``-a`` as ``0 - a``).
        """
        return self._fmt()[0]

    def __repr__(self) -> str:
        return f"Expr({str(self)!r})"

    def __copy__(self) -> Expr:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Expr:
        return self

    # -- operators ------------------------------------------------------------------------

    def __add__(self, other: ExprLike) -> Expr:
        return canon.add(self, other) if _is_operand(other) else NotImplemented

    def __radd__(self, other: ExprLike) -> Expr:
        return canon.add(other, self) if _is_operand(other) else NotImplemented

    def __sub__(self, other: ExprLike) -> Expr:
        return canon.sub(self, other) if _is_operand(other) else NotImplemented

    def __rsub__(self, other: ExprLike) -> Expr:
        return canon.sub(other, self) if _is_operand(other) else NotImplemented

    def __mul__(self, other: ExprLike) -> Expr:
        return canon.mul(self, other) if _is_operand(other) else NotImplemented

    def __rmul__(self, other: ExprLike) -> Expr:
        return canon.mul(other, self) if _is_operand(other) else NotImplemented

    def __floordiv__(self, other: ExprLike) -> Expr:
        return canon.floordiv(self, other) if _is_operand(other) else NotImplemented

    def __rfloordiv__(self, other: ExprLike) -> Expr:
        return canon.floordiv(other, self) if _is_operand(other) else NotImplemented

    def __mod__(self, other: ExprLike) -> Expr:
        return canon.mod(self, other) if _is_operand(other) else NotImplemented

    def __rmod__(self, other: ExprLike) -> Expr:
        return canon.mod(other, self) if _is_operand(other) else NotImplemented

    def __neg__(self) -> Expr:
        return canon.neg(self)

    def __pos__(self) -> Expr:
        return self


def _is_operand(value: object) -> bool:
    return isinstance(value, Expr) or (isinstance(value, int) and not isinstance(value, bool))


def _operand_text(node: Expr, min_prec: int) -> str:
    text, prec = node._fmt()
    return text if prec >= min_prec else f"({text})"


def prints_as_atom(node: Expr) -> bool:
    """Whether ``node`` prints as one factor (``a``, ``-a``, ``min(a, b)``, ``(a + 1)``
    is not: it needs the parentheses), with no infix operator outside parentheses."""
    return node._fmt()[1] == _ATOM


def _starts_with_atom(node: Expr) -> bool:
    """Whether ``node`` prints as an atom or as a product whose first factor is one."""
    if prints_as_atom(node):
        return True
    return isinstance(node, Prod) and prints_as_atom(node.factors[0][0])


def _chain_text(node: Expr) -> str:
    """Text of ``node`` usable right after ``k *`` or a unary minus."""
    text = node._fmt()[0]
    return text if _starts_with_atom(node) else f"({text})"


def _print_order(term: tuple[Expr, int]) -> tuple[int, tuple[object, ...]]:
    monomial = term[0]
    degree = sum(e for _, e in monomial.factors) if isinstance(monomial, Prod) else 1
    return -degree, monomial._key


def _leading_term_text(term: Expr, coef: int) -> tuple[str, int]:
    """Text and precedence of ``coef * term`` printed first in a sum."""
    if coef == 1:
        return term._fmt()
    if coef == -1:
        prec = _ATOM if term._fmt()[1] == _ATOM or not _starts_with_atom(term) else _MUL
        return "-" + _chain_text(term), prec
    sign = "-" if coef < 0 else ""
    return f"{sign}{abs(coef)} * {_chain_text(term)}", _MUL


# ---------------------------------------------------------------------------------------
# Leaves


class Const(Expr):
    """An integer literal (``Const(4)``); negative values arise from arithmetic."""

    __slots__ = ("value",)
    __match_args__ = ("value",)
    value: int

    def __new__(cls, value: int) -> Const:
        value = operator.index(value)
        node = _SMALL_CONSTS.get(value)
        if node is None:
            node = _interned(Const, (value,))
            if -8 <= value <= 4096:
                _SMALL_CONSTS[value] = node
        return node

    def _setup(self, value: int) -> None:
        self.value = value
        self._key = (0, value)
        self._nonneg = value >= 0
        self._symbols = frozenset()

    @property
    def const_value(self) -> int:
        return self.value

    def _format(self) -> tuple[str, int]:
        return str(self.value), _ATOM

    def _eval(self, env: _Env) -> int:
        return self.value

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return Const, (self.value,)


class Sym(Expr):
    """A named symbol, ranging over the non-negative integers (``Sym("batch")``)."""

    __slots__ = ("name",)
    __match_args__ = ("name",)
    name: str

    def __new__(cls, name: str) -> Sym:
        if not isinstance(name, str) or not is_identifier(name):
            raise ValueError(f"invalid symbol name {name!r}")
        return _interned(Sym, (name,))

    def _setup(self, name: str) -> None:
        self.name = name
        self._key = (1, name)
        self._nonneg = True
        self._symbols = frozenset((name,))

    def _format(self) -> tuple[str, int]:
        return self.name, _ATOM

    def _eval(self, env: _Env) -> int:
        try:
            raw = env.symbols[self.name]
        except KeyError:
            raise env.missing(self) from None
        value = _as_int(raw, self)
        if value < 0:
            raise RangeViolationError(self.name, value, 0, None)
        return value

    def _rewrite(self, env: _Rewrite) -> Expr:
        replacement = env.symbols.get(self.name)
        return self if replacement is None else as_expr(replacement)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return Sym, (self.name,)


class InputAxis(Expr):
    """``dim(operand, axis)``: the extent of an axis of one of the op's operands."""

    __slots__ = ("axis", "operand")
    __match_args__ = ("operand", "axis")
    operand: int
    axis: int

    def __new__(cls, operand: int, axis: int) -> InputAxis:
        operand, axis = operator.index(operand), operator.index(axis)
        if operand < 0 or axis < 0:
            raise ValueError(f"dim({operand}, {axis}): operand and axis must be >= 0")
        return _interned(InputAxis, (operand, axis))

    def _setup(self, operand: int, axis: int) -> None:
        self.operand = operand
        self.axis = axis
        self._key = (2, operand, axis)
        self._nonneg = True
        self._symbols = frozenset()

    def _format(self) -> tuple[str, int]:
        return f"dim({self.operand}, {self.axis})", _ATOM

    def _eval(self, env: _Env) -> int:
        if env.dims is None:
            raise env.missing(self)
        try:
            raw = env.dims(self.operand, self.axis)
        except (IndexError, KeyError):
            raise env.missing(self) from None
        value = _as_int(raw, self)
        if value < 0:
            raise RangeViolationError(str(self), value, 0, None)
        return value

    def _rewrite(self, env: _Rewrite) -> Expr:
        if env.dims is None:
            return self
        try:
            replacement = env.dims(self.operand, self.axis)
        except (IndexError, KeyError):
            return self
        return self if replacement is None else as_expr(replacement)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return InputAxis, (self.operand, self.axis)


class RuntimeScalar(Expr):
    """``scalar(operand, semantics)``: an operand's 0-d integer value as an extent."""

    __slots__ = ("operand", "semantics")
    __match_args__ = ("operand", "semantics")
    operand: int
    semantics: str

    def __new__(cls, operand: int, semantics: str) -> RuntimeScalar:
        operand = operator.index(operand)
        if operand < 0:
            raise ValueError(f"scalar({operand}, {semantics}): operand must be >= 0")
        if semantics not in SEMANTICS:
            raise ValueError(f"unknown scalar semantics {semantics!r}; expected one of {SEMANTICS}")
        return _interned(RuntimeScalar, (operand, semantics))

    def _setup(self, operand: int, semantics: str) -> None:
        self.operand = operand
        self.semantics = semantics
        self._key = (3, operand, SEMANTICS.index(semantics))
        self._nonneg = semantics != "index"
        self._symbols = frozenset()

    def _format(self) -> tuple[str, int]:
        return f"scalar({self.operand}, {self.semantics})", _ATOM

    def _eval(self, env: _Env) -> int:
        if env.scalars is None:
            raise env.missing(self)
        try:
            raw = env.scalars(self.operand)
        except (IndexError, KeyError):
            raise env.missing(self) from None
        value = _as_int(raw, self)
        return value if self.semantics == "index" else max(value, 0)

    def _rewrite(self, env: _Rewrite) -> Expr:
        if env.scalars is None:
            return self
        try:
            raw = env.scalars(self.operand)
        except (IndexError, KeyError):
            return self
        if raw is None:
            return self
        value = as_expr(raw)
        return value if self.semantics == "index" else canon.maximum(value, 0)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return RuntimeScalar, (self.operand, self.semantics)


def _as_int(raw: object, leaf: Expr) -> int:
    if isinstance(raw, bool) or not isinstance(raw, SupportsIndex):
        raise EvaluationError(f"value of '{leaf}' must be an integer, got {raw!r}")
    return operator.index(raw)


# ---------------------------------------------------------------------------------------
# Operators


class Sum(Expr):
    """``const + sum(coef * monomial)``; built by :func:`add`, :func:`sub`, :func:`mul`."""

    __slots__ = ("const", "terms")
    const: int
    terms: tuple[tuple[Expr, int], ...]

    def _setup(self, const: int, terms: tuple[tuple[Expr, int], ...]) -> None:
        self.const = const
        self.terms = terms
        self._key = (10, tuple((t._key, k) for t, k in terms), const)
        self._nonneg = const >= 0 and all(k > 0 and t._nonneg for t, k in terms)
        self._symbols = None

    @property
    def children(self) -> tuple[Expr, ...]:
        return tuple(t for t, _ in self.terms)

    def _with_children(self, children: Sequence[Expr]) -> Expr:
        return canon.add(
            self.const, *(canon.mul(k, t) for (_, k), t in zip(self.terms, children, strict=True))
        )

    def printed_terms(self) -> list[tuple[Expr, int]]:
        """The ``(monomial, coefficient)`` terms in the order they print: higher
        degree first, and a positive term leading when there is one (``b - a``)."""
        ordered = sorted(self.terms, key=_print_order)
        lead = next((i for i, (_, coef) in enumerate(ordered) if coef > 0), 0)
        ordered.insert(0, ordered.pop(lead))
        return ordered

    def _format(self) -> tuple[str, int]:
        ordered = self.printed_terms()
        text, prec = _leading_term_text(*ordered[0])
        parts = [text]
        for term, coef in ordered[1:]:
            mag = abs(coef)
            body = _operand_text(term, _MUL) if mag == 1 else f"{mag} * {_chain_text(term)}"
            parts.append((" + " if coef > 0 else " - ") + body)
        if self.const > 0:
            parts.append(f" + {self.const}")
        elif self.const < 0:
            parts.append(f" - {-self.const}")
        return "".join(parts), (prec if len(parts) == 1 else _ADD)

    def _eval(self, env: _Env) -> int:
        total = self.const
        for term, coef in self.terms:
            total += coef * term._value(env)
        return total

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return _rebuild_sum, (self.const, self.terms)


class Prod(Expr):
    """A monomial: a product of atoms with positive exponents; built by :func:`mul`."""

    __slots__ = ("factors",)
    factors: tuple[tuple[Expr, int], ...]

    def _setup(self, factors: tuple[tuple[Expr, int], ...]) -> None:
        self.factors = factors
        self._key = (4, tuple(f._key for f, e in factors for _ in range(e)))
        self._nonneg = all(f._nonneg or e % 2 == 0 for f, e in factors)
        self._symbols = None

    @property
    def children(self) -> tuple[Expr, ...]:
        return tuple(f for f, _ in self.factors)

    def _with_children(self, children: Sequence[Expr]) -> Expr:
        expanded: list[Expr] = []
        for (_, exp), child in zip(self.factors, children, strict=True):
            expanded.extend([child] * exp)
        return canon.mul(*expanded)

    def _format(self) -> tuple[str, int]:
        parts: list[str] = []
        for factor, exp in self.factors:
            for _ in range(exp):
                parts.append(_operand_text(factor, _MUL if not parts else _ATOM))
        return " * ".join(parts), _MUL

    def _eval(self, env: _Env) -> int:
        total = 1
        for factor, exp in self.factors:
            total *= factor._value(env) ** exp
        return total

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return _rebuild_prod, (self.factors,)


class _Binary(Expr):
    """Shared shape of ``floordiv``, ``ceildiv`` and ``mod`` nodes."""

    __slots__ = ("den", "num")
    __match_args__ = ("num", "den")
    num: Expr
    den: Expr
    _kind: int = 0
    _word: str = ""

    def _setup(self, num: Expr, den: Expr) -> None:
        self.num = num
        self.den = den
        self._key = (self._kind, num._key, den._key)
        self._nonneg = self._compute_nonneg()
        self._symbols = None

    def _compute_nonneg(self) -> bool:
        return self.num._nonneg and self.den._nonneg

    @property
    def children(self) -> tuple[Expr, ...]:
        return (self.num, self.den)

    def _format(self) -> tuple[str, int]:
        left = _operand_text(self.num, _MUL)
        right = _operand_text(self.den, _ATOM)
        return f"{left} {self._word} {right}", _MUL

    def _divisor(self, env: _Env) -> tuple[int, int]:
        num = self.num._value(env)
        den = self.den._value(env)
        if den == 0:
            raise DivisionByZeroError(str(self))
        return num, den


class FloorDiv(_Binary):
    """``num floordiv den``: floor division; built by :func:`floordiv`."""

    __slots__ = ()
    _kind = 5
    _word = "floordiv"

    def _with_children(self, children: Sequence[Expr]) -> Expr:
        return canon.floordiv(children[0], children[1])

    def _eval(self, env: _Env) -> int:
        num, den = self._divisor(env)
        return num // den

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return canon.floordiv, (self.num, self.den)


class CeilDiv(_Binary):
    """``num ceildiv den``: ceiling division; built by :func:`ceildiv`."""

    __slots__ = ()
    _kind = 6
    _word = "ceildiv"

    def _with_children(self, children: Sequence[Expr]) -> Expr:
        return canon.ceildiv(children[0], children[1])

    def _eval(self, env: _Env) -> int:
        num, den = self._divisor(env)
        return -((-num) // den)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return canon.ceildiv, (self.num, self.den)


class Mod(_Binary):
    """``num mod den``: remainder with the sign of the divisor; built by :func:`mod`."""

    __slots__ = ()
    _kind = 7
    _word = "mod"

    def _compute_nonneg(self) -> bool:
        return self.den._nonneg

    def _with_children(self, children: Sequence[Expr]) -> Expr:
        return canon.mod(children[0], children[1])

    def _eval(self, env: _Env) -> int:
        num, den = self._divisor(env)
        return num % den

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return canon.mod, (self.num, self.den)


class _Extremum(Expr):
    """Shared shape of ``min`` and ``max`` nodes (n-ary, printed as nested binary calls)."""

    __slots__ = ("args",)
    args: tuple[Expr, ...]
    _kind: int = 0
    _word: str = ""

    def _setup(self, args: tuple[Expr, ...]) -> None:
        self.args = args
        self._key = (self._kind, tuple(a._key for a in args))
        self._nonneg = self._compute_nonneg()
        self._symbols = None

    def _compute_nonneg(self) -> bool:
        raise NotImplementedError

    @property
    def children(self) -> tuple[Expr, ...]:
        return self.args

    def _format(self) -> tuple[str, int]:
        text = str(self.args[0])
        for arg in self.args[1:]:
            text = f"{self._word}({text}, {arg})"
        return text, _ATOM


class Min(_Extremum):
    """``min(a, b, ...)``; built by :func:`minimum`."""

    __slots__ = ()
    _kind = 8
    _word = "min"

    def _compute_nonneg(self) -> bool:
        return all(a._nonneg for a in self.args)

    def _with_children(self, children: Sequence[Expr]) -> Expr:
        return canon.minimum(*children)

    def _eval(self, env: _Env) -> int:
        return min(a._value(env) for a in self.args)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return canon.minimum, self.args


class Max(_Extremum):
    """``max(a, b, ...)``; built by :func:`maximum`."""

    __slots__ = ()
    _kind = 9
    _word = "max"

    def _compute_nonneg(self) -> bool:
        return any(a._nonneg for a in self.args)

    def _with_children(self, children: Sequence[Expr]) -> Expr:
        return canon.maximum(*children)

    def _eval(self, env: _Env) -> int:
        return max(a._value(env) for a in self.args)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return canon.maximum, self.args


def _rebuild_sum(const: int, terms: tuple[tuple[Expr, int], ...]) -> Expr:
    return canon.add(const, *(canon.mul(k, t) for t, k in terms))


def _rebuild_prod(factors: tuple[tuple[Expr, int], ...]) -> Expr:
    return canon.mul(*(f for f, e in factors for _ in range(e)))


def as_expr(value: ExprLike) -> Expr:
    """Returns ``value`` as an expression (integers become constants).

    Raises:
        TypeError: for anything but an :class:`Expr` or an integer.
    """
    if isinstance(value, Expr):
        return value
    if isinstance(value, bool):
        raise TypeError("a bool is not an extent")
    try:
        return Const(operator.index(value))
    except TypeError:
        raise TypeError(f"expected an Expr or an int, got {type(value).__name__}") from None


class _Constructors:
    """The canonicalizing constructors of :mod:`symshape_mlir.extent.canon`.

    They build the node classes of this module, so this module cannot import
    them; the node methods (operators, rebuilding) call them through this
    table, which ``canon`` fills once it is defined. Importing any module of
    ``symshape_mlir.extent`` imports the package, and with it ``canon``.
    """

    add: Callable[..., Expr]
    sub: Callable[[ExprLike, ExprLike], Expr]
    neg: Callable[[ExprLike], Expr]
    mul: Callable[..., Expr]
    floordiv: Callable[[ExprLike, ExprLike], Expr]
    ceildiv: Callable[[ExprLike, ExprLike], Expr]
    mod: Callable[[ExprLike, ExprLike], Expr]
    minimum: Callable[..., Expr]
    maximum: Callable[..., Expr]


canon: Final = _Constructors()
