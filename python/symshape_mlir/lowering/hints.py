"""What ``symshape-resolve{target=iree}`` adds for IREE: upper bounds as
hints, and shields around forms IREE 3.13 miscompiles (each ``shield_*``
function, and `merge_equal_elementwise`, names its IREE failure;
``test/py/test_iree_known_bugs.py`` keeps an upstream-only reproducer of
each).

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

from collections.abc import Callable

from mlir import ir
from mlir.dialects import arith, linalg, scf, tensor

from symshape_mlir.inference.state import InferenceState
from symshape_mlir.lowering.generics import generic_from_body
from symshape_mlir.lowering.index_builder import IndexBuilder
from symshape_mlir.walk import collect_ops

__all__ = [
    "insert_upper_bound_hints",
    "merge_equal_elementwise",
    "shield_captured_tensors",
    "shield_empty_reductions",
    "shield_empty_slice_offsets",
    "shield_gathered_slices",
    "shield_insertions",
    "shield_loop_inits",
    "shield_read_offsets",
    "shield_reads_of_nothing",
    "shield_reshape_sizes",
    "shield_slices_of_fills",
    "shield_static_casts",
    "shield_unit_broadcasts",
    "tie_branch_results",
]


def _dynamic_sizes(value: ir.Value) -> list[ir.Value]:
    """``tensor.dim`` of each dynamic axis of ``value``, at the insertion point."""
    type_ = ir.RankedTensorType(value.type)
    index = ir.IndexType.get()
    return [tensor.DimOp(value, arith.ConstantOp(index, axis).result).result
            for axis in range(type_.rank) if type_.is_dynamic_dim(axis)]


def _redirect(value: ir.Value, replacement: ir.Value, users: list) -> None:
    """Makes ``users`` (taken before ``replacement`` was built on ``value``)
    read ``replacement``."""
    for user in users:
        owner = user.operation if isinstance(user, ir.OpView) else user
        for i, operand in enumerate(owner.operands):
            if operand == value:
                owner.operands[i] = replacement


def _tie_shape(value: ir.Value, sizes: list[ir.Value]) -> ir.Value:
    return ir.Operation.create("flow.tensor.tie_shape", results=[value.type],
                               operands=[value, *sizes]).result


def _opaque(values: list[ir.Value]) -> list[ir.Value]:
    """``values`` through one ``util.optimization_barrier``: copies IREE
    cannot find equal to any other value (nor fold into their producers)."""
    if not values:
        return []
    barrier = ir.Operation.create("util.optimization_barrier",
                                  results=[value.type for value in values], operands=values)
    return list(barrier.results)


def _barrier(value: ir.Value) -> ir.Value:
    return _opaque([value])[0]


def _cast_chain(value: ir.Value) -> list[ir.Value]:
    """``value``, then the source of each ``tensor.cast`` it comes through
    (IREE folds such casts into the op that reads them)."""
    chain = [value]
    owner = value.owner
    while isinstance(owner, ir.OpView) and owner.name == "tensor.cast":
        chain.append(owner.operands[0])
        owner = owner.operands[0].owner
    return chain


def _producer(value: ir.Value) -> ir.OpView | None:
    """The op that makes ``value`` before any cast (``None``: an argument)."""
    owner = _cast_chain(value)[-1].owner
    return owner if isinstance(owner, ir.OpView) else None


def _behind_barrier(value: ir.Value, sizes: list[ir.Value]) -> ir.Value:
    """``value`` through ``util.optimization_barrier``, tied to ``sizes`` (its
    dynamic sizes) so that IREE still knows them."""
    barrier = _barrier(value)
    return _tie_shape(barrier, sizes) if sizes else barrier


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
            dynamic = [axis for axis in range(type_.rank) if type_.is_dynamic_dim(axis)]
            sizes = _dynamic_sizes(value)
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
            tied = _tie_shape(value, sizes)
        _redirect(value, tied, users)
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
            cast.operands[0] = _behind_barrier(source, _dynamic_sizes(source))
        shielded += 1
    return shielded


def _is_dynamic_tensor(type_: ir.Type) -> bool:
    return isinstance(type_, ir.RankedTensorType) and not type_.has_static_shape


# Ops through which a fill stays one value (IREE folds them into a splat).
_SPLAT_PRESERVING = frozenset({
    "tensor.cast", "tensor.reshape", "tensor.expand_shape", "tensor.collapse_shape",
    "flow.tensor.tie_shape",
})

# Ops IREE makes into metadata on their source's buffer (and a copy, which
# it elides): a branch that yields one of these of an outside value
# computes nothing.
_VIEWS = _SPLAT_PRESERVING | frozenset({
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


def _extents(b: IndexBuilder, value: ir.Value) -> list[ir.Value | int]:
    """The sizes of ``value`` for `generic_from_body`: static ones as ints."""
    type_ = ir.RankedTensorType(value.type)
    return [b.dim(value, axis) if type_.is_dynamic_dim(axis) else type_.shape[axis]
            for axis in range(type_.rank)]


def _fresh_copy(value: ir.Value) -> ir.Value:
    """``value`` copied element by element by a ``linalg.generic`` that reads
    it with ``tensor.extract`` (IREE folds an identity generic away)."""
    return generic_from_body(ir.RankedTensorType(value.type), _extents(IndexBuilder(), value),
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
    ``util.optimization_barrier``; two results every branch yields one
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
            op.operands[0] = _barrier(op.operands[0])
        for terminator in terminators:
            with ir.InsertionPoint(terminator), terminator.location:
                for i in dynamic:
                    value = terminator.operands[i]
                    if not _computed_inside(value, op):
                        value = _fresh_copy(value)
                    terminator.operands[i] = _tie_shape(value, _dynamic_sizes(value))
        tied += 1
    return tied


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



def _fill_scalar(value: ir.Value) -> ir.Value | None:
    """The scalar ``value`` holds everywhere, possibly reshaped or cast: the
    input of a ``linalg.fill``, or what a ``linalg.generic`` without inputs
    yields from outside its body or reads (``tensor.extract``) from such a
    tensor (a gather from a fill). None for anything else."""
    owner = value.owner
    while isinstance(owner, ir.OpView) and owner.name in _SPLAT_PRESERVING:
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
    return _fill_scalar(made.operands[0]) if made.name == "tensor.extract" else None


def _is_fill(value: ir.Value) -> bool:
    """Whether ``value`` is one scalar everywhere (`_fill_scalar`, or a
    splat constant)."""
    owner = value.owner
    if isinstance(owner, ir.OpView) and owner.name == "arith.constant":
        attr = owner.attributes["value"]
        return isinstance(attr, ir.DenseElementsAttr) and attr.is_splat
    return _fill_scalar(value) is not None


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
                    copy = _behind_barrier(value, _dynamic_sizes(value))
                _redirect(value, copy, readers)
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
                sizes = _opaque(_dynamic_sizes(init))
                loop.operands[i] = _behind_barrier(init, sizes)
            shielded += 1
            if loop.name != "scf.for" or not sizes:
                continue
            result = loop.results[i - first]
            if not _same_exact_shape(facts, result, init):
                continue
            users = [use.owner for use in result.uses]
            with ir.InsertionPoint.after(loop), loop.location:
                _redirect(result, _tie_shape(result, sizes), users)
    return shielded


def _truncating_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


# Index arithmetic upstream folds when its operands are constants.
_FOLDS: dict[str, Callable[[int, int], int]] = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b, "arith.floordivsi": lambda a, b: a // b,
    "arith.divsi": _truncating_div, "arith.minsi": min, "arith.maxsi": max,
}


def _folded(value: ir.Value) -> int | None:
    """The constant ``value`` folds to (index arithmetic on constants, or
    the ``tensor.dim`` of an extent that folds), or None. Nothing folds
    through ``util.optimization_barrier``, for IREE either."""
    owner = value.owner
    if not isinstance(owner, ir.OpView):
        return None
    if owner.name == "arith.constant":
        attr = owner.attributes["value"]
        return int(ir.IntegerAttr(attr).value) if isinstance(attr, ir.IntegerAttr) else None
    if owner.name == "arith.index_cast":
        return _folded(owner.operands[0])
    if owner.name == "tensor.dim":
        axis = _folded(owner.operands[1])
        return None if axis is None else _folded_extent(owner.operands[0], axis)
    if owner.name not in _FOLDS:
        return None
    a, b = (_folded(operand) for operand in owner.operands)
    if a is None or b is None or (b == 0 and "div" in owner.name):
        return None
    return _FOLDS[owner.name](a, b)


# Ops with one size operand per dynamic result axis, from this operand on.
_SIZES_FROM = {"tensor.empty": 0, "tensor.expand_shape": 1, "flow.tensor.tie_shape": 1}


def _folded_extent(value: ir.Value, axis: int) -> int | None:
    """The extent of ``value`` on ``axis`` if it is static or its size
    folds (`_folded`): the size operand of a ``tensor.empty``, reshape or
    same-rank slice, or a linalg op's init through casts and ties."""
    if not isinstance(value.type, ir.RankedTensorType):
        return None
    type_ = ir.RankedTensorType(value.type)
    if not type_.is_dynamic_dim(axis):
        return type_.get_dim_size(axis)
    owner = value.owner
    if not isinstance(owner, ir.OpView):
        return None
    if owner.name == "tensor.cast":
        return _folded_extent(owner.operands[0], axis)
    if owner.name.startswith("linalg.") and len(owner.results) == 1:
        return _folded_extent(owner.operands[len(owner.operands) - 1], axis)
    first = _SIZES_FROM.get(owner.name)
    if first is not None:
        at = first + sum(type_.is_dynamic_dim(a) for a in range(axis))
        return _folded(owner.operands[at])
    if owner.name == "tensor.extract_slice" and (
            ir.RankedTensorType(owner.operands[0].type).rank == type_.rank):
        static, at = _slice_parameters(owner)[1][axis]
        return static if at is None else _folded(owner.operands[at])
    return None


def _has_empty_axis(facts: InferenceState | None, value: ir.Value) -> bool:
    """Whether ``value`` is a tensor with an axis of extent 0: static, a
    size that folds to 0 (`_folded_extent`), or (with ``facts``) a constant
    0 inference found, exact or an upper bound (extents are nonnegative),
    looking through the hint `insert_upper_bound_hints` ties to it."""
    if not isinstance(value.type, ir.RankedTensorType):
        return False
    rank = ir.RankedTensorType(value.type).rank
    if any(_folded_extent(value, axis) == 0 for axis in range(rank)):
        return True
    if isinstance(value.owner, ir.OpView) and value.owner.name == "flow.tensor.tie_shape":
        value = value.owner.operands[0]
    shape = facts.defined_facts(value).shape or () if facts is not None else ()
    return any(extent.expr is not None and extent.expr.const_value == 0 for extent in shape)


# Linalg ops whose every operand axis is one loop of the op (projected permutations).
_STRUCTURED = frozenset({
    "linalg.matmul", "linalg.batch_matmul", "linalg.matvec", "linalg.vecmat", "linalg.dot",
    "linalg.reduce", "linalg.generic",
})


def _indexes_by_loops(op: ir.Operation) -> bool:
    """Whether each axis of each operand of ``op`` is one of its loops."""
    if op.name != "linalg.generic":
        return op.name in _STRUCTURED
    return all(ir.AffineMapAttr(m).value.is_projected_permutation
               for m in ir.ArrayAttr(op.attributes["indexing_maps"]))


def shield_empty_reductions(func: ir.Operation, facts: InferenceState | None) -> int:
    """Gives the uses of each linalg op with an input of extent 0 its inits
    instead; returns how many ops. Each operand axis of such an op is one of
    its loops, so its body never runs and it returns its inits unchanged.
    Run before lowering with ``facts``, and after it without (extents the
    lowered sizes fold to: a bound's value, say, floor-divided to 0).

    IREE 3.13 crashes naming a dispatch that holds a loop of extent 0 once
    it sees the 0 (``AnnotateDispatches`` weighs an op by the product of its
    loop ranges, and ``saturatingMul`` divides by each: a division by zero).
    IREE drops an op whose result is empty itself; what stays is a
    reduction over an empty axis, which inference may know empty before
    IREE folds its extent to 0:

    .. code-block:: mlir

        %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
        %mm = linalg.matmul ins(%a, %b : tensor<?x0xf32>, tensor<0x?xf32>)
            outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
        return %mm : tensor<?x?xf32>
        // becomes:  return %z : tensor<?x?xf32>

    The op stays (dead, IREE drops it) after the run-time checks emitted
    for it.
    """
    shielded = 0
    for op in collect_ops(func, _indexes_by_loops):
        operands = list(op.operands)
        inputs, inits = (operands[:len(operands) - len(op.results)],
                         operands[len(operands) - len(op.results):])
        if not any(list(result.uses) for result in op.results) or not any(
                _has_empty_axis(facts, value) for value in inputs):
            continue
        for result, init in zip(op.results, inits, strict=True):
            result.replace_all_uses_with(init)
        shielded += 1
    return shielded


def _is_slice(value: ir.Value) -> bool:
    """Whether ``value`` is a ``tensor.extract_slice``, possibly cast."""
    owner = _producer(value)
    return owner is not None and owner.name == "tensor.extract_slice"


def _in_generic(op: ir.Operation) -> bool:
    """Whether ``op`` is in the body of a ``linalg.generic`` (possibly in a
    branch there, as in `shield_insertions`)."""
    parent = op.parent
    while parent is not None and parent.name == "scf.if":
        parent = parent.parent
    return parent is not None and parent.name == "linalg.generic"


def shield_gathered_slices(func: ir.Operation) -> int:
    """Puts ``util.optimization_barrier`` (and its sizes) between a slice and
    each ``linalg.generic`` that reads it element by element with
    ``tensor.extract`` (a gather); returns how many.

    IREE 3.13 fuses the slice into the gather's dispatch as a strided load
    and then gets the read wrong: at a run-time offset it fails to compile
    (``LLVM Translation failed for operation:
    builtin.unrealized_conversion_cast``); a column ``[%rows, 1]`` of a
    ``?x?`` tensor at offset 0 compiles, but every read returns its first
    element. Behind a barrier the slice is made first:

    .. code-block:: mlir

        %s = tensor.extract_slice %y[%off, 0] [%rows, 1] [1, 1]
            : tensor<?x?xf32> to tensor<?x1xf32>
        %b = "util.optimization_barrier"(%s) : (tensor<?x1xf32>) -> tensor<?x1xf32>
        %t = "flow.tensor.tie_shape"(%b, %rows) : (tensor<?x1xf32>, index) -> tensor<?x1xf32>
        %g = linalg.generic ... { ... tensor.extract %t[%row, %j] ... }
    """
    reads = collect_ops(func, lambda op: op.name == "tensor.extract"
                        and _in_generic(op) and _is_slice(op.operands[0]))
    shielded: dict[ir.Value, ir.Value] = {}
    for read in reads:
        source = read.operands[0]
        if source not in shielded:
            producer = source.owner
            with ir.InsertionPoint.after(producer), producer.location:
                shielded[source] = _behind_barrier(source, _dynamic_sizes(source))
        read.operands[0] = shielded[source]
    return len(shielded)


def _read_ranks(generic: ir.Operation) -> list[int]:
    """The ranks of the tensors ``generic`` reads: its inputs and the
    sources of ``tensor.extract`` in its body."""
    inputs = int(ir.DenseI32ArrayAttr(generic.attributes["operandSegmentSizes"])[0])
    extracts = collect_ops(generic, lambda op: op.name == "tensor.extract")
    read = [*list(generic.operands)[:inputs], *(op.operands[0] for op in extracts)]
    return [ir.RankedTensorType(value.type).rank for value in read
            if isinstance(value.type, ir.RankedTensorType)]


def _is_one(facts: InferenceState, size: ir.Value) -> bool:
    """Whether ``size`` is 1: a constant, or the ``tensor.dim`` of an axis
    that is statically 1 or that inference found exactly 1."""
    if IndexBuilder.constant_of(size) == 1:
        return True
    owner = size.owner
    if not (isinstance(owner, ir.OpView) and owner.name == "tensor.dim"):
        return False
    axis = IndexBuilder.constant_of(owner.operands[1])
    if axis is None:
        return False
    if ir.RankedTensorType(owner.operands[0].type).shape[axis] == 1:
        return True
    shape = facts.defined_facts(owner.operands[0]).shape or ()
    extent = shape[axis] if axis < len(shape) else None
    return (extent is not None and extent.is_exact and extent.expr is not None
            and extent.expr.const_value == 1)


def _is_unit_broadcast(facts: InferenceState, op: ir.Operation) -> bool:
    """Whether ``op`` is a ``linalg.generic`` that writes a fresh
    ``tensor.empty`` of extent 1 on each of its two or more axes, never
    reads it, and reads a tensor of lower (nonzero) rank."""
    if op.name != "linalg.generic" or len(op.results) != 1:
        return False
    init = op.operands[len(op.operands) - 1]
    empty = init.owner
    type_ = ir.RankedTensorType(init.type)
    if not (isinstance(empty, ir.OpView) and empty.name == "tensor.empty" and type_.rank >= 2):
        return False
    if any(type_.shape[a] not in (1, ir.ShapedType.get_dynamic_size()) for a in range(type_.rank)):
        return False
    if not all(_is_one(facts, size) for size in empty.operands):
        return False
    out = op.regions[0].blocks[0].arguments[-1]
    return not list(out.uses) and any(0 < rank < type_.rank for rank in _read_ranks(op))


def shield_unit_broadcasts(func: ir.Operation, facts: InferenceState) -> int:
    """Gives each ``linalg.generic`` that spreads a tensor of lower rank over
    a result of extent 1 on every axis opaque sizes; returns how many.

    IREE 3.13 drops the unit loops of such an op (``FoldUnitExtentDims``):
    a rank-0 op reading one element, then ``tensor.expand_shape`` to
    ``1x1``. Reading at a constant position, the op becomes a rank-reducing
    ``tensor.extract_slice`` (``tensor<?xf32>`` to ``tensor<f32>``), and
    ``BubbleUpExpandShapes`` moves the expansion above it as a slice from
    ``tensor<?xf32>`` to ``tensor<1x1xf32>``, which fails to verify
    (``expected rank to be smaller or equal to the other rank``). A
    broadcast of an axis of extent 1 reads at position 0. With sizes IREE
    cannot see, the op keeps its loops; its result goes through a barrier
    tied to those sizes before any cast back to the static type (IREE would
    fold such a cast into the op):

    .. code-block:: mlir

        %one:2 = "util.optimization_barrier"(%c1, %c1) : (index, index) -> (index, index)
        %e = tensor.empty(%one#0, %one#1) : tensor<?x?xf32>
        %g = linalg.generic {indexing_maps = [#id], iterator_types = [...]}
            outs(%e : tensor<?x?xf32>) {
        ^bb0(%out: f32):
          %x = tensor.extract %v[%c0] : tensor<?xf32>
          linalg.yield %x : f32
        } -> tensor<?x?xf32>
        %b = "util.optimization_barrier"(%g) : (tensor<?x?xf32>) -> tensor<?x?xf32>
        %r = "flow.tensor.tie_shape"(%b, %one#0, %one#1)
            : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
    """
    generics = collect_ops(func, lambda op: _is_unit_broadcast(facts, op))
    index = ir.IndexType.get()
    for generic in generics:
        result = generic.results[0]
        static = ir.RankedTensorType(result.type)
        users = [use.owner for use in result.uses]
        with ir.InsertionPoint(generic), generic.location:
            dynamic = ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()] * static.rank,
                                              static.element_type)
            ones = _opaque([arith.ConstantOp(index, 1).result] * static.rank)
            empty = ir.Operation.create("tensor.empty", results=[dynamic], operands=ones).result
        generic.operands[len(generic.operands) - 1] = empty
        result.set_type(dynamic)
        with ir.InsertionPoint.after(generic), generic.location:
            shielded = _behind_barrier(result, ones)
            if static != dynamic:
                shielded = tensor.CastOp(static, shielded).result
        _redirect(result, shielded, users)
    return len(generics)


def _slice_parameters(op: ir.Operation) -> tuple[list[tuple[int, int | None]], ...]:
    """The offsets, sizes and strides of a ``tensor.extract_slice`` or
    ``tensor.insert_slice``: per entry its static value and, for a dynamic
    one, the position of its operand (else None)."""
    dynamic = ir.ShapedType.get_dynamic_size()
    at = 1 if op.name == "tensor.extract_slice" else 2  # after the source (and destination)
    out = []
    for name in ("static_offsets", "static_sizes", "static_strides"):
        entries: list[tuple[int, int | None]] = []
        for static in ir.DenseI64ArrayAttr(op.attributes[name]):
            entries.append((static, at if static == dynamic else None))
            at += static == dynamic
        out.append(entries)
    return tuple(out)


def _base_extent(value: ir.Value, axis: int) -> int | None:
    """The extent on ``axis`` of the tensor ``value`` slices in the end, if
    it is static or folds (`_folded_extent`): IREE composes a same-rank
    slice of a slice into one slice of the first source."""
    while (extent := _folded_extent(value, axis)) is None:
        owner = _producer(value)
        if owner is None or owner.name != "tensor.extract_slice" or (
                ir.RankedTensorType(owner.operands[0].type).rank
                != ir.RankedTensorType(value.type).rank):
            return None
        value = owner.operands[0]
    return extent


def _with_offsets(op: ir.Operation, offsets: dict[int, ir.Value | int]) -> ir.Operation:
    """``op`` (a slice) rebuilt with the given offsets on some axes."""
    dynamic = ir.ShapedType.get_dynamic_size()
    first = 1 if op.name == "tensor.extract_slice" else 2
    entries, sizes, strides = _slice_parameters(op)
    statics, values = [], []
    for axis, (static, at) in enumerate(entries):
        offset = offsets.get(axis, static if at is None else op.operands[at])
        statics.append(offset if isinstance(offset, int) else dynamic)
        if not isinstance(offset, int):
            values.append(offset)
    rest = [op.operands[at] for _, at in (*sizes, *strides) if at is not None]
    attributes = {name: op.attributes[name] for name in op.attributes}
    attributes["static_offsets"] = ir.DenseI64ArrayAttr.get(statics)
    segments = [1] * first + [len(values)] + [
        sum(at is not None for _, at in part) for part in (sizes, strides)]
    attributes["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get(segments)
    with ir.InsertionPoint(op), op.location:
        rebuilt = ir.Operation.create(
            op.name, results=[op.results[0].type],
            operands=[*list(op.operands)[:first], *values, *rest], attributes=attributes)
    op.results[0].replace_all_uses_with(rebuilt.results[0])
    op.erase()
    return rebuilt


def shield_empty_slice_offsets(func: ir.Operation) -> int:
    """Makes each slice offset 0 where the slice is empty on that axis, if
    the tensor sliced there in the end (`_base_extent`) has an extent that
    is static or folds; returns how many offsets it rewrote.

    An empty slice may start at the extent itself (``%t[1] [0]`` of a
    ``tensor<1xf32>``). Once IREE 3.13 folds such an offset to a constant,
    its in-bounds check rejects the slice (``offset 0 is out-of-bounds: 1 >=
    1``), also after it composed the slice with the slice it slices; where
    nothing is read or written the offset does not matter, so it becomes 0
    there:

    .. code-block:: mlir

        %empty = arith.cmpi eq, %len, %c0 : index
        %at = arith.select %empty, %c0, %off : index
        %s = tensor.extract_slice %t[%at] [%len] [1] : tensor<1xf32> to tensor<?xf32>
    """
    slices = collect_ops(func, lambda op: op.name in ("tensor.extract_slice",
                                                       "tensor.insert_slice"))
    index = ir.IndexType.get()
    rewritten = 0
    for op in slices:
        sliced = op.operands[0 if op.name == "tensor.extract_slice" else 1]
        offsets, sizes, _ = _slice_parameters(op)
        moved: dict[int, ir.Value | int] = {}
        for axis, ((offset, offset_at), (size, size_at)) in enumerate(zip(offsets, sizes)):
            if ((offset_at is None and offset == 0) or (size_at is None and size != 0)
                    or _base_extent(sliced, axis) is None):
                continue
            if size_at is None:
                moved[axis] = 0
                continue
            with ir.InsertionPoint(op), op.location:
                zero = arith.ConstantOp(index, 0).result
                at = op.operands[offset_at] if offset_at is not None \
                    else arith.ConstantOp(index, offset).result
                empty = arith.CmpIOp(arith.CmpIPredicate.eq, op.operands[size_at], zero)
                moved[axis] = arith.SelectOp(empty, zero, at).result
        if moved:
            _with_offsets(op, moved)
            rewritten += len(moved)
    return rewritten


def _reads_tensor(value: ir.Value) -> bool:
    """Whether computing the scalar ``value`` reads a tensor element
    (``tensor.extract``), through the scalar ops it comes from."""
    pending, seen = [value], set()
    while pending:
        owner = pending.pop().owner
        if not isinstance(owner, ir.OpView) or owner.name == "util.optimization_barrier":
            continue
        if owner.name == "tensor.extract":
            return True
        for operand in owner.operands:
            if not isinstance(operand.type, ir.ShapedType) and operand not in seen:
                seen.add(operand)
                pending.append(operand)
    return False


def shield_read_offsets(func: ir.Operation) -> int:
    """Passes each run-time offset of a ``tensor.extract_slice`` that is read
    from a tensor through ``util.optimization_barrier``; returns how many
    offsets.

    IREE 3.13 clones the read (``tensor.extract`` of a 0-d tensor) into the
    dispatch of the slice's consumer; its dimension collapsing then folds
    the axes of two slices at offsets ``[0, %k]`` and ``[%k, 0]`` into one,
    as if they were contiguous, and codegen fails (``write affecting
    operations on global resources are restricted to workgroup distributed
    contexts``). Behind a barrier the offset is computed before the
    dispatch, as an operand of it:

    .. code-block:: mlir

        %x = tensor.extract %t[] : tensor<i64>
        %k = arith.index_cast %x : i64 to index
        %kb = "util.optimization_barrier"(%k) : (index) -> index
        %s = tensor.extract_slice %m[0, %kb] [%rows, %cols] [1, 1]
            : tensor<?x?xf32> to tensor<?x?xf32>
    """
    slices = collect_ops(func, lambda op: op.name == "tensor.extract_slice")
    shielded: dict[ir.Value, ir.Value] = {}
    for op in slices:
        offsets, _, _ = _slice_parameters(op)
        for _, at in offsets:
            if at is None or not _reads_tensor(offset := op.operands[at]):
                continue
            if offset not in shielded:
                with ir.InsertionPoint.after(offset.owner), op.location:
                    shielded[offset] = _barrier(offset)
            op.operands[at] = shielded[offset]
    return len(shielded)


def _reads_nothing(op: ir.Operation) -> bool:
    """Whether ``op`` is a slice or an element read of a tensor with an axis
    of extent 0, static or folding to it (`_folded_extent`)."""
    if op.name == "tensor.extract":
        element = op.results[0].type
        if not isinstance(element, (ir.FloatType, ir.IntegerType, ir.IndexType)):
            return False
    elif op.name != "tensor.extract_slice":
        return False
    source = op.operands[0]
    return any(_folded_extent(source, axis) == 0
               for axis in range(ir.RankedTensorType(source.type).rank))


def _zero(type_: ir.Type) -> ir.Value:
    attr = ir.FloatAttr.get(type_, 0.0) if isinstance(type_, ir.FloatType) \
        else ir.IntegerAttr.get(type_, 0)
    return arith.ConstantOp(type_, attr).result


def shield_reads_of_nothing(func: ir.Operation) -> int:
    """Replaces each ``tensor.extract_slice`` of a tensor with an axis of
    extent 0 (`_reads_nothing`) by a ``tensor.empty`` of its sizes, and
    each ``tensor.extract`` of one by a zero; returns how many.
    Such a slice is empty and reads nothing; such a read is out of bounds
    wherever it runs, so it never runs in a call that passes its checks.

    Once IREE 3.13 folds an offset on that axis to a constant, the slice
    fails to verify (``offset 1 is out-of-bounds: 0 >= 0``): no offset is
    below an extent of 0, even for a slice of size 0. It makes a slice of
    each element read in a ``linalg.generic`` body too, with the same
    error. An empty tensor has no offsets; IREE folds later slices of it
    into empty tensors too:

    .. code-block:: mlir

        %s = tensor.extract_slice %t[0, 0] [%rows, %k] [1, 1] : tensor<?x0xf32> to tensor<?x?xf32>
        %v = tensor.extract %t[%i, %j] : tensor<?x0xf32>
        // become:
        %s = tensor.empty(%rows, %k) : tensor<?x?xf32>
        %v = arith.constant 0.000000e+00 : f32
    """
    reads = collect_ops(func, _reads_nothing)
    for op in reads:
        with ir.InsertionPoint(op), op.location:
            if op.name == "tensor.extract":
                value = _zero(op.results[0].type)
            else:
                _, sizes, _ = _slice_parameters(op)
                value = ir.Operation.create(
                    "tensor.empty", results=[op.results[0].type],
                    operands=[op.operands[at] for _, at in sizes if at is not None]).result
        op.results[0].replace_all_uses_with(value)
        op.erase()
    return len(reads)


def shield_slices_of_fills(func: ir.Operation) -> int:
    """Replaces each ``tensor.extract_slice`` of a fill (`_fill_scalar`:
    possibly reshaped, or a gather from a fill) by a fill of its sizes;
    returns how many.

    IREE 3.13 puts a fill and a slice of it at a run-time offset it reads
    from a tensor into one dispatch; where a reshape added a unit axis to the
    fill, the dispatch distributes the fill but not the copy of the slice
    into its result, and fails (``'linalg.generic' op write affecting
    operations on global resources are restricted to workgroup distributed
    contexts``). A slice of a fill is a fill:

    .. code-block:: mlir

        %f = linalg.fill ins(%one : f32) outs(%e : tensor<?x2xf32>) -> tensor<?x2xf32>
        %x = tensor.expand_shape %f [[0], [1, 2]] output_shape [%n, 1, 2]
            : tensor<?x2xf32> into tensor<?x1x2xf32>
        %s = tensor.extract_slice %x[%off, 0, 0] [%len, 1, 2] [1, 1, 1]
            : tensor<?x1x2xf32> to tensor<?x1x2xf32>
        // becomes:
        %e2 = tensor.empty(%len) : tensor<?x1x2xf32>
        %s = linalg.fill ins(%one : f32) outs(%e2 : tensor<?x1x2xf32>) -> tensor<?x1x2xf32>
    """
    slices = collect_ops(func, lambda op: op.name == "tensor.extract_slice"
                         and _fill_scalar(op.operands[0]) is not None)
    for op in slices:
        scalar = _fill_scalar(op.operands[0])
        _, sizes, _ = _slice_parameters(op)
        with ir.InsertionPoint(op), op.location:
            empty = ir.Operation.create(
                "tensor.empty", results=[op.results[0].type],
                operands=[op.operands[at] for _, at in sizes if at is not None]).result
            filled = linalg.fill(scalar, outs=[empty])
        op.results[0].replace_all_uses_with(filled)
        op.erase()
    return len(slices)


def _is_reshaped(value: ir.Value) -> bool:
    """Whether ``value`` comes from a reshape, possibly cast."""
    owner = _producer(value)
    return owner is not None and owner.name in (
        "tensor.reshape", "tensor.expand_shape", "tensor.collapse_shape")




def shield_reshape_sizes(func: ir.Operation) -> int:
    """Passes the run-time target sizes of each ``tensor.reshape``, and of
    each ``tensor.expand_shape`` of a reshaped tensor, through
    ``util.optimization_barrier``; returns how many sizes.

    IREE 3.13 re-derives the sizes of such a reshape from the element count
    as if no axis could be 0: reshaping a ``0 x 4`` tensor to ``[rows,
    rows]`` (``0 x 0``) returned a ``0 x 4`` result. Sizes it cannot look
    through are taken as given. Sizes that fold to constants (`_folded`)
    stay in plain sight: IREE sizes those right, and a constant behind a
    barrier made it fail to order the partitions around a loop result that
    is reshaped and also read (``failed to schedule execution partitions
    without cyclic dependencies``):

    .. code-block:: mlir

        %n = arith.index_cast %rows : index to i64
        %b = "util.optimization_barrier"(%n) : (i64) -> i64
        %s = tensor.from_elements %b, %b : tensor<2xi64>
        %r = tensor.reshape %x(%s) : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
    """
    shielded = 0
    for op in collect_ops(func, lambda op: op.name == "tensor.reshape" or (
            op.name == "tensor.expand_shape" and _is_reshaped(op.operands[0]))):
        if op.name == "tensor.reshape":
            shape = op.operands[1].owner
            if not (isinstance(shape, ir.OpView) and shape.name == "tensor.from_elements"):
                continue
            sizes, first = shape, 0
        else:
            sizes, first = op, 1
        for i in range(first, len(sizes.operands)):
            if _folded(sizes.operands[i]) is None:
                with ir.InsertionPoint(sizes), sizes.location:
                    sizes.operands[i] = _barrier(sizes.operands[i])
                shielded += 1
    return shielded


def _insert_out_of_place(insert: ir.Operation) -> ir.Value:
    """``tensor.insert_slice`` (unit strides, same rank) as a ``linalg.generic``
    that reads the destination and writes a fresh tensor: each element
    inside the window is read from the source in an ``scf.if`` (an empty
    source is never read), the others are the destination's."""
    source, dest = insert.operands[0], insert.operands[1]
    b = IndexBuilder()
    offsets, sizes, _ = (
        [insert.operands[at] if at is not None else b.const(static) for static, at in entries]
        for entries in _slice_parameters(insert))
    dest_type = ir.RankedTensorType(dest.type)
    element = dest_type.element_type

    def body(indices: list[ir.Value], old: ir.Value) -> ir.Value:
        inside = None
        at = []
        for index, offset, size in zip(indices, offsets, sizes, strict=True):
            # Below the offset the difference wraps to a huge unsigned value.
            relative = arith.SubIOp(index, offset).result
            at.append(relative)
            within = arith.CmpIOp(arith.CmpIPredicate.ult, relative, size).result
            inside = within if inside is None else arith.AndIOp(inside, within).result
        assert inside is not None
        branch = scf.IfOp(inside, [element], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([tensor.ExtractOp(source, at).result])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([old])
        return branch.results[0]

    return generic_from_body(ir.RankedTensorType(insert.results[0].type), _extents(b, dest),
                             body, [dest])


def shield_insertions(func: ir.Operation) -> int:
    """Rewrites each ``tensor.insert_slice`` into anything but a fresh
    ``tensor.empty`` as a ``linalg.generic`` that reads its destination and
    writes a new tensor; returns how many.

    IREE 3.13 writes an insertion in place into its destination's buffer
    while other readers still need the old value: an insertion into a copy
    a loop also starts from returned zeros, and so did the loop's start.
    ``util.optimization_barrier`` is no copy: IREE gives two barriers of one
    value the value's buffer, so two insertions into a destination that CSE
    made one (each through its own barrier) both wrote into one buffer (the
    first returned the second's rows). Out of place there is nothing to
    alias (unit strides, same rank; an insertion into a ``tensor.empty``
    stays, nothing else can read that):

    .. code-block:: mlir

        %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
        %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = [...]}
            ins(%dest : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
        ^bb0(%old: f32, %out: f32):
          %i = linalg.index 0 : index
          %j = linalg.index 1 : index
          %si = arith.subi %i, %off : index
          %in0 = arith.cmpi ult, %si, %len : index
          %in1 = arith.cmpi ult, %j, %width : index
          %in = arith.andi %in0, %in1 : i1
          %v = scf.if %in -> (f32) {
            %x = tensor.extract %src[%si, %j] : tensor<?x?xf32>
            scf.yield %x : f32
          } else {
            scf.yield %old : f32
          }
          linalg.yield %v : f32
        } -> tensor<?x?xf32>
    """
    inserts = collect_ops(func, lambda op: op.name == "tensor.insert_slice")
    shielded = 0
    for insert in inserts:
        source, dest = insert.operands[0], insert.operands[1]
        owner = _producer(dest)
        if owner is not None and owner.name == "tensor.empty":
            continue
        if ir.RankedTensorType(source.type).rank != ir.RankedTensorType(dest.type).rank:
            continue
        if any(entry != (1, None) for entry in _slice_parameters(insert)[2]):
            continue
        with ir.InsertionPoint(insert), insert.location:
            result = _insert_out_of_place(insert)
        insert.results[0].replace_all_uses_with(result)
        insert.erase()
        shielded += 1
    return shielded


# Builds `#linalg.iterator_type<...>` (the bindings cannot read one back).
_PARALLEL = ir.AttrBuilder.get("IteratorTypeEnum")

# Ops whose operands IREE's CSE compares in any order (OpTrait::IsCommutative).
_COMMUTATIVE = frozenset({
    "arith.addf", "arith.mulf", "arith.addi", "arith.muli", "arith.andi", "arith.ori",
    "arith.xori", "arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf",
    "arith.maxsi", "arith.maxui", "arith.minsi", "arith.minui",
})


def _is_identity(attr: ir.Attribute) -> bool:
    amap = ir.AffineMapAttr(attr).value
    return amap == ir.AffineMap.get_identity(amap.n_dims)


class _ElementKeys:
    """Structural keys of the elements of tensors: what an element is
    computed from once every elementwise producer is fused into its
    consumer, with commutative operands in a canonical order. Keys are
    interned as ints; a key mentions an element of some tensor that is not
    elementwise (a "leaf") or not."""

    def __init__(self, callees: dict[str, ir.Operation]) -> None:
        self._ids: dict[tuple, int] = {}
        self._leaves: dict[ir.Value, int] = {}
        self.read_a_leaf: set[int] = set()
        self._elements: dict[ir.Value, int] = {}
        self._callees = callees
        self._calling: set[str] = set()
        # The call sites being looked into: a callee's own leaves differ per site.
        self._scope: tuple[int, ...] = ()

    def _key(self, key: tuple, reads_a_leaf: bool) -> int:
        k = self._ids.setdefault(key, len(self._ids))
        if reads_a_leaf:
            self.read_a_leaf.add(k)
        return k

    def _leaf(self, value: ir.Value, kind: str) -> int:
        return self._key((kind, self._scope, self._leaves.setdefault(value, len(self._leaves))),
                         kind == "element")

    def _scalar(self, value: ir.Value) -> int:
        """A scalar from outside a body: constants by value."""
        owner = value.owner
        if isinstance(owner, ir.OpView) and owner.name == "arith.constant":
            return self._key(("constant", owner.attributes["value"]), False)
        return self._leaf(value, "outside")

    def _op(self, op: ir.Operation, operands: list[int], result: int, element: ir.Type) -> int:
        attrs = op.attributes
        # Not symshape's annotations: stripped later, they differ from op to op.
        named = tuple(sorted(((attrs[i].name, attrs[i].attr) for i in range(len(attrs))
                              if not attrs[i].name.startswith("symshape.")),
                             key=lambda item: item[0]))
        if op.name in _COMMUTATIVE:
            operands = sorted(operands)
        return self._key((op.name, named, element, result, tuple(operands)),
                         any(k in self.read_a_leaf for k in operands))

    def element(self, value: ir.Value) -> int:
        """The key of an element of ``value``."""
        owner = value.owner
        while isinstance(owner, ir.OpView) and owner.name in ("tensor.cast",
                                                              "flow.tensor.tie_shape"):
            value = owner.operands[0]
            owner = value.owner
        if value not in self._elements:
            key = self.produced(value)
            self._elements[value] = self._leaf(value, "element") if key is None else key
        return self._elements[value]

    def produced(self, value: ir.Value) -> int | None:
        """The key of an element of ``value`` if an elementwise op makes it."""
        op = value.owner
        if not (isinstance(op, ir.OpView) and isinstance(value.type, ir.RankedTensorType)):
            return None
        result = ir.OpResult(value).result_number
        shape = ir.RankedTensorType(value.type).shape
        if op.name == "arith.constant":
            attr = op.attributes["value"]
            if isinstance(attr, ir.DenseElementsAttr) and attr.is_splat:
                return self._key(("constant", attr.get_splat_value()), False)
            return None
        if op.name.split(".")[0] in ("arith", "math") and not op.regions:
            if not all(isinstance(v.type, ir.RankedTensorType)
                       and ir.RankedTensorType(v.type).shape == shape
                       for v in [*op.operands, *op.results]):
                return None
            operands = [self.element(v) for v in op.operands]
            return self._op(op, operands, result, ir.RankedTensorType(value.type).element_type)
        if op.name == "linalg.generic":
            inputs = int(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])[0])
            parallel = _PARALLEL(linalg.IteratorType.parallel, op.context)
            if not (all(_is_identity(m) for m in ir.ArrayAttr(op.attributes["indexing_maps"]))
                    and all(t == parallel for t in ir.ArrayAttr(op.attributes["iterator_types"]))):
                return None
        elif op.name == "linalg.map":
            inputs = len(op.operands) - 1
        elif op.name == "func.call":
            return self._call(op, result)
        else:
            return None
        block = op.regions[0].blocks[0]
        arguments = list(block.arguments)
        if any(len(list(a.uses)) for a in arguments[inputs:]):
            return None  # reads its init
        env = {arguments[i]: self.element(op.operands[i]) for i in range(inputs)}
        for inner in block.operations:
            if inner.name == "linalg.yield":
                yielded = inner.operands[result]
                return env[yielded] if yielded in env else self._scalar(yielded)
            if inner.regions or not (inner.name.split(".")[0] in ("arith", "math")
                                     or inner.name in ("linalg.index", "tensor.extract")):
                return None
            operands = [env[v] if v in env else
                        self._leaf(v, "outside") if isinstance(v.type, ir.ShapedType)
                        else self._scalar(v) for v in inner.operands]
            for i, r in enumerate(inner.results):
                env[r] = self._op(inner, operands, i, r.type)
        return None

    def _call(self, call: ir.Operation, result: int) -> int | None:
        """A call's result as IREE sees it once it inlines the callee."""
        name = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
        callee = self._callees.get(name)
        if callee is None or name in self._calling or len(callee.regions[0].blocks) != 1:
            return None
        body = callee.regions[0].blocks[0]
        terminator = body.operations[len(body.operations) - 1]
        if terminator.name != "func.return":
            return None
        bound = {arg: self.element(v) for arg, v in zip(body.arguments, call.operands,
                                                        strict=True)}
        site = self._leaves.setdefault(call.results[0], len(self._leaves))
        saved = self._elements, self._scope
        self._elements, self._scope = bound, (*self._scope, site)
        self._calling.add(name)
        try:
            key = self.element(terminator.operands[result])
        finally:
            self._elements, self._scope = saved
            self._calling.discard(name)
        return key if key in self.read_a_leaf else None


def merge_equal_elementwise(func: ir.Operation) -> int:
    """Replaces each elementwise tensor that computes what an earlier one in
    the same block does (once elementwise producers are fused, up to the
    order of commutative operands) by the earlier one; returns how many.

    IREE 3.13 fuses such tensors into one dispatch, where CSE makes them
    one value returned twice; dropping the duplicate result, the dispatch
    region gives its uses the region's first result instead of the equal
    one: ``v + 2v`` (``%also``) came back as ``2v`` (``%two``). Upstream CSE
    does not see that these are equal (a ``linalg.map`` beside an
    ``arith.addf`` with its operands swapped, or a call whose callee IREE
    inlines: a call's result is keyed by what its callee returns):

    .. code-block:: mlir

        %two = arith.addf %v, %v : tensor<?xf32>
        %three = arith.addf %two, %v : tensor<?xf32>
        %also = linalg.map { arith.addf } ins(%v, %two : tensor<?xf32>, tensor<?xf32>)
            outs(%init : tensor<?xf32>)
        // becomes:  return %two, %three, %three
    """
    module = func.parent
    callees = {} if module is None else {
        ir.StringAttr(op.attributes["sym_name"]).value: op.operation
        for op in module.regions[0].blocks[0].operations
        if op.operation.name == "func.func" and op.operation.regions[0].blocks}
    keys = _ElementKeys(callees)
    merged = 0

    def visit(block: ir.Block) -> None:
        nonlocal merged
        first: dict[tuple[str, int], ir.Value] = {}
        for op in list(block.operations):
            for region in op.regions:
                for inner in region.blocks:
                    visit(inner)
            for value in op.results:
                key = keys.produced(value)
                if key is None or key not in keys.read_a_leaf:
                    continue  # a tensor that reads none has its own size
                seen = first.setdefault((value.type, key), value)
                if seen != value:
                    value.replace_all_uses_with(seen)
                    merged += 1

    visit(func.regions[0].blocks[0])
    return merged
