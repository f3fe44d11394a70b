"""Neural-network building blocks composed from the traced ops.

Example:
    >>> def attention(q, k, v):                     # [batch, seq, d] each
    ...     scores = q @ k.transpose(0, 2, 1) / 8.0
    ...     return softmax(scores, axis=-1) @ v
"""

from __future__ import annotations

from typing import Any

from symshape_mlir.frontend.dtypes import f32
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.ops.creation import arange
from symshape_mlir.frontend.ops.elementwise import astype, equal
from symshape_mlir.frontend.ops.reductions import max as max_
from symshape_mlir.frontend.ops.reductions import mean
from symshape_mlir.frontend.ops.reductions import sum as sum_
from symshape_mlir.frontend.ops.shape_ops import expand_dims
from symshape_mlir.frontend.ops.statistics import logsumexp
from symshape_mlir.frontend.ops.unary import exp, sqrt
from symshape_mlir.frontend.source import user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.vjp import Cotangents, Node, primitive, vjp_rule

__all__ = ["layer_norm", "log_softmax", "one_hot", "softmax"]


@primitive("softmax")
def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``."""
    shifted = exp(x - max_(x, axis, keepdims=True))
    return shifted / sum_(shifted, axis, keepdims=True)


@primitive("log_softmax")
def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``x - logsumexp(x)`` along ``axis`` (``jax.nn.log_softmax``)."""
    return x - logsumexp(x, axis, keepdims=True)


@primitive("layer_norm")
def layer_norm(x: Tensor, axis: int = -1, eps: float = 1e-5) -> Tensor:
    """``(x - mean) / sqrt(var + eps)`` along ``axis`` (no scale or shift)."""
    centered = x - mean(x, axis, keepdims=True)
    variance = mean(centered * centered, axis, keepdims=True)
    return centered / sqrt(variance + eps)


@primitive("one_hot")
def one_hot(x: Tensor, num_classes: Any, dtype: Any = f32) -> Tensor:
    """``jax.nn.one_hot``: ``x[..., None] == arange(num_classes)`` as ``dtype``
    (``f32`` by default); an index out of range gives a row of zeros.

    ``num_classes`` is an ``int``, an extent or a run-time integer.
    """
    where = user_location()
    if not isinstance(x, Tensor) or not x.dtype.is_integer:
        raise FrontendError(f"one_hot at {where}: expects a traced integer tensor, not {x!r}")
    if isinstance(num_classes, int) and num_classes < 0:
        raise FrontendError(f"one_hot at {where}: num_classes must be >= 0, not {num_classes}")
    classes = arange(num_classes)
    return astype(equal(expand_dims(x, -1), classes), dtype, where)


# -- VJP rules -------------------------------------------------------------------------


@vjp_rule("softmax")
def _softmax_vjp(node: Node, ct: Tensor) -> Cotangents:
    s, axis = node.out, node.args["axis"]
    return {"x": s * (ct - sum_(ct * s, axis, keepdims=True))}


@vjp_rule("log_softmax")
def _log_softmax_vjp(node: Node, ct: Tensor) -> Cotangents:
    axis = node.args["axis"]
    return {"x": ct - exp(node.out) * sum_(ct, axis, keepdims=True)}


@vjp_rule("layer_norm")
def _layer_norm_vjp(node: Node, ct: Tensor) -> Cotangents:
    # y = (x - m) / s: dx = (ct - mean(ct) - y mean(ct y)) / s
    x, axis, eps = node.args["x"], node.args["axis"], node.args["eps"]
    y = node.out
    centered = x - mean(x, axis, keepdims=True)
    scale = sqrt(mean(centered * centered, axis, keepdims=True) + eps)
    inner = ct - mean(ct, axis, keepdims=True) - y * mean(ct * y, axis, keepdims=True)
    return {"x": inner / scale}
