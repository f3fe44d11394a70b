"""Choices between dynamic tensors as branches that compute what they
yield, tied to their own sizes (IREE 3.13 sizes a tensor select from one
operand, and fails to order a choice of stream resources).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import scf, tensor

from symshape_mlir.lowering.generics import generic_from_body
from symshape_mlir.lowering.index_builder import IndexBuilder
from symshape_mlir.lowering.iree.barriers import barrier, behind_barrier, dynamic_sizes, tie_shape
from symshape_mlir.walk import collect_ops

__all__ = ["SPLAT_PRESERVING", "extents", "tie_branch_results"]


def _is_dynamic_tensor(type_: ir.Type) -> bool:
    return isinstance(type_, ir.RankedTensorType) and not type_.has_static_shape


# Ops through which a fill stays one value (IREE folds them into a splat).
SPLAT_PRESERVING = frozenset({
    "tensor.cast", "tensor.reshape", "tensor.expand_shape", "tensor.collapse_shape",
    "flow.tensor.tie_shape",
})


# Ops IREE makes into metadata on their source's buffer (and a copy, which
# it elides): a branch that yields one of these of an outside value
# computes nothing.
_VIEWS = SPLAT_PRESERVING | frozenset({
    "tensor.extract_slice", "tensor.bitcast", "linalg.copy", "util.optimization_barrier",
})


def _computed_inside(value: ir.Value, op: ir.Operation) -> bool:
    """Whether an op nested in ``op`` computes ``value`` (not only views it)."""
    while isinstance(owner := value.owner, ir.OpView):
        parent = owner.operation.parent
        while parent is not None and parent != op and parent.name != "func.func":
            parent = parent.parent
        if parent != op:
            return False
        if owner.name not in _VIEWS:
            return True
        value = owner.operands[0]
    return False


def extents(b: IndexBuilder, value: ir.Value) -> list[ir.Value | int]:
    """The sizes of ``value`` for `generic_from_body`: static ones as ints."""
    type_ = ir.RankedTensorType(value.type)
    return [b.dim(value, axis) if type_.is_dynamic_dim(axis) else type_.shape[axis]
            for axis in range(type_.rank)]


def _fresh_copy(value: ir.Value) -> ir.Value:
    """``value`` copied element by element by a ``linalg.generic`` that reads
    it with ``tensor.extract`` (IREE folds an identity generic away)."""
    return generic_from_body(ir.RankedTensorType(value.type), extents(IndexBuilder(), value),
                             lambda indices: tensor.ExtractOp(value, indices).result)


def tie_branch_results(func: ir.Operation) -> int:
    """Makes every choice between dynamic tensors a branch that computes what
    it yields, tied to its own sizes; returns how many ``scf.if`` ops it
    changed.

    Two IREE 3.13 faults follow from a branch that only chooses a tensor
    made outside it (or a view of one). Upstream ``canonicalize`` folds such
    an ``scf.if`` into ``arith.select %c, %a, %b : tensor<?xf32>``, and IREE
    sizes that select from one operand whichever is chosen: choosing a
    4-row ``%b`` over a 2-row ``%a`` fails the call (``buffer view byte
    length 16 exceeds backing buffer byte length 8``). And once tensors are
    stream resources IREE folds the branch into a select of resources, puts
    it between two dispatches of one partition and fails to compile
    (``circular dependency: input operation uses partition output``), also
    when the branch views the tensor (an ``expand_shape``), since views are
    metadata there. So each tensor-valued select becomes an ``scf.if``; a
    branch that yields a dynamic tensor it does not compute yields a copy
    (a ``linalg.generic`` reading it, a dispatch in the branch); and every
    dynamic tensor a branch yields is tied to its own sizes.

    Where one branch yields one tensor for two results and the other two
    tensors, IREE gives both results one buffer: the other branch's results
    come back equal. Copies must not make that case: ``canonicalize`` merges
    consecutive branches on one condition and CSE then merges their equal
    copies, so each branch reads its condition through its own
    ``util.optimization_barrier``; a result the function returns leaves
    through a barrier tied to its sizes (`_return_through_barrier`); two
    results every branch yields one
    tensor for are made one result, and a tensor both branches yield
    replaces the result (no copy: IREE failed to compile the copy of a
    transposed slice, 'LLVM Translation failed for operation:
    builtin.unrealized_conversion_cast'):

    .. code-block:: mlir

        %cb = "util.optimization_barrier"(%c) : (i1) -> i1
        %r = scf.if %cb -> (tensor<?xf32>) {
          %d = tensor.dim %a, %c0 : tensor<?xf32>
          %e = tensor.empty(%d) : tensor<?xf32>
          %copy = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
              outs(%e : tensor<?xf32>) {
          ^bb0(%out: f32):
            %i = linalg.index 0 : index
            %v = tensor.extract %a[%i] : tensor<?xf32>
            linalg.yield %v : f32
          } -> tensor<?xf32>
          %dc = tensor.dim %copy, %c0 : tensor<?xf32>
          %t = "flow.tensor.tie_shape"(%copy, %dc) : (tensor<?xf32>, index) -> tensor<?xf32>
          scf.yield %t : tensor<?xf32>
        } else { ... }
    """
    tied = 0
    selects = collect_ops(func, lambda op: op.name == "arith.select"
                          and _is_dynamic_tensor(op.results[0].type)
                          and not isinstance(op.operands[0].type, ir.ShapedType))
    for select in selects:
        with ir.InsertionPoint(select), select.location:
            branch = scf.IfOp(select.operands[0], [select.results[0].type], has_else=True)
            for block, value in ((branch.then_block, select.operands[1]),
                                 (branch.else_block, select.operands[2])):
                with ir.InsertionPoint(block):
                    scf.YieldOp([value])
        select.results[0].replace_all_uses_with(branch.results[0])
        select.erase()
    for op in collect_ops(func, lambda op: op.name == "scf.if"):
        dynamic = [i for i, result in enumerate(op.results) if _is_dynamic_tensor(result.type)]
        if not dynamic:
            continue
        terminators = [region.blocks[0].operations[-1] for region in op.regions]
        # A tensor both branches yield (made before the branch) is no choice.
        for i in list(dynamic):
            if terminators[0].operands[i] == terminators[1].operands[i]:
                op.results[i].replace_all_uses_with(terminators[0].operands[i])
                dynamic.remove(i)
        # Two results every branch yields one tensor for are one result.
        for k, i in enumerate(dynamic):
            for j in dynamic[k + 1:]:
                if all(t.operands[i] == t.operands[j] for t in terminators):
                    op.results[j].replace_all_uses_with(op.results[i])
        with ir.InsertionPoint(op), op.location:
            op.operands[0] = barrier(op.operands[0])
        for terminator in terminators:
            with ir.InsertionPoint(terminator), terminator.location:
                for i in dynamic:
                    value = terminator.operands[i]
                    if not _computed_inside(value, op):
                        value = _fresh_copy(value)
                    terminator.operands[i] = tie_shape(value, dynamic_sizes(value))
        for i in dynamic:
            _return_through_barrier(op.results[i])
        tied += 1
    return tied


def _return_through_barrier(result: ir.Value) -> None:
    """Makes the function return ``result`` through a barrier tied to its sizes.

    IREE 3.13 exports a returned choice with a buffer sized by the wrong
    branch when a later choice reads it too: fuzzer p104004389 returned the
    choice of a 5 x 3 tensor over an empty truncation and failed the call
    (``OUT_OF_RANGE ... length=60 ... buffer byte_length=0``).
    """
    for use in list(result.uses):
        owner = use.owner
        if owner.name != "func.return":
            continue
        with ir.InsertionPoint(owner), owner.location:
            owner.operands[use.operand_number] = behind_barrier(result, dynamic_sizes(result))
