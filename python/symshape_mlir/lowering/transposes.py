"""Transposes that undo each other, folded before the upstream canonicalizer sees them.

MLIR 22.1.8's ``linalg.transpose`` folder replaces a transpose of a
transpose whose permutations compose to the identity by the inner input,
without comparing types. When the canonicalizer has first refined the outer
result's type (its init was a ``tensor.empty`` with a constant size, which
becomes static and is cast back), the folded value has the input's less
static type and the process aborts on an assertion ("incorrect fold result
type"). ``symshape-resolve`` materializes exact extents as constants, so
its output can hold exactly that pair; it folds such pairs itself, with a
``tensor.cast`` to the outer result's type where the types differ:

.. code-block:: mlir

    %t = linalg.transpose ins(%a : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>)
        permutation = [1, 0]
    %u = linalg.transpose ins(%t : tensor<?x?xf32>) outs(%e2 : tensor<?x?xf32>)
        permutation = [1, 0]
    // %u becomes %a; the same through tensor.cast ops between the two.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import tensor

from symshape_mlir.walk import collect_ops

__all__ = ["fold_transpose_pairs"]


def _permutation(op: ir.OpView) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))


def _producer(value: ir.Value) -> ir.OpView | None:
    """The ``linalg.transpose`` making ``value``, looking through ``tensor.cast`` ops."""
    while isinstance(value.owner, ir.OpView):
        owner = value.owner
        if owner.name == "linalg.transpose":
            return owner
        if owner.name != "tensor.cast":
            return None
        value = owner.operands[0]
    return None


def fold_transpose_pairs(func: ir.Operation) -> int:
    """Replaces each transpose of a transpose that restores the order of the
    axes by the inner input (cast to the outer result's type where they
    differ); returns how many."""
    folded = 0
    for op in collect_ops(func, lambda op: op.name == "linalg.transpose"):
        inner = _producer(op.operands[0])
        if inner is None:
            continue
        outer_order, inner_order = _permutation(op), _permutation(inner)
        if [inner_order[p] for p in outer_order] != list(range(len(outer_order))):
            continue
        source, result = inner.operands[0], op.results[0]
        replacement = source
        if source.type != result.type:
            with ir.InsertionPoint(op), op.location:
                replacement = tensor.CastOp(result.type, source).result
        result.replace_all_uses_with(replacement)
        op.erase()
        folded += 1
    return folded
