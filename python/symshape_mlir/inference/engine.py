"""Walking functions and applying shape rules.

For every ``func.func``, arguments are seeded from ``symshape.axes``
(``#symshape.shape<[batch, 512]>``; dynamic axes without a name get fresh
symbols), then ops are visited in order. Each result's facts come from its
op's rule (ops without one get what their type states), are reconciled with
the static dims of the result type (a static dim is a fact; a provably
different inferred extent is an error), and merged with an existing
``symshape.shape`` annotation under the run's policy. Region ops
(``scf.if``/``scf.for``) and ``func.call`` rules call back into the engine.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from mlir import ir

from symshape_mlir.attributes import shape_from_attr
from symshape_mlir.extent.expr import Const
from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.extent.prove import prove_eq, prove_lt
from symshape_mlir.inference.errors import InferenceError, ShapeInferenceError
from symshape_mlir.inference.facts import Origin, ValueFacts
from symshape_mlir.inference.registry import RULES
from symshape_mlir.inference.state import InferenceState, type_shape

__all__ = ["AXES_ATTR", "SHAPE_ATTR", "infer_block", "infer_function", "infer_module"]

logger = logging.getLogger(__name__)

SHAPE_ATTR = "symshape.shape"
AXES_ATTR = "symshape.axes"


def infer_module(module: ir.Operation, state: InferenceState) -> None:
    """Infers every function of ``module`` (callees before their callers)."""
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func":
            infer_function(op.operation, state)


def infer_function(func: ir.Operation, state: InferenceState) -> None:
    """Infers one function once (a later call returns at once)."""
    marker = ("function", func)
    if marker in state.done:
        return
    state.done.add(marker)
    if not func.regions[0].blocks:
        return
    block = func.regions[0].blocks[0]
    arg_attrs = (
        list(ir.ArrayAttr(func.attributes["arg_attrs"])) if "arg_attrs" in func.attributes else []
    )
    for index, arg in enumerate(block.arguments):
        state.set(arg, _seed_argument(arg, arg_attrs[index] if index < len(arg_attrs) else None, state))
    infer_block(block, state)


def _seed_argument(arg: ir.Value, attrs: ir.Attribute | None, state: InferenceState) -> ValueFacts:
    declared = None
    if attrs is not None:
        attrs = ir.DictAttr(attrs)
        if AXES_ATTR in attrs:
            declared = shape_from_attr(attrs[AXES_ATTR])
    shape = type_shape(arg.type)
    if shape is None:
        return ValueFacts(value=state.fresh(arg) if _is_integer(arg.type) else None)
    extents = [
        declared[axis] if declared is not None else (extent if extent.is_exact else state.fresh())
        for axis, extent in enumerate(shape)
    ]
    return ValueFacts(shape=tuple(extents))


def _is_integer(type_: ir.Type) -> bool:
    return isinstance(type_, (ir.IndexType, ir.IntegerType))


def infer_block(block: ir.Block, state: InferenceState) -> None:
    """Infers the ops of ``block`` in order."""
    for op in block.operations:
        infer_op(op.operation, state)


def infer_op(op: ir.Operation, state: InferenceState) -> None:
    rule = RULES.get(op.name)
    results = op.results
    if rule is None:
        for region in op.regions:
            for block in region.blocks:
                infer_block(block, state)
        inferred: Sequence[ValueFacts | None] = [None] * len(results)
    else:
        try:
            inferred = rule(op, state)
        except InferenceError:
            raise
        except (ValueError, ArithmeticError) as exc:
            raise ShapeInferenceError(op.location, str(exc)) from exc
    existing = _existing_annotation(op)
    for index, result in enumerate(results):
        facts = inferred[index] if index < len(inferred) else None
        facts = _reconcile_with_type(op, index, result.type, facts, state)
        if existing is not None and facts.shape is not None:
            facts = _merge(op, index, facts, existing[index], state)
        state.set(result, facts)


def _existing_annotation(op: ir.Operation) -> list[tuple[ShapeExtent, ...] | None] | None:
    if SHAPE_ATTR not in op.attributes:
        return None
    attr = op.attributes[SHAPE_ATTR]
    if isinstance(attr, ir.ArrayAttr):
        return [shape_from_attr(a) for a in attr]
    return [shape_from_attr(attr)]


def _reconcile_with_type(
    op: ir.Operation, index: int, type_: ir.Type, facts: ValueFacts | None, state: InferenceState
) -> ValueFacts:
    stated = type_shape(type_)
    if facts is None:
        facts = ValueFacts(shape=stated)
    if stated is None or facts.shape is None:
        return facts
    if len(facts.shape) != len(stated):
        raise ShapeInferenceError(
            op.location,
            f"result #{index} has rank {len(stated)} but its shape rule inferred rank "
            f"{len(facts.shape)}",
        )
    extents = list(facts.shape)
    origins = list(facts.origins or (None,) * len(extents))
    for axis, (have, static) in enumerate(zip(facts.shape, stated)):
        if not static.is_exact:
            if not have.is_exact and origins[axis] is None:
                origins[axis] = Origin(op.name, op.location)
            continue
        if have.is_exact and prove_eq(have.expr, static.expr, state.extents, fallback=False) is False:
            raise ShapeInferenceError(
                op.location,
                f"result #{index} dimension {axis} is {static} but the inferred extent is {have}",
            )
        if have.is_upper_bound and have.expr is not None and _provably_less(have, static, state):
            raise ShapeInferenceError(
                op.location,
                f"result #{index} dimension {axis} is {static} but the inferred extent is {have}",
            )
        extents[axis] = static
        origins[axis] = None
    return ValueFacts(
        shape=tuple(extents), value=facts.value, elements=facts.elements, origins=tuple(origins)
    )


def _provably_less(bound: ShapeExtent, static: ShapeExtent, state: InferenceState) -> bool:
    return prove_lt(bound.expr, static.expr, state.extents, fallback=False) is True  # type: ignore[arg-type]


def _strength(extent: ShapeExtent) -> int:
    if extent.is_exact and isinstance(extent.expr, Const):
        return 3
    return extent.strength


def _merge(
    op: ir.Operation,
    index: int,
    inferred: ValueFacts,
    existing: tuple[ShapeExtent, ...] | None,
    state: InferenceState,
) -> ValueFacts:
    """Merges inferred facts with an existing annotation under the policy."""
    if existing is None or inferred.shape is None:
        return inferred
    policy = state.options.policy
    if len(existing) != len(inferred.shape):
        raise ShapeInferenceError(
            op.location,
            f"existing annotation of result #{index} has rank {len(existing)} but the result "
            f"has rank {len(inferred.shape)}",
        )
    if policy == "override":
        return inferred
    if policy == "skip":
        return ValueFacts(shape=existing, value=inferred.value, elements=inferred.elements)
    extents = list(inferred.shape)
    origins = list(inferred.origins or (None,) * len(extents))
    for axis, (old, new) in enumerate(zip(existing, inferred.shape)):
        if policy == "strict":
            if not _agree(old, new, state):
                raise ShapeInferenceError(
                    op.location,
                    f"result #{index} dimension {axis}: annotation '{old}' conflicts with "
                    f"inferred '{new}' (policy=strict)",
                )
            continue
        if _strength(old) > _strength(new):
            extents[axis] = old
            origins[axis] = None
    return ValueFacts(
        shape=tuple(extents), value=inferred.value, elements=inferred.elements,
        origins=tuple(origins),
    )


def _agree(old: ShapeExtent, new: ShapeExtent, state: InferenceState) -> bool:
    if old.strength != new.strength:
        return False
    if old.expr is None:
        return True
    return old.expr is new.expr or prove_eq(old.expr, new.expr, state.extents) is True  # type: ignore[arg-type]

