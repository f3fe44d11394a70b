"""The Python frontend: write tensor programs with named dynamic axes, trace them to MLIR.

Example:
    >>> import numpy as np
    >>> from symshape_mlir.frontend import Tensor, f32, jit, relu
    >>> @jit
    ... def layer(x: Tensor["batch", 64, f32], w: Tensor[64, 32, f32]):
    ...     return relu(x @ w)
    >>> layer(np.ones((5, 64), np.float32), np.ones((64, 32), np.float32)).shape
    (5, 32)
"""

from symshape_mlir.frontend.dtypes import DType, f16, f32, f64, i1, i32, i64
from symshape_mlir.frontend.errors import (
    AxisConflictError,
    BroadcastError,
    ContractError,
    FrontendError,
    ShapeError,
)
from symshape_mlir.frontend.jit import jit
from symshape_mlir.frontend.ops.conv import conv, pool
from symshape_mlir.frontend.ops.elementwise import (
    abs,
    add,
    astype,
    divide,
    equal,
    exp,
    gelu,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    power,
    relu,
    sigmoid,
    sqrt,
    subtract,
    tanh,
    where,
)
from symshape_mlir.frontend.ops.gather import take
from symshape_mlir.frontend.ops.linalg import matmul
from symshape_mlir.frontend.ops.nn import layer_norm, softmax
from symshape_mlir.frontend.ops.padding import pad
from symshape_mlir.frontend.ops.reductions import max, mean, min, sum
from symshape_mlir.frontend.ops.shape_ops import (
    broadcast_to,
    concatenate,
    dynamic_truncate,
    expand_dims,
    reshape,
    squeeze,
    transpose,
)
from symshape_mlir.frontend.tensor import Tensor, TensorSpec
from symshape_mlir.frontend.tracing import TracedFunction, trace, trace_module

__all__ = [
    "AxisConflictError",
    "BroadcastError",
    "ContractError",
    "DType",
    "FrontendError",
    "ShapeError",
    "Tensor",
    "TensorSpec",
    "TracedFunction",
    "abs",
    "add",
    "astype",
    "broadcast_to",
    "concatenate",
    "conv",
    "divide",
    "dynamic_truncate",
    "equal",
    "exp",
    "expand_dims",
    "f16",
    "f32",
    "f64",
    "gelu",
    "greater",
    "greater_equal",
    "i1",
    "i32",
    "i64",
    "jit",
    "layer_norm",
    "less",
    "less_equal",
    "log",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "multiply",
    "negative",
    "not_equal",
    "pad",
    "pool",
    "power",
    "relu",
    "reshape",
    "sigmoid",
    "softmax",
    "sqrt",
    "squeeze",
    "subtract",
    "sum",
    "take",
    "tanh",
    "trace",
    "trace_module",
    "transpose",
    "where",
]
