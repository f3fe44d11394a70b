"""The Python frontend: write tensor programs with named dynamic axes, trace them to MLIR.

Traced functions run through ``@symshape_mlir.jit`` (:mod:`symshape_mlir.transforms`).

Example:
    >>> import numpy as np
    >>> import symshape_mlir
    >>> from symshape_mlir.frontend import Tensor, f32, relu
    >>> @symshape_mlir.jit
    ... def layer(x: Tensor["batch", 64, f32], w: Tensor[64, 32, f32]):
    ...     return relu(x @ w)
    >>> layer(np.ones((5, 64), np.float32), np.ones((64, 32), np.float32)).shape
    (5, 32)
"""

import sys

# The scatters, which also hold the VJP rules of the gathers (their transposes).
from symshape_mlir.frontend.dtypes import (
    DType,
    bf16,
    bool_,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
    u8,
    u64,
)
from symshape_mlir.frontend.errors import (
    AxisConflictError,
    BroadcastError,
    ContractError,
    FrontendError,
    ShapeError,
)
from symshape_mlir.frontend.ops.conv import conv, pool
from symshape_mlir.frontend.ops.creation import (
    arange,
    array,
    eye,
    full,
    full_like,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from symshape_mlir.frontend.ops.einsum import einsum
from symshape_mlir.frontend.ops.elementwise import (
    add,
    astype,
    clip,
    divide,
    elementwise,
    equal,
    floor_divide,
    greater,
    greater_equal,
    less,
    less_equal,
    maximum,
    minimum,
    multiply,
    not_equal,
    power,
    remainder,
    subtract,
    where,
)
from symshape_mlir.frontend.ops.gather import gather_nd, take, take_along_axis
from symshape_mlir.frontend.ops.indexing import getitem
from symshape_mlir.frontend.ops.joining import split, stack
from symshape_mlir.frontend.ops.linalg import matmul
from symshape_mlir.frontend.ops.logical import (
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
)
from symshape_mlir.frontend.ops.nn import layer_norm, log_softmax, one_hot, softmax
from symshape_mlir.frontend.ops.padding import pad
from symshape_mlir.frontend.ops.reductions import all, any, max, mean, min, prod, sum
from symshape_mlir.frontend.ops.reorder import flip, roll
from symshape_mlir.frontend.ops.repeating import repeat, tile
from symshape_mlir.frontend.ops.scan import cumprod, cumsum
from symshape_mlir.frontend.ops.scatter import put_along_axis, scatter_nd
from symshape_mlir.frontend.ops.shape_ops import (
    broadcast_to,
    concatenate,
    dynamic_truncate,
    expand_dims,
    reshape,
    squeeze,
    swapaxes,
    transpose,
)
from symshape_mlir.frontend.ops.sorting import argsort, sort, topk
from symshape_mlir.frontend.ops.statistics import argmax, argmin, logsumexp, std, var
from symshape_mlir.frontend.ops.unary import (
    abs,
    ceil,
    cos,
    erf,
    exp,
    floor,
    gelu,
    isfinite,
    isinf,
    isnan,
    log,
    negative,
    relu,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sqrt,
    tanh,
)
from symshape_mlir.frontend.tensor import Tensor, TensorSpec, bind_ops
from symshape_mlir.frontend.tracing import TracedFunction, trace, trace_module
from symshape_mlir.frontend.vjp import ADError

#: numpy's other name of ``remainder``.
mod = remainder

__all__ = [
    "ADError",
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
    "all",
    "any",
    "arange",
    "argmax",
    "argmin",
    "argsort",
    "array",
    "astype",
    "bf16",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bool_",
    "broadcast_to",
    "ceil",
    "clip",
    "concatenate",
    "conv",
    "cos",
    "cumprod",
    "cumsum",
    "divide",
    "dynamic_truncate",
    "einsum",
    "elementwise",
    "equal",
    "erf",
    "exp",
    "expand_dims",
    "eye",
    "f16",
    "f32",
    "f64",
    "flip",
    "floor",
    "floor_divide",
    "full",
    "full_like",
    "gather_nd",
    "gelu",
    "getitem",
    "greater",
    "greater_equal",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "invert",
    "isfinite",
    "isinf",
    "isnan",
    "layer_norm",
    "less",
    "less_equal",
    "log",
    "log_softmax",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logsumexp",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "one_hot",
    "ones",
    "ones_like",
    "pad",
    "pool",
    "power",
    "prod",
    "put_along_axis",
    "relu",
    "remainder",
    "repeat",
    "reshape",
    "roll",
    "round",
    "rsqrt",
    "scatter_nd",
    "sigmoid",
    "sign",
    "sin",
    "softmax",
    "sort",
    "split",
    "sqrt",
    "squeeze",
    "stack",
    "std",
    "subtract",
    "sum",
    "swapaxes",
    "take",
    "take_along_axis",
    "tanh",
    "tile",
    "topk",
    "trace",
    "trace_module",
    "transpose",
    "u8",
    "u64",
    "var",
    "where",
    "zeros",
    "zeros_like",
]

bind_ops(sys.modules[__name__])
