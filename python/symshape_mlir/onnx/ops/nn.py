"""Normalizations and activations over an axis: Softmax, LogSoftmax, LayerNormalization,
BatchNormalization (inference).

Example:
    ``LayerNormalization(x: [batch, seq, 768], scale, bias, axis=-1)`` normalizes
    over the last axis with means kept as ``[batch, seq, 1]``.
"""

from __future__ import annotations

from symshape_mlir.frontend.ops import elementwise as fe
from symshape_mlir.frontend.ops import shape_ops as fs
from symshape_mlir.frontend.ops.nn import softmax as softmax_
from symshape_mlir.frontend.ops.reductions import max as max_
from symshape_mlir.frontend.ops.reductions import mean
from symshape_mlir.frontend.ops.reductions import sum as sum_
from symshape_mlir.onnx.context import NodeContext
from symshape_mlir.onnx.registry import importer
from symshape_mlir.onnx.values import Value

__all__: list[str] = []


@importer("Softmax", "LogSoftmax", since=13)
def softmax(node: NodeContext) -> list[Value]:
    x = node.float_tensor(0)
    axis = node.axis(node.attr("axis", -1), x.ndim)
    if node.node.op_type == "Softmax":
        return [softmax_(x, axis)]
    shifted = fe.subtract(x, max_(x, axis, keepdims=True))
    return [fe.subtract(shifted, fe.log(sum_(fe.exp(shifted), axis, keepdims=True)))]


@importer("LayerNormalization", since=17)
def layer_norm(node: NodeContext) -> list[Value]:
    x = node.float_tensor(0)
    axis = node.axis(node.attr("axis", -1), x.ndim)
    axes = list(range(axis, x.ndim))
    mean_ = mean(x, axes, keepdims=True)
    centered = fe.subtract(x, mean_)
    variance = mean(fe.multiply(centered, centered), axes, keepdims=True)
    inverse = fe.divide(1.0, fe.sqrt(fe.add(variance, float(node.attr("epsilon", 1e-5)))))
    y = fe.multiply(fe.multiply(centered, inverse), node.tensor(1, "scale"))
    if node.has(2):
        y = fe.add(y, node.tensor(2, "bias"))
    return [y, mean_, inverse]


@importer("BatchNormalization", since=15)
def batch_norm(node: NodeContext) -> list[Value]:
    if node.attr("training_mode", 0):
        node.error("training mode is not supported")
    x = node.float_tensor(0)
    if x.ndim < 2:
        node.error(f"the input must have rank 2 or more, not {x.ndim}")
    params = [node.tensor(i) for i in range(1, 5)]
    channel = [fs.expand_dims(p, list(range(1, x.ndim - 1))) for p in params]
    scale, bias, mean_, var = channel
    eps = float(node.attr("epsilon", 1e-5))
    normalized = fe.divide(fe.subtract(x, mean_), fe.sqrt(fe.add(var, eps)))
    return [fe.add(fe.multiply(normalized, scale), bias)]
