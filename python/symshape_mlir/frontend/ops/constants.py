"""Constant tensors: ``arith.constant`` with the data inline or as a resource blob.

Small constants are written inline as raw little-endian bytes
(``dense<"0x0000803F"> : tensor<1xf32>``), booleans as a list; constants of
more than :data:`INLINE_LIMIT` elements become ``dense_resource`` blobs: the
module wraps their arrays as they are (`trace_module`), and only its text form
(`module_text`) writes them in a ``dialect_resources`` section.

A boolean constant of more than :data:`BOOL_LIST_LIMIT` elements that is not
a splat is an ``i32`` constant compared with zero (a ``linalg.generic``, which
no canonicalization folds back): MLIR 22 prints such ``i1`` constants as hex
of packed bits, and IREE 3.13 reads ``i1`` hex as one byte per element
("elements hex data size is invalid").

Example:
    >>> c = constant(trace, np.ones((2, 3), np.float32))    # doctest: +SKIP
    >>> trace.lines[-1]                                      # doctest: +SKIP
    '%k0 = arith.constant dense<"0x0000803F..."> : tensor<2x3xf32> loc(...)'
"""

from __future__ import annotations

import numpy as np

from symshape_mlir.extent.expr import Const
from symshape_mlir.extent.guarantee import Exact
from symshape_mlir.frontend.dtypes import as_dtype, i1
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_generic
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import FunctionTrace, tensor_type
from symshape_mlir.frontend.vjp import primitive
from symshape_mlir.shapes.shape import Shape

__all__ = ["BLOB_ALIGNMENT", "BOOL_LIST_LIMIT", "INLINE_LIMIT", "aligned_copy", "constant"]

#: Constants with more elements than this are written as resource blobs.
INLINE_LIMIT = 256
#: MLIR prints elements attributes with more elements than this as hex.
BOOL_LIST_LIMIT = 100


@primitive("constant")
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
    if dtype.is_bool and array.size > BOOL_LIST_LIMIT and array.any() and not array.all():
        return _nonzero(constant(trace, array.astype(np.int32), where), where)
    shape = Shape([Exact(Const(int(n))) for n in array.shape])
    type_ = tensor_type(shape.dims, dtype)
    # ascontiguousarray makes a 0-d array 1-d: keep the shape.
    data = np.ascontiguousarray(array, dtype=dtype.numpy.newbyteorder("<")).reshape(array.shape)
    if array.size == 0:
        literal = "dense<>"
    elif dtype.is_bool:
        literal = f"dense<{_nested(data)}>"
    elif array.size > INLINE_LIMIT:
        resource = f"{trace.name}_k{len(trace.resources)}"
        trace.resources[resource] = data if _immutable(data) else aligned_copy(data)
        literal = f"dense_resource<{resource}>"
    else:
        literal = f'dense<"0x{data.tobytes().hex().upper()}">'
    name = trace.ssa("k")
    trace.emit(f"{name} = arith.constant {literal} : {type_}", where)
    return Tensor(trace, name, shape, dtype)


#: The alignment of a constant's blob: what MLIR's printer writes for it, and
#: what ``DenseResourceElementsAttr`` needs of the buffer it wraps.
BLOB_ALIGNMENT = 16


def aligned_copy(data: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of ``data`` whose first byte is ``BLOB_ALIGNMENT``-aligned
    (the module wraps it without copying; the caller's array may change later)."""
    raw = np.empty(data.nbytes + BLOB_ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % BLOB_ALIGNMENT
    copy = raw[start:start + data.nbytes].view(data.dtype).reshape(data.shape)
    copy[...] = data
    return copy


def _immutable(data: np.ndarray) -> bool:
    """Whether no one can change ``data`` and the module may wrap it as it is: a
    read-only, ``BLOB_ALIGNMENT``-aligned, C-contiguous view of ``bytes`` (as the
    ONNX importer reads a large initializer)."""
    root: object = data
    while isinstance(root, np.ndarray):
        if root.flags.writeable:
            return False
        root = root.base
    return (isinstance(root, bytes) and data.flags.c_contiguous
            and data.ctypes.data % BLOB_ALIGNMENT == 0)


def _nested(data: np.ndarray) -> str:
    if data.ndim == 0:
        return "true" if data else "false"
    return "[" + ", ".join(_nested(row) for row in data) + "]"


def _nonzero(x: Tensor, where: SourceLocation) -> Tensor:
    """``x != 0`` as ``i1`` (a ``linalg.generic``, which canonicalization does not fold)."""
    trace = x.trace
    init = emit_empty(trace, x.symbolic_shape, i1, [None] * x.ndim, where)
    loops = tuple(f"d{a}" for a in range(x.ndim))

    def body(block: Body, args: list[str]) -> str:
        return block.op(f"arith.cmpi ne, {args[0]}, {block.const(x.dtype, 0)}", x.dtype.mlir)

    return emit_generic(trace, [Operand(x, loops)], x.ndim, ["parallel"] * x.ndim, list(loops),
                        x.symbolic_shape, i1, init, body, where)
