"""The consumers that need exact extents (SPEC §7), one function per op family.

======================================= ================================================
consumer                                needs
======================================= ================================================
``symshape.reshape``                    exact ``reshape target extent i``; a provable
                                        element count
``symshape.broadcast_in_dim``           exact ``broadcast_in_dim target extent i``
``symshape.gather``                     exact ``gather slice_sizes[i]``
``tensor.reshape``                      exact ``reshape shape element i``; a provable
                                        element count
``tensor.expand_shape``                 exact ``expand_shape output size i``
``linalg.broadcast``                    exact ``broadcast init extent i``
``linalg.generic``                      exact ``generic init extent i`` where the init axis
                                        shares a loop with an input axis
======================================= ================================================

Upper bounds stay legal everywhere else: sizing an allocation that nothing
reads past (``tensor.empty`` + ``linalg.fill``), hints, diagnostics.

Each consumer yields :class:`Requirement` s. In ``defer`` mode a violated
requirement's ``emit_check`` inserts a runtime check (``cf.assert``, visible
in the IR) before the op instead of rejecting it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith

from symshape_mlir import extent as ex
from symshape_mlir.attributes import decode_shape
from symshape_mlir.extent.guarantee import UNKNOWN, ShapeExtent
from symshape_mlir.extent.prove import prove_eq
from symshape_mlir.inference.facts import Origin
from symshape_mlir.inference.rules.common import local_extents
from symshape_mlir.inference.state import InferenceState
from symshape_mlir.lowering.exprs import AxisBindings, ExprLowering, location_text
from symshape_mlir.lowering.index_builder import IndexBuilder

__all__ = ["CONSUMERS", "Requirement", "requirements"]

Check = Callable[[IndexBuilder], None]


@dataclass
class Requirement:
    """Something a consumer needs.

    Attributes:
        op: the consumer.
        field: ``reshape target extent 0``, ``reshape element count``, ...
        observed: what inference knows of the extent (``None`` for the
            element-count requirement).
        satisfied: whether the requirement holds statically.
        origin: the op that weakened the extent, when traced.
        emit_check: inserts the runtime check of ``defer`` mode before ``op``;
            ``None`` when no runtime check can establish the requirement (it is
            then rejected in both modes).
        detail: for a requirement that is a proof rather than one exact
            extent (``observed`` is ``None``), the complete error message.
    """

    op: ir.Operation
    field: str
    observed: ShapeExtent | None
    satisfied: bool
    origin: Origin | None
    emit_check: Check | None
    detail: str = ""


Consumer = Callable[[ir.Operation, InferenceState, AxisBindings], Iterator[Requirement]]
CONSUMERS: dict[str, Consumer] = {}


def consumer(*names: str) -> Callable[[Consumer], Consumer]:
    def register(fn: Consumer) -> Consumer:
        for name in names:
            CONSUMERS[name] = fn
        return fn

    return register


def requirements(op: ir.Operation, state: InferenceState, axes: AxisBindings
                 ) -> Iterator[Requirement]:
    """The requirements of ``op`` (none for ops that need no exact extent)."""
    fn = CONSUMERS.get(op.name)
    if fn is not None:
        yield from fn(op, state, axes)


def _message(op: ir.Operation, field: str) -> str:
    return (f"symshape: deferred contract check failed: {field} of {op.name} at "
            f"{location_text(op.location)}")


def _count_check(op: ir.Operation, field: str, source: ir.Value,
                 sizes: Callable[[IndexBuilder], list[ir.Value]]) -> Check:
    """Checks at run time that ``sizes`` keep ``source``'s element count."""

    def emit(b: IndexBuilder) -> None:
        rank = ir.RankedTensorType(source.type).rank
        have = b.product([b.dim(source, a) for a in range(rank)])
        b.check(b.cmp("eq", have, b.product(sizes(b))), _message(op, field))

    return emit


def _tie_check(op: ir.Operation, field: str, a: ir.Value, axis_a: int, c: ir.Value, axis_c: int
               ) -> Check:
    """Checks at run time that two tensor axes have the same size."""

    def emit(b: IndexBuilder) -> None:
        b.check(b.cmp("eq", b.dim(a, axis_a), b.dim(c, axis_c)), _message(op, field))

    return emit


def _count_requirement(op: ir.Operation, state: InferenceState, source: ir.Value,
                       targets: tuple[ShapeExtent, ...], check: Check) -> Iterator[Requirement]:
    """A reshape must provably keep its element count (once its targets are exact)."""
    if not all(e.is_exact for e in targets):
        return
    shape = state.shape(source)
    want = ex.mul(1, *(e.expr for e in targets if e.expr is not None))
    if all(e.is_exact for e in shape):
        have = ex.mul(1, *(e.expr for e in shape if e.expr is not None))
        proven = prove_eq(have, want, state.extents) is True
        seen = f"'{have}'"
    else:
        proven = False
        seen = "[" + ", ".join(str(e) for e in shape) + "]"
    origin = next((o for o in state.origins(source) if o is not None), None)
    yield Requirement(
        op, "reshape element count", None, proven, origin, check,
        detail=f"'{op.name}' op cannot prove that the reshape keeps the element count "
               f"({seen} elements in, '{want}' out)",
    )


def _local_requirements(op: ir.Operation, state: InferenceState, axes: AxisBindings,
                        attr: str, field: str, check: Check) -> Iterator[Requirement]:
    extents, origins = local_extents(op, state, attr)
    for i, (extent, origin) in enumerate(zip(extents, origins)):
        yield Requirement(op, field.format(i), extent, extent.is_exact, origin, check)


def _local_sizes(op: ir.Operation, axes: AxisBindings, attr: str
                 ) -> Callable[[IndexBuilder], list[ir.Value]]:
    def sizes(b: IndexBuilder) -> list[ir.Value]:
        lowering = ExprLowering(b, op, axes)
        return [lowering.lower(tree) for _, tree in decode_shape(op.attributes[attr])
                if tree is not None]

    return sizes


@consumer("symshape.reshape")
def _symshape_reshape(op: ir.Operation, state: InferenceState, axes: AxisBindings
                      ) -> Iterator[Requirement]:
    source = op.operands[0]
    check = _count_check(op, "reshape target", source, _local_sizes(op, axes, "target"))
    yield from _local_requirements(op, state, axes, "target", "reshape target extent {}", check)
    targets, _ = local_extents(op, state, "target")
    yield from _count_requirement(op, state, source, targets, check)


@consumer("symshape.broadcast_in_dim")
def _broadcast_in_dim(op: ir.Operation, state: InferenceState, axes: AxisBindings
                      ) -> Iterator[Requirement]:
    source = op.operands[0]
    dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
    sizes = _local_sizes(op, axes, "target")

    def check(b: IndexBuilder) -> None:
        targets = sizes(b)
        for in_axis, out_axis in enumerate(dims):
            have = b.dim(source, in_axis)
            ok = arith.OrIOp(b.cmp("eq", have, targets[out_axis]),
                             b.cmp("eq", have, b.const(1))).result
            b.check(ok, _message(op, f"broadcast_in_dim input axis {in_axis}"))

    targets, origins = local_extents(op, state, "target")
    for i, (extent, origin) in enumerate(zip(targets, origins)):
        yield Requirement(op, f"broadcast_in_dim target extent {i}", extent, extent.is_exact,
                          origin, check)
    # Each input axis must provably be 1 or the target extent it maps to.
    shape = state.shape(source)
    for in_axis, out_axis in enumerate(dims):
        target, have = targets[out_axis], shape[in_axis]
        if not target.is_exact:
            continue
        proven = have.is_exact and (
            prove_eq(have.expr, 1, state.extents) is True  # type: ignore[arg-type]
            or prove_eq(have.expr, target.expr, state.extents) is True)  # type: ignore[arg-type]
        yield Requirement(
            op, f"broadcast_in_dim input axis {in_axis}", None, proven,
            state.origins(source)[in_axis], check,
            detail=f"'{op.name}' op cannot prove that input axis {in_axis} ('{have}') is 1 "
                   f"or the target extent '{target.expr}'",
        )


@consumer("symshape.gather")
def _gather(op: ir.Operation, state: InferenceState, axes: AxisBindings
            ) -> Iterator[Requirement]:
    operand = op.operands[0]
    sizes = _local_sizes(op, axes, "slice_sizes")

    def check(b: IndexBuilder) -> None:
        for axis, size in enumerate(sizes(b)):
            b.check(b.cmp("sle", size, b.dim(operand, axis)),
                    _message(op, f"gather slice_sizes[{axis}]"))

    yield from _local_requirements(op, state, axes, "slice_sizes", "gather slice_sizes[{}]",
                                   check)


@consumer("tensor.reshape")
def _tensor_reshape(op: ir.Operation, state: InferenceState, axes: AxisBindings
                    ) -> Iterator[Requirement]:
    source, shape = op.operands[0], op.operands[1]
    count = ir.RankedTensorType(shape.type).shape[0]
    elements = state.elements(shape) or (UNKNOWN,) * count

    def sizes(b: IndexBuilder) -> list[ir.Value]:
        return [b.scalar_at(shape, [b.const(i)]) for i in range(count)]

    check = _count_check(op, "reshape shape", source, sizes)
    for i, extent in enumerate(elements):
        origin = _value_origin(state, shape)
        yield Requirement(op, f"reshape shape element {i}", extent, extent.is_exact, origin,
                          check)
    yield from _count_requirement(op, state, source, tuple(elements), check)


@consumer("tensor.expand_shape")
def _expand_shape(op: ir.Operation, state: InferenceState, axes: AxisBindings
                  ) -> Iterator[Requirement]:
    source = op.operands[0]
    dynamic = ir.ShapedType.get_dynamic_size()
    static = list(ir.DenseI64ArrayAttr(op.attributes["static_output_shape"]))
    values = iter(list(op.operands)[1:])
    groups = [[ir.IntegerAttr(a).value for a in ir.ArrayAttr(g)]
              for g in ir.ArrayAttr(op.attributes["reassociation"])]
    sized = {axis: next(values) for axis, s in enumerate(static) if s == dynamic}

    def check(b: IndexBuilder) -> None:
        for in_axis, group in enumerate(groups):
            product = b.product([sized[a] if a in sized else b.const(static[a])
                                 for a in group])
            b.check(b.cmp("eq", product, b.dim(source, in_axis)),
                    _message(op, f"expand_shape output group {in_axis}"))

    for axis, value in sized.items():
        extent = state.value(value)
        yield Requirement(op, f"expand_shape output size {axis}", extent, extent.is_exact,
                          _value_origin(state, value), check)


def _inputs_and_inits(op: ir.Operation) -> tuple[list[ir.Value], list[ir.Value]]:
    operands = list(op.operands)
    count = len(op.results)
    return operands[: len(operands) - count], operands[len(operands) - count:]


@consumer("linalg.broadcast")
def _linalg_broadcast(op: ir.Operation, state: InferenceState, axes: AxisBindings
                      ) -> Iterator[Requirement]:
    (source,), (init,) = _inputs_and_inits(op)
    added = set(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
    kept = [a for a in range(len(state.shape(init))) if a not in added]
    tied = {out_axis: in_axis for in_axis, out_axis in enumerate(kept)}
    for axis, extent in enumerate(state.shape(init)):
        field = f"broadcast init extent {axis}"
        # An added axis has nothing to compare with at run time.
        check = _tie_check(op, field, init, axis, source, tied[axis]) if axis in tied else None
        yield Requirement(op, field, extent, extent.is_exact, _init_origin(state, init, axis),
                          check)


def _generic_like(op: ir.Operation, state: InferenceState, axes: AxisBindings
                  ) -> Iterator[Requirement]:
    if "indexing_maps" not in op.attributes:
        return
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
    inputs, inits = _inputs_and_inits(op)
    loops: dict[int, tuple[ir.Value, int]] = {}
    for value, amap in zip(inputs, maps):
        if not isinstance(value.type, ir.RankedTensorType):
            continue
        for axis, result in enumerate(amap.results):
            if isinstance(result, ir.AffineDimExpr):
                loops.setdefault(result.position, (value, axis))
    short = op.name.removeprefix("linalg.")
    for index, (init, amap) in enumerate(zip(inits, maps[len(inputs):])):
        shape = state.shape(init)
        for axis, result in enumerate(amap.results):
            if not isinstance(result, ir.AffineDimExpr) or result.position not in loops:
                continue
            source, source_axis = loops[result.position]
            field = f"{short} init #{index} extent {axis}"
            yield Requirement(op, field, shape[axis], shape[axis].is_exact,
                              _init_origin(state, init, axis),
                              _tie_check(op, field, init, axis, source, source_axis))


for _name in ("linalg.generic", "linalg.matmul", "linalg.batch_matmul", "linalg.map",
              "linalg.transpose", "linalg.copy", "linalg.matvec", "linalg.vecmat",
              "linalg.dot", "linalg.reduce"):
    CONSUMERS[_name] = _generic_like


_WEAKENING = ("symshape.bound", "symshape.dynamic_truncate")


def _init_origin(state: InferenceState, init: ir.Value, axis: int) -> Origin | None:
    """Where an init's extent was weakened: traced through its size operands
    (``tensor.empty(%bound)``), else the axis' recorded origin."""
    return _value_origin(state, init) or state.origins(init)[axis]


def _value_origin(state: InferenceState, value: ir.Value) -> Origin | None:
    """The op that made ``value`` (an index value or a shape tensor) inexact."""
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
            source = owner.operands[0]
            origins = state.origins(source)
            return next((o for o in origins if o is not None), None)
        for operand in owner.operands:
            facts = state.facts_of(operand)
            known = [facts.value] if facts.value is not None else list(facts.elements or ())
            if any(not e.is_exact for e in known):
                stack.append(operand)
    return None
