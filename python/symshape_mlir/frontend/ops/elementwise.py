"""Elementwise ops with numpy broadcasting and Python scalars.

Each op is one ``linalg.generic`` over the broadcast shape (rules from
:mod:`symshape_mlir.shapes`); a Python number is a constant of the tensor's
element type (numpy's weak scalars). Operand tensors must share one element
type: there is no implicit promotion.

Example:
    >>> def f(x, b):                               # x: [batch, 64], b: [64]
    ...     return relu(x * 2.0 + b)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from symshape_mlir.frontend.dtypes import DType, as_dtype, i1
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.ops.broadcasting import broadcast_operands
from symshape_mlir.frontend.ops.generic import Body, emit_empty, emit_generic
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor

__all__ = [
    "abs",
    "add",
    "astype",
    "binary_body",
    "divide",
    "elementwise",
    "equal",
    "exp",
    "gelu",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "log",
    "maximum",
    "minimum",
    "multiply",
    "negative",
    "not_equal",
    "power",
    "relu",
    "sigmoid",
    "sqrt",
    "subtract",
    "tanh",
    "where",
]

Value = Tensor | float | int
BodyFn = Callable[[Body, list[str], DType], str]


def elementwise(
    op: str,
    args: Sequence[Value],
    body: BodyFn,
    where: SourceLocation | None = None,
    *,
    result: DType | None = None,
    skip_type_check: Sequence[int] = (),
) -> Tensor:
    """Emits an elementwise op over broadcast ``args``.

    Args:
        op: the op's name, for messages.
        args: tensors and Python numbers.
        body: builds the scalar computation from one value per argument
            (Python numbers become constants of the operands' type).
        where: the location; the caller's line by default.
        result: the result element type; the operands' type by default.
        skip_type_check: positions of ``args`` whose element type may differ
            from the others' (``where``'s condition).

    Raises:
        BroadcastError, ContractError: see
            :func:`~symshape_mlir.frontend.ops.broadcasting.broadcast_operands`.
        FrontendError: no tensor among ``args``, or mixed element types.
    """
    where = where or user_location()
    tensors = [a for a in args if isinstance(a, Tensor)]
    if not tensors:
        raise FrontendError(f"{op} at {where}: needs at least one traced tensor")
    for a in args:
        if not isinstance(a, Tensor) and (isinstance(a, bool) or not isinstance(a, int | float)):
            raise FrontendError(f"{op} at {where}: cannot use {a!r} as an operand")
    typed = [a for i, a in enumerate(args) if isinstance(a, Tensor) and i not in skip_type_check]
    dtype = (typed or tensors)[0].dtype
    for t in typed[1:]:
        if t.dtype != dtype:
            raise FrontendError(
                f"{op} at {where}: element types differ ({dtype} and {t.dtype}); cast first"
            )
    if any(t.trace is not tensors[0].trace for t in tensors):
        raise FrontendError(f"{op} at {where}: operands come from different traced functions")
    trace = tensors[0].trace
    plan = broadcast_operands(op, tensors, where)
    rank = plan.shape.rank
    out = result or dtype
    init = emit_empty(trace, plan.shape, out, plan.sources, where)

    def build(block: Body, block_args: list[str]) -> str:
        it = iter(block_args)
        values = [next(it) if isinstance(a, Tensor) else block.const(dtype, a) for a in args]
        return body(block, values, dtype)

    loops = [f"d{j}" for j in range(rank)]
    return emit_generic(
        trace,
        plan.operands,
        rank,
        ["parallel"] * rank,
        loops,
        plan.shape,
        out,
        init,
        build,
        where,
    )


def binary_body(float_op: str, int_op: str | None) -> BodyFn:
    """A body applying ``float_op`` or ``int_op`` (by element type) to two values."""

    def body(block: Body, values: list[str], dtype: DType) -> str:
        op = float_op if dtype.is_float else int_op
        if op is None:
            raise FrontendError(f"{float_op} needs a floating-point type, not {dtype}")
        return block.op(f"{op} {values[0]}, {values[1]}", dtype.mlir)

    return body


def _unary_float(op: str) -> BodyFn:
    def body(block: Body, values: list[str], dtype: DType) -> str:
        if not dtype.is_float:
            raise FrontendError(f"{op} needs a floating-point type, not {dtype}")
        return block.op(f"{op} {values[0]}", dtype.mlir)

    return body


def add(x: Value, y: Value) -> Tensor:
    """``x + y``."""
    return elementwise("add", [x, y], binary_body("arith.addf", "arith.addi"))


def subtract(x: Value, y: Value) -> Tensor:
    """``x - y``."""
    return elementwise("subtract", [x, y], binary_body("arith.subf", "arith.subi"))


def multiply(x: Value, y: Value) -> Tensor:
    """``x * y``."""
    return elementwise("multiply", [x, y], binary_body("arith.mulf", "arith.muli"))


def divide(x: Value, y: Value) -> Tensor:
    """``x / y`` (floating-point types only)."""
    return elementwise("divide", [x, y], binary_body("arith.divf", None))


def power(x: Value, y: Value) -> Tensor:
    """``x ** y`` (floating-point types only)."""
    return elementwise("power", [x, y], binary_body("math.powf", None))


def maximum(x: Value, y: Value) -> Tensor:
    """``numpy.maximum`` (NaN-propagating for floats)."""
    return elementwise("maximum", [x, y], binary_body("arith.maximumf", "arith.maxsi"))


def minimum(x: Value, y: Value) -> Tensor:
    """``numpy.minimum`` (NaN-propagating for floats)."""
    return elementwise("minimum", [x, y], binary_body("arith.minimumf", "arith.minsi"))


def negative(x: Tensor) -> Tensor:
    """``-x``."""

    def body(block: Body, values: list[str], dtype: DType) -> str:
        if dtype.is_float:
            return block.op(f"arith.negf {values[0]}", dtype.mlir)
        zero = block.const(dtype, 0)
        return block.op(f"arith.subi {zero}, {values[0]}", dtype.mlir)

    return elementwise("negative", [x], body)


def abs(x: Tensor) -> Tensor:
    """``numpy.abs``."""

    def body(block: Body, values: list[str], dtype: DType) -> str:
        if dtype.is_float:
            return block.op(f"math.absf {values[0]}", dtype.mlir)
        return block.op(f"math.absi {values[0]}", dtype.mlir)

    return elementwise("abs", [x], body)


def exp(x: Tensor) -> Tensor:
    """``numpy.exp``."""
    return elementwise("exp", [x], _unary_float("math.exp"))


def log(x: Tensor) -> Tensor:
    """``numpy.log``."""
    return elementwise("log", [x], _unary_float("math.log"))


def sqrt(x: Tensor) -> Tensor:
    """``numpy.sqrt``."""
    return elementwise("sqrt", [x], _unary_float("math.sqrt"))


def tanh(x: Tensor) -> Tensor:
    """``numpy.tanh``."""
    return elementwise("tanh", [x], _unary_float("math.tanh"))


def relu(x: Tensor) -> Tensor:
    """``maximum(x, 0)``."""

    def body(block: Body, values: list[str], dtype: DType) -> str:
        zero = block.const(dtype, 0)
        op = "arith.maximumf" if dtype.is_float else "arith.maxsi"
        return block.op(f"{op} {values[0]}, {zero}", dtype.mlir)

    return elementwise("relu", [x], body)


def sigmoid(x: Tensor) -> Tensor:
    """``1 / (1 + exp(-x))``."""

    def body(block: Body, values: list[str], dtype: DType) -> str:
        if not dtype.is_float:
            raise FrontendError(f"sigmoid needs a floating-point type, not {dtype}")
        one = block.const(dtype, 1.0)
        neg = block.op(f"arith.negf {values[0]}", dtype.mlir)
        e = block.op(f"math.exp {neg}", dtype.mlir)
        den = block.op(f"arith.addf {one}, {e}", dtype.mlir)
        return block.op(f"arith.divf {one}, {den}", dtype.mlir)

    return elementwise("sigmoid", [x], body)


_PREDICATES = {
    "less": ("olt", "slt"),
    "less_equal": ("ole", "sle"),
    "greater": ("ogt", "sgt"),
    "greater_equal": ("oge", "sge"),
    "equal": ("oeq", "eq"),
    "not_equal": ("une", "ne"),
}


def _compare(name: str, x: Value, y: Value) -> Tensor:
    float_predicate, int_predicate = _PREDICATES[name]

    def body(block: Body, values: list[str], dtype: DType) -> str:
        if dtype.is_float:
            return block.op(f"arith.cmpf {float_predicate}, {values[0]}, {values[1]}", dtype.mlir)
        return block.op(f"arith.cmpi {int_predicate}, {values[0]}, {values[1]}", dtype.mlir)

    return elementwise(name, [x, y], body, user_location(), result=i1)


def less(x: Value, y: Value) -> Tensor:
    """``x < y`` (an ``i1`` tensor)."""
    return _compare("less", x, y)


def less_equal(x: Value, y: Value) -> Tensor:
    """``x <= y`` (an ``i1`` tensor)."""
    return _compare("less_equal", x, y)


def greater(x: Value, y: Value) -> Tensor:
    """``x > y`` (an ``i1`` tensor)."""
    return _compare("greater", x, y)


def greater_equal(x: Value, y: Value) -> Tensor:
    """``x >= y`` (an ``i1`` tensor)."""
    return _compare("greater_equal", x, y)


def equal(x: Value, y: Value) -> Tensor:
    """``x == y`` (an ``i1`` tensor; ``==`` on traced tensors is identity, not this)."""
    return _compare("equal", x, y)


def not_equal(x: Value, y: Value) -> Tensor:
    """``x != y`` (an ``i1`` tensor; unordered for NaN, as numpy)."""
    return _compare("not_equal", x, y)


def where(condition: Tensor, x: Value, y: Value) -> Tensor:
    """``numpy.where(condition, x, y)`` with an ``i1`` condition, broadcast together."""
    if not isinstance(condition, Tensor) or not condition.dtype.is_bool:
        raise FrontendError(f"where at {user_location()}: the condition must be an i1 tensor")
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        raise FrontendError(f"where at {user_location()}: x or y must be a traced tensor")

    def body(block: Body, values: list[str], dtype: DType) -> str:
        return block.op(f"arith.select {values[0]}, {values[1]}, {values[2]}", dtype.mlir)

    return elementwise("where", [condition, x, y], body, user_location(), skip_type_check=[0])


def astype(x: Tensor, dtype: DType | str) -> Tensor:
    """``x.astype(dtype)``: float widths, int <-> float (truncating), int widths, bool."""
    target = as_dtype(dtype)
    source = x.dtype
    if target == source:
        return x
    width = {"f16": 16, "f32": 32, "f64": 64, "i1": 1, "i32": 32, "i64": 64}

    def body(block: Body, values: list[str], _: DType) -> str:
        value = values[0]
        if target.is_bool:
            zero = block.const(source, 0)
            predicate = "arith.cmpf une" if source.is_float else "arith.cmpi ne"
            return block.op(f"{predicate}, {value}, {zero}", source.mlir)
        if source.is_float and target.is_float:
            op = "arith.extf" if width[target.name] > width[source.name] else "arith.truncf"
        elif source.is_float:
            op = "arith.fptosi"
        elif target.is_float:
            op = "arith.uitofp" if source.is_bool else "arith.sitofp"
        elif width[target.name] > width[source.name]:
            op = "arith.extui" if source.is_bool else "arith.extsi"
        else:
            op = "arith.trunci"
        name = block.trace.ssa("b")
        block.lines.append(
            f"  {name} = {op} {value} : {source.mlir} to {target.mlir} {block.where.mlir}"
        )
        return name

    return elementwise("astype", [x], body, user_location(), result=target)


def gelu(x: Tensor) -> Tensor:
    """GELU, tanh approximation: ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``."""

    def body(block: Body, values: list[str], dtype: DType) -> str:
        if not dtype.is_float:
            raise FrontendError(f"gelu needs a floating-point type, not {dtype}")
        t = dtype.mlir
        v = values[0]
        cube = block.op(f"arith.mulf {v}, {v}", t)
        cube = block.op(f"arith.mulf {cube}, {v}", t)
        inner = block.op(f"arith.mulf {cube}, {block.const(dtype, 0.044715)}", t)
        inner = block.op(f"arith.addf {v}, {inner}", t)
        inner = block.op(f"arith.mulf {inner}, {block.const(dtype, math.sqrt(2 / math.pi))}", t)
        th = block.op(f"math.tanh {inner}", t)
        one = block.op(f"arith.addf {th}, {block.const(dtype, 1.0)}", t)
        half = block.op(f"arith.mulf {v}, {block.const(dtype, 0.5)}", t)
        return block.op(f"arith.mulf {half}, {one}", t)

    return elementwise("gelu", [x], body, user_location())
