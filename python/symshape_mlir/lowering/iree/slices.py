"""Slices, element reads and insertions in the forms IREE 3.13 miscompiles:
slices and shared tensors a gather reads, empty slices at the end of an axis, offsets read
from a tensor, sizes cast to ``index``, reads of empty tensors, slices of fills, and insertions
(made out of place).
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir
from mlir.dialects import arith, linalg, scf, tensor

from symshape_mlir.lowering.generics import generic_from_body
from symshape_mlir.lowering.index_builder import IndexBuilder
from symshape_mlir.lowering.iree.barriers import (
    TIES,
    barrier,
    chain,
    producer,
    unfused,
)
from symshape_mlir.lowering.iree.branches import extents
from symshape_mlir.lowering.iree.captures import fill_scalar
from symshape_mlir.lowering.iree.folding import folded, folded_extent, slice_parameters
from symshape_mlir.walk import collect_ops

__all__ = [
    "shield_cast_sizes",
    "shield_empty_slice_offsets",
    "shield_gathered_sources",
    "shield_insertions",
    "shield_read_offsets",
    "shield_reads_of_nothing",
    "shield_slices_of_fills",
]


def _is_slice(value: ir.Value) -> bool:
    """Whether ``value`` is a ``tensor.extract_slice``, possibly reshaped
    (`_RESHAPES`: a column slice collapsed to a vector, say)."""
    owner = chain(value, _RESHAPES)[-1].owner
    return isinstance(owner, ir.OpView) and owner.name == "tensor.extract_slice"


def _in_generic(op: ir.Operation) -> bool:
    """Whether ``op`` is in the body of a ``linalg.generic`` (possibly in a
    branch there, as in `shield_insertions`)."""
    parent = op.parent
    while parent is not None and parent.name == "scf.if":
        parent = parent.parent
    return parent is not None and parent.name == "linalg.generic"


# Producers that compute nothing a dispatch could take in.
_NOT_COMPUTED = frozenset({
    "arith.constant", "tensor.empty", "tensor.extract_slice", "util.optimization_barrier",
    "flow.tensor.tie_shape",
})
# Ops that give their operand another type: IREE fuses through them.
_RESHAPES = ("tensor.cast", "tensor.expand_shape", "tensor.collapse_shape", "tensor.reshape",
             "tensor.bitcast")


def _gathered_elsewhere(source: ir.Value) -> bool:
    """Whether ``source`` is (a reshape of) a tensor computed in the function
    that something other than element reads in a ``linalg.generic`` and
    ``tensor.dim`` uses too."""
    links = chain(source, _RESHAPES)
    owner = links[-1].owner
    if not isinstance(owner, ir.OpView) or owner.name in _NOT_COMPUTED:
        return False
    for link, value in enumerate(links):
        for use in value.uses:
            user = use.owner.operation
            if user.name == "tensor.dim" or (user.name == "tensor.extract" and _in_generic(user)):
                continue
            if link and user == links[link - 1].owner.operation:
                continue  # the reshape toward the source
            return True
    return False


def shield_gathered_sources(func: ir.Operation) -> int:
    """Puts a compute barrier (`~symshape_mlir.lowering.iree.barriers.unfused`)
    between a tensor and each ``linalg.generic`` that reads it element by element with
    ``tensor.extract`` (a gather), where the tensor is a slice or a value
    computed in the function that something else uses too; returns how
    many tensors.

    IREE 3.13 fuses the slice into the gather's dispatch as a strided load
    and then gets the read wrong: at a run-time offset it fails to compile
    (``LLVM Translation failed for operation:
    builtin.unrealized_conversion_cast``); a column ``[%rows, 1]`` of a
    ``?x?`` tensor at offset 0 compiles, but every read returns its first
    element, also through a reshape (fuzzer p107007316: a column collapsed
    to a vector, then broadcast). It also fuses a computed tensor into the gather's dispatch
    and makes the tensor another result of that dispatch: when the gather
    has no elements, no workgroup runs and the tensor, returned too, comes
    back unwritten (fuzzer p105004732: ``v + v`` returned ``[0.0]`` for
    ``[2.0]`` beside a broadcast of it to no rows). Behind the barrier the
    tensor is made by a dispatch of its own (in the same submission: a
    ``util.optimization_barrier`` did that too, with one more submission per
    call, BERT's static variant at 8x48 0.78 -> 0.34-0.57 ms on ``local-task``):

    .. code-block:: mlir

        %s = tensor.extract_slice %y[%off, 0] [%rows, 1] [1, 1]
            : tensor<?x?xf32> to tensor<?x1xf32>
        %t = "iree_tensor_ext.compute_barrier.start"(%s, %rows)
            : (tensor<?x1xf32>, index) -> tensor<?x1xf32>
        %g = linalg.generic ... { ... tensor.extract %t[%row, %j] ... }
    """
    reads = collect_ops(func, lambda op: op.name == "tensor.extract" and _in_generic(op))
    shielded: dict[ir.Value, ir.Value] = {}
    for read in reads:
        source = read.operands[0]
        if source not in shielded:
            if not (_is_slice(source) or _gathered_elsewhere(source)):
                continue
            producer = source.owner
            with ir.InsertionPoint.after(producer), producer.location:
                shielded[source] = unfused(source)
        read.operands[0] = shielded[source]
    return len(shielded)


def _base_extent(value: ir.Value, axis: int) -> int | None:
    """The extent on ``axis`` of the tensor ``value`` slices in the end, if
    it is static or folds (`folded_extent`): IREE composes a same-rank
    slice of a slice into one slice of the first source."""
    while (extent := folded_extent(value, axis)) is None:
        owner = producer(value)
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
    entries, sizes, strides = slice_parameters(op)
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
    b = IndexBuilder()
    rewritten = 0
    for op in slices:
        sliced = op.operands[0 if op.name == "tensor.extract_slice" else 1]
        offsets, sizes, _ = slice_parameters(op)
        moved: dict[int, ir.Value | int] = {}
        for axis, ((offset, offset_at), (size, size_at)) in enumerate(zip(offsets, sizes)):
            if ((offset_at is None and offset == 0) or (size_at is None and size != 0)
                    or _base_extent(sliced, axis) is None):
                continue
            if size_at is None:
                moved[axis] = 0
                continue
            with ir.InsertionPoint(op), op.location:
                zero = b.const(0)
                at = op.operands[offset_at] if offset_at is not None else b.const(offset)
                moved[axis] = b.select(b.cmp("eq", op.operands[size_at], zero), zero, at)
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


def _behind_barriers(func: ir.Operation, parameter: int,
                     hides: Callable[[ir.Value], bool]) -> int:
    """Passes each run-time offset (``parameter`` 0) or size (1) of a
    ``tensor.extract_slice`` that ``hides`` picks through one
    ``util.optimization_barrier`` per value; returns how many values."""
    slices = collect_ops(func, lambda op: op.name == "tensor.extract_slice")
    shielded: dict[ir.Value, ir.Value] = {}
    for op in slices:
        for _, at in slice_parameters(op)[parameter]:
            if at is None or not hides(value := op.operands[at]):
                continue
            if value not in shielded:
                with ir.InsertionPoint.after(value.owner), op.location:
                    shielded[value] = barrier(value)
            op.operands[at] = shielded[value]
    return len(shielded)


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
    return _behind_barriers(func, 0, _reads_tensor)


_INDEX_CASTS = ("arith.index_cast", "arith.index_castui")


def _is_cast_to_index(value: ir.Value) -> bool:
    """Whether ``value`` is an integer cast to ``index`` that does not fold
    to a constant (`folded`)."""
    owner = value.owner
    return (isinstance(owner, ir.OpView) and owner.name in _INDEX_CASTS
            and folded(value) is None)


def shield_cast_sizes(func: ir.Operation) -> int:
    """Passes each run-time size of a ``tensor.extract_slice`` that is an
    integer cast to ``index`` (a size read from a tensor, say) through
    ``util.optimization_barrier``; returns how many sizes.

    Two slices of the same width %m = ``arith.index_cast`` of an ``i64``, of
    two matrices, summed with one of the matrices: the sum's loops make %m
    the width of that matrix, and IREE 3.13 collapses the dispatch of the
    sums to one axis, as if both slices were whole rows. The other slice is
    not (its source may be wider): the collapsed load needs a copy of the
    strided slice, which is left outside the workgroup distribution, and
    codegen fails (``write affecting operations on global resources are
    restricted to workgroup distributed contexts``, fuzzer p172001639: the
    second sum is a called function). A width computed from the cast (a
    clamp, a sum) leaves the dispatch two axes, and so does a barrier on
    the cast; sizes computed from it stay in IREE's sight (their bounds
    among them):

    .. code-block:: mlir

        %x = tensor.extract %t[] : tensor<i64>
        %m = arith.index_cast %x : i64 to index
        %mb = "util.optimization_barrier"(%m) : (index) -> index
        %s = tensor.extract_slice %y[0, 0] [%rows, %mb] [1, 1]
            : tensor<?x?xf32> to tensor<?x?xf32>
    """
    return _behind_barriers(func, 1, _is_cast_to_index)


def _made_empty(value: ir.Value) -> bool:
    """Whether ``value`` is a ``tensor.empty`` (through casts and shape
    ties), which has no values."""
    made = chain(value, TIES)[-1].owner
    return isinstance(made, ir.OpView) and made.name == "tensor.empty"


def _reads_nothing(op: ir.Operation) -> bool:
    """Whether ``op`` is a slice or an element read of a tensor with an axis
    of extent 0, static or folding to it (`folded_extent`), or of a
    ``tensor.empty`` (`_made_empty`)."""
    if op.name == "tensor.extract":
        element = op.results[0].type
        if not isinstance(element, (ir.FloatType, ir.IntegerType, ir.IndexType)):
            return False
    elif op.name != "tensor.extract_slice":
        return False
    source = op.operands[0]
    return _made_empty(source) or any(
        folded_extent(source, axis) == 0
        for axis in range(ir.RankedTensorType(source.type).rank))


def _zero(type_: ir.Type) -> ir.Value:
    attr = ir.FloatAttr.get(type_, 0.0) if isinstance(type_, ir.FloatType) \
        else ir.IntegerAttr.get(type_, 0)
    return arith.ConstantOp(type_, attr).result


def shield_reads_of_nothing(func: ir.Operation) -> int:
    """Replaces each ``tensor.extract_slice`` of a tensor with an axis of
    extent 0 or of a ``tensor.empty`` (`_reads_nothing`) by a
    ``tensor.empty`` of its sizes, and each ``tensor.extract`` of one by a
    zero, until none is left; returns how many.
    Such a slice is empty or has no values; such a read is out of bounds
    wherever it runs, so it never runs in a call that passes its checks,
    or reads no value.

    Once IREE 3.13 folds an offset on that axis to a constant, the slice
    fails to verify (``offset 1 is out-of-bounds: 0 >= 0``): no offset is
    below an extent of 0, even for a slice of size 0. It makes a slice of
    each element read in a ``linalg.generic`` body too, with the same
    error. An empty tensor has no offsets. A read of a ``tensor.empty``
    (lowering makes the broadcast of a tensor with no elements one, and
    this shield the slice of one) reads no value: IREE gives the
    ``tensor.empty`` such reads meet (directly or through a slice) a
    stack allocation, sized by the largest extent it allows
    (``memref.alloca`` of ``9007199254740991x9007199254740991``, fuzzer
    p106007267) or by the run-time extent (``expected no unbounded stack
    allocations``, fuzzer p181001695: a slice of a ``tensor<0xf32>``,
    spread over rows); it reads a zero instead:

    .. code-block:: mlir

        %s = tensor.extract_slice %t[%off] [%k] [1] : tensor<0xf32> to tensor<?xf32>
        %v = tensor.extract %s[%j] : tensor<?xf32>
        // become:
        %s = tensor.empty(%k) : tensor<?xf32>
        %v = arith.constant 0.000000e+00 : f32
    """
    shielded = 0
    # A slice replaced by a tensor.empty makes its own reads reads of nothing.
    while reads := collect_ops(func, _reads_nothing):
        for op in reads:
            with ir.InsertionPoint(op), op.location:
                if op.name == "tensor.extract":
                    value = _zero(op.results[0].type)
                else:
                    _, sizes, _ = slice_parameters(op)
                    value = ir.Operation.create(
                        "tensor.empty", results=[op.results[0].type],
                        operands=[op.operands[at] for _, at in sizes if at is not None]).result
            op.results[0].replace_all_uses_with(value)
            op.erase()
        shielded += len(reads)
    return shielded


def shield_slices_of_fills(func: ir.Operation) -> int:
    """Replaces each ``tensor.extract_slice`` of a fill (`fill_scalar`:
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
                         and fill_scalar(op.operands[0]) is not None)
    for op in slices:
        scalar = fill_scalar(op.operands[0])
        _, sizes, _ = slice_parameters(op)
        with ir.InsertionPoint(op), op.location:
            empty = ir.Operation.create(
                "tensor.empty", results=[op.results[0].type],
                operands=[op.operands[at] for _, at in sizes if at is not None]).result
            filled = linalg.fill(scalar, outs=[empty])
        op.results[0].replace_all_uses_with(filled)
        op.erase()
    return len(slices)


def _insert_out_of_place(insert: ir.Operation) -> ir.Value:
    """``tensor.insert_slice`` (unit strides, same rank) as a ``linalg.generic``
    that reads the destination and writes a fresh tensor: each element
    inside the window is read from the source in an ``scf.if`` (an empty
    source is never read), the others are the destination's."""
    source, dest = insert.operands[0], insert.operands[1]
    b = IndexBuilder()
    offsets, sizes, _ = (
        [insert.operands[at] if at is not None else b.const(static) for static, at in entries]
        for entries in slice_parameters(insert))
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

    return generic_from_body(ir.RankedTensorType(insert.results[0].type), extents(b, dest),
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
        owner = producer(dest)
        if owner is not None and owner.name == "tensor.empty":
            continue
        if ir.RankedTensorType(source.type).rank != ir.RankedTensorType(dest.type).rank:
            continue
        if any(entry != (1, None) for entry in slice_parameters(insert)[2]):
            continue
        with ir.InsertionPoint(insert), insert.location:
            result = _insert_out_of_place(insert)
        insert.results[0].replace_all_uses_with(result)
        insert.erase()
        shielded += 1
    return shielded
