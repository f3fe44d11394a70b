"""Shape and data-movement ONNX ops.

Targets (``Reshape``'s shape, ``Expand``'s shape, ``Slice``'s bounds,
``Split``'s sizes, ``Unsqueeze``'s axes) must be known when the model is
imported, as constants or computed from tensor shapes; ``Shape``, ``Size``
and small integer data are propagated as extent expressions, so the
exporter idiom ``Reshape(x, Concat(Gather(Shape(x), 0), [-1, 64]))``
reshapes to ``[batch, batch * seq * 64 floordiv (batch * 64), 64]``, which
simplifies to ``[batch, seq, 64]``.

Example:
    ``Reshape(x: [batch, seq, 768], [0, 0, 12, 64])`` becomes

    .. code-block:: mlir

        %x = tensor.expand_shape %arg0 [[0], [1], [2, 3]] output_shape [%b, %s, 12, 64] ...
"""

from __future__ import annotations

import numpy as np

from symshape_mlir.extent import canon
from symshape_mlir.extent.expr import Const, Expr
from symshape_mlir.extent.guarantee import Exact
from symshape_mlir.extent.prove import prove_nonnegative
from symshape_mlir.frontend.dtypes import DType, as_dtype, i1
from symshape_mlir.frontend.index import IndexBuilder
from symshape_mlir.frontend.ops import shape_ops as fs
from symshape_mlir.frontend.ops.creation import arange, eye, full, full_like
from symshape_mlir.frontend.ops.indexing import getitem, slice_axis
from symshape_mlir.frontend.ops.triangles import tril, triu
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.onnx.context import NodeContext, onnx_dtype, onnx_type_name
from symshape_mlir.onnx.ops.abstract import BOOL, abstract, like
from symshape_mlir.onnx.ops.data import HUGE, axes_operand, data, reshape_items
from symshape_mlir.onnx.registry import importer, shape_rule
from symshape_mlir.onnx.values import Known, Literal, Value, shape_of
from symshape_mlir.shapes.broadcast import broadcast_shapes
from symshape_mlir.shapes.errors import AxisConflictError, BroadcastError, ShapeError
from symshape_mlir.shapes.reshape import numel, reshape_hole
from symshape_mlir.shapes.rules import concat_shape
from symshape_mlir.shapes.shape import Shape
from symshape_mlir.shapes.slices import EXTENTS, range_count, slice_indices

__all__ = ["exact_dims"]

def exact_dims(node: NodeContext, index: int) -> list[Expr]:
    """The extents of input ``index``, each exact."""
    dims = []
    for axis, extent in enumerate(shape_of(node.value(index))):
        if not extent.is_exact or extent.expr is None:
            node.error(f"axis {axis} of input {index} is {extent}, not an exact extent")
        dims.append(extent.expr)
    return dims


@importer("Shape", since=13)
@shape_rule("Shape", since=13)
def shape(node: NodeContext) -> list[Value]:
    dims = exact_dims(node, 0)
    rank = len(dims)
    start, end = node.attr("start", 0), node.attr("end", rank)
    start = min(max(start + rank if start < 0 else start, 0), rank)
    end = min(max(end + rank if end < 0 else end, 0), rank)
    return [Known.vector(dims[start:end])]


@importer("Size", since=13)
@shape_rule("Size", since=13)
def size(node: NodeContext) -> list[Value]:
    return [Known((), (canon.mul(*exact_dims(node, 0)),), np.dtype(np.int64))]


@importer("Constant", since=13)
@shape_rule("Constant", since=13)
def constant(node: NodeContext) -> list[Value]:
    for name, dtype in (
        ("value", None), ("value_float", np.float32), ("value_floats", np.float32),
        ("value_int", np.int64), ("value_ints", np.int64),
    ):
        if node.has_attr(name):
            return [Literal(np.asarray(node.attr(name), dtype=dtype))]
    node.error("only value, value_float(s) and value_int(s) constants are supported")


@importer("Identity", since=13)
@shape_rule("Identity", since=13)
def identity(node: NodeContext) -> list[Value]:
    return [node.value(0)]


@importer("Dropout", since=13)
def dropout(node: NodeContext) -> list[Value]:
    if node.has(2) and bool(np.any(node.literal(2, "training_mode"))):
        node.error("training mode is not supported")
    outputs: list[Value] = [node.value(0)]
    if len(node.node.output) > 1 and node.node.output[1]:
        outputs.append(full_like(node.tensor(0), True, i1))
    return outputs


@importer("ConstantOfShape", since=9)
def constant_of_shape(node: NodeContext) -> list[Value]:
    fill = node.attr("value")
    fill = np.zeros(1, np.float32) if fill is None else np.asarray(fill).reshape(-1)
    return [full(list(node.known(0, "shape").elements), fill[0].item(), as_dtype(fill.dtype))]


@importer("Reshape", since=13)
def reshape(node: NodeContext) -> list[Value]:
    target = node.known(1, "shape")
    if len(target.shape) != 1:
        node.error(f"the shape must be 1-D, not of shape {list(target.shape)}")
    return [fs.reshape(node.tensor(0), reshape_items(node, exact_dims(node, 0), target))]


@importer("Flatten", since=13)
def flatten(node: NodeContext) -> list[Value]:
    dims = exact_dims(node, 0)
    axis = node.attr("axis", 1)
    if not -len(dims) <= axis <= len(dims):
        node.error(f"axis {axis} is out of range for rank {len(dims)}")
    axis = axis + len(dims) if axis < 0 else axis
    return [fs.reshape(node.tensor(0), [canon.mul(*dims[:axis]), canon.mul(*dims[axis:])])]


@importer("Squeeze", since=13)
def squeeze(node: NodeContext) -> list[Value]:
    dims = exact_dims(node, 0)
    axes = axes_operand(node, len(dims))
    if axes is None:
        axes = [a for a, e in enumerate(dims) if isinstance(e, Const) and e.value == 1]
    return [fs.squeeze(node.tensor(0), axes)]


@importer("Unsqueeze", since=13)
def unsqueeze(node: NodeContext) -> list[Value]:
    dims = exact_dims(node, 0)
    axes = axes_operand(node, len(dims) + len(node.ints(1, "axes")))
    assert axes is not None
    return [fs.expand_dims(node.tensor(0), axes)]


@importer("Concat", since=13)
def concat(node: NodeContext) -> list[Value]:
    tensors = node.tensors()
    return [fs.concatenate(tensors, node.axis(node.attr("axis"), tensors[0].ndim))]


def _split_sizes(node: NodeContext, dims: list[Expr], axis: int) -> list[Expr]:
    """The extents of ``Split``'s outputs along ``axis``."""
    count = len(node.node.output)
    extent = dims[axis]
    if node.has(1):
        split = node.ints(1, "split")
        sizes: list[Expr] = [Const(v) for v in split]
        if len(sizes) != count:
            node.error(f"split gives {len(sizes)} sizes for {count} outputs")
        if isinstance(extent, Const) and sum(split) != extent.value:
            node.error(f"split sizes {[str(s) for s in sizes]} do not sum to {extent}")
        return sizes
    parts = node.attr("num_outputs", count)
    if parts != count:
        node.error(f"num_outputs is {parts} but the node names {count} outputs")
    chunk = canon.ceildiv(extent, count)
    return [chunk] * (count - 1) + [canon.sub(extent, canon.mul(chunk, count - 1))]


@importer("Split", since=13)
def split(node: NodeContext) -> list[Value]:
    x = node.tensor(0)
    axis = node.axis(node.attr("axis", 0), x.ndim)
    dims = exact_dims(node, 0)
    b = IndexBuilder(node.trace, node.where)
    outputs: list[Value] = []
    start: Expr = Const(0)
    for size_ in _split_sizes(node, dims, axis):
        offset, size = (b.of_extent(Exact(e), "Split", "a split size") for e in (start, size_))
        outputs.append(slice_axis(x, axis, offset, size, node.where))
        start = canon.add(start, size_)
    return outputs


def _slices(node: NodeContext, dims: list[Expr]) -> list[tuple[Expr | None, Expr | None, int]]:
    """``Slice``'s ``(start, stop, step)`` per axis of an input of extents
    ``dims``, as numpy reads them (``None`` for a whole axis). A bound at or
    beyond ``±2**62`` (``INT64_MAX`` in exports) means "past that end": ``n``
    or ``-n - 1``, which clamp as ONNX says for either sign of step."""
    starts, ends = node.known(1, "starts").elements, node.known(2, "ends").elements
    axes = axes_operand(node, len(dims), 3) or list(range(len(starts)))
    steps = node.ints(4, "steps") if node.has(4) else [1] * len(starts)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        node.error("starts, ends, axes and steps differ in length")
    items: list[tuple[Expr | None, Expr | None, int]] = [(None, None, 1)] * len(dims)
    for a, start, stop, step in zip(axes, starts, ends, steps, strict=True):
        if step == 0:
            node.error("a step is 0")

        def past(bound: Expr, n: Expr = dims[a]) -> Expr:
            if isinstance(bound, Const) and bound.value >= HUGE:
                return n
            if isinstance(bound, Const) and bound.value <= -HUGE:
                return canon.sub(-1, n)
            return bound

        items[a] = (past(start), past(stop), step)
    return items


@importer("Slice", since=13)
def slice_(node: NodeContext) -> list[Value]:
    items = _slices(node, exact_dims(node, 0))
    return [getitem(node.tensor(0), tuple(slice(*item) for item in items))]


@importer("Expand", since=13)
def expand(node: NodeContext) -> list[Value]:
    target = node.known(1, "shape")
    for i, e in enumerate(target.elements):
        if isinstance(e, Const) and e.value < 0:
            node.error(f"shape element {i} is {e.value}")
    try:
        result = broadcast_shapes(shape_of(node.value(0)), [Exact(e) for e in target.elements])
    except BroadcastError as err:
        node.error(str(err))
    return [fs.broadcast_to(node.tensor(0), list(result.dims))]


def _repeats(node: NodeContext, rank: int) -> list[Expr]:
    """``Tile``'s repeat counts, one extent per axis: constants or extents
    known at import (``[batch, 1, 1]`` from ``Shape``, as torch writes
    ``x.repeat(b, 1, 1)``), each proven non-negative."""
    repeats = list(node.known(1, "repeats").elements)
    if len(repeats) != rank or not all(prove_nonnegative(r) for r in repeats):
        node.error(f"repeats {[str(r) for r in repeats]} must give a non-negative count per "
                   f"axis of rank {rank}")
    return repeats


@importer("Tile", since=13)
def tile(node: NodeContext) -> list[Value]:
    x = node.tensor(0)
    repeats = _repeats(node, x.ndim)
    dims = exact_dims(node, 0)
    interleaved = fs.expand_dims(x, [2 * a for a in range(x.ndim)])
    target: list[Expr] = []
    for r, d in zip(repeats, dims, strict=True):
        target += [r, d]
    spread = fs.broadcast_to(interleaved, target)
    return [fs.reshape(spread, [canon.mul(r, d) for r, d in zip(repeats, dims, strict=True)])]


@importer("Transpose", since=13)
def transpose(node: NodeContext) -> list[Value]:
    rank = len(exact_dims(node, 0))
    perm = node.attr("perm", list(reversed(range(rank))))
    if sorted(perm) != list(range(rank)):
        node.error(f"perm {perm} is not a permutation of {rank} axes")
    return [fs.transpose(node.tensor(0), perm)]


def _range(node: NodeContext) -> tuple[Expr, Expr, int, np.dtype]:
    """``Range``'s start, limit, constant delta and element type."""
    values = [v for v in (Known.of(node.value(i)) for i in range(3))
              if v is not None and v.shape == ()]
    if len(values) < 3:
        node.error("start, limit and delta must be scalars known when the model is imported")
    (start,), (limit,), (delta,) = (v.elements for v in values)
    if not isinstance(delta, Const) or delta.value == 0:
        node.error(f"delta must be a non-zero constant, not {delta}")
    return start, limit, delta.value, values[0].dtype


@importer("Range", since=11)
def range_(node: NodeContext) -> list[Value]:
    start, limit, delta, element = _range(node)
    return [arange(start, limit, delta, as_dtype(element))]


@importer("Trilu", since=14)
def trilu(node: NodeContext) -> list[Value]:
    x = node.tensor(0)
    k: int | Tensor = 0
    if node.has(1):
        known = data(node, 1)
        const = None if known is None else known.constant
        k = int(const.reshape(-1)[0]) if const is not None and const.size == 1 else node.tensor(1)
    if x.ndim < 2:
        node.error(f"the input must have rank 2 or more, not {x.ndim}")
    return [(triu if node.attr("upper", 1) else tril)(x, k)]


def _eye_like(node: NodeContext) -> tuple[list[Expr], int, DType]:
    """``EyeLike``'s matrix extents, diagonal and element type (the input's
    unless ``dtype`` says otherwise)."""
    dims = exact_dims(node, 0)
    if len(dims) != 2:
        node.error(f"the input must have rank 2, not {len(dims)}")
    to = node.attr("dtype")
    dtype = node.dtype(0) if to is None else onnx_dtype(to)
    if dtype is None:
        node.error(f"dtype {onnx_type_name(to)} is not supported")
    return dims, node.attr("k", 0), dtype


@importer("EyeLike", since=9)
def eye_like(node: NodeContext) -> list[Value]:
    """Ones on the ``k``-th diagonal of a matrix shaped like the input (XLNet's
    relative-attention segment matrix)."""
    (rows, columns), k, dtype = _eye_like(node)
    return [eye(rows, columns, k, dtype)]


# -- shape rules (Shape, Size, Constant and Identity: their importers, which build nothing) -

@shape_rule("Dropout", since=13)
def dropout_rule(node: NodeContext) -> list[Value]:
    return [node.value(0), like(node, dtype=BOOL)]


@shape_rule("ConstantOfShape", since=9)
def constant_of_shape_rule(node: NodeContext) -> list[Value]:
    fill = node.attr("value")
    dtype = np.dtype(np.float32) if fill is None else np.asarray(fill).dtype
    return [abstract(Shape([Exact(e) for e in node.known(0, "shape").elements]), dtype)]


@shape_rule("Reshape", since=13)
def reshape_rule(node: NodeContext) -> list[Value]:
    dims = exact_dims(node, 0)
    items = reshape_items(node, dims, node.known(1, "shape"))
    known = [Exact(i if isinstance(i, Expr) else Const(i)) for i in items if i != -1]
    target = [reshape_hole([Exact(d) for d in dims], known) if i == -1 else
              Exact(i if isinstance(i, Expr) else Const(i)) for i in items]
    return [abstract(Shape(target), node.element_type(0))]


@shape_rule("Flatten", since=13)
def flatten_rule(node: NodeContext) -> list[Value]:
    dims = [Exact(d) for d in exact_dims(node, 0)]
    axis = node.attr("axis", 1)
    if not -len(dims) <= axis <= len(dims):
        node.error(f"axis {axis} is out of range for rank {len(dims)}")
    axis = axis + len(dims) if axis < 0 else axis
    return [abstract(Shape([numel(dims[:axis]), numel(dims[axis:])]), node.element_type(0))]


@shape_rule("Squeeze", since=13)
def squeeze_rule(node: NodeContext) -> list[Value]:
    dims = exact_dims(node, 0)
    axes = axes_operand(node, len(dims))
    if axes is None:
        axes = [a for a, e in enumerate(dims) if isinstance(e, Const) and e.value == 1]
    return [abstract(Shape([e for a, e in enumerate(dims) if a not in axes]),
                     node.element_type(0))]


@shape_rule("Unsqueeze", since=13)
def unsqueeze_rule(node: NodeContext) -> list[Value]:
    dims: list[Expr] = list(exact_dims(node, 0))
    axes = axes_operand(node, len(dims) + len(node.ints(1, "axes")))
    assert axes is not None
    for a in sorted(axes):
        dims.insert(a, Const(1))
    return [abstract(Shape(dims), node.element_type(0))]


@shape_rule("Concat", since=13)
def concat_rule(node: NodeContext) -> list[Value]:
    shapes = [node.shape(i) for i in range(node.input_count)]
    axis = node.axis(node.attr("axis"), shapes[0].rank)
    try:
        return [abstract(concat_shape(shapes, axis), node.element_type(0))]
    except AxisConflictError as err:
        node.error(f"axis {err.axis}: {err.reason}")
    except ShapeError:
        node.error("inputs have different ranks")


@shape_rule("Split", since=13)
def split_rule(node: NodeContext) -> list[Value]:
    dims = exact_dims(node, 0)
    axis = node.axis(node.attr("axis", 0), len(dims))
    return [abstract(Shape([*dims[:axis], size_, *dims[axis + 1:]]), node.element_type(0))
            for size_ in _split_sizes(node, dims, axis)]


@shape_rule("Slice", since=13)
def slice_rule(node: NodeContext) -> list[Value]:
    dims = exact_dims(node, 0)
    sizes = [slice_indices(EXTENTS, start, stop, step, n)[1]
             for (start, stop, step), n in zip(_slices(node, dims), dims, strict=True)]
    return [abstract(Shape(sizes), node.element_type(0))]


@shape_rule("Expand", since=13)
def expand_rule(node: NodeContext) -> list[Value]:
    target = node.known(1, "shape")
    try:
        result = broadcast_shapes(node.shape(0), [Exact(e) for e in target.elements])
    except BroadcastError as err:
        node.error(str(err))
    return [abstract(result, node.element_type(0))]


@shape_rule("Tile", since=13)
def tile_rule(node: NodeContext) -> list[Value]:
    dims = exact_dims(node, 0)
    repeats = _repeats(node, len(dims))
    return [abstract(Shape([canon.mul(r, d) for r, d in zip(repeats, dims, strict=True)]),
                     node.element_type(0))]


@shape_rule("Transpose", since=13)
def transpose_rule(node: NodeContext) -> list[Value]:
    shape = node.shape(0)
    perm = node.attr("perm", list(reversed(range(shape.rank))))
    if sorted(perm) != list(range(shape.rank)):
        node.error(f"perm {perm} is not a permutation of {shape.rank} axes")
    return [abstract(Shape([shape[p] for p in perm]), node.element_type(0))]


@shape_rule("Range", since=11)
def range_rule(node: NodeContext) -> list[Value]:
    start, limit, delta, dtype = _range(node)
    return [abstract(Shape([Exact(range_count(EXTENTS, start, limit, delta))]), dtype)]


@shape_rule("EyeLike", since=9)
def eye_like_rule(node: NodeContext) -> list[Value]:
    dims, _, dtype = _eye_like(node)
    return [abstract(Shape(dims), dtype.numpy)]


@shape_rule("Trilu", since=14)
def trilu_rule(node: NodeContext) -> list[Value]:
    return [like(node)]
