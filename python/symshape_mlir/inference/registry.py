"""The table of shape rules, keyed by op name (one small function per family).

Rules live in :mod:`symshape_mlir.inference.rules`; each registers itself::

    @register("tensor.cast")
    def _cast(op: ir.Operation, state: InferenceState) -> list[ValueFacts | None]:
        return [ValueFacts(shape=state.shape(op.operands[0]))]
"""

from __future__ import annotations

from collections.abc import Callable

from symshape_mlir.inference.state import Rule

__all__ = ["RULES", "register"]

RULES: dict[str, Rule] = {}


def register(*names: str) -> Callable[[Rule], Rule]:
    """Registers a rule for the given op names."""

    def decorate(rule: Rule) -> Rule:
        for name in names:
            if name in RULES:
                raise ValueError(f"a shape rule for '{name}' is already registered")
            RULES[name] = rule
        return rule

    return decorate
