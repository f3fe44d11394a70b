"""Collecting ops from IR before changing it (walking while mutating is unsafe)."""

from __future__ import annotations

from collections.abc import Callable, Collection

from mlir import ir

__all__ = ["ArgumentFree", "collect_ops", "enclosing_function", "functions"]


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


class ArgumentFree:
    """Decides which values of ``func`` are computed without its arguments, or
    with only the entry block's arguments at the ``allowed`` positions: from
    constants, say, which IREE folds when compiling. A value defined in
    another block (a loop's), or by an op with regions other than a
    ``linalg`` op's, counts as computed from the arguments; a ``linalg`` op
    depends on its operands and on the values its body reads from above (a
    gather's ``tensor.extract`` of an argument). Answers are remembered."""

    def __init__(self, func: ir.Operation, allowed: Collection[int] = ()) -> None:
        self._entry = func.regions[0].blocks[0]
        self._allowed = allowed
        self._known: dict[ir.Value, bool] = {}

    def __call__(self, root: ir.Value) -> bool:
        stack, seen = [root], set()
        while stack:
            value = stack.pop()
            if value in seen:
                continue
            seen.add(value)
            known = self._known.get(value)
            if known is not None:
                if not known:
                    break
                continue
            owner = value.owner
            if isinstance(owner, ir.Block):
                if owner != self._entry or \
                        ir.BlockArgument(value).arg_number not in self._allowed:
                    break
                continue
            if len(owner.operation.regions):
                if not owner.name.startswith("linalg."):
                    break
                stack.extend(_captured(owner.operation))
            stack.extend(owner.operation.operands)
        else:
            self._known[root] = True
            return True
        self._known[root] = False
        return False


def _captured(op: ir.Operation) -> list[ir.Value]:
    """The values that ops in ``op``'s regions (nested ones too) read from outside ``op``."""
    inner: set[ir.Value] = set()
    reads: list[ir.Value] = []
    for region in op.regions:
        for block in region.blocks:
            inner.update(block.arguments)
            for nested in block.operations:
                inner.update(nested.results)
                reads.extend(nested.operands)
                if len(nested.regions):
                    reads.extend(_captured(nested.operation))
    return [value for value in reads if value not in inner]
