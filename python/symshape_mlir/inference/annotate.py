"""Writing inferred facts into the IR for FileCheck.

Every inferred op with a ranked tensor result gets ``symshape.shape`` (one
shape, or a list of shapes for several results, ``[]`` for a result that is
not a ranked tensor); a single-result op whose integer, index or extent value
is known gets ``symshape.value`` (an extent), and one whose result is a small
integer tensor with propagated elements gets ``symshape.value`` holding the
elements as a shape:

.. code-block:: mlir

    %d = tensor.dim %x, %c0 {symshape.value = #symshape.extent<batch>} : ...
    %e = tensor.empty(%d) {symshape.shape = #symshape.shape<[batch, 4]>} : ...
    %s = tensor.from_elements %d, %c4 {symshape.shape = #symshape.shape<[2]>,
                                       symshape.value = #symshape.shape<[batch, 4]>} : ...

Ops nested in ``linalg`` bodies are not inferred (scalar payload code) and
get nothing; an op whose annotation ``policy=skip`` keeps is left as is.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from symshape_mlir.attributes import ExtentRangeError, extent_attr, shape_attr
from symshape_mlir.extent.guarantee import ShapeExtent, Strength
from symshape_mlir.inference.errors import ShapeInferenceError
from symshape_mlir.inference.state import InferenceState

__all__ = ["SHAPE_ATTR", "VALUE_ATTR", "annotate"]

# Strength members, hoisted (see Strength).
_UNKNOWN = Strength.UNKNOWN

SHAPE_ATTR = "symshape.shape"
VALUE_ATTR = "symshape.value"


class _Attributes:
    """Shape and extent attributes of one context, cached by identity then value."""

    def __init__(self, context: ir.Context) -> None:
        self.context = context
        self.by_id: dict[int, tuple[tuple[ShapeExtent, ...], ir.Attribute]] = {}
        self.by_value: dict[tuple[ShapeExtent, ...], ir.Attribute] = {}
        self.extents: dict[ShapeExtent, ir.Attribute] = {}

    def shape(self, extents: tuple[ShapeExtent, ...]) -> ir.Attribute:
        hit = self.by_id.get(id(extents))
        if hit is not None and hit[0] is extents:
            return hit[1]
        attr = self.by_value.get(extents)
        if attr is None:
            attr = self.by_value[extents] = shape_attr(extents, self.context)
        self.by_id[id(extents)] = (extents, attr)
        return attr

    def extent(self, extent: ShapeExtent) -> ir.Attribute:
        attr = self.extents.get(extent)
        if attr is None:
            attr = self.extents[extent] = extent_attr(extent, self.context)
        return attr


def annotate(module: ir.Operation, state: InferenceState) -> None:
    """Annotates every op inferred in ``state`` (under ``module``) with its facts.

    Raises:
        ShapeInferenceError: at an op whose extents hold an integer beyond
            int64 (an attribute cannot represent it).
    """
    cache = _Attributes(module.context)
    kept = state.kept_annotations
    for op, values in state.inferred_ops:
        if kept and op in kept:
            continue
        try:
            _annotate_op(op, values, state, cache)
        except ExtentRangeError as error:
            raise ShapeInferenceError(op.location, str(error)) from None


def _annotate_op(op: ir.Operation, values: Sequence[ir.Value], state: InferenceState,
                 cache: _Attributes) -> None:
    attributes = op.attributes
    if len(values) == 1:
        facts = state.facts_of(values[0])
        if facts.shape is not None:
            attributes[SHAPE_ATTR] = cache.shape(facts.shape)
        if facts.value is not None:
            if facts.value.strength is not _UNKNOWN:
                attributes[VALUE_ATTR] = cache.extent(facts.value)
        elif facts.elements is not None:
            attributes[VALUE_ATTR] = cache.shape(facts.elements)
        return
    shapes = [state.facts_of(v).shape for v in values]
    if any(s is not None for s in shapes):
        attributes[SHAPE_ATTR] = ir.ArrayAttr.get(
            [cache.shape(s or ()) for s in shapes], context=cache.context)
