"""Shape rules of the symshape dialect's ops.

.. code-block:: mlir

    %t = symshape.dynamic_truncate %x, %n axis 1
        : (tensor<4x?xf32>, tensor<i64>) -> tensor<4x?xf32>
    // stage upper_bound: [4, ub(seq)]    (origin: this op)
    // stage exact:       [4, min(_d0, seq)]   with _d0 the value of %n
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from symshape_mlir.attributes import enum_name
from symshape_mlir.extent import Const, InputAxis, RuntimeScalar, minimum
from symshape_mlir.extent import guarantee as g
from symshape_mlir.extent.guarantee import UNKNOWN, Exact, ShapeExtent, UpperBound
from symshape_mlir.extent.prove import prove_ne
from symshape_mlir.inference.facts import Origin, ValueFacts
from symshape_mlir.inference.registry import register
from symshape_mlir.inference.rules.common import (
    int_attr,
    local_extents,
    raw_scalar,
    with_origins,
)
from symshape_mlir.inference.state import InferenceState

__all__: list[str] = []

Facts = list[ValueFacts | None]


@register("symshape.const")
def _const(op: ir.Operation, state: InferenceState) -> Facts:
    return [ValueFacts(value=Exact(Const(int_attr(op, "value"))))]


@register("symshape.dim")
def _dim(op: ir.Operation, state: InferenceState) -> Facts:
    return [ValueFacts(value=state.shape(op.operands[0], op)[int_attr(op, "axis")])]


@register("symshape.bound")
def _bound(op: ir.Operation, state: InferenceState) -> Facts:
    # Only an upper bound, whatever is known of the axis: this value may size
    # allocations but never stands for the true size.
    extent = state.shape(op.operands[0], op)[int_attr(op, "axis")]
    return [ValueFacts(value=UpperBound(extent.expr) if extent.expr is not None else UNKNOWN)]


def _semantics(op: ir.Operation) -> str:
    return enum_name(op.attributes["semantics"])


@register("symshape.runtime_scalar")
def _runtime_scalar(op: ir.Operation, state: InferenceState) -> Facts:
    source = op.operands[0]
    raw = raw_scalar(state, source)
    if raw.is_unknown:
        raw = state.fresh(("raw", source))
    value = g.instantiate(RuntimeScalar(0, _semantics(op)), scalars=[raw], ctx=state.extents)
    return [ValueFacts(value=value)]


_COMBINATORS: dict[str, Callable[[ShapeExtent, ShapeExtent], ShapeExtent]] = {
    "symshape.add": g.add, "symshape.sub": g.sub, "symshape.mul": g.mul,
    "symshape.floordiv": g.floordiv, "symshape.ceildiv": g.ceildiv, "symshape.mod": g.mod,
    "symshape.min": g.minimum, "symshape.max": g.maximum,
}


@register(*_COMBINATORS)
def _arith(op: ir.Operation, state: InferenceState) -> Facts:
    lhs, rhs = (state.value(v) for v in op.operands)
    return [ValueFacts(value=_COMBINATORS[op.name](lhs, rhs))]


@register("symshape.to_index", "symshape.from_index")
def _same_value(op: ir.Operation, state: InferenceState) -> Facts:
    return [ValueFacts(value=state.value(op.operands[0]))]


@register("symshape.reshape")
def _reshape(op: ir.Operation, state: InferenceState) -> Facts:
    return [with_origins(*local_extents(op, state, "target"))]


@register("symshape.broadcast_in_dim")
def _broadcast_in_dim(op: ir.Operation, state: InferenceState) -> Facts:
    targets, origins = local_extents(op, state, "target")
    # An input axis that is provably not 1 is copied, so it equals its target.
    shape = state.shape(op.operands[0], op)
    dims = ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"])
    for in_axis, out_axis in enumerate(dims):
        have = shape[in_axis]
        if have.is_exact and prove_ne(have.expr, 1, state.extents) is True:  # type: ignore[arg-type]
            state.unify(targets[out_axis], have, op,
                        f"input axis {in_axis} and target extent {out_axis}".__str__)
    return [with_origins(targets, origins)]


@register("symshape.gather")
def _gather(op: ir.Operation, state: InferenceState) -> Facts:
    indices = op.operands[1]
    index_shape = state.shape(indices, op)
    collapsed = set(ir.DenseI64ArrayAttr(op.attributes["collapsed_slice_dims"]))
    sizes, size_origins = local_extents(op, state, "slice_sizes")
    batch_origins = state.origins(indices)[:-1]
    kept = [a for a in range(len(sizes)) if a not in collapsed]
    return [with_origins(
        [*index_shape[:-1], *(sizes[a] for a in kept)],
        [*batch_origins, *(size_origins[a] for a in kept)],
    )]


def truncate_stage(op: ir.Operation, state: InferenceState) -> str:
    """The stage of a ``dynamic_truncate``: its own, else the run's option."""
    if "stage" in op.attributes:
        return enum_name(op.attributes["stage"])
    return state.options.truncate_stage


@register("symshape.dynamic_truncate")
def _dynamic_truncate(op: ir.Operation, state: InferenceState) -> Facts:
    source, size = op.operands[0], op.operands[1]
    axis = int_attr(op, "axis")
    extents = list(state.shape(source, op))
    origins = list(state.origins(source))
    here = Origin(op.name, op.location)
    full = extents[axis]
    if truncate_stage(op, state) == "exact":
        raw = raw_scalar(state, size)
        if raw.is_unknown:
            raw = state.fresh(("raw", size))
        kept = minimum(RuntimeScalar(1, "truncate_size"), InputAxis(0, axis))
        extents[axis] = g.instantiate(kept, dims=lambda i, a: full, scalars=lambda i: raw,
                                      ctx=state.extents)
        origins[axis] = None if extents[axis].is_exact else (origins[axis] or here)
    else:
        extents[axis] = UpperBound(full.expr) if full.expr is not None else UNKNOWN
        origins[axis] = here
    return [with_origins(extents, origins)]
