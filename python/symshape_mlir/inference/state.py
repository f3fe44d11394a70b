"""The state of one inference run, and the API shape rules use.

A rule receives the op and the :class:`InferenceState` and returns one
:class:`ValueFacts` (or ``None`` for "what the type says") per result. The
state answers questions about operands:

* :meth:`InferenceState.shape` — the extents of a ranked tensor operand;
* :meth:`InferenceState.value` — what is known of an index/integer value;
* :meth:`InferenceState.elements` — the elements of a small integer tensor;
* :meth:`InferenceState.fresh` — a fresh symbol for a data-dependent size;
* :meth:`InferenceState.unify` — two extents the op requires to be equal.

Unification (SPEC §4.4)
-----------------------
Named axes are symbols, so two arguments naming ``batch`` share it from the
start. An unnamed dynamic axis gets a fresh symbol ``_dN``. When a rule
establishes that two extents must be equal for the op to be valid (operand
axes mapped to one ``linalg`` loop — elementwise operands, broadcasts,
reductions, a matmul's ``K`` —, the operands of an elementwise ``arith``/
``math`` op on tensors, the kept axes of a ``tensor.concat``, a static
result dimension (``tensor.cast`` to a static size), the source of an
``expand_shape`` group or an ``insert_slice``, the element counts of a
``tensor.reshape``, one callee axis name bound twice at a call), it calls
:meth:`InferenceState.unify`:

* provably equal: nothing to do; provably different: a
  :class:`ShapeInferenceError`; two different *named* symbols that are not
  provably equal (``batch`` against ``seq``): a conflict, also an error;
* otherwise, if one side is exactly a fresh symbol, that symbol is *bound*
  to the other side (two fresh symbols: the later one is bound to the
  earlier one): the substitution map ``_dN -> expr`` records it;
* anything else (an upper bound, an unknown, an undecided expression such as
  ``batch`` against ``4``) is left alone — unification never upgrades a
  guarantee and never renames a named axis.

Fresh symbols are bound however they arose (unnamed argument axes, sizes read
from data, induction variables): the program is only valid when the equality
holds, so the binding is sound under the same condition as the rest of the
analysis (the program runs without a shape error).

The substitution is applied when facts are read (:meth:`facts_of` resolves a
value's facts once per new binding), so every later reader — rules, the
annotation, other passes — sees ``batch`` where ``_d0`` was. Bindings are
idempotent (the bound expression is resolved first, and existing bindings are
rewritten), so one lookup suffices.

Every equality a rule asks for is also recorded as an
:class:`~symshape_mlir.inference.obligations.Obligation`, decided on the
spot: provably equal extents need nothing; exact extents the provers cannot
decide (including every binding of a fresh symbol) are checked at run time;
an upper bound or an unknown extent on either side is a contract violation
(rejected, or deferred to a run-time check). A binding therefore never makes
a program valid: it only names what the run-time check establishes.

Soundness: a binding claims the equality holds whenever the program runs.
That is only true where the op is sure to run. Inside a region that may run
zero times or conditionally (``scf.if`` branches, ``scf.for`` bodies, unknown
region ops) only fresh symbols created inside that region may be bound (see
:meth:`enter_region`); a loop's fixed-point iteration discards the bindings
of every attempt but the last (:meth:`checkpoint`/:meth:`rollback`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from mlir import ir

from symshape_mlir.extent import canon
from symshape_mlir.extent.context import ExtentContext, is_fresh_name
from symshape_mlir.extent.expr import Const, Expr, ExprLike, Sum, Sym
from symshape_mlir.extent.guarantee import (
    UNKNOWN,
    Exact,
    ShapeExtent,
    Strength,
    join,
    preferred,
)
from symshape_mlir.extent.prove import prove_eq, prove_le, prove_nonnegative
from symshape_mlir.inference.errors import OpUsageError, ShapeInferenceError
from symshape_mlir.inference.facts import Origin, ValueFacts
from symshape_mlir.inference.obligations import Condition, Kind, LazyCondition, Obligation, Status
from symshape_mlir.shapes.compare import Verdict, broadcastable, equality

__all__ = [
    "POLICIES",
    "STAGES",
    "CacheKind",
    "InferenceOptions",
    "InferenceState",
    "Rule",
    "const_extent",
    "describe",
    "type_shape",
]

# Strength members, hoisted (see Strength).
_EXACT = Strength.EXACT
_UNKNOWN = Strength.UNKNOWN

logger = logging.getLogger(__name__)

_K = TypeVar("_K")
_V = TypeVar("_V")


class CacheKind(Generic[_K, _V]):
    """One kind of per-run cache of the engine, from ``_K`` keys to ``_V`` values.

    Each module that caches something per run makes its kind once
    (``_TYPES: CacheKind[ir.Type, Info] = CacheKind("types")``) and reaches
    the cache through :meth:`InferenceState.cache`, which types it.
    """

    __slots__ = ("name",)
    name: str
    """What it caches (for debugging)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"CacheKind({self.name!r})"

POLICIES = ("skip", "override", "refine", "strict")
STAGES = ("upper_bound", "exact")


@dataclass(frozen=True)
class InferenceOptions:
    """Options of one run.

    Attributes:
        policy: how inferred shapes merge with existing ``symshape.shape``
            annotations (see :mod:`symshape_mlir.inference.engine`):
            ``skip`` keeps them, ``override`` replaces them, ``refine``
            keeps an exact one more specific than the inferred extent
            (checked at run time), replaces the others and rejects
            contradictions, ``strict`` accepts an annotation only where
            inference establishes it and fails otherwise.
        truncate_stage: what ``symshape.dynamic_truncate`` without a
            ``stage`` reports for its axis: ``upper_bound`` (stage 1) or
            ``exact`` (stage 2, ``min(scalar(1, truncate_size), dim(0, a))``).
    """

    policy: str = "refine"
    truncate_stage: str = "upper_bound"

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"unknown policy '{self.policy}' (expected one of {POLICIES})")
        if self.truncate_stage not in STAGES:
            raise ValueError(
                f"unknown truncate stage '{self.truncate_stage}' (expected one of {STAGES})"
            )


_ARGUMENT_AXES: CacheKind[ir.Operation, dict[str, tuple[ir.Value, int]]] = CacheKind(
    "argument_axes")
_CONST_EXTENTS: dict[int, Exact] = {}


def const_extent(value: int) -> Exact:
    """``Exact(Const(value))``, shared per value."""
    extent = _CONST_EXTENTS.get(value)
    if extent is None:
        extent = _CONST_EXTENTS[value] = Exact(Const(value))
    return extent


def type_shape(type_: ir.Type) -> tuple[ShapeExtent, ...] | None:
    """The extents a ranked tensor type states (unknown where dynamic)."""
    if not isinstance(type_, ir.RankedTensorType):
        if not isinstance(type_, ir.Type) or type(type_) is not ir.Type:
            return None
        try:  # a generic Type that is a ranked tensor
            type_ = ir.RankedTensorType(type_)
        except ValueError:
            return None
    dynamic = ir.ShapedType.get_dynamic_size()
    return tuple(UNKNOWN if d == dynamic else const_extent(d) for d in type_.shape)


def describe(template: str, *args: object) -> Callable[[], str]:
    """A description formatted only when an error needs it (for :meth:`InferenceState.unify`)."""
    return lambda: template.format(*args)


class InferenceState:
    """Facts of every value seen so far, symbols and options of the run.

    Attributes:
        options: the run's options.
        extents: symbol ranges, fresh symbols and the proof cache.
        facts: facts per value as rules produced them (the substitution not
            applied yet: read through :meth:`facts_of`).
        done: keys of work done once per run (inferred functions, ...).
        inferred_ops: every op inferred, with its results, in order (what
            :func:`~symshape_mlir.inference.annotate.annotate` writes).
    """

    def __init__(self, options: InferenceOptions, extents: ExtentContext | None = None) -> None:
        self.options = options
        self.extents = extents or ExtentContext()
        self.facts: dict[ir.Value, ValueFacts] = {}
        self.done: set[object] = set()
        self.inferred_ops: list[tuple[ir.Operation, Sequence[ir.Value]]] = []
        # Per-run caches of the engine (types, indexing maps, ...), by kind.
        self._caches: dict[CacheKind[Any, Any], dict[Any, Any]] = {}
        self._fresh_for: dict[object, Exact] = {}
        self._fresh_names: list[str] = []
        self._fresh_index: dict[str, int] = {}
        # Unification: fresh symbol -> expression, a trail of bound names (for
        # rollback), and per value the generation its stored facts were
        # resolved at.
        self._subst: dict[str, Expr] = {}
        self._trail: list[tuple[str, Expr | None]] = []
        #: A counter bumped whenever the substitution changes.
        self.generation = 0
        self._resolved: dict[ir.Value, tuple[int, ValueFacts]] = {}
        self._bind_floor = 0
        #: What the ops inferred so far require (see :mod:`.obligations`).
        self.obligations: list[Obligation] = []
        #: How many requirements the ops made, proven ones included (those
        #: are not kept as obligations, and rules count the ones that hold as
        #: written, such as two operands of one extent, without asking):
        #: ``requirements - len(obligations)`` were established statically.
        self.requirements = 0
        #: Ops whose existing annotation is kept as written (``policy=skip``).
        self.kept_annotations: set[ir.Operation] = set()

    # -- reading facts ------------------------------------------------------------

    def cache(self, kind: CacheKind[_K, _V]) -> dict[_K, _V]:
        """This run's cache of ``kind`` (empty at first)."""
        found = self._caches.get(kind)
        if found is None:
            found = self._caches[kind] = {}
        return found

    def argument_axes(self, func: ir.Operation) -> dict[str, tuple[ir.Value, int]]:
        """The symbols ``func``'s arguments give values: per symbol, the first
        argument axis whose extent (as seeded) is exactly that symbol — a
        named axis, or the fresh symbol of an unnamed dynamic axis. An
        expression over them can be computed anywhere in the function
        (``tensor.dim`` of the arguments).
        """
        cache = self.cache(_ARGUMENT_AXES)
        found = cache.get(func)
        if found is None:
            found = cache[func] = {}
            for arg in func.regions[0].blocks[0].arguments:
                for axis, extent in enumerate(self.defined_facts(arg).shape or ()):
                    if isinstance(extent, Exact) and isinstance(extent.expr, Sym):
                        found.setdefault(extent.expr.name, (arg, axis))
        return found

    def facts_of(self, value: ir.Value) -> ValueFacts:
        """Everything known of ``value``, with unifications applied."""
        facts = self.facts.get(value)
        if facts is None:
            facts = ValueFacts(shape=type_shape(value.type))
            self.facts[value] = facts
            return facts
        if not self._subst:
            return facts
        cached = self._resolved.get(value)
        if cached is not None and cached[0] == self.generation:
            return cached[1]
        resolved = self._resolve_facts(facts)
        self._resolved[value] = (self.generation, resolved)
        return resolved

    def forget(self, values: Sequence[ir.Value]) -> None:
        """Drops what is known of ``values`` (results of an op about to be erased).

        An ``ir.Value`` hashes by its address, which a value created later
        may reuse; without this, that value would read the erased one's facts.
        """
        for value in values:
            self.facts.pop(value, None)
            self._resolved.pop(value, None)

    def defined_facts(self, value: ir.Value) -> ValueFacts:
        """What was known of ``value`` where it was defined.

        Unifications made later in the program are not applied: their checks
        run later too, so a decision about a run-time check at the value's
        definition (dropping a division guard, say) must not rely on them.
        """
        facts = self.facts.get(value)
        return facts if facts is not None else self.facts_of(value)

    def facts_list(self, values: Sequence[ir.Value]) -> list[ValueFacts]:
        """:meth:`facts_of` of several values (the hot path of most rules)."""
        get = self.facts.get
        if self._subst:
            return [self.facts_of(v) for v in values]
        out = []
        for value in values:
            facts = get(value)
            out.append(facts if facts is not None else self.facts_of(value))
        return out

    def shape(self, value: ir.Value, op: ir.Operation | None = None) -> tuple[ShapeExtent, ...]:
        """The extents of a ranked tensor value.

        Raises:
            OpUsageError: when the value is not a ranked tensor.
        """
        shape = self.facts_of(value).shape
        if shape is None:
            where = op.location if op is not None else ir.Location.unknown()
            raise OpUsageError(where, f"expected a ranked tensor, got {value.type}")
        return shape

    def origins(self, value: ir.Value) -> tuple[Origin | None, ...]:
        """Per axis, the op that weakened the extent (``None`` where exact or untraced)."""
        facts = self.facts_of(value)
        return facts.origins or (None,) * len(facts.shape or ())

    def value(self, value: ir.Value) -> ShapeExtent:
        """What is known of an index, integer or extent value."""
        return self.facts_of(value).value or UNKNOWN

    def elements(self, value: ir.Value) -> tuple[ShapeExtent, ...] | None:
        """The elements of a 0-d/1-D integer tensor, when propagated."""
        return self.facts_of(value).elements

    def resolve(self, extent: ShapeExtent) -> ShapeExtent:
        """``extent`` with the unifications made so far applied."""
        if not self._subst or extent.expr is None:
            return extent
        if extent.expr.free_symbols.isdisjoint(self._subst):
            return extent
        return extent.map_expr(lambda e: e.substitute(self._subst))

    # -- creating facts ----------------------------------------------------------

    def fresh(self, key: object | None = None, lo: ExprLike = 0,
              hi: ExprLike | None = None) -> Exact:
        """A fresh symbol (``_d0``, ...), the same one for the same ``key``.

        This is the size of something only known at run time — a count read
        from data, a size chosen by a condition, the number of non-zero
        elements of a tensor — and the one way rules give such a size a
        value range: ``[lo, hi]``, whose ends are extent expressions over
        earlier symbols (:meth:`ExtentContext.fresh_symbol
        <symshape_mlir.extent.ExtentContext.fresh_symbol>`). The size is
        *exact* (the symbol is its value); the provers use the range
        (``_d5 <= batch`` is proven when ``hi`` is ``batch``).

        .. code-block:: python

            # a rule for an op whose result has as many rows as %mask has
            # true elements (NonZero, a boolean mask):
            rows = state.fresh(op.result, 0, product(state, mask_shape).expr)

        Args:
            key: reuse the symbol made for this key (a value, an op and a
                role); ``None`` always makes a new one. A reused symbol takes
                the range given now (a loop body inferred again).
            lo: the smallest value of the symbol.
            hi: the largest value, or ``None``.
        """
        if key is not None:
            known = self._fresh_for.get(key)
            if known is not None:
                self.extents.limit(cast(Sym, known.expr).name, lo, hi)
                return known
        symbol = self.extents.fresh_symbol(lo, hi)
        extent = Exact(symbol)
        self._fresh_index[symbol.name] = len(self._fresh_names)
        self._fresh_names.append(symbol.name)
        if key is not None:
            self._fresh_for[key] = extent
        return extent

    def fresh_signed(self, key: object) -> Exact:
        """An integer of unknown sign (a scalar read from data): ``_dA - _dB``.

        Symbols are non-negative, so a value that may be negative is the
        difference of two fresh ones, the same pair for the same ``key``:
        nothing about its sign is provable, so using it as a size or a
        divisor keeps its run-time check.
        """
        known = self._fresh_for.get(("signed", key))
        if known is None:
            plus, minus = self.fresh(), self.fresh()
            known = self._fresh_for[("signed", key)] = Exact(plus.expr - minus.expr)
        return known

    def choose(
        self, options: Sequence[ShapeExtent], key: object, local_mark: int | None = None,
        *, sizes: bool = False,
    ) -> ShapeExtent:
        """What is known of a size that is one of ``options``, chosen at run time
        (an ``scf.if`` result, an ``arith.select``, a function with several
        returns).

        Exact options that are provably equal give that extent; other exact
        options give a data-dependent size: the fresh symbol of ``key`` with
        range ``[min(options), max(options)]`` (for values that may be
        negative, ``min(options) + _dN`` with ``_dN`` ranging over ``[0,
        max(options) - min(options)]``: symbols are never negative). An
        option that is only an upper bound or unknown gives what
        :func:`~symshape_mlir.extent.guarantee.join` gives (``ub(max(...))``,
        or unknown).

        Args:
            options: what is known of each alternative.
            key: names the choice (the op, the result and the axis), so the
                same choice inferred again gets the same symbol.
            local_mark: a :meth:`fresh_mark`; symbols made after it are local
                to one alternative and meaningless here (an exact choice that
                mentions one is a fresh symbol without a range, anything else
                mentioning one is unknown).
            sizes: the options are tensor extents, never negative whatever
                their expressions say (a size read from a signed scalar is
                checked before use).
        """
        def local(extent: ShapeExtent) -> bool:
            return local_mark is not None and self.made_since(local_mark, extent)

        if all(isinstance(o, Exact) for o in options):
            exprs = [cast(Expr, o.expr) for o in options]
            low = canon.minimum(*exprs)
            sized = sizes or prove_nonnegative(low, self.extents, fallback=False) is True
            if any(local(o) for o in options):
                return self.fresh(("choice", key)) if sized else UNKNOWN
            first = exprs[0]
            if all(e is first or prove_eq(e, first, self.extents, fallback=False) is True
                   for e in exprs[1:]):
                best = first
                for e in exprs[1:]:
                    best = preferred(best, e)
                return Exact(best)
            high = canon.maximum(*exprs)
            if sized:
                return self.fresh(("choice", key), low, high)
            return Exact(low + self.fresh(("choice", key), 0, high - low).expr)
        joined = options[0]
        for option in options[1:]:
            joined = join(joined, option, self.extents)
        return UNKNOWN if local(joined) else joined

    def value_symbols(self, value: ir.Value, position: int | None = None) -> dict[str, str]:
        """The fresh symbols inference made for the integer value of ``value``.

        Args:
            value: a function argument (an integer scalar or tensor).
            position: for a 1-D integer tensor, the element read (its
                symbols are keyed ``("raw", value, position)``).

        Returns:
            Symbol name -> its role: ``"value"`` (the symbol is the value,
            used as a size, which is checked to be non-negative), ``"plus"``
            and ``"minus"`` (the value is ``plus - minus``: a value of unknown
            sign). Empty when inference made none. This is how a runtime binds
            the symbols from the argument values of a call.
        """
        roles: dict[str, str] = {}
        keys = (value, ("raw", value)) if position is None else (("raw", value, position),)
        for key in keys:
            plain = self._fresh_for.get(key)
            if plain is not None and isinstance(plain.expr, Sym):
                roles[plain.expr.name] = "value"
            signed = self._fresh_for.get(("signed", key))
            if signed is not None:
                # fresh_signed made it: ``plus - minus``, a sum of two fresh symbols.
                for term, coef in cast(Sum, signed.expr).terms:
                    roles[cast(Sym, term).name] = "plus" if coef > 0 else "minus"
        return roles

    def fresh_mark(self) -> int:
        """A marker: fresh symbols made after it are :meth:`made_since` it."""
        return len(self._fresh_names)

    def made_since(self, mark: int, extent: ShapeExtent) -> bool:
        """Whether ``extent`` mentions a fresh symbol made after ``mark``."""
        if extent.expr is None:
            return False
        index = self._fresh_index
        return any(index.get(name, -1) >= mark for name in extent.expr.free_symbols)

    def set(self, value: ir.Value, facts: ValueFacts) -> None:
        """Records the facts of ``value`` (replacing earlier ones)."""
        self.facts[value] = facts
        if self.generation:
            self._resolved.pop(value, None)

    # -- unification ---------------------------------------------------------------

    def unify(
        self,
        a: ShapeExtent,
        b: ShapeExtent,
        op: ir.Operation,
        what: Callable[[], str],
        condition: LazyCondition = None,
        origin: Origin | None = None,
        self_checked: bool = False,
        checked_after: bool = False,
    ) -> ShapeExtent:
        """Records that ``a`` and ``b`` must be equal for ``op`` to be valid.

        Unless the equality is proven, it is also recorded as an obligation
        (checked at run time, or a contract violation when either side is
        not exact).

        Args:
            a: one extent (the one kept when nothing is learned).
            b: the other.
            op: the op requiring it (for the error location).
            what: describes the two extents, for the error message
                (``"operand #0 axis 1 and operand #1 axis 0"``).
            condition: the run-time form of the equality, or a function
                building it (called only if it is recorded); ``None``: none
                exists, and an unproven equality is rejected.
            origin: the op that weakened a side, when known.
            self_checked: the op's lowering checks it (see :class:`Obligation`).
            checked_after: the condition reads the op's results: its check
                goes after the op.

        Returns:
            The extent to use for both (with the substitution applied).

        Raises:
            ShapeInferenceError: provably different, or two different named
                axes.
        """
        self.requirements += 1
        a, b = self.resolve(a), self.resolve(b)
        verdict = equality(a, b, self.extents, fallback=False)
        if verdict is Verdict.REFUTED:
            raise ShapeInferenceError(op.location, f"{what()} must be equal: {a} vs {b}")
        if not (isinstance(a, Exact) and isinstance(b, Exact)):
            if verdict is Verdict.NOT_EXACT:
                self._record(op, Kind.EQUAL, f"{what()} are equal", Status.VIOLATION,
                             (a, b), condition, origin, self_checked, checked_after)
            return a
        x, y = a.expr, b.expr
        if verdict is Verdict.PROVEN:
            return a if x is y else Exact(preferred(x, y))
        self._record(op, Kind.EQUAL, f"{what()} are equal", Status.UNPROVEN, (a, b),
                     condition, origin, self_checked, checked_after)
        if verdict is Verdict.NAMED_APART:
            raise ShapeInferenceError(
                op.location,
                f"{what()} must be equal but name different axes '{x}' and '{y}'",
            )
        x_fresh, y_fresh = self._bindable(x), self._bindable(y)
        if x_fresh is not None and y_fresh is not None:
            index = self._fresh_index
            keep, bind = ((x_fresh, y_fresh) if index[x_fresh.name] < index[y_fresh.name]
                          else (y_fresh, x_fresh))
            self._bind(bind.name, keep)
            return Exact(keep)
        if x_fresh is not None:
            if x_fresh.name not in y.free_symbols:
                self._bind(x_fresh.name, y)
                return b
            return a
        if y_fresh is not None and y_fresh.name not in x.free_symbols:
            self._bind(y_fresh.name, x)
        return a

    def require_exact(
        self, extent: ShapeExtent, op: ir.Operation, field: str,
        condition: LazyCondition = None, origin: Origin | None = None,
        self_checked: bool = False, checked_after: bool = False,
    ) -> None:
        """Records that ``op`` needs ``extent`` as a true size (a reshape target)."""
        self.requirements += 1
        extent = self.resolve(extent)
        if extent.strength is not _EXACT:
            self._record(op, Kind.EXACT, field, Status.VIOLATION, (extent,), condition, origin,
                         self_checked, checked_after)

    def require_nonneg(
        self, extent: ShapeExtent, op: ir.Operation, field: str, condition: Condition | None,
        origin: Origin | None = None,
    ) -> None:
        """Records that ``op`` uses ``extent`` as a size, so it must be ``>= 0``.

        Unless provable, it is checked at run time (never a violation: the
        size is the value at hand, even where only a bound of it is known).
        """
        self.requirements += 1
        extent = self.resolve(extent)
        if isinstance(extent, Exact):
            known = prove_nonnegative(extent.expr, self.extents, fallback=False)
            if known:
                return
            if known is False:
                raise ShapeInferenceError(op.location, f"{field} is negative: {extent}")
        # Whatever is known, the value itself is at hand: always checkable.
        self._record(op, Kind.NONNEG, f"{field} is non-negative", Status.UNPROVEN, (extent,),
                     condition, origin)

    def require_at_most(
        self, lhs: ShapeExtent, rhs: ShapeExtent, op: ir.Operation, field: str,
        condition: LazyCondition, origin: Origin | None = None,
        self_checked: bool = False,
    ) -> None:
        """Records that ``op`` needs ``lhs <= rhs`` (a slice within its source).

        ``lhs`` may be an upper bound (a bound on what is read suffices);
        ``rhs`` is what is available and must be exact.
        """
        self.requirements += 1
        lhs, rhs = self.resolve(lhs), self.resolve(rhs)
        if lhs.expr is not None and isinstance(rhs, Exact):
            known = prove_le(lhs.expr, rhs.expr, self.extents, fallback=False)
            if known:
                return
            if known is False and lhs.strength is _EXACT:
                raise ShapeInferenceError(op.location, f"{field}: {lhs} exceeds {rhs}")
        both_exact = lhs.strength is _EXACT and rhs.strength is _EXACT
        status = Status.UNPROVEN if both_exact else Status.VIOLATION
        self._record(op, Kind.AT_MOST, field, status, (lhs, rhs), condition, origin,
                     self_checked)

    def require_broadcastable(
        self, have: ShapeExtent, target: ShapeExtent, op: ir.Operation, field: str,
        condition: LazyCondition, origin: Origin | None = None,
        self_checked: bool = False,
    ) -> None:
        """Records that a broadcast input extent ``have`` must be 1 or ``target``."""
        self.requirements += 1
        have, target = self.resolve(have), self.resolve(target)
        verdict = broadcastable(have, target, self.extents, fallback=False)
        if verdict is Verdict.PROVEN:
            return
        if verdict is Verdict.REFUTED:
            raise ShapeInferenceError(
                op.location, f"{field} is {have}: neither 1 nor the target extent {target}")
        status = Status.VIOLATION if verdict is Verdict.NOT_EXACT else Status.UNPROVEN
        self._record(op, Kind.EQUAL, f"{field} is 1 or the target extent", status,
                     (have, target), condition, origin, self_checked)

    def _record(
        self, op: ir.Operation, kind: Kind, field: str, status: Status,
        observed: tuple[ShapeExtent, ...], condition: LazyCondition, origin: Origin | None,
        self_checked: bool = False, checked_after: bool = False,
    ) -> None:
        if callable(condition):
            condition = condition()
        self.obligations.append(Obligation(op, kind, field, status, observed, origin, condition,
                                           self_checked, checked_after=checked_after))

    def _bindable(self, expr: Expr) -> Sym | None:
        """``expr`` if it is a fresh symbol that may be bound here (made at or after the floor)."""
        if not isinstance(expr, Sym) or not is_fresh_name(expr.name):
            return None
        return expr if self._fresh_index.get(expr.name, -1) >= self._bind_floor else None

    def _bind(self, name: str, expr: Expr) -> None:
        logger.debug("unify: %s := %s", name, expr)
        self._trail.append((name, self._subst.get(name)))
        update = {name: expr}
        for key, bound in list(self._subst.items()):
            if name in bound.free_symbols:
                self._trail.append((key, bound))
                self._subst[key] = bound.substitute(update)
        self._subst[name] = expr
        self.generation += 1

    def _resolve_facts(self, facts: ValueFacts) -> ValueFacts:
        shape, value, elements = facts.shape, facts.value, facts.elements
        resolve = self.resolve
        if shape is not None:
            shape = tuple(resolve(e) for e in shape)
        if value is not None:
            value = resolve(value)
        if elements is not None:
            elements = tuple(resolve(e) for e in elements)
        return ValueFacts(shape, value, elements, facts.origins)

    @property
    def substitution(self) -> dict[str, Expr]:
        """The fresh symbols bound so far (a copy)."""
        return dict(self._subst)

    def checkpoint(self) -> tuple[int, int, int]:
        """A point :meth:`rollback` returns the substitution and obligations to."""
        return len(self._trail), len(self.obligations), self.requirements

    def rollback(self, point: tuple[int, int, int]) -> None:
        """Undoes the bindings and obligations recorded after ``point``."""
        trail, obligations, self.requirements = point
        del self.obligations[obligations:]
        if len(self._trail) == trail:
            return
        while len(self._trail) > trail:
            name, previous = self._trail.pop()
            if previous is None:
                self._subst.pop(name, None)
            else:
                self._subst[name] = previous
        # Facts resolved under the undone bindings are re-resolved from what
        # the rules stored; those mentioning the undone symbols are recomputed
        # by the caller (the loop body is inferred again).
        self.generation += 1

    def enter_region(self) -> int:
        """Starts code that may run zero or several times; returns the previous floor.

        Only fresh symbols made from now on may be bound until
        :meth:`leave_region` restores the floor.
        """
        previous = self._bind_floor
        self._bind_floor = len(self._fresh_names)
        return previous

    def leave_region(self, previous: int) -> None:
        """Restores the binding floor saved by :meth:`enter_region`."""
        self._bind_floor = previous

    def enter_function(self) -> int:
        """Starts a function body (runs whenever the function is called)."""
        previous = self._bind_floor
        self._bind_floor = 0
        return previous


Rule = Callable[[ir.Operation, InferenceState], Sequence[ValueFacts | None]]
