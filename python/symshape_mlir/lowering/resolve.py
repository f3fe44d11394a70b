"""The ``symshape-resolve`` driver: symbolic IR to plain upstream MLIR.

Lowers every symshape op of every function with the rules in
:mod:`symshape_mlir.lowering.ops`, folds transposes that undo each other
(:mod:`.transposes`), strips ``symshape.*`` annotations and argument axes,
and checks that no symshape op, type or attribute is left.
"""

from __future__ import annotations

import logging

from mlir import ir
from mlir.dialects import arith

from symshape_mlir.annotations import strip_annotations
from symshape_mlir.attributes import mentions_symshape
from symshape_mlir.dialects.symshape import type_mentions_symshape
from symshape_mlir.extent import UNKNOWN, Exact, ShapeExtent, prove_ne, prove_nonnegative
from symshape_mlir.inference import InferenceOptions, infer
from symshape_mlir.inference.obligations import Status
from symshape_mlir.inference.state import InferenceState
from symshape_mlir.locations import location_text
from symshape_mlir.lowering.checks import emit_checks
from symshape_mlir.lowering.entry import emit_entry_checks
from symshape_mlir.lowering.errors import LoweringError
from symshape_mlir.lowering.exprs import AxisBindings
from symshape_mlir.lowering.index_builder import IndexBuilder
from symshape_mlir.lowering.iree import ShieldInputs, apply_shields
from symshape_mlir.lowering.ops import RULES, LoweringState
from symshape_mlir.lowering.transposes import fold_transpose_pairs
from symshape_mlir.walk import collect_ops, enclosing_function, functions

__all__ = ["TARGETS", "resolve_module"]

logger = logging.getLogger(__name__)

_PREFIX = "symshape."


def _lower_function(func: ir.Operation, facts: InferenceState, axes: AxisBindings,
                    unproven: set[ir.Operation]) -> None:
    state = LoweringState(IndexBuilder(), axes, facts, unproven=unproven)
    ops = collect_ops(func, lambda op: op.name.startswith(_PREFIX))
    for op in ops:
        with ir.InsertionPoint(op), op.location:
            RULES[op.name](op, state)
    for op in reversed(ops):
        for result in op.results:
            for use in result.uses:
                user = use.owner
                user_name = user.operation.name if isinstance(user, ir.OpView) else user.name
                raise LoweringError(
                    op.location,
                    f"the extent computed by '{op.name}' is used by '{user_name}': "
                    "extent values cannot cross function or region boundaries; "
                    "use symshape.to_index",
                )
        # Facts are keyed by value, and a value's identity is its address:
        # forget the erased results before a later op can reuse their memory.
        facts.forget(op.results)
        op.erase()


_DIVISIONS = ("arith.divsi", "arith.divui", "arith.floordivsi", "arith.ceildivsi",
              "arith.ceildivui", "arith.remsi", "arith.remui")


def _guard_divisions(func: ir.Operation, facts: InferenceState) -> None:
    """Guards the user's scalar integer divisions whose divisor may be zero.

    A zero divisor in an ``index``/integer division is undefined behaviour
    (a SIGFPE on CPU); after this, the call fails with a message instead.
    Divisions on tensors are elementwise and left alone.
    """
    builder = IndexBuilder()
    for op in collect_ops(func, lambda o: o.name in _DIVISIONS):
        dividend, divisor = op.operands[0], op.operands[1]
        if isinstance(divisor.type, ir.ShapedType):
            continue
        where = f"{op.name} at {location_text(op.location)}"
        known = facts.defined_facts(divisor).value or UNKNOWN
        with ir.InsertionPoint(op), op.location:
            if not (isinstance(known, Exact) and prove_ne(known.expr, 0, facts.extents) is True):
                zero = arith.ConstantOp(divisor.type, 0).result
                builder.check(builder.cmp("ne", divisor, zero),
                              f"symshape: division by zero in {where}")
            if op.name.endswith("si") and not any(
                    _nonneg(facts.defined_facts(v).value or UNKNOWN, facts)
                    for v in (dividend, divisor)):
                builder.guard_overflow(dividend, divisor, f"symshape: division overflow in {where}")


def _nonneg(extent: ShapeExtent, facts: InferenceState) -> bool:
    return isinstance(extent, Exact) and prove_nonnegative(extent.expr, facts.extents) is True


def _check_clean(module: ir.Operation) -> None:
    for op in collect_ops(module):
        if op.name.startswith(_PREFIX):
            raise LoweringError(op.location, f"'{op.name}' was not lowered")
        types = [v.type for v in op.results] + [v.type for v in op.operands]
        if any(type_mentions_symshape(t) for t in types):
            raise LoweringError(op.location, f"'{op.name}' still uses a symshape type")
        for name in op.attributes:
            if mentions_symshape(op.attributes[name]):
                raise LoweringError(
                    op.location,
                    f"attribute '{name}' of '{op.name}' holds a symshape attribute that "
                    "symshape-resolve cannot lower",
                )


TARGETS = ("generic", "iree")


def resolve_module(
    module: ir.Operation, target: str = "generic", facts: InferenceState | None = None
) -> None:
    """Lowers all symshape IR in ``module`` in place.

    First the run-time checks: every obligation that is neither proven nor
    already checked (:mod:`symshape_mlir.contract` discharges the ones it
    defers) gets its check before its op, and every declared argument axis
    an entry check (:mod:`.entry`). Then the symshape ops are lowered.

    Args:
        module: the ``builtin.module``.
        target: ``generic`` emits upstream dialects only; ``iree`` also turns
            constant upper bounds into IREE hints (:mod:`.iree`), which
            needs a context that allows unregistered dialects.
        facts: the module's inference (inferred here when not given).

    Raises:
        LoweringError: at the first construct that cannot be lowered.
        ValueError: for an unknown target, or ``iree`` in a context that
            does not allow unregistered dialects.
    """
    if target not in TARGETS:
        raise ValueError(f"unknown target '{target}' (expected one of: {', '.join(TARGETS)})")
    if target == "iree" and not module.context.allow_unregistered_dialects:
        raise ValueError("target=iree emits IREE's util/flow ops in generic form: the "
                         "context must allow unregistered dialects")
    with module.context:
        facts = facts or infer(module, InferenceOptions())
        bindings = {func: AxisBindings(func) for func in functions(module)}
        emit_checks((ob for ob in facts.obligations if not (
            ob.self_checked or ob.status is Status.PROVEN or ob.checked_in_ir)), bindings)
        # Per function, its ops with requirements not proven where they are
        # (collected before any lowering erases ops).
        unproven: dict[ir.Operation, set[ir.Operation]] = {func: set() for func in bindings}
        for ob in facts.obligations:
            if ob.status is not Status.PROVEN:
                func = enclosing_function(ob.op)
                if func in unproven:
                    unproven[func].add(ob.op)
        iree = target == "iree"
        for func, axes in bindings.items():
            emit_entry_checks(func, axes)
            inputs = ShieldInputs(facts, unproven[func])
            if iree:
                apply_shields("before-lowering", func, inputs)
            _guard_divisions(func, facts)
            _lower_function(func, facts, axes, unproven[func])
            if iree:
                apply_shields("after-lowering", func, inputs)
        if iree:
            for func in bindings:
                apply_shields("after-all-functions", func, ShieldInputs(facts, unproven[func]))
        for func in bindings:
            fold_transpose_pairs(func)
        strip_annotations(module, arguments=True)
        _check_clean(module)
