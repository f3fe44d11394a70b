"""``symshape-check-guarantees``: no pass may upgrade a guarantee.

The annotations written by ``symshape-infer-shapes`` record what was known
before the passes that followed. Re-inferring the module (ignoring the
annotations) and comparing axis by axis catches a pass that claimed more than
it knew: an upper bound that became exact (or static), an unknown extent
that became known, an exact extent that changed value.
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.attributes import shape_from_attr
from symshape_mlir.extent.prove import prove_eq
from symshape_mlir.inference import InferenceOptions, infer
from symshape_mlir.walk import collect_ops

__all__ = ["check_guarantees"]

_SHAPE_ATTR = "symshape.shape"


def _annotated(module: ir.Operation) -> list[tuple[ir.Operation, list[ir.Attribute]]]:
    found = []
    for op in collect_ops(module, lambda o: _SHAPE_ATTR in o.attributes):
        attr = op.attributes[_SHAPE_ATTR]
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
                if new.strength > old.strength:
                    problems.append((op.location, f"{where}: the guarantee was upgraded from "
                                                  f"'{old}' to '{new}'"))
                elif old.is_exact and new.is_exact and \
                        prove_eq(old.expr, new.expr, state.extents) is False:  # type: ignore[arg-type]
                    problems.append((op.location, f"{where}: the extent changed from "
                                                  f"'{old}' to '{new}'"))
    return problems
