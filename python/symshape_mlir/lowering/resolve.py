"""The ``symshape-resolve`` driver: symbolic IR to plain upstream MLIR.

Lowers every symshape op of every function with the rules in
:mod:`symshape_mlir.lowering.ops`, strips ``symshape.*`` annotations and
argument axes, and checks that no symshape op, type or attribute is left.
"""

from __future__ import annotations

import logging

from mlir import ir

from symshape_mlir.lowering.errors import LoweringError
from symshape_mlir.lowering.exprs import AXES_ATTR, AxisBindings
from symshape_mlir.lowering.index_builder import IndexBuilder
from symshape_mlir.lowering.ops import RULES, LoweringState

__all__ = ["resolve_module", "strip_arg_axes", "strip_symshape_attributes"]

logger = logging.getLogger(__name__)

_PREFIX = "symshape."


def _collect(root: ir.Operation, predicate) -> list[ir.Operation]:  # type: ignore[no-untyped-def]
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if predicate(op):
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _lower_function(func: ir.Operation) -> None:
    state = LoweringState(IndexBuilder(), AxisBindings(func))
    ops = _collect(func, lambda op: op.name.startswith(_PREFIX))
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
        op.erase()


def strip_symshape_attributes(root: ir.Operation) -> None:
    """Removes every ``symshape.*`` discardable attribute under ``root``."""
    for op in _collect(root, lambda _: True):
        names = [name for name in op.attributes if name.startswith(_PREFIX)]
        for name in names:
            del op.attributes[name]


def strip_arg_axes(func: ir.Operation) -> None:
    """Removes ``symshape.axes`` from a function's argument attributes."""
    if "arg_attrs" not in func.attributes:
        return
    cleaned = []
    for attrs in ir.ArrayAttr(func.attributes["arg_attrs"]):
        entries = {a.name: a.attr for a in ir.DictAttr(attrs) if a.name != AXES_ATTR}
        cleaned.append(ir.DictAttr.get(entries))
    func.attributes["arg_attrs"] = ir.ArrayAttr.get(cleaned)


def _check_clean(module: ir.Operation) -> None:
    for op in _collect(module, lambda _: True):
        if op.name.startswith(_PREFIX):
            raise LoweringError(op.location, f"'{op.name}' was not lowered")
        types = [v.type for v in op.results] + [v.type for v in op.operands]
        if any("!symshape." in str(t) for t in types):
            raise LoweringError(op.location, f"'{op.name}' still uses a symshape type")
        if any("#symshape" in str(op.attributes[name]) for name in op.attributes):
            raise LoweringError(op.location, f"'{op.name}' still carries a symshape attribute")


def resolve_module(module: ir.Operation) -> None:
    """Lowers all symshape IR in ``module`` in place.

    Raises:
        LoweringError: at the first construct that cannot be lowered.
    """
    with module.context:
        funcs = _collect(module, lambda op: op.name == "func.func")
        for func in funcs:
            if func.regions[0].blocks:
                _lower_function(func)
            strip_arg_axes(func)
        strip_symshape_attributes(module)
        _check_clean(module)
