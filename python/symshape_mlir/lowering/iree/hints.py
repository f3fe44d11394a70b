"""Upper bounds as hints to IREE.

An upper bound is never a shape; when it is a constant it still tells IREE
something useful. After an op whose result has a dynamic axis bounded by a
constant (an upper bound, or a size chosen at run time — a fresh symbol —
whose value range has a constant top), the axis size is wrapped in
``util.assume.int`` and the value in ``flow.tensor.tie_shape``:

.. code-block:: mlir

    %d = tensor.dim %t, %c0 : tensor<?x4xf32>
    %h = "util.assume.int"(%d) {assumptions = [[#util.int.assumption<umin = 0, umax = 128>]]}
        : (index) -> index
    %t2 = "flow.tensor.tie_shape"(%t, %h) : (tensor<?x4xf32>, index) -> tensor<?x4xf32>

IREE does not check these assumptions at run time: they are only emitted
for bounds inference proved.
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.extent.context import is_fresh_name
from symshape_mlir.extent.expr import Sym
from symshape_mlir.extent.prove import bounds as value_bounds
from symshape_mlir.inference.state import InferenceState
from symshape_mlir.lowering.iree.barriers import dynamic_sizes, redirect, tie_shape
from symshape_mlir.walk import collect_ops

__all__ = ["insert_upper_bound_hints"]


def _constant_bounds(facts: InferenceState, value: ir.Value) -> dict[int, int]:
    # IREE does not check a hint: only bounds known where the value is made.
    shape = facts.defined_facts(value).shape or ()
    type_ = ir.RankedTensorType(value.type)
    bounds = {}
    for axis, extent in enumerate(shape):
        if not type_.is_dynamic_dim(axis) or extent.expr is None:
            continue
        constant = None
        if extent.is_upper_bound:
            constant = extent.expr.const_value
        elif isinstance(extent.expr, Sym) and is_fresh_name(extent.expr.name):
            constant = value_bounds(extent.expr, facts.extents)[1]
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
            dynamic = [axis for axis in range(type_.rank) if type_.is_dynamic_dim(axis)]
            sizes = dynamic_sizes(value)
            for i, axis in enumerate(dynamic):
                if axis in bounds:
                    # IREE's util dialect is not loaded here: its attribute is opaque.
                    umax = ir.OpaqueAttr.get(
                        "util", f"int.assumption<umin = 0, umax = {bounds[axis]}>".encode(),
                        ir.NoneType.get())
                    assumption = ir.ArrayAttr.get([ir.ArrayAttr.get([umax])])
                    sizes[i] = ir.Operation.create("util.assume.int", results=[index],
                                                   operands=[sizes[i]],
                                                   attributes={"assumptions": assumption}).result
            tied = tie_shape(value, sizes)
        redirect(value, tied, users)
    return len(targets)
