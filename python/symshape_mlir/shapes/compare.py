"""What is known of two extents that must agree: the one judgment every shape
rule makes, whoever applies it.

Two uses need it. When two extents must be *equal* (the same axis of two
operands, an init and an input, an argument and the callee's named axis),
:func:`equality` gives one :class:`Verdict`. When an extent must *broadcast*
to another (be 1 or equal to it), :func:`broadcastable` does. The verdict is
a fact about the extents; what to do with it is the caller's policy:

=================  ====================================  =========================================
verdict            example                               inference / frontend
=================  ====================================  =========================================
``PROVEN``         ``batch`` and ``batch``; ``1`` for    nothing to check
                   a broadcast
``REFUTED``        ``3`` and ``4``; ``n + 1`` and ``n``; error at the op
                   ``ub(4)`` and exact ``5``
``NAMED_APART``    ``batch`` and ``seq`` (two user       error (a program mixing two named axes)
                   axes, neither a fresh ``_dN``)
``UNDECIDED``      ``batch`` and ``2 * n``               a run-time check / a recorded ShapeCheck
``NOT_EXACT``      ``ub(batch)`` and ``batch``           contract: needs an exact proof or a check
=================  ====================================  =========================================

Example:
    >>> equality(Exact(Sym("batch")), Exact(Sym("seq")))
    <Verdict.NAMED_APART: 3>
    >>> broadcastable(Exact(1), UpperBound(Sym("n")))
    <Verdict.PROVEN: 1>
"""

from __future__ import annotations

import enum

from symshape_mlir.extent.context import ExtentContext, is_fresh_name
from symshape_mlir.extent.expr import Sym
from symshape_mlir.extent.guarantee import Exact, ShapeExtent, UpperBound
from symshape_mlir.extent.prove import prove_eq, prove_lt

__all__ = ["Verdict", "broadcastable", "equality"]


class Verdict(enum.Enum):
    """What the provers established about two extents that must agree."""

    PROVEN = 1
    REFUTED = 2
    NAMED_APART = 3
    UNDECIDED = 4
    NOT_EXACT = 5


def _below(bound: ShapeExtent, exact: ShapeExtent, ctx: ExtentContext | None,
           fallback: bool | None) -> bool:
    """Whether upper bound ``bound`` is provably below exact ``exact``."""
    return isinstance(bound, UpperBound) and isinstance(exact, Exact) and prove_lt(
        bound.expr, exact.expr, ctx, fallback=fallback) is True


def _named(extent: Exact) -> bool:
    return isinstance(extent.expr, Sym) and not is_fresh_name(extent.expr.name)


def equality(a: ShapeExtent, b: ShapeExtent, ctx: ExtentContext | None = None, *,
             fallback: bool | None = None) -> Verdict:
    """Whether two extents that must be equal are.

    Args:
        a: one extent.
        b: the other.
        ctx: symbol ranges for the proofs.
        fallback: whether the provers may use sympy (``False`` in inference).

    Returns:
        ``PROVEN``, ``REFUTED`` (also an upper bound provably below the
        other side's exact size), ``NAMED_APART`` (two different user axes,
        undecided), ``UNDECIDED`` (two exact extents) or ``NOT_EXACT`` (a side
        is an upper bound or unknown and nothing is refuted).
    """
    if a is b and not a.is_unknown:
        return Verdict.PROVEN
    if not (isinstance(a, Exact) and isinstance(b, Exact)):
        if _below(a, b, ctx, fallback) or _below(b, a, ctx, fallback):
            return Verdict.REFUTED
        return Verdict.NOT_EXACT
    if a.expr is b.expr:  # hash-consed: one expression
        return Verdict.PROVEN
    equal = prove_eq(a.expr, b.expr, ctx, fallback=fallback)
    if equal:
        return Verdict.PROVEN
    if equal is False:
        return Verdict.REFUTED
    return Verdict.NAMED_APART if _named(a) and _named(b) else Verdict.UNDECIDED


def broadcastable(have: ShapeExtent, target: ShapeExtent, ctx: ExtentContext | None = None, *,
                  fallback: bool | None = None) -> Verdict:
    """Whether an extent ``have`` broadcasts to ``target`` (is 1 or equal to it).

    ``PROVEN`` when ``have`` is exactly 1 (whatever ``target`` is) or provably
    equal to ``target``; ``REFUTED`` when it is provably neither; otherwise
    ``UNDECIDED`` for two exact extents, ``NOT_EXACT`` when either is not
    exact. Never ``NAMED_APART``: ``batch`` broadcasting to ``seq`` holds
    when ``batch`` is 1.
    """
    one = prove_eq(have.expr, 1, ctx, fallback=fallback) if isinstance(have, Exact) else None
    if one:
        return Verdict.PROVEN
    if not (isinstance(have, Exact) and isinstance(target, Exact)):
        return Verdict.NOT_EXACT
    same = prove_eq(have.expr, target.expr, ctx, fallback=fallback)
    if same:
        return Verdict.PROVEN
    if one is False and same is False:
        return Verdict.REFUTED
    return Verdict.UNDECIDED
