"""Writing inferred facts into the IR for FileCheck.

Every op with a ranked tensor result gets ``symshape.shape`` (one shape, or a
list of shapes for several results); a single-result op whose integer,
index or extent value is known gets ``symshape.value`` (an extent, or the
elements of a 1-D integer result as a shape):

.. code-block:: mlir

    %d = tensor.dim %x, %c0 {symshape.value = #symshape.extent<batch>} : ...
    %e = tensor.empty(%d) {symshape.shape = #symshape.shape<[batch, 4]>} : ...
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.attributes import extent_attr, shape_attr
from symshape_mlir.inference.state import InferenceState

__all__ = ["SHAPE_ATTR", "VALUE_ATTR", "annotate"]

SHAPE_ATTR = "symshape.shape"
VALUE_ATTR = "symshape.value"


def annotate(module: ir.Operation, state: InferenceState) -> None:
    """Annotates every op under ``module`` with the facts in ``state``."""
    context = module.context

    def visit(op: ir.Operation) -> ir.WalkResult:
        results = op.results
        if not results or op.name == "func.func":
            return ir.WalkResult.ADVANCE
        facts = [state.facts.get(r) for r in results]
        shapes = [f.shape if f is not None else None for f in facts]
        if any(s is not None for s in shapes):
            attrs = [shape_attr(s or (), context) for s in shapes]
            op.attributes[SHAPE_ATTR] = attrs[0] if len(attrs) == 1 else ir.ArrayAttr.get(attrs)
        if len(results) == 1 and facts[0] is not None:
            if facts[0].value is not None and not facts[0].value.is_unknown:
                op.attributes[VALUE_ATTR] = extent_attr(facts[0].value, context)
            elif facts[0].elements is not None and shapes[0] is None:
                op.attributes[VALUE_ATTR] = shape_attr(facts[0].elements, context)
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)
