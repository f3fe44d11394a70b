"""Call operands with an axis of extent 0, which IREE 3.13 carries into the
callee when it inlines it: they reach the callee through a barrier.
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.inference.state import InferenceState
from symshape_mlir.lowering.iree.barriers import dynamic_sizes, opaque, tie_shape
from symshape_mlir.lowering.iree.folding import has_empty_axis
from symshape_mlir.walk import collect_ops

__all__ = ["shield_empty_call_operands"]


def _hidden_empty_axis(facts: InferenceState | None, value: ir.Value) -> bool:
    """Whether ``value`` is a tensor whose type has no static extent 0 but
    that has an axis of extent 0 (`has_empty_axis`): a 0 only its sizes
    carry, which a barrier can hide."""
    if not isinstance(value.type, ir.RankedTensorType):
        return False
    return 0 not in ir.RankedTensorType(value.type).shape and has_empty_axis(facts, value)


def shield_empty_call_operands(func: ir.Operation, facts: InferenceState | None) -> int:
    """Passes each ``func.call`` operand with an axis of extent 0 that its
    type does not show (a cast of a tensor with no rows, a size that folds
    to 0) through ``util.optimization_barrier`` with its sizes, tied to the
    sizes the barrier gives; returns how many operands.

    IREE 3.13 inlines the callee and folds the operand's extent to 0 in the
    callee's ops: a callee's sum of the operand and another argument gets
    no rows, and a reduction of the call's result over that axis crashes
    iree-compile like ``shield_empty_reductions``' (``AnnotateDispatches``
    divides by the loop range of 0, fuzzer p172004849). The shields of
    ops over nothing act where the 0 is seen, and the caller cannot see
    into the callee; behind the barrier IREE sees no 0 in it, and the ops
    run over an extent that is 0 at run time:

    .. code-block:: mlir

        %e = tensor.empty(%n) : tensor<0x?xf32>
        %c = tensor.cast %e : tensor<0x?xf32> to tensor<?x?xf32>
        %r = call @add(%x, %c) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
        // becomes
        %d0 = tensor.dim %c, %c0 : tensor<?x?xf32>
        %d1 = tensor.dim %c, %c1 : tensor<?x?xf32>
        %b:3 = "util.optimization_barrier"(%c, %d0, %d1)
            : (tensor<?x?xf32>, index, index) -> (tensor<?x?xf32>, index, index)
        %t = "flow.tensor.tie_shape"(%b#0, %b#1, %b#2)
            : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
        %r = call @add(%x, %t) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>

    One operand read twice by a call gets one barrier.
    """
    shielded = 0
    for op in collect_ops(func, lambda o: o.name == "func.call"):
        hidden: dict[ir.Value, ir.Value] = {}
        for at, operand in enumerate(op.operands):
            if operand not in hidden:
                if not _hidden_empty_axis(facts, operand):
                    continue
                with ir.InsertionPoint(op), op.location:
                    sizes = dynamic_sizes(operand)
                    tensor_, *opaque_sizes = opaque([operand, *sizes])
                    hidden[operand] = tie_shape(tensor_, opaque_sizes)
                shielded += 1
            op.operands[at] = hidden[operand]
    return shielded
