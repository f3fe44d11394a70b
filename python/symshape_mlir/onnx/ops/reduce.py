"""Reductions: ``Reduce*`` with axes as an attribute or an input, and ``keepdims``; ``CumSum``.

Example:
    ``ReduceMean(x: [batch, seq, 64], axes=[-1])`` is ``[batch, seq, 1]``:
    a ``linalg.generic`` sum over ``d2`` divided by the run-time extent.
"""

from __future__ import annotations

from symshape_mlir.frontend.ops import elementwise as fe
from symshape_mlir.frontend.ops import unary as fu
from symshape_mlir.frontend.ops.reductions import mean, reduce
from symshape_mlir.frontend.ops.scan import scan
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.onnx.context import NodeContext
from symshape_mlir.onnx.ops.abstract import abstract, like
from symshape_mlir.onnx.registry import importer, shape_rule
from symshape_mlir.onnx.values import Value
from symshape_mlir.shapes.rules import reduce_shape

__all__: list[str] = []


def _square(x: Tensor) -> Tensor:
    return fe.multiply(x, x)


#: op: (value reduced, reduction, result from the reduction)
_PLANS = {
    "ReduceSum": (None, "sum", None),
    "ReduceMax": (None, "max", None),
    "ReduceMin": (None, "min", None),
    "ReduceProd": (None, "prod", None),
    "ReduceL1": (fu.abs, "sum", None),
    "ReduceL2": (_square, "sum", fu.sqrt),
    "ReduceSumSquare": (_square, "sum", None),
    "ReduceLogSum": (None, "sum", fu.log),
    "ReduceLogSumExp": (fu.exp, "sum", fu.log),
}


def _axes(node: NodeContext, rank: int) -> list[int] | None:
    """The reduced axes, sorted (every axis when none is given); ``None`` for a no-op."""
    if node.has_attr("axes"):
        axes = list(node.attr("axes"))
    elif node.has(1):
        axes = node.ints(1, "axes")
    else:
        axes = []
    if not axes:
        if node.attr("noop_with_empty_axes", 0):
            return None
        axes = list(range(rank))
    return sorted({node.axis(a, rank) for a in axes})


@importer("ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
          "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp", "ReduceMean", since=13)
def reduction(node: NodeContext) -> list[Value]:
    x = node.tensor(0)
    keepdims = bool(node.attr("keepdims", 1))
    reduced = _axes(node, x.ndim)
    if reduced is None:
        return [x]
    axes = reduced
    op = node.node.op_type
    if x.dtype.is_bool:
        node.error("element type i1 is not supported")
    if op == "ReduceMean":
        x = node.float_tensor(0)
        return [mean(x, axes, keepdims=keepdims)]
    before, kind, after = _PLANS[op]
    needs_float = (before is not None and before is not fu.abs) or after is not None
    if needs_float:
        x = node.float_tensor(0)
    value = before(x) if before is not None else x
    result = reduce(kind, value, axes, keepdims=keepdims, where=node.where)
    return [after(result) if after is not None else result]


@importer("CumSum", since=14)
def cumsum(node: NodeContext) -> list[Value]:
    x = node.tensor(0)
    if x.dtype.is_bool:
        node.error("element type i1 is not supported")
    (axis,) = node.ints(1, "axis")
    return [scan("sum", x, node.axis(axis, x.ndim), exclusive=bool(node.attr("exclusive", 0)),
                 reverse=bool(node.attr("reverse", 0)), where=node.where)]


# -- shape rules --------------------------------------------------------------------------


@shape_rule("ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
            "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp", "ReduceMean", since=13)
def reduction_rule(node: NodeContext) -> list[Value]:
    shape = node.shape(0)
    axes = _axes(node, shape.rank)
    if axes is None:
        return [like(node)]
    return [abstract(reduce_shape(shape, axes, keepdims=bool(node.attr("keepdims", 1))),
                     node.element_type(0))]


@shape_rule("CumSum", since=14)
def cumsum_rule(node: NodeContext) -> list[Value]:
    return [like(node)]
