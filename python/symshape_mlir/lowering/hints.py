"""Upper bounds as IREE hints (``symshape-resolve{target=iree}``).

An upper bound is never a shape; when it is a constant it still tells IREE
something useful. After an op whose result has a dynamic axis bounded by a
constant, the axis size is wrapped in ``util.assume.int`` and the value in
``flow.tensor.tie_shape``:

.. code-block:: mlir

    %d = tensor.dim %t, %c0 : tensor<?x4xf32>
    %h = "util.assume.int"(%d) {assumptions = [[#util.int.assumption<umin = 0, umax = 128>]]}
        : (index) -> index
    %t2 = "flow.tensor.tie_shape"(%t, %h) : (tensor<?x4xf32>, index) -> tensor<?x4xf32>

IREE's ops are not registered in this MLIR, so they are built in generic
form, which ``iree-compile`` parses; the context must allow unregistered
dialects. IREE does not check these assumptions at run time: they are only
emitted for bounds inference proved.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor

from symshape_mlir.inference.state import InferenceState
from symshape_mlir.walk import collect_ops

__all__ = ["insert_upper_bound_hints", "shield_static_casts"]


def _constant_bounds(facts: InferenceState, value: ir.Value) -> dict[int, int]:
    # IREE does not check a hint: only bounds known where the value is made.
    shape = facts.defined_facts(value).shape or ()
    type_ = ir.RankedTensorType(value.type)
    bounds = {}
    for axis, extent in enumerate(shape):
        if type_.is_dynamic_dim(axis) and extent.is_upper_bound and extent.expr is not None:
            constant = extent.expr.const_value
            if constant is not None and constant >= 0:
                bounds[axis] = constant
    return bounds


def insert_upper_bound_hints(func: ir.Operation, facts: InferenceState) -> int:
    """Adds hints after every op with constant-bounded dynamic axes; returns how many."""
    targets: list[tuple[ir.Operation, ir.Value, dict[int, int]]] = []
    for op in collect_ops(func):
        for result in op.results:
            if isinstance(result.type, ir.RankedTensorType):
                bounds = _constant_bounds(facts, result)
                if bounds:
                    targets.append((op, result, bounds))
    index = ir.IndexType.get()
    for op, value, bounds in targets:
        type_ = ir.RankedTensorType(value.type)
        users = [use.owner for use in value.uses]
        with ir.InsertionPoint.after(op), op.location:
            sizes = []
            for axis in range(type_.rank):
                if not type_.is_dynamic_dim(axis):
                    continue
                size = tensor.DimOp(value, arith.ConstantOp(index, axis).result).result
                if axis in bounds:
                    assumption = ir.Attribute.parse(
                        f"[[#util.int.assumption<umin = 0, umax = {bounds[axis]}>]]")
                    size = ir.Operation.create("util.assume.int", results=[index],
                                               operands=[size],
                                               attributes={"assumptions": assumption}).result
                sizes.append(size)
            tied = ir.Operation.create("flow.tensor.tie_shape", results=[value.type],
                                       operands=[value, *sizes]).result
        for user in users:
            owner = user.operation if isinstance(user, ir.OpView) else user
            for i, operand in enumerate(owner.operands):
                if operand == value:
                    owner.operands[i] = tied
    return len(targets)


def shield_static_casts(func: ir.Operation, checked: set[ir.Operation]) -> int:
    """Puts ``util.optimization_barrier`` between each checked cast to a
    static size (one of ``checked``, the ops with a run-time check) and its
    source; returns how many.

    IREE reads ``tensor.cast %t : tensor<?xf32> to tensor<3xf32>`` as a
    promise that ``%t`` has 3 rows and folds ``tensor.dim %t`` to 3, which
    would turn the run-time check of that very promise into ``3 == 3``. The
    check reads the source itself; the cast reads it through the barrier.

    .. code-block:: mlir

        cf.assert %same, "symshape: check failed: ... (tensor.cast at f.mlir:7:8)"
        %d = tensor.dim %t, %c0 : tensor<?xf32>
        %b = "util.optimization_barrier"(%t) : (tensor<?xf32>) -> tensor<?xf32>
        %s = "flow.tensor.tie_shape"(%b, %d) : (tensor<?xf32>, index) -> tensor<?xf32>
        %c = tensor.cast %s : tensor<?xf32> to tensor<3xf32>
    """
    casts = collect_ops(func, lambda op: op.name == "tensor.cast" and op in checked)
    shielded = 0
    for cast in casts:
        source = cast.operands[0]
        before, after = source.type, cast.results[0].type
        if not (isinstance(before, ir.RankedTensorType)
                and isinstance(after, ir.RankedTensorType)):
            continue
        if not any(before.is_dynamic_dim(a) and not after.is_dynamic_dim(a)
                   for a in range(min(before.rank, after.rank))):
            continue
        with ir.InsertionPoint(cast), cast.location:
            index = ir.IndexType.get()
            sizes = [tensor.DimOp(source, arith.ConstantOp(index, a).result).result
                     for a in range(before.rank) if before.is_dynamic_dim(a)]
            barrier = ir.Operation.create("util.optimization_barrier", results=[before],
                                          operands=[source]).result
            # IREE must still know the barrier's dynamic sizes: the source's.
            tied = ir.Operation.create("flow.tensor.tie_shape", results=[before],
                                       operands=[barrier, *sizes]).result
        cast.operands[0] = tied
        shielded += 1
    return shielded
