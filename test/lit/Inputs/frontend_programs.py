"""Programs traced by frontend_trace.mlir (one function per RUN line)."""

import symshape_mlir.frontend as fe
from symshape_mlir.frontend import Tensor, f32, i64


def bias_relu(x: Tensor["batch", 8, f32], b: Tensor[8, f32]):  # noqa: F821
    return fe.relu(x + b)


def runtime_broadcast(x: Tensor["batch", 8, f32], y: Tensor["?", 8, f32]):  # noqa: F821
    return x * y


def named_apart(x: Tensor["batch", 8, f32], y: Tensor["seq", 8, f32]):  # noqa: F821
    return x * y


def flatten(x: Tensor["batch", "seq", 4, f32]):  # noqa: F821
    b, s, _ = x.shape
    return x.reshape(b * s, 4), x.reshape(2, -1)


def row_sum(x: Tensor["batch", "seq", f32]):  # noqa: F821
    return x.sum(axis=-1, keepdims=True)


def project(x: Tensor["batch", 8, f32], w: Tensor[8, 4, f32]):  # noqa: F821
    return x @ w


def truncate(x: Tensor["batch", 8, f32], n: Tensor[i64]):  # noqa: F821
    return fe.dynamic_truncate(x, n, axis=0)


def bad_reshape(x: Tensor["batch", 8, f32], n: Tensor[i64]):  # noqa: F821
    return fe.dynamic_truncate(x, n, axis=0).reshape(-1)
