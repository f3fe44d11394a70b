"""The table of shape rules, keyed by op name (one small function per family).

Rules live in :mod:`symshape_mlir.inference.rules`; each registers itself::

    @register("tensor.cast")
    def _cast(op: ir.Operation, state: InferenceState) -> list[ValueFacts | None]:
        return [ValueFacts(shape=state.shape(op.operands[0]))]

A rule returns one :class:`~symshape_mlir.inference.facts.ValueFacts` (or
``None``: "what the result type says") per result. How the engine treats the
op's regions is declared with the rule:

* ``regions="infer"`` (default): the engine infers the ops nested in the
  regions before calling the rule, as code that may run zero or many times
  (``tensor.generate`` and ``tensor.pad`` bodies);
* ``regions="own"``: the rule infers them itself (``scf.if``, ``scf.for``),
  through :func:`symshape_mlir.inference.engine.infer_block`;
* ``regions="skip"``: the regions hold scalar payload code only and are not
  visited (``linalg`` bodies).

``typed=True`` declares that the results' facts already agree with the
result types (a ``linalg`` result has the type of its init, whose facts were
reconciled when it was defined), so the engine skips the static-dimension
check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple

from symshape_mlir.inference.state import Rule
from symshape_mlir.registry import add_unique

__all__ = ["FALLBACK_RULES", "RULES", "RegisteredRule", "lookup", "register"]

RegionMode = Literal["infer", "own", "skip"]


class RegisteredRule(NamedTuple):
    """A rule and how the engine treats the op's regions and result types."""

    fn: Rule
    regions: RegionMode
    typed: bool


RULES: dict[str, RegisteredRule] = {}
FALLBACK_RULES: dict[str, RegisteredRule] = {}
"""Rules for every other op of a dialect, by dialect name (``linalg``)."""


def lookup(name: str) -> RegisteredRule | None:
    """The rule of op ``name``: its own, else its dialect's fallback."""
    rule = RULES.get(name)
    if rule is None and FALLBACK_RULES:
        rule = FALLBACK_RULES.get(name.partition(".")[0])
    return rule


def register(
    *names: str, regions: RegionMode = "infer", typed: bool = False
) -> Callable[[Rule], Rule]:
    """Registers a rule for the given op names.

    Args:
        *names: full op names (``tensor.cast``), or ``dialect.*`` for the
            dialect's fallback rule.
        regions: how nested regions are inferred (see the module docstring).
        typed: whether the rule's facts always agree with the result types.

    Raises:
        ValueError: a name already has a rule.
    """

    def decorate(rule: Rule) -> Rule:
        for name in names:
            table, key = (FALLBACK_RULES, name[:-2]) if name.endswith(".*") else (RULES, name)
            add_unique(table, key, RegisteredRule(rule, regions, typed), "shape rule")
        return rule

    return decorate
