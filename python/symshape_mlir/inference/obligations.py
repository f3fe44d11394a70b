"""What an op requires of extents, recorded while inferring.

A shape rule does more than derive facts: it records what must hold for its
op to be valid. Two extents that must be equal (the extents of one ``linalg``
loop, the operands of an elementwise op, a slice size and its source), a size
that must be non-negative, a slice that must lie within its source, an extent
that must be exact (a reshape target). Each :class:`Obligation` is *decided
when it is recorded*, against the facts known at that op: a unification made
later in the program never discharges it, because a check placed there would
come too late for this op.

========== =================================== =====================================
kind       holds statically (``PROVEN``)       otherwise
========== =================================== =====================================
equal      both exact and provably equal       ``UNPROVEN`` when both are exact,
                                               ``VIOLATION`` when a bound or an
                                               unknown extent is involved
at_most    ``lhs`` exact or a bound, ``rhs``   ``UNPROVEN`` when both are exact,
           exact, ``lhs <= rhs`` provable      else ``VIOLATION``
nonneg     exact and provably ``>= 0``         ``UNPROVEN`` when exact, else
                                               ``VIOLATION``
exact      exact                               ``VIOLATION``
========== =================================== =====================================

A provably false equation is not an obligation: the rule raises a
:class:`~symshape_mlir.inference.errors.ShapeInferenceError` at once.

An ``UNPROVEN`` obligation is an equation between true sizes that the provers
cannot decide: it is checked at run time (unless the contract is asked to
reject unproven equations). A ``VIOLATION`` uses an upper bound or an unknown
extent where a true size is needed: ``symshape-verify-contract`` rejects it,
or defers it to a run-time check. Either way the run-time form of the
condition travels with the obligation as data (:class:`Condition`), so the
contract decides and :mod:`symshape_mlir.lowering` emits the check:

.. code-block:: mlir

    %a = arith.addf %x, %t : tensor<?xf32>   // %x: [batch], %t: [ub(batch)]
    // obligation: equal, operand #0 axis 0 and operand #1 axis 0,
    //   VIOLATION, condition: dim(%x, 0) == dim(%t, 0)
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from mlir import ir

from symshape_mlir.extent.canon import mul
from symshape_mlir.extent.expr import Const, Expr, InputAxis, RuntimeScalar
from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.inference.facts import Origin

__all__ = [
    "CHECKED_ATTR",
    "NO_CHECK",
    "Compare",
    "Condition",
    "Kind",
    "LazyCondition",
    "Obligation",
    "Quantity",
    "Source",
    "Status",
    "checked_fields",
    "mark_checked",
]

CHECKED_ATTR = "symshape.checked"
"""The op attribute naming the requirements a run-time check in the IR establishes."""


def checked_fields(op: ir.Operation) -> frozenset[str]:
    """The requirements of ``op`` its ``symshape.checked`` attribute lists."""
    if CHECKED_ATTR not in op.attributes:
        return frozenset()
    return frozenset(ir.StringAttr(a).value for a in ir.ArrayAttr(op.attributes[CHECKED_ATTR]))


def mark_checked(op: ir.Operation, field: str) -> None:
    """Adds ``field`` to the requirements ``op``'s ``symshape.checked`` lists.

    .. code-block:: mlir

        cf.assert %same, "symshape: check failed: reshape target extent 0 (...)"
        %r = symshape.reshape %t to [dim(0, 0) * 4] {symshape.checked = ["reshape target extent 0"]}
    """
    fields = sorted(checked_fields(op) | {field})
    op.attributes[CHECKED_ATTR] = ir.ArrayAttr.get(
        [ir.StringAttr.get(f, op.context) for f in fields], op.context)


Source: TypeAlias = ir.Value | tuple[ir.Value, int]
"""A value a quantity reads: a tensor or scalar, or ``(tensor, k)`` for an element."""


class Kind(enum.Enum):
    """What an obligation asks of its extents."""

    EQUAL = "equal"
    AT_MOST = "at_most"
    NONNEG = "nonneg"
    EXACT = "exact"


class Status(enum.IntEnum):
    """How far an obligation is established, from best to worst."""

    PROVEN = 0
    UNPROVEN = 1
    VIOLATION = 2


@dataclass(frozen=True)
class Quantity:
    """A run-time integer: an expression over the sizes and scalar values of ``values``.

    Leaves: ``dim(i, a)`` is axis ``a`` of ``values[i]``; ``scalar(i, s)`` is
    the integer value of ``values[i]`` (an ``index``/integer value, a 0-d
    integer tensor, or ``(tensor, k)``: element ``k`` of a 1-D one) converted
    with semantics ``s``; a named symbol is the function's named axis;
    constants. An op's own payload expressions are quantities over its
    operands (``Quantity.local``).

    Example:
        >>> Quantity.dim(x, 0)                      # tensor.dim %x, 0
        >>> Quantity.product([(x, 0), (x, 1)])      # dim(%x, 0) * dim(%x, 1)
    """

    expr: Expr
    values: tuple[Source, ...] = ()

    @staticmethod
    def dim(value: ir.Value, axis: int) -> Quantity:
        """The size of ``axis`` of ``value``."""
        return Quantity(InputAxis(0, axis), (value,))

    @staticmethod
    def scalar(value: ir.Value) -> Quantity:
        """The integer value of ``value``."""
        return Quantity(RuntimeScalar(0, "index"), (value,))

    @staticmethod
    def element(value: ir.Value, index: int) -> Quantity:
        """Element ``index`` of the 1-D integer tensor ``value``."""
        return Quantity(RuntimeScalar(0, "index"), ((value, index),))

    @staticmethod
    def local(op: ir.Operation, expr: Expr) -> Quantity:
        """An op-local payload expression of ``op`` (over its operands)."""
        return Quantity(expr, tuple(op.operands))

    @staticmethod
    def size(value: ir.Value | None, static: int) -> Quantity:
        """A mixed static/dynamic size: ``static`` unless ``value`` gives it."""
        return Quantity.const(static) if value is None else Quantity.scalar(value)

    @staticmethod
    def const(value: int) -> Quantity:
        """A constant."""
        return Quantity(Const(value))

    @staticmethod
    def product(axes: Sequence[tuple[ir.Value, int]]) -> Quantity:
        """The product of the sizes of ``axes`` (1 for none)."""
        return Quantity(mul(*(InputAxis(i, axis) for i, (_, axis) in enumerate(axes))),
                        tuple(v for v, _ in axes))

    @staticmethod
    def combine(parts: Sequence[Quantity | int]) -> tuple[list[Expr], tuple[Source, ...]]:
        """Renumbers the leaves of ``parts`` over one value list.

        Returns:
            The parts' expressions over the shared list, and that list.
        """
        values: list[Source] = []
        exprs: list[Expr] = []
        for part in parts:
            if isinstance(part, int):
                exprs.append(Const(part))
                continue
            offset = len(values)
            values.extend(part.values)
            exprs.append(part.expr.replace({
                leaf: InputAxis(leaf.operand + offset, leaf.axis) if isinstance(leaf, InputAxis)
                else RuntimeScalar(leaf.operand + offset, leaf.semantics)
                for leaf in part.expr.leaves() if isinstance(leaf, (InputAxis, RuntimeScalar))
            }) if offset else part.expr)
        return exprs, tuple(values)

    @staticmethod
    def of(build: Callable[..., Expr], *parts: Quantity | int) -> Quantity:
        """``build(*exprs)`` over the parts' leaves (``build`` an ``Expr`` function)."""
        exprs, values = Quantity.combine(parts)
        return Quantity(build(*exprs), values)


@dataclass(frozen=True)
class Compare:
    """``lhs == rhs`` (``eq``) or ``lhs <= rhs`` (``le``), signed."""

    predicate: str
    lhs: Quantity
    rhs: Quantity


Condition = tuple[Compare, ...]
"""A disjunction: the obligation holds at run time when any comparison does."""

LazyCondition: TypeAlias = "Condition | Callable[[], Condition] | None"
"""A condition, a function that builds it when an obligation is recorded, or none."""

NO_CHECK: Condition = ()
"""For an obligation that holds at run time by construction (a size the op
computes itself, a static result type the op guarantees): an unproven one
needs nothing, deferring a violation emits nothing."""


@dataclass(eq=False)
class Obligation:
    """One requirement of one op; see the module docstring.

    Attributes:
        op: the op that requires it.
        kind: what is required.
        field: names what is required, for messages (``operand #0 axis 1 and
            operand #1 axis 1 must be equal``, ``reshape target extent 0``).
        status: how far it is established at the op.
        observed: the extents involved, as known at the op.
        origin: the op that weakened an extent involved, when traced.
        condition: the run-time check; ``None`` when no check can establish
            it (then a violation is rejected in every mode).
        self_checked: the op's own lowering checks it at run time (the
            symshape tensor ops), so ``symshape-resolve`` emits nothing more.
        checked_after: the condition reads the op's results (an annotation
            ``policy=refine`` keeps): its check goes right after the op.
    """

    op: ir.Operation
    kind: Kind
    field: str
    status: Status
    observed: tuple[ShapeExtent, ...]
    origin: Origin | None
    condition: Condition | None
    self_checked: bool = False
    checked_after: bool = False

    @property
    def checked_in_ir(self) -> bool:
        """Whether a run-time check of this requirement is already in the IR:
        the op lists :attr:`field` in its ``symshape.checked`` attribute
        (``symshape-verify-contract{mode=defer}`` put it there)."""
        return self.field in checked_fields(self.op)

    @property
    def weakest(self) -> ShapeExtent:
        """The least exact extent involved (what a violation reports)."""
        return min(self.observed, key=lambda e: e.strength)
