"""Helpers shared by the shape rules."""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from symshape_mlir.attributes import shape_from_attr
from symshape_mlir.extent import guarantee as g
from symshape_mlir.extent.expr import Expr
from symshape_mlir.extent.guarantee import UNKNOWN, Exact, ShapeExtent, Strength, instantiate
from symshape_mlir.inference.errors import OpUsageError
from symshape_mlir.inference.facts import Origin, ValueFacts
from symshape_mlir.inference.obligations import Compare, Condition, Quantity
from symshape_mlir.inference.state import CacheKind, InferenceState, const_extent

__all__ = [
    "DYNAMIC",
    "MAX_ELEMENTS",
    "const_int",
    "dense_i64",
    "int_attr",
    "is_integer_like",
    "local_extents",
    "product",
    "raw_scalar",
    "read_elements",
    "result_dims",
    "same_dims",
    "same_size",
    "segment",
    "size_extent",
    "value_origin",
    "with_origins",
]

# Strength members, hoisted (see Strength).
_UNKNOWN = Strength.UNKNOWN

_PRODUCTS: CacheKind[tuple[Expr, Expr], Exact] = CacheKind("product")
_DENSE_I64: CacheKind[ir.Attribute, tuple[int, ...]] = CacheKind("dense_i64")
_DIMS: CacheKind[ir.Type, tuple[int, ...]] = CacheKind("dims")

DYNAMIC = ir.ShapedType.get_dynamic_size()

MAX_ELEMENTS = 64
"""Longest integer tensor whose elements are propagated (shape tensors are short)."""


def const_int(extent: ShapeExtent) -> int | None:
    """The integer an exact constant extent holds, else ``None``."""
    if not isinstance(extent, Exact):
        return None
    return extent.expr.const_value


def product(state: InferenceState, extents: Sequence[ShapeExtent]) -> ShapeExtent:
    """The extent of the product of ``extents`` (1 for none).

    Products of exact extents are memoized per run: the same ones recur in
    every block of a model (``batch * seq``).
    """
    cache = state.cache(_PRODUCTS)
    total: ShapeExtent = const_extent(1)
    for extent in extents:
        if isinstance(total, Exact) and isinstance(extent, Exact):
            key = (total.expr, extent.expr)
            known = cache.get(key)
            if known is None:
                known = cache[key] = Exact(total.expr * extent.expr)
            total = known
        else:
            total = g.mul(total, extent)
    return total


def same_dims(a: ir.Value, axis_a: int, b: ir.Value, axis_b: int) -> Condition:
    """The run-time check that two tensor axes have the same size."""
    return (Compare("eq", Quantity.dim(a, axis_a), Quantity.dim(b, axis_b)),)


def same_size(a: Quantity, b: Quantity) -> Condition:
    """The run-time check that two quantities are equal."""
    return (Compare("eq", a, b),)


def int_attr(op: ir.Operation, name: str) -> int:
    """An integer attribute of ``op``.

    Raises:
        OpUsageError: when missing or not an integer.
    """
    if name not in op.attributes or not isinstance(op.attributes[name], ir.IntegerAttr):
        raise OpUsageError(op.location, f"'{op.name}' needs an integer attribute '{name}'")
    return int(ir.IntegerAttr(op.attributes[name]).value)


def dense_i64(op: ir.Operation, name: str, state: InferenceState) -> tuple[int, ...]:
    """A ``DenseI64ArrayAttr`` of ``op`` as a tuple (cached per attribute).

    Raises:
        OpUsageError: when missing or of another kind.
    """
    attributes = op.attributes
    if name not in attributes:
        raise OpUsageError(op.location, f"'{op.name}' needs an i64 array attribute '{name}'")
    attr = attributes[name]
    cache = state.cache(_DENSE_I64)
    values = cache.get(attr)
    if values is None:
        if not isinstance(attr, ir.DenseI64ArrayAttr):
            raise OpUsageError(op.location, f"'{op.name}' needs an i64 array attribute '{name}'")
        values = cache[attr] = tuple(attr)
    return values


def segment(op: ir.Operation, index: int, operands: Sequence[ir.Value]) -> Sequence[ir.Value]:
    """The operands of segment ``index`` (``operandSegmentSizes``)."""
    sizes = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    start = sum(sizes[:index])
    return operands[start:start + sizes[index]]


def is_integer_like(type_: ir.Type) -> bool:
    """Whether values of ``type_`` are integers (``index`` or ``iN``)."""
    return isinstance(type_, (ir.IndexType, ir.IntegerType))


def raw_scalar(state: InferenceState, value: ir.Value) -> ShapeExtent:
    """What is known of the raw value of a 0-d integer tensor: its element,
    else an integer of unknown sign (:meth:`InferenceState.fresh_signed`)."""
    elements = read_elements(state, value)
    if elements is not None and len(elements) == 1 and elements[0].strength is not _UNKNOWN:
        return elements[0]
    return state.fresh_signed(("raw", value))


def scalar_value(state: InferenceState, value: ir.Value) -> ShapeExtent:
    """The value of an integer scalar operand. An integer scalar argument of
    the function whose value is not known is an integer of unknown sign
    (keyed ``("raw", arg)``, as a 0-d tensor argument's element), which a
    runtime reads from the call before launch; so a size cast from it
    (``arith.index_cast %n : i32 to index``) is planned from its value."""
    known = state.value(value)
    if known.strength is _UNKNOWN and is_integer_like(value.type) and _is_argument(value):
        return state.fresh_signed(("raw", value))
    return known


def read_elements(state: InferenceState, value: ir.Value) -> tuple[ShapeExtent, ...] | None:
    """The elements of a 0-d/1-D integer tensor that a rule reads as sizes.

    Those :meth:`InferenceState.elements` propagates; for a function
    argument (a 0-d or short static 1-D integer tensor) whose elements are
    not known, each element is an integer of unknown sign, one per position
    (keyed ``("raw", arg)`` for a 0-d one, ``("raw", arg, i)`` for element
    ``i``): a runtime reads them from the call's arguments before launch
    (:meth:`InferenceState.value_symbols` with ``position``).
    """
    elements = state.elements(value)
    if elements is not None or not _is_argument(value):
        return elements
    type_ = value.type
    if not isinstance(type_, ir.RankedTensorType) or not is_integer_like(type_.element_type):
        return None
    if type_.rank == 0:
        return (state.fresh_signed(("raw", value)),)
    if type_.rank == 1 and 0 <= type_.shape[0] <= MAX_ELEMENTS:
        return tuple(state.fresh_signed(("raw", value, i)) for i in range(type_.shape[0]))
    return None


def _is_argument(value: ir.Value) -> bool:
    """Whether ``value`` is an argument of a function (its entry block's)."""
    if not isinstance(value, ir.BlockArgument):
        return False
    parent = value.owner.owner
    return parent is not None and parent.operation.name == "func.func"


def size_extent(
    state: InferenceState, value: ir.Value, op: ir.Operation | None = None, field: str = "size"
) -> ShapeExtent:
    """The extent of a size operand: its value, or a fresh symbol when the
    size is data dependent.

    With ``op``, the op uses the value as a size: unless it is provably
    ``>= 0``, that is an obligation (checked at run time: a negative size
    fails the call instead of reaching an allocation).
    """
    known = state.value(value)
    if op is not None:
        if (isinstance(known, Exact) and known.expr.is_nonnegative) or _is_tensor_dim(value):
            state.requirements += 1  # holds as written
        else:
            state.require_nonneg(known, op, field,
                                 (Compare("le", Quantity.const(0), Quantity.scalar(value)),))
    return known if known.strength is not _UNKNOWN else state.fresh(value)


def _is_tensor_dim(value: ir.Value) -> bool:
    """Whether ``value`` is a ``tensor.dim``: a size, never negative."""
    owner = value.owner
    if isinstance(owner, ir.OpView):
        owner = owner.operation
    return isinstance(owner, ir.Operation) and owner.name == "tensor.dim"


def result_dims(
    state: InferenceState, result_type: ir.Type, sizes: Sequence[ir.Value], op: ir.Operation
) -> tuple[ShapeExtent, ...]:
    """Extents of a result type whose dynamic dims are given by ``sizes`` (in
    order); ``op`` uses them as sizes (see :func:`size_extent`)."""
    cache = state.cache(_DIMS)
    dims = cache.get(result_type)
    if dims is None:
        dims = tuple(ir.RankedTensorType(result_type).shape)
        cache[result_type] = dims
    values = iter(sizes)
    return tuple(
        size_extent(state, next(values), op, f"size of result axis {axis}")
        if d == DYNAMIC else const_extent(d)
        for axis, d in enumerate(dims))


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
    extents: list[ShapeExtent] = []
    origins: list[Origin | None] = []
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
            return raw_scalar(state, operands[i])

        extent = instantiate(declared.expr, dims=dims, scalars=scalars, ctx=state.extents)
        extents.append(extent)
        origins.append(None if extent.is_exact else next(
            (o for o in read if o is not None), Origin(op.name, op.location)))
    return tuple(extents), tuple(origins)


def with_origins(
    extents: Sequence[ShapeExtent], origins: Sequence[Origin | None]
) -> ValueFacts:
    """Facts of a tensor from its extents and their origins."""
    return ValueFacts(shape=tuple(extents), origins=tuple(origins))


_WEAKENING = ("symshape.bound", "symshape.dynamic_truncate")


def value_origin(state: InferenceState, value: ir.Value) -> Origin | None:
    """The op that made ``value`` (an index value or a shape tensor) inexact,
    traced back through the ops that computed it."""
    stack, seen = [value], 0
    while stack and seen < 64:
        seen += 1
        owner = stack.pop().owner
        if isinstance(owner, ir.OpView):
            owner = owner.operation
        if not isinstance(owner, ir.Operation):
            continue
        if owner.name in _WEAKENING:
            return Origin(owner.name, owner.location)
        if owner.name in ("tensor.dim", "symshape.dim"):
            return next((o for o in state.origins(owner.operands[0]) if o is not None), None)
        for operand in owner.operands:
            facts = state.facts_of(operand)
            known = [facts.value] if facts.value is not None else list(facts.elements or ())
            if any(not e.is_exact for e in known):
                stack.append(operand)
    return None
