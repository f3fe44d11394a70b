"""Shape rules of the symshape dialect's ops.

.. code-block:: mlir

    %t = symshape.dynamic_truncate %x, %n axis 1
        : (tensor<4x?xf32>, tensor<i64>) -> tensor<4x?xf32>
    // stage upper_bound: [4, ub(seq)]    (origin: this op)
    // stage exact:       [4, min(_d0, seq)]   with _d0 the value of %n
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.attributes import enum_name, shape_from_attr
from symshape_mlir.extent import Const, InputAxis, RuntimeScalar, canon, minimum
from symshape_mlir.extent import guarantee as g
from symshape_mlir.extent.guarantee import UNKNOWN, Exact, ShapeExtent, UpperBound
from symshape_mlir.extent.prove import cancel_exact_divisions, prove_ne, prove_nonnegative
from symshape_mlir.inference.errors import ShapeInferenceError
from symshape_mlir.inference.facts import Origin, ValueFacts
from symshape_mlir.inference.obligations import NO_CHECK, Compare, Condition, Quantity
from symshape_mlir.inference.registry import register
from symshape_mlir.inference.rules.common import (
    int_attr,
    local_extents,
    product,
    raw_scalar,
    same_size,
    with_origins,
)
from symshape_mlir.inference.state import InferenceState
from symshape_mlir.shapes.gather import gather_shape
from symshape_mlir.walk import enclosing_function

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
    """The value of a bound is exactly the bound expression ``b`` of the axis
    (``ub(b)``, or its exact extent ``b``) when the function's arguments
    give every symbol of ``b`` (resolve computes ``b`` from them); otherwise
    it is the axis size itself, a fresh exact symbol ranging over ``[0, b]``.
    Either way a tensor sized by it has an exact extent; the bounded tensor's
    own extent stays what it was.

    .. code-block:: mlir

        %t = symshape.dynamic_truncate %x, %n axis 0 : ...  // [ub(batch), 4]
        %cap = symshape.bound %t, 0 : tensor<?x4xf32>      // value: batch
        %e = tensor.empty(%cap_index) : tensor<?x4xf32>    // [batch, 4]
    """
    extent = state.shape(op.operands[0], op)[int_attr(op, "axis")]
    bound = extent.expr
    if isinstance(extent, Exact):
        return [ValueFacts(value=extent)]
    func = enclosing_function(op)
    if bound is not None and func is not None and \
            bound.free_symbols <= state.argument_axes(func).keys():
        return [ValueFacts(value=Exact(bound))]
    return [ValueFacts(value=state.fresh(("bound", op), 0, bound))]


def _semantics(op: ir.Operation) -> str:
    return enum_name(op.attributes["semantics"])


@register("symshape.runtime_scalar")
def _runtime_scalar(op: ir.Operation, state: InferenceState) -> Facts:
    source = op.operands[0]
    raw = raw_scalar(state, source)
    value = g.instantiate(RuntimeScalar(0, _semantics(op)), scalars=[raw], ctx=state.extents)
    return [ValueFacts(value=value)]


_COMBINATORS: dict[str, g.Combine] = {
    "symshape.add": g.add_signed, "symshape.sub": g.sub_signed, "symshape.mul": g.mul_signed,
    "symshape.floordiv": g.floordiv_signed, "symshape.ceildiv": g.ceildiv_signed,
    "symshape.mod": g.mod_signed, "symshape.min": g.min_signed, "symshape.max": g.max_signed,
}


_DIVISIONS = ("symshape.floordiv", "symshape.ceildiv", "symshape.mod")


@register(*_COMBINATORS)
def _arith(op: ir.Operation, state: InferenceState) -> Facts:
    # Extent values may be negative in between (a scalar of unknown sign, a
    # difference): the combinators get each operand's sign as far as it is
    # proven, and never assume one (a bound's value has no proven sign).
    lhs, rhs = (state.value(v) for v in op.operands)
    if (op.name in _DIVISIONS and rhs.is_exact and rhs.expr is not None
            and rhs.expr.const_value == 0):
        raise ShapeInferenceError(op.location, f"'{op.name}' divides by the constant 0")
    value = _COMBINATORS[op.name](lhs, _nonneg(lhs, state), rhs, _nonneg(rhs, state))
    if isinstance(value, Exact):
        value = Exact(cancel_exact_divisions(value.expr))
    return [ValueFacts(value=value)]


def _nonneg(extent: ShapeExtent, state: InferenceState) -> bool:
    return isinstance(extent, Exact) and prove_nonnegative(
        extent.expr, state.extents, fallback=False) is True


@register("symshape.to_index", "symshape.from_index")
def _same_value(op: ir.Operation, state: InferenceState) -> Facts:
    return [ValueFacts(value=state.value(op.operands[0]))]


def _local_quantities(op: ir.Operation, attr: str) -> list[Quantity | None]:
    """The run-time form of each op-local extent of ``attr`` (``None`` for ``?``)."""
    return [None if e.expr is None else Quantity.local(op, e.expr)
            for e in shape_from_attr(op.attributes[attr])]


@register("symshape.reshape")
def _reshape(op: ir.Operation, state: InferenceState) -> Facts:
    targets, origins = local_extents(op, state, "target")
    source = op.operands[0]
    shape = state.shape(source, op)
    wanted = _local_quantities(op, "target")
    known = [q for q in wanted if q is not None]
    count = None
    if len(known) == len(wanted):
        count = same_size(Quantity.product([(source, a) for a in range(len(shape))]),
                          Quantity.of(canon.mul, *known))
    for axis, (target, origin) in enumerate(zip(targets, origins)):
        state.require_exact(target, op, f"reshape target extent {axis}", count, origin,
                            self_checked=True)
    if all(t.is_exact for t in targets):
        state.unify(product(state, shape), product(state, targets), op,
                    lambda: "the element counts of source and result", count,
                    next((o for o in state.origins(source) if o is not None), None),
                    self_checked=True)
    return [with_origins(targets, origins)]


@register("symshape.broadcast_in_dim")
def _broadcast_in_dim(op: ir.Operation, state: InferenceState) -> Facts:
    targets, origins = local_extents(op, state, "target")
    source = op.operands[0]
    shape = state.shape(source, op)
    source_origins = state.origins(source)
    dims = ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"])
    wanted = _local_quantities(op, "target")
    # Per input axis, the run-time check that it is 1 or its target.
    checks: dict[int, Condition] = {}
    for in_axis, out_axis in enumerate(dims):
        target = wanted[out_axis]
        if target is not None:
            size = Quantity.dim(source, in_axis)
            checks[out_axis] = (Compare("eq", size, target),
                                Compare("eq", size, Quantity.const(1)))
    # Every target axis is a true size (an added axis is computed at run time,
    # so deferring it needs no check); each input axis is 1 or its target.
    for axis, (target, origin) in enumerate(zip(targets, origins)):
        state.require_exact(target, op, f"broadcast_in_dim target extent {axis}",
                            checks.get(axis, NO_CHECK), origin, self_checked=True)
    for in_axis, out_axis in enumerate(dims):
        have, target = shape[in_axis], targets[out_axis]
        if not target.is_exact:
            continue
        condition = checks.get(out_axis)
        if isinstance(have, Exact) and prove_ne(have.expr, 1, state.extents) is True:
            # Copied, so it equals its target.
            state.unify(target, have, op,
                        f"input axis {in_axis} and target extent {out_axis}".__str__,
                        condition, source_origins[in_axis], self_checked=True)
        else:
            state.require_broadcastable(
                have, target, op, f"broadcast_in_dim input axis {in_axis}", condition,
                source_origins[in_axis], self_checked=True)
    return [with_origins(targets, origins)]


@register("symshape.gather")
def _gather(op: ir.Operation, state: InferenceState) -> Facts:
    operand, indices = op.operands[0], op.operands[1]
    index_shape = state.shape(indices, op)
    collapsed = set(ir.DenseI64ArrayAttr(op.attributes["collapsed_slice_dims"]))
    sizes, size_origins = local_extents(op, state, "slice_sizes")
    wanted = _local_quantities(op, "slice_sizes")
    available = state.shape(operand, op)
    operand_origins = state.origins(operand)
    for axis, (size, origin) in enumerate(zip(sizes, size_origins)):
        quantity = wanted[axis]
        within = None if quantity is None else (
            Compare("le", quantity, Quantity.dim(operand, axis)),)
        state.require_exact(size, op, f"gather slice_sizes[{axis}]", within, origin,
                            self_checked=True)
        if axis < len(available):
            state.require_at_most(size, available[axis], op,
                                  f"gather slice_sizes[{axis}] lies within the operand extent",
                                  within, operand_origins[axis], self_checked=True)
    kept = [size_origins[a] for a in range(len(sizes)) if a not in collapsed]
    return [with_origins(gather_shape(index_shape, sizes, collapsed).dims,
                         [*state.origins(indices)[:-1], *kept])]


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
        kept = minimum(RuntimeScalar(1, "truncate_size"), InputAxis(0, axis))
        extents[axis] = g.instantiate(kept, dims=lambda i, a: full, scalars=lambda i: raw,
                                      ctx=state.extents)
        origins[axis] = None if extents[axis].is_exact else (origins[axis] or here)
    else:
        extents[axis] = UpperBound(full.expr) if full.expr is not None else UNKNOWN
        origins[axis] = here
    return [with_origins(extents, origins)]
