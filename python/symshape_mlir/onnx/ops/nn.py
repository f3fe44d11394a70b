"""Normalizations and activations over an axis: Softmax, LogSoftmax, LayerNormalization,
BatchNormalization (inference), InstanceNormalization, GroupNormalization.

Example:
    ``LayerNormalization(x: [batch, seq, 768], scale, bias, axis=-1)`` normalizes
    over the last axis with means kept as ``[batch, seq, 1]``.
"""

from __future__ import annotations

import numpy as np

from symshape_mlir.frontend.ops import elementwise as fe
from symshape_mlir.frontend.ops import shape_ops as fs
from symshape_mlir.frontend.ops.nn import softmax as softmax_
from symshape_mlir.frontend.ops.reductions import max as max_
from symshape_mlir.frontend.ops.reductions import mean
from symshape_mlir.frontend.ops.reductions import sum as sum_
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.onnx.context import NodeContext
from symshape_mlir.onnx.ops.abstract import abstract, like
from symshape_mlir.onnx.registry import importer, shape_rule
from symshape_mlir.onnx.values import Value
from symshape_mlir.shapes.rules import reduce_shape

__all__: list[str] = []


@importer("Softmax", "LogSoftmax", since=13)
def softmax(node: NodeContext) -> list[Value]:
    x = node.float_tensor(0)
    axis = node.axis(node.attr("axis", -1), x.ndim)
    if node.node.op_type == "Softmax":
        return [softmax_(x, axis)]
    shifted = fe.subtract(x, max_(x, axis, keepdims=True))
    return [fe.subtract(shifted, fe.log(sum_(fe.exp(shifted), axis, keepdims=True)))]


def _normalize(x: Tensor, axes: list[int], eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``(x - mean) / sqrt(var + eps)`` over ``axes``, with the mean and ``1 / sqrt(var +
    eps)`` kept as size-1 axes."""
    mean_ = mean(x, axes, keepdims=True)
    centered = fe.subtract(x, mean_)
    variance = mean(fe.multiply(centered, centered), axes, keepdims=True)
    inverse = fe.divide(1.0, fe.sqrt(fe.add(variance, eps)))
    return fe.multiply(centered, inverse), mean_, inverse


@importer("LayerNormalization", since=17)
def layer_norm(node: NodeContext) -> list[Value]:
    x = node.float_tensor(0)
    axis = node.axis(node.attr("axis", -1), x.ndim)
    normalized, mean_, inverse = _normalize(x, list(range(axis, x.ndim)),
                                            float(node.attr("epsilon", 1e-5)))
    y = fe.multiply(normalized, node.tensor(1, "scale"))
    if node.has(2):
        y = fe.add(y, node.tensor(2, "bias"))
    return [y, mean_, inverse]


def _per_channel(node: NodeContext, index: int, x: Tensor, what: str) -> Tensor:
    """Input ``index`` (``[C]``) shaped to multiply ``x`` (``[N, C, ...]``) per channel."""
    param = node.tensor(index, what)
    if param.ndim != 1:
        node.error(f"{what} must be 1-D, not of rank {param.ndim}")
    return fs.expand_dims(param, list(range(1, x.ndim - 1)))


@importer("InstanceNormalization", since=6)
def instance_norm(node: NodeContext) -> list[Value]:
    x = node.float_tensor(0)
    if x.ndim < 3:
        node.error(f"the input must have rank 3 or more, not {x.ndim}")
    normalized, _, _ = _normalize(x, list(range(2, x.ndim)), float(node.attr("epsilon", 1e-5)))
    scale, bias = (_per_channel(node, i, x, w) for i, w in ((1, "scale"), (2, "B")))
    return [fe.add(fe.multiply(normalized, scale), bias)]


@importer("GroupNormalization", since=18)
def group_norm(node: NodeContext) -> list[Value]:
    x = node.float_tensor(0)
    if x.ndim < 3:
        node.error(f"the input must have rank 3 or more, not {x.ndim}")
    groups = int(node.attr("num_groups"))
    dims = list(x.shape)
    grouped = fs.reshape(x, [dims[0], groups, -1])
    normalized, _, _ = _normalize(grouped, [2], float(node.attr("epsilon", 1e-5)))
    y = fs.reshape(normalized, dims)
    if node.version >= 21:
        scale, bias = (_per_channel(node, i, x, w) for i, w in ((1, "scale"), (2, "bias")))
    else:
        # Opset 18: one scale and bias per group, spread over its channels.
        per_group = [fs.reshape(node.tensor(i, w), [groups, 1]) for i, w in
                     ((1, "scale"), (2, "bias"))]
        channels = [fs.broadcast_to(p, [groups, dims[1] // groups]) for p in per_group]
        scale, bias = (fs.expand_dims(fs.reshape(c, [dims[1]]), list(range(1, x.ndim - 1)))
                       for c in channels)
    return [fe.add(fe.multiply(y, scale), bias)]


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


# -- shape rules --------------------------------------------------------------------------


@shape_rule("Softmax", "LogSoftmax", since=13)
@shape_rule("BatchNormalization", since=15)
@shape_rule("InstanceNormalization", since=6)
@shape_rule("GroupNormalization", since=18)
def normalized_rule(node: NodeContext) -> list[Value]:
    return [like(node)]


@shape_rule("LayerNormalization", since=17)
def layer_norm_rule(node: NodeContext) -> list[Value]:
    shape = node.shape(0)
    axis = node.axis(node.attr("axis", -1), shape.rank)
    kept = reduce_shape(shape, range(axis, shape.rank), keepdims=True)
    stash = np.dtype(np.float32) if node.attr("stash_type", 1) == 1 else node.element_type(0)
    return [like(node), abstract(kept, stash), abstract(kept, stash)]
