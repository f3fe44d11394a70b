"""Tensors that loops and branches read from outside them: fills a body
reads (IREE 3.13 clones their splats out of any execution region) and the
tensors loops start from (IREE 3.13 gives them a buffer another result
overwrites).
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.inference.state import InferenceState
from symshape_mlir.lowering.iree.barriers import (
    behind_barrier,
    dynamic_sizes,
    opaque,
    redirect,
    tie_shape,
)
from symshape_mlir.lowering.iree.branches import SPLAT_PRESERVING
from symshape_mlir.walk import collect_ops

__all__ = ["fill_scalar", "shield_captured_tensors", "shield_loop_inits"]


def _operation(owner: ir.Operation | ir.OpView) -> ir.Operation:
    return owner.operation if isinstance(owner, ir.OpView) else owner


def _nested_values(op: ir.Operation) -> tuple[list[ir.Operation], set[ir.Value]]:
    """The ops nested in ``op``'s regions, and the values they and their
    blocks define."""
    nested = [inner for inner in collect_ops(op) if inner != op]
    defined: set[ir.Value] = set()
    for inner in [op, *nested]:
        for region in inner.regions:
            for block in region.blocks:
                defined.update(block.arguments)
        if inner != op:
            defined.update(inner.results)
    return nested, defined


def _in_linalg(op: ir.Operation) -> bool:
    """Whether ``op`` is in the body of a linalg op (a scalar computation)."""
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name.startswith("linalg."):
            return True
        parent = parent.parent
    return False


def fill_scalar(value: ir.Value) -> ir.Value | None:
    """The scalar ``value`` holds everywhere, possibly reshaped or cast: the
    input of a ``linalg.fill``, or what a ``linalg.generic`` without inputs
    yields from outside its body or reads (``tensor.extract``) from such a
    tensor (a gather from a fill). None for anything else."""
    owner = value.owner
    while isinstance(owner, ir.OpView) and owner.name in SPLAT_PRESERVING:
        owner = owner.operands[0].owner
    if not isinstance(owner, ir.OpView):
        return None
    if owner.name == "linalg.fill":
        return owner.operands[0]
    if owner.name != "linalg.generic" or len(owner.operands) != len(owner.results):
        return None
    block = owner.regions[0].blocks[0]
    yielded = block.operations[len(block.operations) - 1].operands[0]
    made = yielded.owner
    if isinstance(made, ir.Block):
        return None if made == block else yielded
    if made.operation.parent != owner.operation:
        return yielded
    return fill_scalar(made.operands[0]) if made.name == "tensor.extract" else None


def _is_fill(value: ir.Value) -> bool:
    """Whether ``value`` is one scalar everywhere (`fill_scalar`, or a
    splat constant)."""
    owner = value.owner
    if isinstance(owner, ir.OpView) and owner.name == "arith.constant":
        attr = owner.attributes["value"]
        return isinstance(attr, ir.DenseElementsAttr) and attr.is_splat
    return fill_scalar(value) is not None


def shield_captured_tensors(func: ir.Operation) -> int:
    """Passes each fill (`_is_fill`) that the body of a loop or branch
    (``scf.for``, ``scf.while``, ``scf.if``) reads from outside it, and
    that is read outside it too, through ``util.optimization_barrier`` (and
    its sizes) right after it is made; every reader reads the barrier.
    Returns how many tensors.

    IREE 3.13 makes a fill it cannot fuse into a dispatch (one reshaped at
    run-time sizes, say) a ``stream.async.splat``. Partitioning a block, it
    clones a splat into each partition that reads it; where the splat is
    read in partitions before and after a loop and also in the loop's body,
    the original stays outside any execution region for the body's read,
    and IREE fails (``'stream.async.splat' op : streamable op expected to be
    in an execution region``). Behind a barrier (no copy) the splat has one
    reader, the barrier, which IREE does not clone:

    .. code-block:: mlir

        %r = tensor.reshape %ones(%shape) : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x2xf32>
        %b = "util.optimization_barrier"(%r) : (tensor<?x2xf32>) -> tensor<?x2xf32>
        %t = "flow.tensor.tie_shape"(%b, %rows) : (tensor<?x2xf32>, index) -> tensor<?x2xf32>
        %init = arith.addf %t, %t : tensor<?x2xf32>
        %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<?x2xf32>) {
          %a = arith.addf %acc, %t : tensor<?x2xf32>
          scf.yield %a : tensor<?x2xf32>
        }
        %o = arith.addf %t, %s : tensor<?x2xf32>
    """
    shielded: set[ir.Value] = set()
    for op in collect_ops(func, lambda op: op.name in ("scf.for", "scf.while", "scf.if")
                          and not _in_linalg(op)):
        nested, defined = _nested_values(op)
        inside = set(nested)
        for inner in nested:
            for value in inner.operands:
                if (value in shielded or value in defined
                        or not isinstance(value.type, ir.RankedTensorType) or not _is_fill(value)):
                    continue
                readers = [_operation(use.owner) for use in value.uses]
                if all(reader in inside for reader in readers):
                    continue
                with ir.InsertionPoint.after(_operation(value.owner)), op.location:
                    copy = behind_barrier(value, dynamic_sizes(value))
                redirect(value, copy, readers)
                shielded.add(copy)
    return len(shielded)


def _same_exact_shape(facts: InferenceState, a: ir.Value, b: ir.Value) -> bool:
    shape_a, shape_b = facts.defined_facts(a).shape, facts.defined_facts(b).shape
    return (shape_a is not None and shape_b is not None and len(shape_a) == len(shape_b)
            and all(x.is_exact and y.is_exact and x.expr == y.expr
                    for x, y in zip(shape_a, shape_b, strict=True)))


def shield_loop_inits(func: ir.Operation, facts: InferenceState) -> int:
    """Puts ``util.optimization_barrier`` (and the value's own sizes) between
    each tensor a loop starts from and the loop; returns how many.

    IREE 3.13 can give a loop's initial tensor and another result of the
    same dispatch group one buffer at one offset: the other result's writes
    then overwrite the loop's start (with ``%full`` a copy of ``%y`` and
    ``%part`` a copy of ``%y[:, :k]``, the loop below starts from the first
    ``rows * k`` elements of ``%y``). Behind a barrier, the loop's start is
    a separate value that keeps its own buffer. The barrier also hides the
    start's sizes from IREE, which then cannot size the loop's results: a
    result inference proved the same size as its start is tied to the
    start's sizes.

    The start is tied to copies of its sizes that IREE cannot look through.
    IREE finds that a loop carries its tensor's sizes unchanged, so a
    dispatch in the body that reads the carried tensor and a tensor of the
    same size from outside the loop (``%part``) gets that size twice in its
    workload. Folding the duplicate (``FoldUniformOperands``), IREE
    renumbers the body's reference to the second copy as workload 0: where
    that was another value (the offset of a slice the body reads) the
    dispatch ran on the wrong number of workgroups, at offset 0 on none,
    and the loop returned zeros. Opaque copies are never the same value as
    a size outside the loop:

    .. code-block:: mlir

        %b = "util.optimization_barrier"(%part) : (tensor<?x?xf32>) -> tensor<?x?xf32>
        %sz:2 = "util.optimization_barrier"(%rows, %k) : (index, index) -> (index, index)
        %s = "flow.tensor.tie_shape"(%b, %sz#0, %sz#1)
            : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
        %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %s) -> (tensor<?x?xf32>) {
          %next = arith.addf %acc, %part : tensor<?x?xf32>
          scf.yield %next : tensor<?x?xf32>
        }
        %r = "flow.tensor.tie_shape"(%sum, %sz#0, %sz#1)
            : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
    """
    shielded = 0
    for loop in collect_ops(func, lambda op: op.name in ("scf.for", "scf.while")):
        # scf.for: lower bound, upper bound, step, then one start per result.
        first = 3 if loop.name == "scf.for" else 0
        for i, init in enumerate(loop.operands):
            if i < first or not isinstance(init.type, ir.RankedTensorType):
                continue
            with ir.InsertionPoint(loop), loop.location:
                sizes = opaque(dynamic_sizes(init))
                loop.operands[i] = behind_barrier(init, sizes)
            shielded += 1
            if loop.name != "scf.for" or not sizes:
                continue
            result = loop.results[i - first]
            if not _same_exact_shape(facts, result, init):
                continue
            users = [use.owner for use in result.uses]
            with ir.InsertionPoint.after(loop), loop.location:
                redirect(result, tie_shape(result, sizes), users)
    return shielded
