"""Selections: ``ArgMax``, ``ArgMin``, ``TopK``, ``Hardmax``, ``OneHot``, ``NonZero``.

Each goes through the frontend's ops (``argmax``, ``topk``, ``one_hot``, a
boolean mask), moving the axis an op works on to where the frontend op
expects it. ``NonZero``'s count is data dependent: an exact fresh symbol, the
number of entries a mask keeps (never a guess).

Example:
    ``TopK(x: [batch, seq, 50], k=5, axis=-1)`` is ``[batch, seq, 5]`` values and
    ``i64`` indices, the largest first.
"""

from __future__ import annotations

import numpy as np

from symshape_mlir.extent.expr import Const, Expr
from symshape_mlir.extent.guarantee import Exact
from symshape_mlir.frontend.dtypes import DType, i64
from symshape_mlir.frontend.ops import elementwise as fe
from symshape_mlir.frontend.ops import shape_ops as fs
from symshape_mlir.frontend.ops import unary as fu
from symshape_mlir.frontend.ops.creation import arange
from symshape_mlir.frontend.ops.generic import Body
from symshape_mlir.frontend.ops.joining import stack
from symshape_mlir.frontend.ops.masks import compress
from symshape_mlir.frontend.ops.reorder import flip
from symshape_mlir.frontend.ops.sorting import topk
from symshape_mlir.frontend.ops.statistics import argmax, argmin
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.onnx.context import NodeContext
from symshape_mlir.onnx.ops.abstract import abstract, like
from symshape_mlir.onnx.ops.data import data
from symshape_mlir.onnx.registry import importer, shape_rule
from symshape_mlir.onnx.values import Known, Value
from symshape_mlir.shapes.reshape import numel
from symshape_mlir.shapes.rules import reduce_shape
from symshape_mlir.shapes.shape import Shape

__all__: list[str] = []


def _to_last(x: Tensor, axis: int) -> tuple[Tensor, list[int] | None]:
    """``x`` with ``axis`` moved last, and the permutation that moves it back."""
    if axis == x.ndim - 1:
        return x, None
    perm = [a for a in range(x.ndim) if a != axis] + [axis]
    back = [perm.index(a) for a in range(x.ndim)]
    return fs.transpose(x, perm), back


def _back(x: Tensor, perm: list[int] | None) -> Tensor:
    return x if perm is None else fs.transpose(x, perm)


@importer("ArgMax", "ArgMin", since=13)
def arg(node: NodeContext) -> list[Value]:
    x = node.tensor(0)
    if x.dtype.is_bool:
        node.error("element type i1 is not supported")
    axis = node.axis(node.attr("axis", 0), x.ndim)
    keepdims = bool(node.attr("keepdims", 1))
    fn = argmax if node.node.op_type == "ArgMax" else argmin
    if not node.attr("select_last_index", 0):
        return [fn(x, axis, keepdims=keepdims)]
    # The last of equal entries: the first in the axis reversed, counted from the end.
    first = fn(flip(x, axis), axis, keepdims=keepdims)
    extent = node.graph.as_tensor(_scalar(x.shape[axis].expr), node.where)
    return [fe.subtract(fe.subtract(extent, 1), first)]


def _scalar(e: Expr | None) -> Known:
    assert e is not None
    return Known((), (e,), np.dtype(np.int64))


@importer("TopK", since=11)
def top_k(node: NodeContext) -> list[Value]:
    x = node.tensor(0)
    if x.dtype.is_bool:
        node.error("element type i1 is not supported")
    axis = node.axis(node.attr("axis", -1), x.ndim)
    known = data(node, 1)
    k: int | Expr | Tensor
    if known is not None and len(known.elements) == 1:
        element = known.elements[0]
        k = element.value if isinstance(element, Const) else element
    else:
        k = fs.reshape(node.tensor(1, "K"), [])
    moved, back = _to_last(x, axis)
    largest = bool(node.attr("largest", 1))
    values, indices = topk(moved if largest else fu.negative(moved), k)
    if not largest:
        values = fu.negative(values)
    return [_back(values, back), _back(indices, back)]


@importer("Hardmax", since=13)
def hardmax(node: NodeContext) -> list[Value]:
    x = node.float_tensor(0)
    axis = node.axis(node.attr("axis", -1), x.ndim)
    best = argmax(x, axis, keepdims=True)
    positions = fs.reshape(arange(x.shape[axis]), [
        x.shape[axis] if a == axis else 1 for a in range(x.ndim)])
    return [fe.astype(fe.equal(best, positions), x.dtype)]


@importer("OneHot", since=11)
def one_hot(node: NodeContext) -> list[Value]:
    indices = node.tensor(0, "indices")
    depth_data = data(node, 1)
    depth: Expr | Tensor
    if depth_data is not None and len(depth_data.elements) == 1:
        depth = depth_data.elements[0]
    else:
        depth = fe.astype(fs.reshape(node.tensor(1, "depth"), []), i64)
    values = node.tensor(2, "values")
    if values.ndim != 1:
        node.error(f"values must be [off, on], not of shape {values.symbolic_shape}")
    axis = node.axis(node.attr("axis", -1), indices.ndim + 1)
    wide = fe.astype(indices, i64) if indices.dtype != i64 else indices
    count = depth if isinstance(depth, Tensor) else node.graph.as_tensor(
        _scalar(depth), node.where)
    wrapped = fe.where(fe.less(wide, 0), fe.add(wide, count), wide)
    classes = arange(depth)
    hot = fe.equal(fs.expand_dims(wrapped, -1), classes)
    off, on = fs.reshape(values[0:1], []), fs.reshape(values[1:2], [])
    result = fe.where(hot, on, off)
    if axis != indices.ndim:
        perm = [*range(axis), indices.ndim, *range(axis, indices.ndim)]
        result = fs.transpose(result, perm)
    return [result]


@importer("NonZero", since=13)
def nonzero(node: NodeContext) -> list[Value]:
    x = node.tensor(0)
    if x.ndim == 0:
        node.error("a 0-d input is not supported")
    mask = fe.not_equal(x, False if x.dtype.is_bool else 0)
    coordinates = [
        fs.broadcast_to(fs.reshape(arange(x.shape[a]), [
            x.shape[a] if b == a else 1 for b in range(x.ndim)]), list(x.shape))
        for a in range(x.ndim)
    ]
    kept = compress(stack(coordinates, axis=-1), mask, node.where)  # [count, rank]
    return [fs.transpose(fe.astype(kept, i64) if kept.dtype != i64 else kept, [1, 0])]


@importer("BitShift", since=11)
def bit_shift(node: NodeContext) -> list[Value]:
    x, y = node.tensors()
    if x.dtype.is_float or x.dtype.is_bool or x.dtype != y.dtype:
        node.error(f"inputs must be one integer type, not {x.dtype} and {y.dtype}")
    direction = node.attr("direction")
    if direction not in ("LEFT", "RIGHT"):
        node.error(f"direction {direction!r} is not LEFT or RIGHT")
    signed = not x.dtype.is_unsigned
    op = "arith.shli" if direction == "LEFT" else "arith.shrsi" if signed else "arith.shrui"

    def body(block: Body, values: list[str], dtype: DType) -> str:
        t = dtype.mlir
        value, amount = values
        # A shift by a negative amount or by the width or more: 0, or for a
        # right shift of a negative signed value, -1 (the onnx reference).
        inside = block.op(f"arith.cmpi ult, {amount}, {block.const(dtype, dtype.bits)}", t)
        shifted = block.op(f"{op} {value}, {amount}", t)
        outside = block.const(dtype, 0)
        if signed and direction == "RIGHT":
            outside = block.op(f"arith.shrsi {value}, {block.const(dtype, dtype.bits - 1)}", t)
        return block.op(f"arith.select {inside}, {shifted}, {outside}", t)

    return [fe.elementwise("BitShift", [x, y], body, node.where)]


# -- shape rules --------------------------------------------------------------------------


@shape_rule("ArgMax", "ArgMin", since=13)
def arg_rule(node: NodeContext) -> list[Value]:
    shape = node.shape(0)
    axis = node.axis(node.attr("axis", 0), shape.rank)
    return [abstract(reduce_shape(shape, [axis], keepdims=bool(node.attr("keepdims", 1))),
                     np.dtype(np.int64))]


@shape_rule("TopK", since=11)
def top_k_rule(node: NodeContext) -> list[Value]:
    shape = node.shape(0)
    axis = node.axis(node.attr("axis", -1), shape.rank)
    (k,) = node.known(1, "K").elements
    dims = [Exact(k) if a == axis else e for a, e in enumerate(shape)]
    return [abstract(Shape(dims), node.element_type(0)), abstract(Shape(dims), np.dtype(np.int64))]


@shape_rule("Hardmax", since=13)
@shape_rule("BitShift", since=11)
def same_rule(node: NodeContext) -> list[Value]:
    return [like(node)]


@shape_rule("OneHot", since=11)
def one_hot_rule(node: NodeContext) -> list[Value]:
    shape = node.shape(0)
    (depth,) = node.known(1, "depth").elements
    axis = node.axis(node.attr("axis", -1), shape.rank + 1)
    dims = list(shape)
    dims.insert(axis, Exact(depth))
    return [abstract(Shape(dims), node.element_type(2))]


@shape_rule("NonZero", since=13)
def nonzero_rule(node: NodeContext) -> list[Value]:
    shape = node.shape(0)
    assert node.graph.fresh is not None
    size = numel(shape.dims).expr
    assert size is not None
    count = node.graph.fresh(Const(0), size)
    return [abstract(Shape([Exact(Const(shape.rank)), Exact(count)]), np.dtype(np.int64))]
