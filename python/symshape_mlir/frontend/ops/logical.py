"""Bitwise and logical ops: ``& | ^ ~`` and ``numpy.logical_*``.

The bitwise ops take integer and boolean tensors (promoted as numpy does);
floating-point operands are refused, as numpy refuses them. The logical
ops take any type and read it as ``!= 0``; they give ``i1`` tensors.

Example:
    >>> def f(x, y):                                 # x, y: [n] f32
    ...     return where((x > 0.0) & ~(y > 0.0), x, y)
"""

from __future__ import annotations

from collections.abc import Callable

from symshape_mlir.frontend.dtypes import DType, i1
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.ops.elementwise import Value, astype, binary_body, elementwise
from symshape_mlir.frontend.ops.generic import Body
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.vjp import primitive

__all__ = [
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "invert",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
]


def _no_floats(op: str, args: list[Value], where: SourceLocation) -> None:
    for a in args:
        if (isinstance(a, Tensor) and a.dtype.is_float) or isinstance(a, float):
            raise FrontendError(
                f"{op} at {where}: not defined on floating-point values (numpy refuses it "
                "too); compare first (x > 0.0) or cast to an integer type")


def _binary(op: str, mlir: str, logical: bool) -> Callable[[Value, Value], Tensor]:
    def apply(x: Value, y: Value) -> Tensor:
        where = user_location()
        if logical:
            args = [_truth(x, where), _truth(y, where)]
        else:
            _no_floats(op, [x, y], where)
            args = [x, y]
        return elementwise(op, args, binary_body(mlir, mlir), where)

    apply.__name__ = op
    apply.__doc__ = f"``numpy.{op}``" + (" (an ``i1`` tensor)." if logical else
                                         " of integers or booleans.")
    return primitive(op)(apply)


bitwise_and = _binary("bitwise_and", "arith.andi", False)
bitwise_or = _binary("bitwise_or", "arith.ori", False)
bitwise_xor = _binary("bitwise_xor", "arith.xori", False)
logical_and = _binary("logical_and", "arith.andi", True)
logical_or = _binary("logical_or", "arith.ori", True)
logical_xor = _binary("logical_xor", "arith.xori", True)


@primitive("invert")
def invert(x: Tensor) -> Tensor:
    """``~x``: bitwise not of integers, logical not of booleans."""
    where = user_location()
    _no_floats("invert", [x], where)

    def body(block: Body, values: list[str], dtype: DType) -> str:
        ones = block.const(dtype, 1 if dtype.is_bool else -1 if not dtype.is_unsigned
                           else dtype.int_range[1])
        return block.op(f"arith.xori {values[0]}, {ones}", dtype.mlir)

    return elementwise("invert", [x], body, where)


def _truth(value: Value, where: SourceLocation) -> Value:
    """``value != 0`` as an ``i1`` tensor (a Python number as a bool)."""
    if isinstance(value, Tensor):
        return value if value.dtype.is_bool else astype(value, i1, where)
    return value if isinstance(value, bool) else bool(value)


@primitive("logical_not")
def logical_not(x: Tensor) -> Tensor:
    """``numpy.logical_not`` (an ``i1`` tensor)."""
    where = user_location()
    truth = _truth(x, where)

    def body(block: Body, values: list[str], dtype: DType) -> str:
        return block.op(f"arith.xori {values[0]}, {block.const(i1, 1)}", "i1")

    return elementwise("logical_not", [truth], body, where)
