"""Linalg ops over an axis of extent 0, which IREE 3.13 crashes on: their
uses get their inits.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor

from symshape_mlir.inference.state import InferenceState
from symshape_mlir.lowering.iree.folding import has_empty_axis
from symshape_mlir.walk import collect_ops

__all__ = ["reduce_untransposed", "shield_empty_reductions"]


# Named linalg ops whose every operand axis is one loop of the op
# (projected permutations), without an ``indexing_maps`` attribute to say so.
_STRUCTURED = frozenset({
    "linalg.matmul", "linalg.batch_matmul", "linalg.matvec", "linalg.vecmat", "linalg.dot",
    "linalg.reduce", "linalg.map", "linalg.copy", "linalg.transpose", "linalg.broadcast",
})


def _indexes_by_loops(op: ir.Operation) -> bool:
    """Whether each axis of each operand of ``op`` is one of its loops: its
    ``indexing_maps`` say so, or it is one of `_STRUCTURED`."""
    if not op.name.startswith("linalg."):
        return False
    if "indexing_maps" not in op.attributes:
        return op.name in _STRUCTURED
    return all(ir.AffineMapAttr(m).value.is_projected_permutation
               for m in ir.ArrayAttr(op.attributes["indexing_maps"]))


def _is_tensor_elementwise(op: ir.Operation) -> bool:
    """Whether ``op`` is an ``arith`` or ``math`` op on tensors of one shape
    (IREE makes it a ``linalg.generic`` whose loops are its axes)."""
    if not op.name.startswith(("arith.", "math.")) or len(op.results) != 1:
        return False
    result = op.results[0].type
    return isinstance(result, ir.RankedTensorType) and bool(list(op.operands)) and all(
        isinstance(t := v.type, ir.ShapedType) and ir.RankedTensorType(t).rank ==
        ir.RankedTensorType(result).rank for v in op.operands)


def shield_empty_reductions(func: ir.Operation, facts: InferenceState | None) -> int:
    """Gives the uses of each linalg op with an operand of extent 0 (an
    input, or an init only inference knows empty) its inits instead;
    returns how many ops. Each operand axis of such an op is one of its
    loops, so its body never runs and it returns its inits unchanged.
    Run before lowering with ``facts``, and after it without (extents the
    lowered sizes fold to: a bound's value, say, floor-divided to 0).

    IREE 3.13 crashes naming a dispatch that holds a loop of extent 0 once
    it sees the 0 (``AnnotateDispatches`` weighs an op by the product of its
    loop ranges, and ``saturatingMul`` divides by each: a division by zero).
    IREE drops an op whose result is empty itself once it sees it empty;
    what stays is a reduction over an empty axis, or one whose init only
    a hint says is empty (a bound of 0, fuzzer p103006310: the crash is in
    ``getDefaultDistributedLevelTileSizes``), which inference may know
    empty before IREE folds its extent to 0:

    .. code-block:: mlir

        %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
        %mm = linalg.matmul ins(%a, %b : tensor<?x0xf32>, tensor<0x?xf32>)
            outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
        return %mm : tensor<?x?xf32>
        // becomes:  return %z : tensor<?x?xf32>

    The op stays (dead, IREE drops it) after the run-time checks emitted
    for it. An ``arith`` or ``math`` op on tensors with an operand of
    extent 0 gives a ``tensor.empty`` of its operand's sizes: IREE makes it
    a ``linalg.generic`` after this pass runs (fuzzer p106005574, the sum
    of a tensor and a reshape of one with no rows).
    """
    shielded = 0
    index = ir.IndexType.get()
    for op in collect_ops(func, _is_tensor_elementwise):
        if list(op.results[0].uses) and any(has_empty_axis(facts, v) for v in op.operands):
            result = ir.RankedTensorType(op.results[0].type)
            with ir.InsertionPoint(op), op.location:
                sizes: list[int | ir.Value] = [
                    tensor.DimOp(op.operands[0], arith.ConstantOp(index, axis)).result
                    if result.is_dynamic_dim(axis) else result.shape[axis]
                    for axis in range(result.rank)]
                made = tensor.EmptyOp(sizes, result.element_type)
            op.results[0].replace_all_uses_with(made.result)
            shielded += 1
    for op in collect_ops(func, _indexes_by_loops):
        operands = list(op.operands)
        inits = operands[len(operands) - len(op.results):]
        if not any(list(result.uses) for result in op.results) or not any(
                has_empty_axis(facts, value) for value in operands):
            continue
        for result, init in zip(op.results, inits, strict=True):
            result.replace_all_uses_with(init)
        shielded += 1
    return shielded


def _untransposed_dimensions(op: ir.Operation) -> tuple[ir.Value, list[int]] | None:
    """The source and reduced axes that let ``linalg.reduce`` ``op`` read past the
    ``linalg.transpose`` giving its one input, or None: each kept axis of the
    transpose must come from a later source axis than the one before it, so
    that the result keeps its axis order."""
    if len(op.operands) != 2:
        return None
    transpose = op.operands[0].owner
    if not isinstance(transpose, ir.OpView) or transpose.name != "linalg.transpose":
        return None
    perm = list(ir.DenseI64ArrayAttr(transpose.attributes["permutation"]))
    reduced = set(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
    kept = [perm[axis] for axis in range(len(perm)) if axis not in reduced]
    if kept != sorted(kept):
        return None
    return transpose.operands[0], sorted(perm[axis] for axis in reduced)


def reduce_untransposed(func: ir.Operation) -> int:
    """Makes each ``linalg.reduce`` of a ``linalg.transpose`` reduce the
    transpose's source over the source axes of its reduced axes, where the
    kept axes stay in order; returns how many.

    IREE 3.13 fuses the transpose (and a broadcast that makes its source)
    into the reduction's dispatch as a second result of one
    ``linalg.generic``; where the function also returns the transpose and
    its source, that result is computed by another dispatch and left dead
    in this one, and the dead result is bufferized on the stack with the
    reduced extent at the largest size IREE allows (2^53 - 1): the
    dispatch fails to compile (``exceeded stack allocation limit of 32768
    bytes ... Got 288230376151711744 bytes``, fuzzer p142003437). Read
    from the source, the reduction fuses nothing that another dispatch
    also computes:

    .. code-block:: mlir

        %t = linalg.transpose ins(%x : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>)
            permutation = [1, 0]
        %s = linalg.reduce ins(%t : tensor<?x?xf32>) outs(%z : tensor<?xf32>)
            dimensions = [1]
        // becomes
        %s = linalg.reduce ins(%x : tensor<?x?xf32>) outs(%z : tensor<?xf32>)
            dimensions = [0]

    The same elements reduce into each result element, each reduced loop
    running over the same extent.
    """
    rewritten = 0
    for op in collect_ops(func, lambda o: o.name == "linalg.reduce"):
        found = _untransposed_dimensions(op)
        if found is None:
            continue
        source, dimensions = found
        op.operands[0] = source
        op.attributes["dimensions"] = ir.DenseI64ArrayAttr.get(dimensions)
        rewritten += 1
    return rewritten
