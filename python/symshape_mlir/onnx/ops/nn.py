"""Normalizations and activations over an axis: Softmax, LogSoftmax, LayerNormalization,
BatchNormalization (inference), InstanceNormalization, GroupNormalization.

Half-precision inputs (``f16``, ``bf16``) are normalized in ``f32`` and cast
back, as ``LayerNormalization``'s ``stash_type`` asks, and as IREE 3.13's CPU
backend needs: a fused ``f16`` max reduction with ``exp`` links against an
``fmaxf`` it does not have ("failed to link executable").

Example:
    ``LayerNormalization(x: [batch, seq, 768], scale, bias, axis=-1)`` normalizes
    over the last axis with means kept as ``[batch, seq, 1]``.
"""

from __future__ import annotations

import numpy as np

from symshape_mlir.frontend.dtypes import bf16, f16, f32
from symshape_mlir.frontend.ops import elementwise as fe
from symshape_mlir.frontend.ops import shape_ops as fs
from symshape_mlir.frontend.ops import unary as fu
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


def _wide(x: Tensor) -> Tensor:
    """``x`` in ``f32`` when it is a half-precision tensor."""
    return fe.astype(x, f32) if x.dtype in (f16, bf16) else x


@importer("Softmax", "LogSoftmax", since=13)
def softmax(node: NodeContext) -> list[Value]:
    x = node.float_tensor(0)
    axis = node.axis(node.attr("axis", -1), x.ndim)
    wide = _wide(x)
    if node.node.op_type == "Softmax":
        result = softmax_(wide, axis)
    else:
        shifted = fe.subtract(wide, max_(wide, axis, keepdims=True))
        result = fe.subtract(shifted, fu.log(sum_(fu.exp(shifted), axis, keepdims=True)))
    return [fe.astype(result, x.dtype) if result.dtype != x.dtype else result]


def _normalize(x: Tensor, axes: list[int], eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``(x - mean) / sqrt(var + eps)`` over ``axes`` (in ``f32`` for half precision, cast
    back), with the mean and ``1 / sqrt(var + eps)`` kept as size-1 axes (in ``f32`` then)."""
    dtype, x = x.dtype, _wide(x)
    mean_ = mean(x, axes, keepdims=True)
    centered = fe.subtract(x, mean_)
    variance = mean(fe.multiply(centered, centered), axes, keepdims=True)
    inverse = fe.divide(1.0, fu.sqrt(fe.add(variance, eps)))
    normalized = fe.multiply(centered, inverse)
    return (fe.astype(normalized, dtype) if normalized.dtype != dtype else normalized,
            mean_, inverse)


@importer("LayerNormalization", since=17)
def layer_norm(node: NodeContext) -> list[Value]:
    x = node.float_tensor(0)
    axis = node.axis(node.attr("axis", -1), x.ndim)
    normalized, mean_, inverse = _normalize(x, list(range(axis, x.ndim)),
                                            float(node.attr("epsilon", 1e-5)))
    # torch's half-precision exports give a float input f16 scales: X's type wins.
    y = fe.multiply(normalized, _as(node.tensor(1, "scale"), x))
    if node.has(2):
        y = fe.add(y, _as(node.tensor(2, "bias"), x))
    return [y, mean_, inverse]


def _as(param: Tensor, x: Tensor) -> Tensor:
    return param if param.dtype == x.dtype else fe.astype(param, x.dtype)


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
    normalized = fe.divide(fe.subtract(x, mean_), fu.sqrt(fe.add(var, eps)))
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
