"""Shape rule of elementwise ``arith``/``math`` ops applied to tensors.

These ops are elementwise-mappable: on tensors, every operand and result has
the same shape (no broadcasting), so the result takes the operands' extents
and the operands' extents are unified axis by axis (a fresh symbol adopts
the other operand's extent; provably different extents are an error). On
scalars they say nothing about shapes (inside ``linalg`` bodies they are
not even visited). Integer ``arith`` ops also propagate elements
(:mod:`~symshape_mlir.inference.rules.arith`), through
:func:`unify_operand_shapes`.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from symshape_mlir.extent.guarantee import ShapeExtent, Strength
from symshape_mlir.inference.facts import ValueFacts
from symshape_mlir.inference.registry import register
from symshape_mlir.inference.rules.common import same_dims
from symshape_mlir.inference.state import InferenceState, describe

__all__ = ["unify_operand_shapes"]

# Strength members, hoisted (see Strength).
_UNKNOWN = Strength.UNKNOWN

Facts = list[ValueFacts | None]

_ARITH_FLOAT = (
    "addf", "subf", "mulf", "divf", "remf", "negf", "maximumf", "minimumf", "maxnumf",
    "minnumf", "cmpf", "extf", "truncf", "sitofp", "uitofp", "fptosi", "fptoui", "bitcast",
    "scaling_extf", "scaling_truncf",
)
_MATH = (
    "absf", "absi", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt",
    "ceil", "copysign", "cos", "cosh", "ctlz", "cttz", "ctpop", "erf", "erfc", "exp",
    "exp2", "expm1", "floor", "fma", "fpowi", "ipowi", "isfinite", "isinf", "isnan",
    "isnormal", "log", "log10", "log1p", "log2", "powf", "round", "roundeven", "rsqrt",
    "sin", "sincos", "sinh", "sqrt", "tan", "tanh", "trunc",
)


def unify_operand_shapes(
    op: ir.Operation, state: InferenceState, operands: Sequence[ir.Value]
) -> ValueFacts | None:
    """Facts of the shape shared by the tensor operands of an elementwise op.

    Returns ``None`` when no operand is a ranked tensor.
    """
    first: ValueFacts | None = None
    first_value: ir.Value | None = None
    shape: list[ShapeExtent] | None = None
    for index, value in enumerate(operands):
        facts = state.facts_of(value)
        if facts.shape is None:
            continue
        if first is None:
            first, first_value, shape = facts, value, list(facts.shape)
            continue
        assert shape is not None and first_value is not None
        for axis, extent in enumerate(facts.shape[:len(shape)]):
            if extent is not shape[axis] or extent.strength is _UNKNOWN:
                shape[axis] = state.unify(
                    shape[axis], extent, op,
                    describe("axis {} of operand #0 and operand #{}", axis, index),
                    same_dims(first_value, axis, value, axis),
                    facts.origin(axis) or first.origin(axis))
            else:
                state.requirements += 1  # holds as written
    if first is None or shape is None:
        return None
    return ValueFacts(shape=tuple(shape), origins=first.origins)


@register(*(f"arith.{name}" for name in _ARITH_FLOAT), *(f"math.{name}" for name in _MATH))
def _elementwise(op: ir.Operation, state: InferenceState) -> Facts:
    if not isinstance(op.results[0].type, ir.RankedTensorType):
        return [None] * len(op.results)
    facts = unify_operand_shapes(op, state, list(op.operands))
    return [facts] * len(op.results)
