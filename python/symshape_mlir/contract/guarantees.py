"""``symshape-check-guarantees``: no pass may upgrade a guarantee.

The annotations written by ``symshape-infer-shapes`` record what was known
before the passes that followed. An independent re-inference of the module
(annotations are never read as facts) is compared axis by axis:

* an upper bound that became exact (or static), an unknown extent that became
  known, an exact extent whose value changed: a pass claimed more than it
  knew;
* an annotation that claims more than the re-inference establishes (an
  exact extent where only a bound is known, a bound provably below the
  re-inferred one):
  an annotation was edited, or kept by a pass that made the op weaker.

Annotations whose expressions mention fresh symbols (``_d3``) are compared by
guarantee only: fresh names are numbered per run, so ``_d3`` here need not be
``_d3`` there.
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.annotations import SHAPE_ATTR
from symshape_mlir.attributes import shape_from_attr
from symshape_mlir.extent.context import is_fresh_name
from symshape_mlir.extent.guarantee import Exact, UpperBound
from symshape_mlir.extent.prove import prove_eq, prove_le
from symshape_mlir.inference import InferenceOptions, infer
from symshape_mlir.walk import collect_ops

__all__ = ["check_guarantees"]

def _annotated(module: ir.Operation) -> list[tuple[ir.Operation, list[ir.Attribute]]]:
    found = []
    for op in collect_ops(module, lambda o: SHAPE_ATTR in o.attributes):
        attr = op.attributes[SHAPE_ATTR]
        found.append((op, list(attr) if isinstance(attr, ir.ArrayAttr) else [attr]))
    return found


def check_guarantees(module: ir.Operation) -> list[tuple[ir.Location, str]]:
    """Returns one ``(location, message)`` per upgraded or changed extent."""
    annotated = _annotated(module)
    state = infer(module, InferenceOptions(policy="override"))
    problems: list[tuple[ir.Location, str]] = []
    for op, attrs in annotated:
        for index, (result, attr) in enumerate(zip(op.results, attrs)):
            before = shape_from_attr(attr)
            after = state.facts_of(result).shape
            if after is None or len(after) != len(before):
                continue
            for axis, (old, new) in enumerate(zip(before, after)):
                where = f"'{op.name}' result #{index} dimension {axis}"
                fresh = any(is_fresh_name(s) for s in old.free_symbols | new.free_symbols)
                if new.strength > old.strength:
                    problems.append((op.location, f"{where}: the guarantee was upgraded from "
                                                  f"'{old}' to '{new}'"))
                elif old.strength > new.strength or (
                        not fresh and isinstance(old, UpperBound) and isinstance(new, UpperBound)
                        and prove_le(new.expr, old.expr, state.extents) is False):
                    problems.append((op.location, f"{where}: the annotation '{old}' claims "
                                                  f"more than inference establishes ('{new}')"))
                elif not fresh and isinstance(old, Exact) and isinstance(new, Exact) and \
                        prove_eq(old.expr, new.expr, state.extents) is False:
                    problems.append((op.location, f"{where}: the extent changed from "
                                                  f"'{old}' to '{new}'"))
    return problems
