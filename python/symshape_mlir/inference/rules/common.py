"""Helpers shared by the shape rules."""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from symshape_mlir.attributes import shape_from_attr
from symshape_mlir.extent.guarantee import UNKNOWN, ShapeExtent, instantiate
from symshape_mlir.inference.errors import OpUsageError
from symshape_mlir.inference.facts import Origin, ValueFacts
from symshape_mlir.inference.state import InferenceState

__all__ = [
    "int_attr",
    "local_extents",
    "raw_scalar",
    "size_extent",
    "with_origins",
]


def int_attr(op: ir.Operation, name: str) -> int:
    """An integer attribute of ``op``.

    Raises:
        OpUsageError: when missing or not an integer.
    """
    if name not in op.attributes or not isinstance(op.attributes[name], ir.IntegerAttr):
        raise OpUsageError(op.location, f"'{op.name}' needs an integer attribute '{name}'")
    return int(ir.IntegerAttr(op.attributes[name]).value)


def raw_scalar(state: InferenceState, value: ir.Value) -> ShapeExtent:
    """What is known of the raw value of a 0-d integer tensor."""
    elements = state.elements(value)
    if elements is not None and len(elements) == 1:
        return elements[0]
    return UNKNOWN


def size_extent(state: InferenceState, value: ir.Value) -> ShapeExtent:
    """The extent of a size operand: its value, or a fresh symbol when the
    size is data dependent (it is some non-negative number at run time)."""
    known = state.value(value)
    return known if not known.is_unknown else state.fresh(value)


def local_extents(
    op: ir.Operation, state: InferenceState, attr_name: str
) -> tuple[tuple[ShapeExtent, ...], tuple[Origin | None, ...]]:
    """Instantiates op-local target extents over the op's operands.

    ``dim(i, a)`` leaves take operand ``i``'s extent at axis ``a`` and
    ``scalar(i, s)`` leaves the raw value of operand ``i`` (fresh when data
    dependent). An extent that is not exact keeps the origin of the first
    non-exact operand axis it reads.
    """
    operands = op.operands
    extents, origins = [], []
    for declared in shape_from_attr(op.attributes[attr_name]):
        if declared.expr is None:
            extents.append(UNKNOWN)
            origins.append(Origin(op.name, op.location))
            continue
        read: list[Origin | None] = []

        def dims(i: int, axis: int, read: list[Origin | None] = read) -> ShapeExtent:
            extent = state.shape(operands[i], op)[axis]
            if not extent.is_exact:
                read.append(state.origins(operands[i])[axis])
            return extent

        def scalars(i: int) -> ShapeExtent:
            raw = raw_scalar(state, operands[i])
            return raw if not raw.is_unknown else state.fresh(("raw", operands[i]))

        extent = instantiate(declared.expr, dims=dims, scalars=scalars, ctx=state.extents)
        extents.append(extent)
        origins.append(None if extent.is_exact else next(
            (o for o in read if o is not None), Origin(op.name, op.location)))
    return tuple(extents), tuple(origins)


def with_origins(
    extents: Sequence[ShapeExtent], origins: Sequence[Origin | None]
) -> ValueFacts:
    return ValueFacts(shape=tuple(extents), origins=tuple(origins))
