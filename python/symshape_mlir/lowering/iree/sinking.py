"""Transposes moved down to where they cancel: one layout between convolutions.

After :func:`~symshape_mlir.lowering.iree.layouts.convolutions_channels_last`
every convolution of a CNN reads a channels-last copy of its input and
writes a transpose back to channels-first; the bias, activation, padding
and residual additions between two convolutions run channels-first. IREE
3.13 cannot cancel the pairs across them (the input's transpose sits
behind a barrier), so each convolution paid two materialized transposes
(mobilenet_v2 at 2x96x80: ``transpose_2x48x49x41`` and
``transpose_2x48x572`` at 5 % of the time each). Here a transpose is
moved below the ops that read it, one op at a time, until it meets its
inverse:

.. code-block:: mlir

    %t = linalg.transpose ins(%y : tensor<1x4x4x8xf32>) ... permutation = [0, 3, 1, 2]
    %a = linalg.generic {indexing_maps = [#id, #bias, #id], ...}
        ins(%t, %b : tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) outs(%e : tensor<1x8x4x4xf32>)

becomes the same generic over the transpose's source (its maps permuted)
and a transpose of its result:

.. code-block:: mlir

    %a0 = linalg.generic {indexing_maps = [#id, #bias, #nhwc], ...}
        ins(%y, %b : tensor<1x4x4x8xf32>, tensor<8x1x1xf32>) outs(%e0 : tensor<1x4x4x8xf32>)
    %a = linalg.transpose ins(%a0 : tensor<1x4x4x8xf32>) ... permutation = [0, 3, 1, 2]

with ``#nhwc = (d0, d1, d2, d3) -> (d0, d2, d3, d1)``: the iteration space
is unchanged, so every other operand keeps its map. A generic that is
not elementwise (a global average pool) reads the source through the
permuted map and keeps its result: the transpose is absorbed. A
transpose moves only when every reader can take it (a
``linalg.generic`` reading it as an input, a ``tensor.pad`` with static
amounts, a static ``tensor.extract_slice`` of the same rank, or another
transpose, or a ``tensor.dim`` of it, which reads the source's permuted
axis instead), so it is never duplicated; two transposes in a row become
one, and none when they undo each other. Dynamic shapes move too (new
inits are sized from the old ones): in the dynamic module of
efficientnet at 1x64x64 every convolution wrote a transpose back to
NCHW fused with its activation, and the next read one to NHWC (2.1 ms
per call single-threaded, 1.5 ms in such dispatches); with them cancelled
it takes 0.5 ms. A depthwise convolution there sits between a
``tensor.expand_shape`` and a ``tensor.collapse_shape`` that only add and
drop a unit axis, which ``canonicalize`` folds for static shapes only:
`fold_unit_round_trips` folds them first.

A convolution's input that is still transposed after that moves the other
way (`hoist_transposed_inputs`), up past the single-use ops that make it,
to where its tensor is smaller or its producer can write it in the layout:
a transposed convolution's input, zeros with the data inserted at a
stride and padded, is made channels-last by inserting and padding a
channels-last copy of the data, and an elementwise producer writes its
result permuted:

.. code-block:: mlir

    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x99x83xf32>)
    %i = tensor.insert_slice %x into %z[0, 0, 2, 2] [2, 8, 48, 40] [1, 1, 2, 2]
    %t = linalg.transpose ins(%i : tensor<2x8x99x83xf32>) ... permutation = [0, 2, 3, 1]

becomes

.. code-block:: mlir

    %xt = linalg.transpose ins(%x : tensor<2x8x48x40xf32>) ... permutation = [0, 2, 3, 1]
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x99x83x8xf32>)
    %t = tensor.insert_slice %xt into %z[0, 2, 2, 0] [2, 48, 40, 8] [1, 2, 2, 1]

(the upsampler's transposed convolution at 2x24x20: its input's transpose
took 42 % of the time). It moves past a static slice too: a stride-2
convolution's padded input trimmed of the row and column no window reads
(resnet's stem at 4x128x128: the transpose of that slice of a pad took
425 us, reading rows of 134 columns to write 133; of the argument itself,
63 us, and the pad fuses into the convolution: 1.40 -> 1.01 ms per call in
dispatches, single-threaded).
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith, linalg, tensor

from symshape_mlir.lowering.index_builder import IndexBuilder
from symshape_mlir.lowering.iree.barriers import axis_sizes, redirect, sizes_by_axis
from symshape_mlir.lowering.iree.layouts import CHANNELS_LAST_OPS
from symshape_mlir.walk import collect_ops

__all__ = ["fold_unit_round_trips", "hoist_transposed_inputs", "sink_transposes", "static",
           "static_pad", "zeros_insert"]

# Rewrites of one function at most (a guard: each one moves a transpose
# down past one op, which ends on any finite function).
_MAX_REWRITES = 100_000


def _permutation(op: ir.OpView) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))


def _inverse(permutation: Sequence[int]) -> list[int]:
    inverse = [0] * len(permutation)
    for position, axis in enumerate(permutation):
        inverse[axis] = position
    return inverse


def static(value: ir.Value) -> bool:
    type_ = value.type
    return isinstance(type_, ir.RankedTensorType) and type_.has_static_shape


def _source_map(map_: ir.AffineMap, permutation: Sequence[int]) -> ir.AffineMap:
    """The map that reads ``x`` where ``map_`` read ``transpose(x, permutation)``."""
    inverse = _inverse(permutation)
    results = list(map_.results)
    return ir.AffineMap.get(map_.n_dims, map_.n_symbols, [results[inverse[a]] for a in
                                                          range(len(permutation))])


def _permuted_type(type_: ir.RankedTensorType, permutation: Sequence[int]) -> ir.RankedTensorType:
    """The type of ``x`` when ``transpose(x, permutation)`` has ``type_``."""
    inverse = _inverse(permutation)
    return ir.RankedTensorType.get([type_.shape[inverse[a]] for a in range(type_.rank)],
                                   type_.element_type, type_.encoding,
                                   loc=ir.Location.unknown())


def _transposed(value: ir.Value, permutation: Sequence[int]) -> ir.Value:
    sizes = axis_sizes(value)
    init = tensor.EmptyOp([sizes[p] for p in permutation],
                          ir.RankedTensorType(value.type).element_type)
    return linalg.transpose(value, outs=[init.result], permutation=list(permutation)).results[0]


def _generic(op: ir.OpView, value: ir.Value) -> bool:
    """Whether ``op`` is a generic that can read ``value``'s source instead (any
    generic reading ``value`` as an input, not as an init)."""
    if op.name != "linalg.generic":
        return False
    inits = len(op.results)
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
    return all(m.n_symbols == 0 for m in maps) and all(
        operand != value for operand in list(op.operands)[len(op.operands) - inits:])


def _relayout_result(op: ir.OpView) -> bool:
    """Whether ``op``'s result can take the layout of an input it reads
    transposed: one elementwise result written through the identity into a
    ``tensor.empty``."""
    if len(op.results) != 1:
        return False
    iterators = ir.ArrayAttr(op.attributes["iterator_types"])
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
    init = op.operands[len(op.operands) - 1]
    rank = ir.RankedTensorType(init.type).rank
    return (all("parallel" in str(it) for it in iterators)
            and maps[-1] == ir.AffineMap.get_identity(rank)
            and isinstance(init.owner, ir.OpView) and init.owner.name == "tensor.empty")


def static_pad(op: ir.OpView, value: ir.Value) -> bool:
    """Whether ``op`` pads ``value`` by static amounts with a value not made in its body."""
    if op.name != "tensor.pad" or op.operands[0] != value or len(op.operands) != 1:
        return False
    body = op.regions[0].blocks[0]
    yielded = body.operations[len(body.operations) - 1].operands[0]
    return len(body.operations) == 1 and not (
        isinstance(yielded, ir.BlockArgument) and yielded.owner == body)


def _slice(op: ir.OpView, value: ir.Value) -> bool:
    """Whether ``op`` slices ``value`` by static offsets, sizes and strides, keeping its rank."""
    return (op.name == "tensor.extract_slice" and len(op.operands) == 1
            and op.operands[0] == value and static(op.results[0])
            and ir.RankedTensorType(op.results[0].type).rank
            == ir.RankedTensorType(value.type).rank)


def _size_read(op: ir.OpView) -> bool:
    """Whether ``op`` is a ``tensor.dim`` at a constant axis."""
    return op.name == "tensor.dim" and IndexBuilder.constant_of(op.operands[1]) is not None


def _sinkable(use: ir.OpOperand, value: ir.Value) -> bool:
    owner = use.owner
    if not isinstance(owner, ir.OpView):
        return False
    return (owner.name == "linalg.transpose" and owner.operands[0] == value) or _generic(
        owner, value) or static_pad(owner, value) or _slice(owner, value) or _size_read(owner)


def _read_size_of(op: ir.OpView, source: ir.Value, axis: int | None) -> None:
    """Makes the ``tensor.dim`` ``op`` read ``source``'s ``axis`` (a constant 1 when None)."""
    with ir.InsertionPoint(op), op.location:
        index = ir.IndexType.get()
        if axis is None:
            replacement = arith.ConstantOp(index, 1).result
        else:
            replacement = tensor.DimOp(source, arith.ConstantOp(index, axis).result).result
    op.results[0].replace_all_uses_with(replacement)
    op.operation.erase()


def _sink_into_generic(op: ir.OpView, transpose: ir.OpView) -> None:
    """``op`` reads ``transpose``'s source; an elementwise result
    (`_relayout_result`) is written permuted, and transposed back."""
    permutation = _permutation(transpose)
    value, source = transpose.results[0], transpose.operands[0]
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
    relayout = _relayout_result(op)
    last = len(op.operands) - len(op.results)
    for i in range(last):
        if op.operands[i] == value:
            op.operands[i] = source
            maps[i] = _source_map(maps[i], permutation)
    if not relayout:
        op.attributes["indexing_maps"] = ir.ArrayAttr.get(
            [ir.AffineMapAttr.get(m) for m in maps])
        return
    result = op.results[0]
    new_type = _permuted_type(ir.RankedTensorType(result.type), permutation)
    empty = op.operands[last].owner
    sizes = sizes_by_axis(ir.RankedTensorType(result.type), list(empty.operands))
    inverse = _inverse(permutation)
    with ir.InsertionPoint(op), op.location:
        init = tensor.EmptyOp([sizes[inverse[a]] for a in range(len(sizes))],
                              new_type.element_type).result
    op.operands[last] = init
    maps[last] = _source_map(maps[last], permutation)
    op.attributes["indexing_maps"] = ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps])
    users = [use.owner for use in result.uses]
    result.set_type(new_type)
    with ir.InsertionPoint.after(op), op.location:
        back = _transposed(result, permutation)
    redirect(result, back, users)


def _sink_into_pad_or_slice(op: ir.OpView, transpose: ir.OpView) -> None:
    """``op`` pads or slices ``transpose``'s source by the permuted amounts."""
    permutation = _permutation(transpose)
    inverse = _inverse(permutation)
    names = (("static_low", "static_high") if op.name == "tensor.pad"
             else ("static_offsets", "static_sizes", "static_strides"))
    for name in names:
        amounts = list(ir.DenseI64ArrayAttr(op.attributes[name]))
        op.attributes[name] = ir.DenseI64ArrayAttr.get([amounts[inverse[a]]
                                                        for a in range(len(amounts))])
    op.operands[0] = transpose.operands[0]
    result = op.results[0]
    users = [use.owner for use in result.uses]
    result.set_type(_permuted_type(ir.RankedTensorType(result.type), permutation))
    with ir.InsertionPoint.after(op), op.location:
        back = _transposed(result, permutation)
    redirect(result, back, users)


def _sink_into_transpose(op: ir.OpView, transpose: ir.OpView) -> None:
    """``op`` transposes ``transpose``'s source once (or not at all)."""
    inner, outer = _permutation(transpose), _permutation(op)
    composed = [inner[axis] for axis in outer]
    source = transpose.operands[0]
    if composed == list(range(len(composed))):
        op.results[0].replace_all_uses_with(source)
        op.operation.erase()
        return
    op.operands[0] = source
    op.attributes["permutation"] = ir.DenseI64ArrayAttr.get(composed)


def _movable(op: ir.OpView) -> bool:
    value = op.results[0]
    uses = list(value.uses)
    return bool(uses) and all(_sinkable(use, value) for use in uses)


def _unit_groups(op: ir.OpView, expanded: ir.RankedTensorType) -> list[int] | None:
    """For a ``tensor.expand_shape`` or ``tensor.collapse_shape`` ``op`` whose
    expanded side is ``expanded``: the expanded axes that are not static 1s,
    when every group holds at most one (only unit axes added or dropped)."""
    kept = []
    for group in ir.ArrayAttr(op.attributes["reassociation"]):
        axes = [ir.IntegerAttr(a).value for a in ir.ArrayAttr(group)]
        sized = [a for a in axes if expanded.is_dynamic_dim(a) or expanded.shape[a] != 1]
        if len(sized) > 1:
            return None
        kept += sized
    return kept


def fold_unit_round_trips(func: ir.Operation) -> int:
    """Replaces each ``tensor.collapse_shape`` of a ``tensor.expand_shape`` that
    only adds and drops axes of static extent 1, and gives back the
    expansion's source type, by that source; returns how many.

    The frontend's grouped convolutions make such pairs around a depthwise
    one (``[N, C, H, W]`` expanded to ``[N, C, 1, H, W]``, collapsed to
    ``[N, C, H, W]``). ``canonicalize`` folds them when the shapes are
    static only; left in a dynamic function, they stop the transposes
    around the convolution from moving to where they cancel.
    """
    folded = 0
    for op in collect_ops(func, lambda o: o.name == "tensor.collapse_shape"):
        expand = op.operands[0].owner
        if not (isinstance(expand, ir.OpView) and expand.name == "tensor.expand_shape"):
            continue
        source = expand.operands[0]
        middle = ir.RankedTensorType(op.operands[0].type)
        if source.type != op.results[0].type:
            continue
        out, back = _unit_groups(expand, middle), _unit_groups(op, middle)
        if out is None or out != back:
            continue
        op.results[0].replace_all_uses_with(source)
        op.operation.erase()
        groups = [[ir.IntegerAttr(a).value for a in ir.ArrayAttr(g)]
                  for g in ir.ArrayAttr(expand.attributes["reassociation"])]
        for use in list(expand.results[0].uses):
            reader = use.owner
            if isinstance(reader, ir.OpView) and _size_read(reader):
                axis = IndexBuilder.constant_of(reader.operands[1])
                group = next(g for g, axes in enumerate(groups) if axis in axes)
                _read_size_of(reader, source, group if axis in out else None)
        if not list(expand.results[0].uses):
            expand.operation.erase()
        folded += 1
    return folded


def sink_transposes(func: ir.Operation) -> int:
    """Moves each ``linalg.transpose`` of ``func`` below its readers while
    all of them can take it (see the module docstring); returns how many
    ops were rewritten."""
    with func.context:
        fold_unit_round_trips(func)
        return _sink_all(func)


def _sink_all(func: ir.Operation) -> int:
    rewrites = 0
    while rewrites < _MAX_REWRITES:
        moved = False
        for op in collect_ops(func, lambda o: o.name == "linalg.transpose"):
            view = op.opview if isinstance(op, ir.Operation) else op
            if not _movable(view):
                continue
            value = view.results[0]
            readers = list(dict.fromkeys(use.owner for use in value.uses))
            for reader in readers:
                reader = reader.opview if isinstance(reader, ir.Operation) else reader
                if reader.name == "linalg.transpose":
                    _sink_into_transpose(reader, view)
                elif reader.name == "tensor.dim":
                    axis = IndexBuilder.constant_of(reader.operands[1])
                    assert axis is not None
                    _read_size_of(reader, view.operands[0], _permutation(view)[axis])
                elif reader.name in ("tensor.pad", "tensor.extract_slice"):
                    _sink_into_pad_or_slice(reader, view)
                else:
                    _sink_into_generic(reader, view)
                rewrites += 1
            view.operation.erase()
            moved = True
            break
        if not moved:
            break
    return rewrites


def hoist_transposed_inputs(func: ir.Operation) -> int:
    """Moves the transpose that makes each channels-last convolution's input of
    ``func`` up past the single-use ops that make its source (see the module
    docstring); returns how many ops were rewritten."""
    rewrites = 0
    with func.context:
        for conv in collect_ops(func, lambda op: op.name in CHANNELS_LAST_OPS):
            transpose = conv.operands[0].owner
            while isinstance(transpose, ir.OpView) and transpose.name == "linalg.transpose" \
                    and static(transpose.results[0]):
                moved = _hoist(transpose)
                if moved is None:
                    break
                rewrites += 1
                transpose = moved
    return rewrites


def _hoist(transpose: ir.OpView) -> ir.OpView | None:
    """Moves ``transpose`` above the op that makes its source when that op has no
    other reader; returns the transpose left to move further (None: none, or
    it cannot move)."""
    source = transpose.operands[0]
    producer = source.owner
    if not isinstance(producer, ir.OpView) or len(list(source.uses)) != 1:
        return None
    permutation = _permutation(transpose)
    if producer.name == "linalg.transpose":
        inner = _permutation(producer)
        cancels = [inner[axis] for axis in permutation] == list(range(len(permutation)))
        _sink_into_transpose(transpose, producer)
        _erase(producer)
        return None if cancels else transpose
    if producer.name == "linalg.generic" and _relayout_result(producer):
        _write_permuted(producer, transpose, permutation)
        return None
    if static_pad(producer, producer.operands[0]) and static(producer.operands[0]):
        return _hoist_above(producer, transpose, permutation, ("static_low", "static_high"))
    if _slice(producer, producer.operands[0]) and static(producer.operands[0]):
        return _hoist_above(producer, transpose, permutation,
                            ("static_offsets", "static_sizes", "static_strides"))
    if zeros_insert(producer):
        return _hoist_above(producer, transpose, permutation,
                            ("static_offsets", "static_sizes", "static_strides"),
                            _permuted_fill(producer.operands[1], transpose))
    return None


def zeros_insert(op: ir.OpView) -> bool:
    """Whether ``op`` inserts a static tensor at static offsets, sizes and strides
    into a ``linalg.fill`` of a ``tensor.empty`` that nothing else reads."""
    if op.name != "tensor.insert_slice" or len(op.operands) != 2 \
            or not static(op.operands[0]) or not static(op.results[0]) \
            or ir.RankedTensorType(op.operands[0].type).rank != \
            ir.RankedTensorType(op.results[0].type).rank:
        return False
    dest = op.operands[1]
    fill = dest.owner
    return (isinstance(fill, ir.OpView) and fill.name == "linalg.fill"
            and len(list(dest.uses)) == 1 and isinstance(fill.operands[1].owner, ir.OpView)
            and fill.operands[1].owner.name == "tensor.empty")


def _permuted_fill(dest: ir.Value, transpose: ir.OpView) -> ir.Value:
    """The fill that makes ``dest``, of the transpose's result type instead."""
    fill = dest.owner
    type_ = ir.RankedTensorType(transpose.results[0].type)
    with ir.InsertionPoint(fill), fill.location:
        empty = tensor.EmptyOp(type_.shape, type_.element_type).result
        return linalg.fill(fill.operands[0], outs=[empty])


def _hoist_above(op: ir.OpView, transpose: ir.OpView, permutation: Sequence[int],
                 names: Sequence[str], dest: ir.Value | None = None) -> ir.OpView:
    """``op`` (a static pad, or an insert into zeros whose permuted fill is
    ``dest``) made to read the transpose of its first operand and write the
    transpose's result; returns the new transpose."""
    for name in names:
        amounts = list(ir.DenseI64ArrayAttr(op.attributes[name]))
        op.attributes[name] = ir.DenseI64ArrayAttr.get([amounts[p] for p in permutation])
    with ir.InsertionPoint(op), op.location:
        moved = _transposed(op.operands[0], permutation)
    op.operands[0] = moved
    if dest is not None:
        old = op.operands[1].owner
        op.operands[1] = dest
        _erase(old)
    op.results[0].set_type(transpose.results[0].type)
    transpose.results[0].replace_all_uses_with(op.results[0])
    _erase(transpose)
    return moved.owner


def _write_permuted(op: ir.OpView, transpose: ir.OpView, permutation: Sequence[int]) -> None:
    """The elementwise ``op`` writes its result as ``transpose`` makes it."""
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
    last = len(op.operands) - 1
    maps[last] = _source_map(maps[last], _inverse(permutation))
    type_ = ir.RankedTensorType(transpose.results[0].type)
    old = op.operands[last].owner
    with ir.InsertionPoint(op), op.location:
        op.operands[last] = tensor.EmptyOp(type_.shape, type_.element_type).result
    _erase_unused(old)
    op.attributes["indexing_maps"] = ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps])
    op.results[0].set_type(type_)
    transpose.results[0].replace_all_uses_with(op.results[0])
    _erase(transpose)


def _erase(op: ir.OpView) -> None:
    """Erases ``op`` (its result unread) and the ``tensor.empty`` it wrote into,
    when nothing else reads that."""
    init = op.operands[len(op.operands) - 1].owner
    op.operation.erase()
    _erase_unused(init)


def _erase_unused(op: object) -> None:
    """Erases ``op`` when it is a ``tensor.empty`` that nothing reads."""
    if isinstance(op, ir.OpView) and op.name == "tensor.empty" and not list(op.results[0].uses):
        op.operation.erase()
