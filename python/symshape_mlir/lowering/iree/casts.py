"""Checked casts to a static size, shielded from IREE 3.13 (which reads
such a cast as a promise and folds away the check of it).
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.lowering.iree.barriers import behind_barrier, dynamic_sizes
from symshape_mlir.walk import collect_ops

__all__ = ["shield_static_casts"]


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
            cast.operands[0] = behind_barrier(source, dynamic_sizes(source))
        shielded += 1
    return shielded
