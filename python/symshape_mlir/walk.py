"""Collecting ops from IR before changing it (walking while mutating is unsafe)."""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

__all__ = ["collect_ops", "enclosing_function", "functions"]


def collect_ops(
    root: ir.Operation, predicate: Callable[[ir.Operation], bool] | None = None
) -> list[ir.Operation]:
    """The ops nested in ``root`` (``root`` included), in pre-order, that satisfy
    ``predicate`` (all of them by default)."""
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if predicate is None or predicate(op):
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def functions(module: ir.Operation) -> list[ir.Operation]:
    """The ``func.func`` ops with a body directly in ``module``."""
    return [
        op.operation
        for op in module.regions[0].blocks[0].operations
        if op.operation.name == "func.func" and op.operation.regions[0].blocks
    ]


def enclosing_function(op: ir.Operation) -> ir.Operation | None:
    """The ``func.func`` that holds ``op``, if any."""
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.parent
    return None if parent is None else parent.operation
