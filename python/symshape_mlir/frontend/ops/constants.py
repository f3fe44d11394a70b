"""Constant tensors: ``arith.constant`` with the data inline or as a resource blob.

Small constants are written inline as raw little-endian bytes
(``dense<"0x0000803F"> : tensor<1xf32>``), booleans as a list; constants of
more than :data:`INLINE_LIMIT` elements become ``dense_resource`` blobs kept
in the module's ``dialect_resources`` section, so the IR text stays small.

Example:
    >>> c = constant(trace, np.ones((2, 3), np.float32))    # doctest: +SKIP
    >>> trace.lines[-1]                                      # doctest: +SKIP
    '%k0 = arith.constant dense<"0x0000803F..."> : tensor<2x3xf32> loc(...)'
"""

from __future__ import annotations

import numpy as np

from symshape_mlir.extent.expr import Const
from symshape_mlir.extent.guarantee import Exact
from symshape_mlir.frontend.dtypes import as_dtype
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import FunctionTrace, tensor_type
from symshape_mlir.shapes.shape import Shape

__all__ = ["INLINE_LIMIT", "constant"]

#: Constants with more elements than this are written as resource blobs.
INLINE_LIMIT = 256


def constant(
    trace: FunctionTrace, value: np.ndarray, where: SourceLocation | None = None
) -> Tensor:
    """A constant tensor holding ``value`` in the function being traced.

    Raises:
        FrontendError: an element type the frontend has no type for.
    """
    where = where or user_location()
    array = np.asarray(value)
    try:
        dtype = as_dtype(array.dtype)
    except TypeError:
        raise FrontendError(
            f"constant at {where}: unsupported element type {array.dtype}"
        ) from None
    shape = Shape([Exact(Const(int(n))) for n in array.shape])
    type_ = tensor_type(shape.dims, dtype)
    data = np.ascontiguousarray(array, dtype=dtype.numpy.newbyteorder("<")).reshape(array.shape)
    if array.size == 0:
        literal = "dense<>"
    elif dtype.is_bool:
        literal = f"dense<{_nested(data)}>"
    elif array.size > INLINE_LIMIT:
        resource = f"{trace.name}_k{len(trace.resources)}"
        trace.resources[resource] = data.tobytes()
        literal = f"dense_resource<{resource}>"
    else:
        literal = f'dense<"0x{data.tobytes().hex().upper()}">'
    name = trace.ssa("k")
    trace.emit(f"{name} = arith.constant {literal} : {type_}", where)
    return Tensor(trace, name, shape, dtype)


def _nested(data: np.ndarray) -> str:
    if data.ndim == 0:
        return "true" if data else "false"
    return "[" + ", ".join(_nested(row) for row in data) + "]"
