"""Contractions: MatMul (with numpy's 1-D rules) and Gemm.

Example:
    ``MatMul(x: [batch, seq, 64], w: [64, 32])`` is ``[batch, seq, 32]``:
    a ``linalg.generic`` with one reduction loop.
"""

from __future__ import annotations

from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.frontend.ops import elementwise as fe
from symshape_mlir.frontend.ops import shape_ops as fs
from symshape_mlir.frontend.ops.einsum import einsum as einsum_
from symshape_mlir.frontend.ops.linalg import matmul as matmul_
from symshape_mlir.onnx.context import NodeContext
from symshape_mlir.onnx.ops.abstract import abstract
from symshape_mlir.onnx.registry import importer, shape_rule
from symshape_mlir.onnx.values import Value
from symshape_mlir.shapes.errors import ShapeError
from symshape_mlir.shapes.rules import matmul_shape
from symshape_mlir.shapes.shape import Shape

__all__: list[str] = []


@importer("MatMul", since=13)
def matmul(node: NodeContext) -> list[Value]:
    a, b = node.tensors()
    if a.ndim == 0 or b.ndim == 0:
        node.error("inputs must have rank 1 or more")
    if a.dtype.is_bool or a.dtype != b.dtype:
        node.error(f"element types {a.dtype} and {b.dtype} are not supported together")
    squeeze: list[int] = []
    if a.ndim == 1:
        a = fs.expand_dims(a, 0)
        squeeze.append(-2)
    if b.ndim == 1:
        b = fs.expand_dims(b, 1)
        squeeze.append(-1)
    result = matmul_(a, b)
    if squeeze:
        result = fs.squeeze(result, [result.ndim + s for s in squeeze])
    return [result]


@importer("Einsum", since=12)
def einsum(node: NodeContext) -> list[Value]:
    equation = node.attr("equation")
    if not isinstance(equation, str):
        node.error("the equation attribute is required")
    return [einsum_(equation.replace(" ", ""), *node.tensors())]


@importer("Gemm", since=13)
def gemm(node: NodeContext) -> list[Value]:
    a, b = node.tensor(0), node.tensor(1)
    if a.ndim != 2 or b.ndim != 2:
        node.error(f"A and B must be matrices, not of rank {a.ndim} and {b.ndim}")
    if node.attr("transA", 0):
        a = fs.transpose(a)
    if node.attr("transB", 0):
        b = fs.transpose(b)
    y = matmul_(a, b)
    alpha, beta = float(node.attr("alpha", 1.0)), float(node.attr("beta", 1.0))
    if alpha != 1.0:
        y = fe.multiply(y, alpha if a.dtype.is_float else int(alpha))
    if node.has(2):
        c = node.tensor(2)
        if beta != 1.0:
            c = fe.multiply(c, beta if c.dtype.is_float else int(beta))
        y = fe.add(y, c)
    return [y]


# -- shape rules --------------------------------------------------------------------------


@shape_rule("MatMul", since=13)
def matmul_rule(node: NodeContext) -> list[Value]:
    a, b = node.shape(0), node.shape(1)
    if a.rank == 0 or b.rank == 0:
        node.error("inputs must have rank 1 or more")
    if b.rank == 2 and a.rank >= 2 and a[-1] == b[0] and a[-1].is_exact:
        # activations times a weight: nothing to broadcast or check
        return [abstract(Shape((*a.dims[:-1], b[1])), node.element_type(0))]
    lhs = Shape([Exact(1), *a]) if a.rank == 1 else a
    rhs = Shape([*b, Exact(1)]) if b.rank == 1 else b
    try:
        shape = matmul_shape(lhs, rhs)
    except ShapeError as err:
        node.error(str(err))
    dims = list(shape)
    if b.rank == 1:
        dims.pop(-1)
    if a.rank == 1:
        dims.pop(-2 if b.rank != 1 else -1)
    return [abstract(Shape(dims), node.element_type(0))]


@shape_rule("Gemm", since=13)
def gemm_rule(node: NodeContext) -> list[Value]:
    a, b = node.shape(0), node.shape(1)
    if a.rank != 2 or b.rank != 2:
        node.error(f"A and B must be matrices, not of rank {a.rank} and {b.rank}")
    rows = a[1] if node.attr("transA", 0) else a[0]
    columns = b[0] if node.attr("transB", 0) else b[1]
    return [abstract(Shape([rows, columns]), node.element_type(0))]


@shape_rule("Einsum", since=12)
def einsum_rule(node: NodeContext) -> list[Value]:
    inputs, _, output = node.attr("equation").replace(" ", "").partition("->")
    shapes = [node.shape(i) for i in range(node.input_count)]
    extents: dict[str, ShapeExtent] = {}
    for names, shape in zip(inputs.split(","), shapes, strict=True):
        if "." in names:
            node.error("an ellipsis in the equation is not supported by the shape rule")
        extents.update(zip(names, shape, strict=True))
    if not _:
        counts = {c: inputs.count(c) for c in extents}
        output = "".join(sorted(c for c, n in counts.items() if n == 1))
    return [abstract(Shape([extents[c] for c in output]), node.element_type(0))]
