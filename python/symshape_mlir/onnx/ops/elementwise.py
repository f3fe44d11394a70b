"""Elementwise ONNX ops: arithmetic, comparisons, logic, unary math, Where, Cast, Clip.

Each becomes one ``linalg.generic`` over the broadcast shape (the
frontend's :func:`~symshape_mlir.frontend.ops.elementwise.elementwise`).
Integer arithmetic, comparisons and logic on data known at import time
(shape computations) are evaluated instead (:mod:`symshape_mlir.onnx.ops.data`).

Example:
    ``Add(x: [batch, 64], b: [64])`` becomes

    .. code-block:: mlir

        %g = linalg.generic {...} ins(%x, %b : tensor<?x64xf32>, tensor<64xf32>) ...
"""

from __future__ import annotations

import math
from collections.abc import Callable

from symshape_mlir.frontend.dtypes import DType, as_dtype, i1
from symshape_mlir.frontend.ops import elementwise as fe
from symshape_mlir.frontend.ops import unary as fu
from symshape_mlir.frontend.ops.elementwise import binary_body
from symshape_mlir.frontend.ops.generic import Body
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.onnx.context import NodeContext, onnx_dtype, onnx_type_name
from symshape_mlir.onnx.ops.abstract import BOOL, broadcast, like
from symshape_mlir.onnx.registry import importer, shape_rule
from symshape_mlir.onnx.values import Value

__all__: list[str] = []

Scalar = Callable[[Body, list[str], DType], str]


def _map(
    node: NodeContext, args: list[Tensor], body: Scalar, result: DType | None = None
) -> Tensor:
    return fe.elementwise(node.node.op_type, args, body, node.where, result=result)


def _same_type(node: NodeContext, tensors: list[Tensor]) -> None:
    kinds = {t.dtype for t in tensors}
    if len(kinds) > 1:
        node.error(f"inputs have different element types: {sorted(str(k) for k in kinds)}")


_BINARY = {
    "Add": binary_body("arith.addf", "arith.addi"),
    "Sub": binary_body("arith.subf", "arith.subi"),
    "Mul": binary_body("arith.mulf", "arith.muli"),
}


def _divide(block: Body, values: list[str], dtype: DType) -> str:
    if dtype.is_float:
        return block.op(f"arith.divf {values[0]}, {values[1]}", dtype.mlir)
    return fe.integer_division(block, values[0], values[1], dtype, "div", "trunc")


_BINARY["Div"] = _divide


@importer("Add", "Sub", "Mul", "Div", since=13)
def binary(node: NodeContext) -> list[Value]:
    args = node.tensors()
    _same_type(node, args)
    if args[0].dtype.is_bool:
        node.error("element type i1 is not supported")
    return [_map(node, args, _BINARY[node.node.op_type])]


@importer("Pow", since=13)
def power(node: NodeContext) -> list[Value]:
    base, exponent = node.tensors()
    if base.dtype.is_bool or exponent.dtype.is_bool:
        node.error("element type i1 is not supported")
    if base.dtype.is_float:
        if exponent.dtype != base.dtype:
            exponent = fe.astype(exponent, base.dtype)
        return [fe.power(base, exponent)]
    # An integer power is computed in f64 (exact while the result fits 53 bits).
    wide = as_dtype("f64")
    result = fe.power(fe.astype(base, wide), fe.astype(exponent, wide))
    return [fe.astype(result, base.dtype)]


@importer("Mod", since=13)
def mod(node: NodeContext) -> list[Value]:
    args = node.tensors()
    _same_type(node, args)
    fmod = bool(node.attr("fmod", 0))
    if args[0].dtype.is_float and not fmod:
        node.error("a floating-point Mod needs fmod=1")

    def body(block: Body, values: list[str], dtype: DType) -> str:
        t = dtype.mlir
        if dtype.is_float and dtype.name != "f64":
            return block.op(f"arith.remf {values[0]}, {values[1]}", t)
        if dtype.is_float:
            # IREE's llvm-cpu cannot link fmod for f64: a - trunc(a / b) * b.
            quotient = block.op(f"arith.divf {values[0]}, {values[1]}", t)
            whole = block.op(f"math.trunc {quotient}", t)
            product = block.op(f"arith.mulf {whole}, {values[1]}", t)
            return block.op(f"arith.subf {values[0]}, {product}", t)
        if fmod:
            return fe.integer_division(block, values[0], values[1], dtype, "rem", "trunc")
        return fe.integer_division(block, values[0], values[1], dtype, "mod")

    return [_map(node, args, body)]


_VARIADIC = {"Max": fe.maximum, "Min": fe.minimum, "Sum": fe.add, "Mean": fe.add}


@importer("Max", "Min", "Sum", "Mean", since=13)
def variadic(node: NodeContext) -> list[Value]:
    op = node.node.op_type
    args = node.tensors()
    if not args:
        node.error("needs at least one input")
    _same_type(node, args)
    if args[0].dtype.is_bool or (op == "Mean" and not args[0].dtype.is_float):
        node.error(f"element type {args[0].dtype} is not supported")
    combine = _VARIADIC[op]
    result = args[0]
    for arg in args[1:]:
        result = combine(result, arg)
    return [fe.divide(result, float(len(args))) if op == "Mean" else result]


_COMPARE = {
    "Equal": fe.equal,
    "Less": fe.less,
    "Greater": fe.greater,
    "LessOrEqual": fe.less_equal,
    "GreaterOrEqual": fe.greater_equal,
}


@importer("Equal", "Less", "Greater", since=13)
@importer("LessOrEqual", "GreaterOrEqual", since=12)
def compare(node: NodeContext) -> list[Value]:
    args = node.tensors()
    _same_type(node, args)
    return [_COMPARE[node.node.op_type](*args)]


@importer("And", "Or", "Xor", since=7)
def logical(node: NodeContext) -> list[Value]:
    args = node.tensors()
    if any(not t.dtype.is_bool for t in args):
        node.error("inputs must be BOOL")
    op = {"And": "arith.andi", "Or": "arith.ori", "Xor": "arith.xori"}[node.node.op_type]
    return [_map(node, args, lambda b, v, d: b.op(f"{op} {v[0]}, {v[1]}", "i1"))]


@importer("Not", since=1)
def logical_not(node: NodeContext) -> list[Value]:
    x = node.tensor(0)
    if not x.dtype.is_bool:
        node.error("the input must be BOOL")
    return [_map(node, [x], lambda b, v, d: b.op(f"arith.xori {v[0]}, {b.const(i1, 1)}", "i1"))]


def _sign(block: Body, values: list[str], dtype: DType) -> str:
    t, v = dtype.mlir, values[0]
    zero, one, minus = block.const(dtype, 0), block.const(dtype, 1), block.const(dtype, -1)
    kind = "arith.cmpf o" if dtype.is_float else "arith.cmpi s"
    gt, lt = f"{kind}gt", f"{kind}lt"
    positive = block.op(f"{gt}, {v}, {zero}", t)
    negative = block.op(f"{lt}, {v}, {zero}", t)
    result = block.op(f"arith.select {negative}, {minus}, {zero}", t)
    result = block.op(f"arith.select {positive}, {one}, {result}", t)
    if dtype.is_float:  # NaN stays NaN
        nan = block.op(f"arith.cmpf uno, {v}, {v}", t)
        result = block.op(f"arith.select {nan}, {v}, {result}", t)
    return result


def _float_unary(
    fn: Callable[[NodeContext, Body, str, DType], str],
) -> Callable[[NodeContext], list[Value]]:
    def run(node: NodeContext) -> list[Value]:
        x = node.float_tensor(0)
        return [_map(node, [x], lambda b, v, d: fn(node, b, v[0], d))]

    return run


_MATH = {
    "Ceil": "math.ceil",
    "Floor": "math.floor",
    "Round": "math.roundeven",
    "Sin": "math.sin",
    "Cos": "math.cos",
    "Tan": "math.tan",
    "Erf": "math.erf",
}


def _math(node: NodeContext, b: Body, v: str, d: DType) -> str:
    return b.op(f"{_MATH[node.node.op_type]} {v}", d.mlir)


importer("Ceil", "Floor", "Erf", since=13)(_float_unary(_math))
importer("Round", since=11)(_float_unary(_math))
importer("Sin", "Cos", "Tan", since=7)(_float_unary(_math))


_SIGNED = {"Neg": fu.negative, "Abs": fu.abs, "Relu": fu.relu}
_FLOAT = {"Sigmoid": fu.sigmoid, "Tanh": fu.tanh, "Exp": fu.exp, "Log": fu.log, "Sqrt": fu.sqrt}


@importer("Neg", "Abs", "Relu", "Sign", since=13)
def signed_unary(node: NodeContext) -> list[Value]:
    x = node.tensor(0)
    if x.dtype.is_bool:
        node.error("element type i1 is not supported")
    op = node.node.op_type
    return [_map(node, [x], _sign) if op == "Sign" else _SIGNED[op](x)]


@importer("Sigmoid", "Tanh", "Exp", "Log", "Sqrt", since=13)
def float_unary(node: NodeContext) -> list[Value]:
    x = node.float_tensor(0)
    return [_FLOAT[node.node.op_type](x)]


@importer("Reciprocal", since=13)
@_float_unary
def reciprocal(node: NodeContext, b: Body, v: str, d: DType) -> str:
    return b.op(f"arith.divf {b.const(d, 1.0)}, {v}", d.mlir)


@importer("HardSigmoid", since=6)
@_float_unary
def hard_sigmoid(node: NodeContext, b: Body, v: str, d: DType) -> str:
    alpha, beta = node.attr("alpha", 0.2), node.attr("beta", 0.5)
    return _hard_sigmoid(b, v, d, alpha, beta)


def _hard_sigmoid(b: Body, v: str, d: DType, alpha: float, beta: float) -> str:
    t = d.mlir
    y = b.op(f"arith.mulf {v}, {b.const(d, alpha)}", t)
    y = b.op(f"arith.addf {y}, {b.const(d, beta)}", t)
    y = b.op(f"arith.minimumf {y}, {b.const(d, 1.0)}", t)
    return b.op(f"arith.maximumf {y}, {b.const(d, 0.0)}", t)


@importer("HardSwish", since=14)
@_float_unary
def hard_swish(node: NodeContext, b: Body, v: str, d: DType) -> str:
    return b.op(f"arith.mulf {v}, {_hard_sigmoid(b, v, d, 1 / 6, 0.5)}", d.mlir)


@importer("LeakyRelu", since=6)
@_float_unary
def leaky_relu(node: NodeContext, b: Body, v: str, d: DType) -> str:
    t = d.mlir
    scaled = b.op(f"arith.mulf {v}, {b.const(d, node.attr('alpha', 0.01))}", t)
    negative = b.op(f"arith.cmpf olt, {v}, {b.const(d, 0.0)}", t)
    return b.op(f"arith.select {negative}, {scaled}, {v}", t)


@importer("Elu", "Selu", since=6)
@_float_unary
def elu(node: NodeContext, b: Body, v: str, d: DType) -> str:
    t = d.mlir
    selu = node.node.op_type == "Selu"
    alpha = node.attr("alpha", 1.67326319217681884765625 if selu else 1.0)
    gamma = node.attr("gamma", 1.05070102214813232421875) if selu else 1.0
    e = b.op(f"math.exp {v}", t)
    e = b.op(f"arith.subf {e}, {b.const(d, 1.0)}", t)
    e = b.op(f"arith.mulf {e}, {b.const(d, alpha)}", t)
    negative = b.op(f"arith.cmpf ole, {v}, {b.const(d, 0.0)}", t)
    y = b.op(f"arith.select {negative}, {e}, {v}", t)
    return b.op(f"arith.mulf {y}, {b.const(d, gamma)}", t) if selu else y


@importer("Softplus", since=1)
@_float_unary
def softplus(node: NodeContext, b: Body, v: str, d: DType) -> str:
    e = b.op(f"math.exp {v}", d.mlir)
    return b.op(f"math.log1p {e}", d.mlir)


@importer("Gelu", since=20)
def gelu(node: NodeContext) -> list[Value]:
    x = node.float_tensor(0)
    if node.attr("approximate", "none") == "tanh":
        return [fu.gelu(x)]

    def exact(b: Body, v: list[str], d: DType) -> str:
        t = d.mlir
        half = b.op(f"arith.mulf {v[0]}, {b.const(d, 0.5)}", t)
        scaled = b.op(f"arith.mulf {v[0]}, {b.const(d, 1 / math.sqrt(2))}", t)
        one = b.op(f"arith.addf {b.op(f'math.erf {scaled}', t)}, {b.const(d, 1.0)}", t)
        return b.op(f"arith.mulf {half}, {one}", t)

    return [_map(node, [x], exact)]


@importer("IsNaN", since=13)
def is_nan(node: NodeContext) -> list[Value]:
    x = node.float_tensor(0)
    return [_map(node, [x], lambda b, v, d: b.op(f"arith.cmpf uno, {v[0]}, {v[0]}", d.mlir), i1)]


@importer("IsInf", since=10)
def is_inf(node: NodeContext) -> list[Value]:
    x = node.float_tensor(0)
    positive, negative = node.attr("detect_positive", 1), node.attr("detect_negative", 1)

    def body(b: Body, v: list[str], d: DType) -> str:
        t = d.mlir
        checks = []
        if positive:
            checks.append(b.op(f"arith.cmpf oeq, {v[0]}, {b.const(d, math.inf)}", t))
        if negative:
            checks.append(b.op(f"arith.cmpf oeq, {v[0]}, {b.const(d, -math.inf)}", t))
        if not checks:
            return b.const(i1, 0)
        result = checks[0]
        for check in checks[1:]:
            result = b.op(f"arith.ori {result}, {check}", "i1")
        return result

    return [_map(node, [x], body, i1)]


@importer("Clip", since=13)
def clip(node: NodeContext) -> list[Value]:
    x = node.tensor(0)
    if x.dtype.is_bool:
        node.error("element type i1 is not supported")
    bounds = [node.tensor(i) if node.has(i) else None for i in (1, 2)]
    for bound in bounds:
        if bound is not None and (bound.ndim != 0 or bound.dtype != x.dtype):
            node.error(f"min and max must be scalars of the input's type, not {bound.mlir_type}")
    result = x
    for bound, (fop, iop) in zip(
        bounds, [("arith.maximumf", "arith.maxsi"), ("arith.minimumf", "arith.minsi")], strict=True
    ):
        if bound is not None:
            result = _map(node, [result, bound], binary_body(fop, iop))
    return [result]


@importer("Where", since=9)
def where(node: NodeContext) -> list[Value]:
    condition, x, y = node.tensors()
    if not condition.dtype.is_bool:
        node.error("the condition must be BOOL")
    _same_type(node, [x, y])
    return [fe.where(condition, x, y)]


@importer("Cast", since=13)
def cast(node: NodeContext) -> list[Value]:
    to = node.attr("to")
    dtype = onnx_dtype(to)
    if dtype is None:
        node.error(f"casting to {onnx_type_name(to)} is not supported")
    return [fe.astype(node.tensor(0), dtype)]


@importer("CastLike", since=15)
def cast_like(node: NodeContext) -> list[Value]:
    return [fe.astype(node.tensor(0), node.dtype(1))]


# -- shape rules (infer_shapes without building) ------------------------------------------


@shape_rule("Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Sum", "Mean", since=13)
@shape_rule("And", "Or", "Xor", since=7)
def broadcast_rule(node: NodeContext) -> list[Value]:
    return [broadcast(node)]


@shape_rule("Equal", "Less", "Greater", since=13)
@shape_rule("LessOrEqual", "GreaterOrEqual", since=12)
def compare_rule(node: NodeContext) -> list[Value]:
    return [broadcast(node, dtype=BOOL)]


@shape_rule("Where", since=9)
def where_rule(node: NodeContext) -> list[Value]:
    return [broadcast(node, dtype=node.element_type(1))]


@shape_rule("Neg", "Abs", "Relu", "Sign", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal",
            "Ceil", "Floor", "Erf", "Clip", since=13)
@shape_rule("Round", since=11)
@shape_rule("Sin", "Cos", "Tan", "HardSigmoid", "LeakyRelu", "Elu", "Selu", since=6)
@shape_rule("HardSwish", since=14)
@shape_rule("Softplus", since=1)
@shape_rule("Gelu", since=20)
def unary_rule(node: NodeContext) -> list[Value]:
    return [like(node)]


@shape_rule("IsNaN", since=13)
@shape_rule("IsInf", since=10)
@shape_rule("Not", since=1)
def predicate_rule(node: NodeContext) -> list[Value]:
    return [like(node, dtype=BOOL)]


@shape_rule("Cast", since=13)
def cast_rule(node: NodeContext) -> list[Value]:
    dtype = onnx_dtype(node.attr("to"))
    if dtype is None:
        node.error(f"casting to {onnx_type_name(node.attr('to'))} is not supported")
    return [like(node, dtype=dtype.numpy)]


@shape_rule("CastLike", since=15)
def cast_like_rule(node: NodeContext) -> list[Value]:
    return [like(node, dtype=node.element_type(1))]
