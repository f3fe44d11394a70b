"""What folds to a constant, for upstream and IREE alike: index arithmetic
on constants (`folded`), the extents of tensors whose sizes fold
(`folded_extent`, `has_empty_axis`), and the offsets, sizes and strides of
a slice (`slice_parameters`).
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from symshape_mlir.inference.state import InferenceState
from symshape_mlir.lowering.iree.barriers import TIES, chain

__all__ = ["folded", "folded_extent", "has_empty_axis", "slice_parameters"]


def _truncating_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


# Index arithmetic upstream folds when its operands are constants.
_FOLDS: dict[str, Callable[[int, int], int]] = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b, "arith.floordivsi": lambda a, b: a // b,
    "arith.divsi": _truncating_div, "arith.minsi": min, "arith.maxsi": max,
}


def folded(value: ir.Value) -> int | None:
    """The constant ``value`` folds to (index arithmetic on constants, or
    the ``tensor.dim`` of an extent that folds, through the
    ``util.assume.int`` hints of `insert_upper_bound_hints`), or None.
    Nothing folds through ``util.optimization_barrier``, for IREE either."""
    owner = value.owner
    if not isinstance(owner, ir.OpView):
        return None
    if owner.name == "arith.constant":
        attr = owner.attributes["value"]
        return int(ir.IntegerAttr(attr).value) if isinstance(attr, ir.IntegerAttr) else None
    if owner.name in ("arith.index_cast", "util.assume.int"):
        return folded(owner.operands[0])
    if owner.name == "tensor.dim":
        axis = folded(owner.operands[1])
        return None if axis is None else folded_extent(owner.operands[0], axis)
    if owner.name not in _FOLDS:
        return None
    a, b = (folded(operand) for operand in owner.operands)
    if a is None or b is None or (b == 0 and "div" in owner.name):
        return None
    return _FOLDS[owner.name](a, b)


# Ops with one size operand per dynamic result axis, from this operand on.
_SIZES_FROM = {"tensor.empty": 0, "tensor.expand_shape": 1, "flow.tensor.tie_shape": 1}


def folded_extent(value: ir.Value, axis: int) -> int | None:
    """The extent of ``value`` on ``axis`` if it is static or its size
    folds (`folded`): the size operand of a ``tensor.empty``, reshape or
    same-rank slice, or a linalg op's init through casts and ties."""
    if not isinstance(value.type, ir.RankedTensorType):
        return None
    type_ = ir.RankedTensorType(value.type)
    if not type_.is_dynamic_dim(axis):
        return type_.get_dim_size(axis)
    owner = value.owner
    if not isinstance(owner, ir.OpView):
        return None
    if owner.name == "tensor.cast":
        return folded_extent(owner.operands[0], axis)
    if owner.name.startswith("linalg.") and len(owner.results) == 1:
        return folded_extent(owner.operands[len(owner.operands) - 1], axis)
    first = _SIZES_FROM.get(owner.name)
    if first is not None:
        at = first + sum(type_.is_dynamic_dim(a) for a in range(axis))
        return folded(owner.operands[at])
    if owner.name == "tensor.extract_slice" and (
            ir.RankedTensorType(owner.operands[0].type).rank == type_.rank):
        static, at = slice_parameters(owner)[1][axis]
        return static if at is None else folded(owner.operands[at])
    return None


def has_empty_axis(facts: InferenceState | None, value: ir.Value) -> bool:
    """Whether ``value`` is a tensor with an axis of extent 0: static, a
    size that folds to 0 (`folded_extent`), or (with ``facts``) a constant
    0 inference found, exact or an upper bound (extents are nonnegative),
    for the value or what it comes from through casts and shape ties (the
    hints of `insert_upper_bound_hints` among them)."""
    if not isinstance(value.type, ir.RankedTensorType):
        return False
    rank = ir.RankedTensorType(value.type).rank
    if any(folded_extent(value, axis) == 0 for axis in range(rank)):
        return True
    if facts is None:
        return False
    return any(extent.expr is not None and extent.expr.const_value == 0
               for link in chain(value, TIES)
               for extent in facts.defined_facts(link).shape or ())


def slice_parameters(op: ir.Operation) -> tuple[list[tuple[int, int | None]], ...]:
    """The offsets, sizes and strides of a ``tensor.extract_slice`` or
    ``tensor.insert_slice``: per entry its static value and, for a dynamic
    one, the position of its operand (else None)."""
    dynamic = ir.ShapedType.get_dynamic_size()
    at = 1 if op.name == "tensor.extract_slice" else 2  # after the source (and destination)
    out = []
    for name in ("static_offsets", "static_sizes", "static_strides"):
        entries: list[tuple[int, int | None]] = []
        for static in ir.DenseI64ArrayAttr(op.attributes[name]):
            entries.append((static, at if static == dynamic else None))
            at += static == dynamic
        out.append(entries)
    return tuple(out)
