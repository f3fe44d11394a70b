"""Elementwise functions of one tensor: math, rounding, signs and tests.

Functions numpy defines on floats only (``exp``, ``sin``, ``floor``, ...)
compute integer and boolean inputs as ``f64``, as numpy does; ``abs``,
``negative``, ``sign`` and ``round`` keep integer types. ``sin``, ``cos``,
``tanh`` and ``erf`` of ``f64`` values are computed in ``f32`` (IREE's CPU
backend has no ``f64`` form of them).

Example:
    >>> def f(x):                                  # x: [batch, 64] f32
    ...     return gelu(x, approximate=False) + erf(x) * rsqrt(x * x + 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable

from symshape_mlir.frontend.dtypes import DType, f64, i1
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.ops.elementwise import Value, elementwise, greater, where
from symshape_mlir.frontend.ops.generic import Body
from symshape_mlir.frontend.source import user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.vjp import Cotangents, Node, primitive, vjp_rule, zero_rule

__all__ = [
    "abs",
    "ceil",
    "cos",
    "erf",
    "exp",
    "floor",
    "gelu",
    "isfinite",
    "isinf",
    "isnan",
    "log",
    "negative",
    "relu",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "sqrt",
    "tanh",
]


def _float_input(x: Value) -> DType:
    """The type a float-only function computes ``x`` in: its own when
    floating point, else ``f64``."""
    if isinstance(x, Tensor):
        return x.dtype if x.dtype.is_float else f64
    return f64  # an extent (x.shape[-1]): numpy's float of an int


#: Functions IREE 3.13's llvm-cpu cannot compile for ``f64`` (no lowering, or
#: no libm to link): computed in ``f32`` for ``f64`` values.
_F32_ONLY = frozenset({"math.sin", "math.cos", "math.tanh", "math.erf"})


def apply_math(block: Body, mlir: str, value: str, dtype: DType) -> str:
    """``mlir`` (a ``math`` op) of one value; see :data:`_F32_ONLY`."""
    if dtype.name != "f64" or mlir not in _F32_ONLY:
        return block.op(f"{mlir} {value}", dtype.mlir)
    narrow = block.op(f"arith.truncf {value}", "f64 to f32")
    return block.op(f"arith.extf {block.op(f'{mlir} {narrow}', 'f32')}", "f32 to f64")


def _math(op: str, mlir: str) -> Callable[[Value], Tensor]:
    def apply(x: Value) -> Tensor:
        def body(block: Body, values: list[str], dtype: DType) -> str:
            return apply_math(block, mlir, values[0], dtype)

        return elementwise(op, [x], body, user_location(), dtype=_float_input(x))

    apply.__name__ = op
    apply.__doc__ = f"``numpy.{op}`` (integers as ``f64``)."
    return primitive(op)(apply)


exp = _math("exp", "math.exp")
log = _math("log", "math.log")
sqrt = _math("sqrt", "math.sqrt")
tanh = _math("tanh", "math.tanh")
sin = _math("sin", "math.sin")
cos = _math("cos", "math.cos")
floor = _math("floor", "math.floor")
ceil = _math("ceil", "math.ceil")
erf = _math("erf", "math.erf")
erf.__doc__ = "The error function (``scipy.special.erf``; integers as ``f64``)."
rsqrt = _math("rsqrt", "math.rsqrt")
rsqrt.__doc__ = "``1 / sqrt(x)`` (integers as ``f64``)."


@primitive("negative")
def negative(x: Tensor) -> Tensor:
    """``-x`` (integers wrap, as numpy).

    Raises:
        FrontendError: a boolean tensor (numpy refuses it too).
    """
    where = user_location()
    if isinstance(x, Tensor) and x.dtype.is_bool:
        raise FrontendError(f"negative at {where}: booleans cannot be negated; use ~ or "
                            "logical_not")

    def body(block: Body, values: list[str], dtype: DType) -> str:
        if dtype.is_float:
            return block.op(f"arith.negf {values[0]}", dtype.mlir)
        return block.op(f"arith.subi {block.const(dtype, 0)}, {values[0]}", dtype.mlir)

    return elementwise("negative", [x], body, where)


@primitive("abs")
def abs(x: Tensor) -> Tensor:
    """``numpy.abs`` (also the builtin ``abs()``)."""

    def body(block: Body, values: list[str], dtype: DType) -> str:
        if dtype.is_float:
            return block.op(f"math.absf {values[0]}", dtype.mlir)
        if dtype.is_bool or dtype.is_unsigned:
            return values[0]
        return block.op(f"math.absi {values[0]}", dtype.mlir)

    return elementwise("abs", [x], body, user_location())


@primitive("sign")
def sign(x: Tensor) -> Tensor:
    """``numpy.sign``: -1, 0 or 1 (NaN for NaN), in ``x``'s type."""

    def body(block: Body, values: list[str], dtype: DType) -> str:
        t, v = dtype.mlir, values[0]
        zero, one = block.const(dtype, 0), block.const(dtype, 1)
        if dtype.is_bool or dtype.is_unsigned:
            positive = block.op(f"arith.cmpi ne, {v}, {zero}", t)
            return block.op(f"arith.select {positive}, {one}, {zero}", t)
        if dtype.is_float:
            positive = block.op(f"arith.cmpf ogt, {v}, {zero}", t)
            negative = block.op(f"arith.cmpf olt, {v}, {zero}", t)
        else:
            positive = block.op(f"arith.cmpi sgt, {v}, {zero}", t)
            negative = block.op(f"arith.cmpi slt, {v}, {zero}", t)
        # Zero (and NaN, which compares false both ways) is itself.
        lower = block.op(f"arith.select {negative}, {block.const(dtype, -1)}, {v}", t)
        return block.op(f"arith.select {positive}, {one}, {lower}", t)

    return elementwise("sign", [x], body, user_location())


@primitive("round")
def round(x: Tensor, decimals: int = 0) -> Tensor:
    """``numpy.round``: halves to even; integers unchanged (``decimals=0``)."""
    where = user_location()
    if isinstance(decimals, bool) or not isinstance(decimals, int):
        raise FrontendError(f"round at {where}: decimals must be an int, not {decimals!r}")

    def body(block: Body, values: list[str], dtype: DType) -> str:
        t, v = dtype.mlir, values[0]
        if not dtype.is_float:
            return v
        if decimals == 0:
            return block.op(f"math.roundeven {v}", t)
        scale = block.const(dtype, 10.0 ** _magnitude(decimals))
        scaled = block.op(f"arith.{'mulf' if decimals > 0 else 'divf'} {v}, {scale}", t)
        rounded = block.op(f"math.roundeven {scaled}", t)
        return block.op(f"arith.{'divf' if decimals > 0 else 'mulf'} {rounded}, {scale}", t)

    return elementwise("round", [x], body, where)


def _magnitude(value: int) -> int:
    """The builtin ``abs`` of an int (this module's ``abs`` is the tensor op)."""
    return -value if value < 0 else value


def _test(op: str, float_test: Callable[[Body, str, DType], str], ints: bool) -> \
        Callable[[Tensor], Tensor]:
    def apply(x: Tensor) -> Tensor:
        def body(block: Body, values: list[str], dtype: DType) -> str:
            if dtype.is_float:
                return float_test(block, values[0], dtype)
            return block.const(i1, int(ints))

        return elementwise(op, [x], body, user_location(), result=i1)

    apply.__name__ = op
    apply.__doc__ = f"``numpy.{op}`` (an ``i1`` tensor)."
    return primitive(op)(apply)


def _nan(block: Body, v: str, dtype: DType) -> str:
    return block.op(f"arith.cmpf uno, {v}, {v}", dtype.mlir)


def _infinite(block: Body, v: str, dtype: DType) -> str:
    magnitude = block.op(f"math.absf {v}", dtype.mlir)
    return block.op(f"arith.cmpf oeq, {magnitude}, {block.const(dtype, math.inf)}", dtype.mlir)


def _finite(block: Body, v: str, dtype: DType) -> str:
    magnitude = block.op(f"math.absf {v}", dtype.mlir)
    return block.op(f"arith.cmpf olt, {magnitude}, {block.const(dtype, math.inf)}", dtype.mlir)


isnan = _test("isnan", _nan, False)
isinf = _test("isinf", _infinite, False)
isfinite = _test("isfinite", _finite, True)


@primitive("relu")
def relu(x: Tensor) -> Tensor:
    """``maximum(x, 0)`` (NaN stays NaN)."""

    def body(block: Body, values: list[str], dtype: DType) -> str:
        zero = block.const(dtype, 0)
        op = "arith.maximumf" if dtype.is_float else \
            "arith.maxui" if dtype.is_unsigned or dtype.is_bool else "arith.maxsi"
        return block.op(f"{op} {values[0]}, {zero}", dtype.mlir)

    return elementwise("relu", [x], body, user_location())


@primitive("sigmoid")
def sigmoid(x: Tensor) -> Tensor:
    """``1 / (1 + exp(-x))`` (integers as ``f64``)."""

    def body(block: Body, values: list[str], dtype: DType) -> str:
        one = block.const(dtype, 1.0)
        neg = block.op(f"arith.negf {values[0]}", dtype.mlir)
        e = block.op(f"math.exp {neg}", dtype.mlir)
        den = block.op(f"arith.addf {one}, {e}", dtype.mlir)
        return block.op(f"arith.divf {one}, {den}", dtype.mlir)

    return elementwise("sigmoid", [x], body, user_location(), dtype=_float_input(x))


@primitive("gelu")
def gelu(x: Tensor, approximate: bool = True) -> Tensor:
    """GELU, as ``jax.nn.gelu``: with ``approximate`` (the default) the tanh form
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``, else the exact
    ``0.5 x (1 + erf(x / sqrt(2)))``."""

    def body(block: Body, values: list[str], dtype: DType) -> str:
        t = dtype.mlir
        v = values[0]
        half = block.op(f"arith.mulf {v}, {block.const(dtype, 0.5)}", t)
        if approximate:
            cube = block.op(f"arith.mulf {v}, {v}", t)
            cube = block.op(f"arith.mulf {cube}, {v}", t)
            inner = block.op(f"arith.mulf {cube}, {block.const(dtype, 0.044715)}", t)
            inner = block.op(f"arith.addf {v}, {inner}", t)
            inner = block.op(
                f"arith.mulf {inner}, {block.const(dtype, math.sqrt(2 / math.pi))}", t)
            shape = apply_math(block, "math.tanh", inner, dtype)
        else:
            scaled = block.op(f"arith.mulf {v}, {block.const(dtype, math.sqrt(0.5))}", t)
            shape = apply_math(block, "math.erf", scaled, dtype)
        one = block.op(f"arith.addf {shape}, {block.const(dtype, 1.0)}", t)
        return block.op(f"arith.mulf {half}, {one}", t)

    return elementwise("gelu", [x], body, user_location(), dtype=_float_input(x))


# -- VJP rules -------------------------------------------------------------------------

vjp_rule("floor", "ceil", "round", "sign")(zero_rule)  # piecewise constant


@vjp_rule("exp")
def _exp_vjp(node: Node, ct: Tensor) -> Cotangents:
    return {"x": ct * node.out}


@vjp_rule("log")
def _log_vjp(node: Node, ct: Tensor) -> Cotangents:
    return {"x": ct / node.args["x"]}


@vjp_rule("sqrt")
def _sqrt_vjp(node: Node, ct: Tensor) -> Cotangents:
    return {"x": ct * 0.5 / node.out}


@vjp_rule("rsqrt")
def _rsqrt_vjp(node: Node, ct: Tensor) -> Cotangents:
    out = node.out
    return {"x": ct * -0.5 * out * out * out}


@vjp_rule("tanh")
def _tanh_vjp(node: Node, ct: Tensor) -> Cotangents:
    out = node.out
    return {"x": ct * (1.0 - out * out)}


@vjp_rule("sin")
def _sin_vjp(node: Node, ct: Tensor) -> Cotangents:
    return {"x": ct * cos(node.args["x"])}


@vjp_rule("cos")
def _cos_vjp(node: Node, ct: Tensor) -> Cotangents:
    return {"x": -ct * sin(node.args["x"])}


@vjp_rule("erf")
def _erf_vjp(node: Node, ct: Tensor) -> Cotangents:
    x = node.args["x"]
    return {"x": ct * (2.0 / math.sqrt(math.pi)) * exp(-(x * x))}


@vjp_rule("negative")
def _negative_vjp(node: Node, ct: Tensor) -> Cotangents:
    return {"x": -ct}


@vjp_rule("abs")
def _abs_vjp(node: Node, ct: Tensor) -> Cotangents:
    return {"x": ct * sign(node.args["x"])}  # 0 at 0, as jax


@vjp_rule("relu")
def _relu_vjp(node: Node, ct: Tensor) -> Cotangents:
    return {"x": where(greater(node.args["x"], 0.0), ct, 0.0)}  # 0 at 0, as jax


@vjp_rule("sigmoid")
def _sigmoid_vjp(node: Node, ct: Tensor) -> Cotangents:
    out = node.out
    return {"x": ct * out * (1.0 - out)}


@vjp_rule("gelu")
def _gelu_vjp(node: Node, ct: Tensor) -> Cotangents:
    x = node.args["x"]
    if node.args["approximate"]:
        scale = math.sqrt(2 / math.pi)
        t = tanh((x + 0.044715 * x * x * x) * scale)
        inner = scale * (1.0 + 3 * 0.044715 * x * x)
        slope = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * inner
    else:
        slope = 0.5 * (1.0 + erf(x * math.sqrt(0.5))) + \
            x * exp(-0.5 * x * x) * (1 / math.sqrt(2 * math.pi))
    return {"x": ct * slope}
