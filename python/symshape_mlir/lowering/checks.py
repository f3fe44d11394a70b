"""Emitting the run-time checks of obligations.

An :class:`~symshape_mlir.inference.obligations.Obligation` carries its
condition as data: a disjunction of comparisons between
:class:`~symshape_mlir.inference.obligations.Quantity` s, each an extent
expression over sizes and scalar values of SSA values. Here they become
``index`` arithmetic and one ``cf.assert`` before the op that needs them:

.. code-block:: mlir

    %0 = tensor.dim %x, %c0 : tensor<?xf32>
    %1 = tensor.dim %t, %c0 : tensor<?xf32>
    %2 = arith.cmpi eq, %0, %1 : index
    cf.assert %2, "symshape: check failed: axis 0 of operand #0 and operand #1
        are equal (arith.addf at f.mlir:4:8)"
    %a = arith.addf %x, %t : tensor<?xf32>

Divisions inside a quantity are guarded like every other division.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping

from mlir import ir
from mlir.dialects import arith

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
from symshape_mlir.inference.obligations import Kind, Obligation, Quantity, mark_checked
from symshape_mlir.locations import location_text
from symshape_mlir.lowering.errors import LoweringError
from symshape_mlir.lowering.exprs import AxisBindings, lower_scalar
from symshape_mlir.lowering.index_builder import IndexBuilder
from symshape_mlir.walk import enclosing_function

__all__ = ["check_message", "emit_check", "emit_checks", "lower_quantity"]


def check_message(ob: Obligation) -> str:
    """The message a failing check of ``ob`` reports."""
    return (f"symshape: check failed: {ob.field} ({ob.op.name} at "
            f"{location_text(ob.op.location)})")


def emit_check(b: IndexBuilder, ob: Obligation, axes: AxisBindings) -> None:
    """Emits the check of ``ob`` at the current insertion point.

    Raises:
        LoweringError: when ``ob`` has no run-time form, or a quantity reads
            a named axis no argument binds.
    """
    if ob.condition is None:
        need = f"{ob.field} needs an exact extent" if ob.kind is Kind.EXACT else \
            f"needs that {ob.field}"
        raise LoweringError(ob.op.location, f"'{ob.op.name}' op {need}, got '{ob.weakest}', "
                                            "and no run-time check can establish it")
    if not ob.condition:
        return
    where = f"{ob.op.name} at {location_text(ob.op.location)}"
    holds: ir.Value | None = None
    for compare in ob.condition:
        lhs = lower_quantity(b, compare.lhs, axes, ob.op, where)
        rhs = lower_quantity(b, compare.rhs, axes, ob.op, where)
        one = b.cmp("eq" if compare.predicate == "eq" else "sle", lhs, rhs)
        holds = one if holds is None else arith.OrIOp(holds, one).result
    assert holds is not None
    b.check(holds, check_message(ob))


def emit_checks(
    obligations: Iterable[Obligation],
    bindings: MutableMapping[ir.Operation, AxisBindings] | None = None,
) -> None:
    """Emits the check of each obligation before its op (after it, for one that
    reads the op's results) and names it in the op's ``symshape.checked``, so
    that IR passes on (through any pass in between) that it is checked.

    Args:
        obligations: Obligations of ops inside functions (others are skipped).
        bindings: The axis bindings of each function, extended with those
            of functions not in it yet.

    Raises:
        LoweringError: as :func:`emit_check`.
    """
    known = {} if bindings is None else bindings
    for ob in obligations:
        func = enclosing_function(ob.op)
        if func is None:
            continue
        axes = known.get(func)
        if axes is None:
            axes = known[func] = AxisBindings(func)
        at = ir.InsertionPoint.after(ob.op) if ob.checked_after else ir.InsertionPoint(ob.op)
        with at, ob.op.location:
            emit_check(IndexBuilder(), ob, axes)
        mark_checked(ob.op, ob.field)


def lower_quantity(b: IndexBuilder, q: Quantity, axes: AxisBindings, op: ir.Operation,
                   where: str) -> ir.Value:
    """``q`` as an ``index`` value at the current insertion point."""
    memo: dict[Expr, ir.Value] = {}

    def lower(node: Expr) -> ir.Value:
        done = memo.get(node)
        if done is None:
            done = memo[node] = compute(node)
        return done

    def compute(node: Expr) -> ir.Value:
        if isinstance(node, Const):
            return b.const(node.value)
        if isinstance(node, Sym):
            value = axes.lower(b, node.name)
            if value is None:
                raise LoweringError(op.location, f"symbol '{node.name}' is not bound by any "
                                                 "function argument's 'symshape.axes'")
            return value
        if isinstance(node, InputAxis):
            source = q.values[node.operand]
            assert not isinstance(source, tuple)
            return b.dim(source, node.axis)
        if isinstance(node, RuntimeScalar):
            return lower_scalar(b, q.values[node.operand], node.semantics, where)
        if isinstance(node, Sum):
            total = b.const(node.const)
            for term, coef in node.terms:
                total = b.add(total, b.mul(b.const(coef), lower(term)))
            return total
        if isinstance(node, Prod):
            total = b.const(1)
            for factor, exp in node.factors:
                for _ in range(exp):
                    total = b.mul(total, lower(factor))
            return total
        if isinstance(node, (FloorDiv, CeilDiv, Mod)):
            kind = "floordiv" if isinstance(node, FloorDiv) else \
                "ceildiv" if isinstance(node, CeilDiv) else "mod"
            return getattr(b, kind)(lower(node.num), lower(node.den),
                                    f"symshape: division by zero in '{node}' ({where})")
        if isinstance(node, (Min, Max)):
            combine = b.min if isinstance(node, Min) else b.max
            values = [lower(a) for a in node.args]
            total = values[0]
            for value in values[1:]:
                total = combine(total, value)
            return total
        raise LoweringError(op.location, f"cannot lower '{node}' to a run-time check")

    return lower(q.expr)
