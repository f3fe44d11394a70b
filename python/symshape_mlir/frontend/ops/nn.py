"""Neural-network building blocks composed from the traced ops.

Example:
    >>> def attention(q, k, v):                     # [batch, seq, d] each
    ...     scores = q @ k.transpose(0, 2, 1) / 8.0
    ...     return softmax(scores, axis=-1) @ v
"""

from __future__ import annotations

from symshape_mlir.frontend.ops.elementwise import exp, sqrt
from symshape_mlir.frontend.ops.reductions import max as max_
from symshape_mlir.frontend.ops.reductions import mean
from symshape_mlir.frontend.ops.reductions import sum as sum_
from symshape_mlir.frontend.tensor import Tensor

__all__ = ["layer_norm", "softmax"]


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``."""
    shifted = exp(x - max_(x, axis, keepdims=True))
    return shifted / sum_(shifted, axis, keepdims=True)


def layer_norm(x: Tensor, axis: int = -1, eps: float = 1e-5) -> Tensor:
    """``(x - mean) / sqrt(var + eps)`` along ``axis`` (no scale or shift)."""
    centered = x - mean(x, axis, keepdims=True)
    variance = mean(centered * centered, axis, keepdims=True)
    return centered / sqrt(variance + eps)
