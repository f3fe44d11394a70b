"""Elementwise ops with numpy broadcasting, type promotion and Python scalars.

Each op is one ``linalg.generic`` over the broadcast shape (rules from
:mod:`symshape_mlir.shapes`). Operands are promoted as numpy does
(:func:`~symshape_mlir.frontend.dtypes.promote`: ``i32`` with ``f32`` is
``f64``); a Python number is a weak scalar (it takes the tensor's type: an
``int`` with an integer tensor, a ``float`` with a floating-point one, while
a ``float`` with an integer tensor gives ``f64``); numpy arrays and numpy
scalars are constants of their own type.

Integer division and remainder follow numpy, without its signals: ``x // 0``
and ``x % 0`` are 0, ``INT_MIN // -1`` wraps. ``/`` of integers is ``f64``.

Example:
    >>> def f(x, b):                               # x: [batch, 64], b: [64]
    ...     return relu(x * 2.0 + b)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symshape_mlir.extent.expr import Expr
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.frontend.dtypes import DType, as_dtype, f64, i1, i8, i64, promote
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.index import IndexBuilder
from symshape_mlir.frontend.ops.broadcasting import broadcast_operands
from symshape_mlir.frontend.ops.constants import constant
from symshape_mlir.frontend.ops.generic import Body, emit_empty, emit_generic
from symshape_mlir.frontend.ops.shape_ops import sum_to_shape
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import FunctionTrace, current_trace
from symshape_mlir.frontend.vjp import Cotangents, Node, primitive, vjp_rule, zero_rule
from symshape_mlir.shapes.shape import Shape

__all__ = [
    "Value",
    "add",
    "astype",
    "binary_body",
    "clip",
    "divide",
    "elementwise",
    "equal",
    "floor_divide",
    "greater",
    "greater_equal",
    "integer_division",
    "less",
    "less_equal",
    "maximum",
    "minimum",
    "multiply",
    "not_equal",
    "power",
    "remainder",
    "subtract",
    "where",
]

Value = Tensor | float | int | np.ndarray | np.generic
BodyFn = Callable[[Body, list[str], DType], str]


def _scalar_kind(value: Any) -> str | None:
    """``bool``, ``int`` or ``float`` for a Python number (a weak scalar), else None."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return None


def _common_type(op: str, args: Sequence[Any], where: SourceLocation,
                 weak: frozenset[int] = frozenset()) -> DType:
    """numpy's result type of tensors and weak Python scalars (and of the
    tensors at ``weak`` positions, extents, which count as Python ints)."""
    tensors = [a for i, a in enumerate(args) if isinstance(a, Tensor) and i not in weak]
    if not tensors:
        return i64
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        try:
            dtype = promote(dtype, t.dtype)
        except TypeError:
            raise FrontendError(
                f"{op} at {where}: no common element type for {dtype} and {t.dtype}; "
                "cast first") from None
    kinds = {_scalar_kind(a) for a in args} - {None}
    if weak:
        kinds.add("int")
    if "float" in kinds and not dtype.is_float:
        return f64
    if "int" in kinds and dtype.is_bool:
        return i64
    return dtype


def _operands(op: str, args: Sequence[Any],
              where: SourceLocation) -> tuple[list[Any], frozenset[int]]:
    """``args`` with numpy arrays and numpy scalars as constant tensors and
    extents (``x.shape[0]``) as 0-d ``i64`` tensors, and the positions of the
    extents (weak scalars, like Python ints).

    Raises:
        FrontendError: no traced tensor, an operand of another kind, tensors
            of different traced functions.
        ContractError: an extent that is only an upper bound.
    """
    tensors = [a for a in args if isinstance(a, Tensor)]
    if tensors:
        trace = tensors[0].trace
    elif any(isinstance(a, ShapeExtent | Expr) for a in args):
        trace = current_trace(op, where)  # `fe.sqrt(x.shape[-1])`
    else:
        raise FrontendError(f"{op} at {where}: needs at least one traced tensor")
    if any(t.trace is not trace for t in tensors):
        raise FrontendError(f"{op} at {where}: operands come from different traced functions")
    out: list[Any] = []
    weak: set[int] = set()
    for position, a in enumerate(args):
        if isinstance(a, np.ndarray | np.generic):
            a = constant(trace, np.asarray(a), where)
        elif isinstance(a, ShapeExtent | Expr):
            a = extent_tensor(trace, a, op, where)
            weak.add(position)
        elif not isinstance(a, Tensor) and _scalar_kind(a) is None:
            raise FrontendError(f"{op} at {where}: cannot use {a!r} as an operand")
        out.append(a)
    return out, frozenset(weak)


def extent_tensor(trace: FunctionTrace, extent: ShapeExtent | Expr, op: str,
                  where: SourceLocation) -> Tensor:
    """An exact extent's value as a 0-d ``i64`` tensor."""
    b = IndexBuilder(trace, where)
    index = b.of_extent(Exact(extent) if isinstance(extent, Expr) else extent, op, "operand")
    wide = trace.ssa("i")
    trace.emit(f"{wide} = arith.index_cast {b.ssa(index)} : index to i64", where)
    name = trace.ssa("k")
    trace.emit(f"{name} = tensor.from_elements {wide} : tensor<i64>", where)
    return Tensor(trace, name, Shape([]), i64)


@primitive("elementwise", label_from="op")
def elementwise(
    op: str,
    args: Sequence[Value],
    body: BodyFn,
    where: SourceLocation | None = None,
    *,
    result: DType | None = None,
    skip_type_check: Sequence[int] = (),
    dtype: DType | None = None,
) -> Tensor:
    """Emits an elementwise op over broadcast ``args``.

    Args:
        op: the op's name, for messages.
        args: tensors, numpy arrays and Python numbers.
        body: builds the scalar computation from one value per argument
            (Python numbers become constants of the computation's type).
        where: the location; the caller's line by default.
        result: the result element type; the computation's type by default.
        skip_type_check: positions of ``args`` whose element type is their
            own (``where``'s condition): not promoted.
        dtype: the computation's type; numpy's promotion of the others by
            default (operands of another type are converted first).

    Raises:
        BroadcastError, ContractError: see
            :func:`~symshape_mlir.frontend.ops.broadcasting.broadcast_operands`.
        FrontendError: no tensor among ``args``, no common type, a Python
            number the type cannot hold.
    """
    where = where or user_location()
    args, weak = _operands(op, args, where)
    if dtype is None:
        typed = [a for i, a in enumerate(args) if i not in skip_type_check]
        weak_typed = frozenset(i - sum(1 for j in skip_type_check if j < i) for i in weak)
        dtype = _common_type(op, typed, where, weak_typed) \
            if any(isinstance(a, Tensor) for a in typed) \
            else next(a for a in args if isinstance(a, Tensor)).dtype
    converted = [
        astype(a, dtype, where) if isinstance(a, Tensor) and i not in skip_type_check else a
        for i, a in enumerate(args)
    ]
    for a in converted:
        if not isinstance(a, Tensor):
            try:
                dtype.literal(a)
            except OverflowError as err:
                raise FrontendError(f"{op} at {where}: Python integer {err}") from None
    tensors = [a for a in converted if isinstance(a, Tensor)]
    trace = tensors[0].trace
    plan = broadcast_operands(op, tensors, where)
    rank = plan.shape.rank
    out = result or dtype
    init = emit_empty(trace, plan.shape, out, plan.sources, where)

    def build(block: Body, block_args: list[str]) -> str:
        it = iter(block_args)
        values = [next(it) if isinstance(a, Tensor) else block.const(dtype, a) for a in converted]
        return body(block, values, dtype)

    loops = [f"d{j}" for j in range(rank)]
    return emit_generic(
        trace, plan.operands, rank, ["parallel"] * rank, loops, plan.shape, out, init, build,
        where,
    )


def binary_body(float_op: str, int_op: str | None, unsigned_op: str | None = None) -> BodyFn:
    """A body applying ``float_op``, ``int_op`` or ``unsigned_op`` (by element
    type; ``int_op`` for unsigned types unless given) to two values."""

    def body(block: Body, values: list[str], dtype: DType) -> str:
        op = float_op if dtype.is_float else \
            (unsigned_op or int_op) if dtype.is_unsigned or dtype.is_bool else int_op
        if op is None:
            raise FrontendError(f"{float_op} needs a floating-point type, not {dtype}")
        return block.op(f"{op} {values[0]}, {values[1]}", dtype.mlir)

    return body


def _both_bool(x: Value, y: Value) -> bool:
    """Whether both operands are booleans (tensors or Python bools)."""
    args = [x, y]
    return all((isinstance(a, Tensor) and a.dtype.is_bool) or isinstance(a, bool | np.bool_)
               for a in args)


@primitive("add")
def add(x: Value, y: Value) -> Tensor:
    """``x + y`` (``or`` on booleans, as numpy)."""
    where = user_location()
    if _both_bool(x, y):
        return elementwise("add", [x, y], binary_body("arith.ori", "arith.ori"), where)
    return elementwise("add", [x, y], binary_body("arith.addf", "arith.addi"), where)


@primitive("subtract")
def subtract(x: Value, y: Value) -> Tensor:
    """``x - y``.

    Raises:
        FrontendError: both operands are booleans (numpy refuses it too).
    """
    where = user_location()
    if _both_bool(x, y):
        raise FrontendError(
            f"subtract at {where}: booleans cannot be subtracted (numpy refuses it too); "
            "use logical_xor, or cast first")
    return elementwise("subtract", [x, y], binary_body("arith.subf", "arith.subi"), where)


@primitive("multiply")
def multiply(x: Value, y: Value) -> Tensor:
    """``x * y`` (``and`` on booleans, as numpy)."""
    where = user_location()
    if _both_bool(x, y):
        return elementwise("multiply", [x, y], binary_body("arith.andi", "arith.andi"), where)
    return elementwise("multiply", [x, y], binary_body("arith.mulf", "arith.muli"), where)


@primitive("divide")
def divide(x: Value, y: Value) -> Tensor:
    """``x / y``; integers (and booleans) divide as ``f64``, as numpy."""
    where = user_location()
    args, weak = _operands("divide", [x, y], where)
    dtype = _common_type("divide", args, where, weak)
    if not dtype.is_float:
        dtype = f64
    return elementwise("divide", args, binary_body("arith.divf", None), where, dtype=dtype)


def _fmod(block: Body, a: str, b: str, dtype: DType) -> str:
    """C's ``fmod``. IREE's llvm-cpu cannot link it for f64: ``a - trunc(a / b) * b`` there."""
    t = dtype.mlir
    if dtype.name != "f64":
        return block.op(f"arith.remf {a}, {b}", t)
    whole = block.op(f"math.trunc {block.op(f'arith.divf {a}, {b}', t)}", t)
    return block.op(f"arith.subf {a}, {block.op(f'arith.mulf {whole}, {b}', t)}", t)


def integer_division(block: Body, a: str, b: str, dtype: DType, want: str,
                     rounding: str = "floor") -> str:
    """numpy's integer floor division or remainder (``want`` is ``"div"`` or
    not), or with ``rounding="trunc"`` the truncating ones (C's, ONNX's
    ``Div`` and ``Mod`` with ``fmod``), without signals: a zero divisor
    gives 0, ``INT_MIN // -1`` wraps (its remainder is 0)."""
    t = dtype.mlir
    zero, one = block.const(dtype, 0), block.const(dtype, 1)
    by_zero = block.op(f"arith.cmpi eq, {b}, {zero}", t)
    if dtype.is_unsigned:
        safe = block.op(f"arith.select {by_zero}, {one}, {b}", t)
        value = block.op(f"arith.{'divui' if want == 'div' else 'remui'} {a}, {safe}", t)
        return block.op(f"arith.select {by_zero}, {zero}, {value}", t)
    minus_one = block.const(dtype, -1)
    by_minus_one = block.op(f"arith.cmpi eq, {b}, {minus_one}", t)
    special = block.op(f"arith.ori {by_zero}, {by_minus_one}", "i1")
    safe = block.op(f"arith.select {special}, {one}, {b}", t)
    if want == "div":
        divide = "arith.floordivsi" if rounding == "floor" else "arith.divsi"
        quotient = block.op(f"{divide} {a}, {safe}", t)
        negated = block.op(f"arith.subi {zero}, {a}", t)
        value = block.op(f"arith.select {by_minus_one}, {negated}, {quotient}", t)
        return block.op(f"arith.select {by_zero}, {zero}, {value}", t)
    rem = block.op(f"arith.remsi {a}, {safe}", t)
    if rounding != "floor":
        return block.op(f"arith.select {special}, {zero}, {rem}", t)
    # The sign of the divisor: add it to a non-zero remainder of the other sign.
    nonzero = block.op(f"arith.cmpi ne, {rem}, {zero}", t)
    differ = block.op(
        f"arith.xori {block.op(f'arith.cmpi slt, {rem}, {zero}', t)}, "
        f"{block.op(f'arith.cmpi slt, {b}, {zero}', t)}", "i1")
    fix = block.op(f"arith.andi {nonzero}, {differ}", "i1")
    fixed = block.op(f"arith.select {fix}, {block.op(f'arith.addi {rem}, {b}', t)}, {rem}", t)
    return block.op(f"arith.select {special}, {zero}, {fixed}", t)


def _float_divmod(block: Body, a: str, b: str, dtype: DType, want: str) -> str:
    """numpy's floating-point floor division or remainder (its ``npy_divmod``)."""
    t = dtype.mlir
    zero, one = block.const(dtype, 0.0), block.const(dtype, 1.0)
    mod = _fmod(block, a, b, dtype)
    nonzero = block.op(f"arith.cmpf une, {mod}, {zero}", t)
    differ = block.op(
        f"arith.xori {block.op(f'arith.cmpf olt, {b}, {zero}', t)}, "
        f"{block.op(f'arith.cmpf olt, {mod}, {zero}', t)}", "i1")
    fix = block.op(f"arith.andi {nonzero}, {differ}", "i1")
    if want == "mod":
        fixed = block.op(f"arith.select {fix}, {block.op(f'arith.addf {mod}, {b}', t)}, {mod}", t)
        # A zero remainder takes the divisor's sign.
        signed = block.op(f"math.copysign {zero}, {b}", t)
        return block.op(f"arith.select {nonzero}, {fixed}, {signed}", t)
    plain = block.op(f"arith.divf {a}, {b}", t)
    div = block.op(f"arith.divf {block.op(f'arith.subf {a}, {mod}', t)}, {b}", t)
    div = block.op(f"arith.select {fix}, {block.op(f'arith.subf {div}, {one}', t)}, {div}", t)
    floor = block.op(f"math.floor {div}", t)
    above = block.op(f"arith.cmpf ogt, {block.op(f'arith.subf {div}, {floor}', t)}, "
                     f"{block.const(dtype, 0.5)}", t)
    rounded = block.op(
        f"arith.select {above}, {block.op(f'arith.addf {floor}, {one}', t)}, {floor}", t)
    # A zero quotient is a zero signed as a / b; a zero divisor gives a / b.
    signed_zero = block.op(f"math.copysign {zero}, {plain}", t)
    div_zero = block.op(f"arith.cmpf oeq, {div}, {zero}", t)
    value = block.op(f"arith.select {div_zero}, {signed_zero}, {rounded}", t)
    by_zero = block.op(f"arith.cmpf oeq, {b}, {zero}", t)
    return block.op(f"arith.select {by_zero}, {plain}, {value}", t)


def _division(op: str, want: str) -> Callable[[Value, Value], Tensor]:
    def apply(x: Value, y: Value) -> Tensor:
        where = user_location()

        def body(block: Body, values: list[str], dtype: DType) -> str:
            if dtype.is_float:
                return _float_divmod(block, values[0], values[1], dtype, want)
            return integer_division(block, values[0], values[1], dtype, want)

        # Booleans divide as i8, as numpy.
        return elementwise(op, [x, y], body, where, dtype=i8 if _both_bool(x, y) else None)

    apply.__name__ = op
    return primitive(op)(apply)


floor_divide = _division("floor_divide", "div")
floor_divide.__doc__ = "``x // y`` (numpy's ``floor_divide``; integer ``x // 0`` is 0)."
remainder = _division("remainder", "mod")
remainder.__doc__ = "``x % y`` (numpy's ``remainder``: the divisor's sign; integer ``x % 0`` is 0)."


@primitive("power")
def power(x: Value, y: Value) -> Tensor:
    """``x ** y``; integer powers are computed in ``f64`` (exact below 2**53)."""
    where = user_location()
    args, weak = _operands("power", [x, y], where)
    dtype = _common_type("power", args, where, weak)
    if dtype.is_float:
        return elementwise("power", args, binary_body("math.powf", None), where, dtype=dtype)
    if any(isinstance(a, int) and not isinstance(a, bool) and a < 0 for a in args[1:]):
        raise FrontendError(
            f"power at {where}: integers to negative integer powers are not allowed (numpy)")
    wide = elementwise("power", args, binary_body("math.powf", None), where, dtype=f64)
    return astype(wide, dtype, where)


@primitive("maximum")
def maximum(x: Value, y: Value) -> Tensor:
    """``numpy.maximum`` (NaN-propagating for floats)."""
    return elementwise("maximum", [x, y],
                       binary_body("arith.maximumf", "arith.maxsi", "arith.maxui"),
                       user_location())


@primitive("minimum")
def minimum(x: Value, y: Value) -> Tensor:
    """``numpy.minimum`` (NaN-propagating for floats)."""
    return elementwise("minimum", [x, y],
                       binary_body("arith.minimumf", "arith.minsi", "arith.minui"),
                       user_location())


@primitive("clip")
def clip(x: Value, a_min: Value | None = None, a_max: Value | None = None) -> Tensor:
    """``numpy.clip``: ``minimum(maximum(x, a_min), a_max)``; either bound may be None."""
    where = user_location()
    if a_min is None and a_max is None:
        raise FrontendError(f"clip at {where}: give a_min, a_max or both")
    result = x
    if a_min is not None:
        result = elementwise("clip", [result, a_min],
                             binary_body("arith.maximumf", "arith.maxsi", "arith.maxui"), where)
    if a_max is not None:
        result = elementwise("clip", [result, a_max],
                             binary_body("arith.minimumf", "arith.minsi", "arith.minui"), where)
    assert isinstance(result, Tensor)
    return result


_PREDICATES = {
    "less": ("olt", "slt", "ult"),
    "less_equal": ("ole", "sle", "ule"),
    "greater": ("ogt", "sgt", "ugt"),
    "greater_equal": ("oge", "sge", "uge"),
    "equal": ("oeq", "eq", "eq"),
    "not_equal": ("une", "ne", "ne"),
}


def compare(name: str, x: Value, y: Value, where: SourceLocation | None = None) -> Tensor:
    """The comparison ``name`` (``"less"``, ``"equal"``, ...) as an ``i1`` tensor."""
    float_predicate, int_predicate, unsigned_predicate = _PREDICATES[name]

    def body(block: Body, values: list[str], dtype: DType) -> str:
        if dtype.is_float:
            return block.op(f"arith.cmpf {float_predicate}, {values[0]}, {values[1]}", dtype.mlir)
        predicate = unsigned_predicate if dtype.is_unsigned or dtype.is_bool else int_predicate
        return block.op(f"arith.cmpi {predicate}, {values[0]}, {values[1]}", dtype.mlir)

    return elementwise(name, [x, y], body, where or user_location(), result=i1)


@primitive("less")
def less(x: Value, y: Value) -> Tensor:
    """``x < y`` (an ``i1`` tensor)."""
    return compare("less", x, y, user_location())


@primitive("less_equal")
def less_equal(x: Value, y: Value) -> Tensor:
    """``x <= y`` (an ``i1`` tensor)."""
    return compare("less_equal", x, y, user_location())


@primitive("greater")
def greater(x: Value, y: Value) -> Tensor:
    """``x > y`` (an ``i1`` tensor)."""
    return compare("greater", x, y, user_location())


@primitive("greater_equal")
def greater_equal(x: Value, y: Value) -> Tensor:
    """``x >= y`` (an ``i1`` tensor)."""
    return compare("greater_equal", x, y, user_location())


@primitive("equal")
def equal(x: Value, y: Value) -> Tensor:
    """``x == y`` (an ``i1`` tensor; also the ``==`` operator)."""
    return compare("equal", x, y, user_location())


@primitive("not_equal")
def not_equal(x: Value, y: Value) -> Tensor:
    """``x != y`` (an ``i1`` tensor, true for NaN, as numpy; also ``!=``)."""
    return compare("not_equal", x, y, user_location())


@primitive("where")
def where(condition: Value, x: Value, y: Value) -> Tensor:
    """``numpy.where(condition, x, y)`` broadcast together; a condition that is
    not boolean is compared with zero, as numpy."""
    here = user_location()
    if not isinstance(condition, Tensor | np.ndarray):
        raise FrontendError(
            f"where at {here}: the condition is {condition!r}, a Python value, not a traced "
            "tensor: compare tensors elementwise (x == 0.0, fe.equal(x, 0.0), x > y)")
    if not isinstance(x, Tensor) and not isinstance(y, Tensor) and \
            not isinstance(condition, Tensor):
        raise FrontendError(f"where at {here}: x, y or the condition must be a traced tensor")
    if isinstance(condition, Tensor) and not condition.dtype.is_bool:
        condition = compare("not_equal", condition, 0, here)
    elif isinstance(condition, np.ndarray):
        condition = condition.astype(bool)
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        # Both Python numbers: their numpy type.
        x = np.asarray(x)

    def body(block: Body, values: list[str], dtype: DType) -> str:
        return block.op(f"arith.select {values[0]}, {values[1]}, {values[2]}", dtype.mlir)

    return elementwise("where", [condition, x, y], body, here, skip_type_check=[0])


_CASTS_INT = {True: "arith.extui", False: "arith.extsi"}


@primitive("astype")
def astype(x: Tensor, dtype: DType | str, where: SourceLocation | None = None) -> Tensor:
    """``x.astype(dtype)``: between every pair of element types.

    Floats to integers truncate toward zero (NaN and values out of range are
    undefined, as in numpy); to bool is ``!= 0``.
    """
    where = where or user_location()
    try:
        target = as_dtype(dtype)
    except TypeError as err:
        raise FrontendError(f"astype at {where}: {err}") from None
    source = x.dtype
    if target == source:
        return x

    def body(block: Body, values: list[str], _: DType) -> str:
        value = values[0]
        if target.is_bool:
            zero = block.const(source, 0)
            predicate = "arith.cmpf une" if source.is_float else "arith.cmpi ne"
            return block.op(f"{predicate}, {value}, {zero}", source.mlir)
        return convert(block, value, source, target)

    return elementwise("astype", [x], body, where, result=target, dtype=source)


def convert(block: Body, value: str, source: DType, target: DType) -> str:
    """One value of ``source`` as ``target`` (not ``i1``) in a generic's body."""
    if source.is_float and target.is_float:
        if {source.name, target.name} == {"f16", "bf16"}:
            value = convert(block, value, source, as_dtype("f32"))
            source = as_dtype("f32")
        op = "arith.extf" if target.bits > source.bits else "arith.truncf"
    elif source.is_float:
        op = "arith.fptoui" if target.is_unsigned else "arith.fptosi"
    elif target.is_float:
        op = "arith.uitofp" if source.is_bool or source.is_unsigned else "arith.sitofp"
    elif target.bits > source.bits:
        op = _CASTS_INT[source.is_bool or source.is_unsigned]
    elif target.bits < source.bits:
        op = "arith.trunci"
    else:
        return value  # u8 and i8 share their bits
    name = block.trace.ssa("b")
    block.lines.append(
        f"  {name} = {op} {value} : {source.mlir} to {target.mlir} {block.where.mlir}")
    return name


# -- VJP rules -------------------------------------------------------------------------
#
# Each cotangent is summed back over the axes its operand was broadcast along
# (sum_to_shape, run-time broadcasts included); the driver casts it to the
# operand's element type.


def _to(node: Node, param: str, ct: Tensor | None) -> Tensor | None:
    """``ct`` summed to the shape of argument ``param``, if that needs a cotangent."""
    value = node.args[param]
    if ct is None or not node.wants(value):
        return None
    return sum_to_shape(ct, value, node.where)


@vjp_rule("add")
def _add_vjp(node: Node, ct: Tensor) -> Cotangents:
    return {"x": _to(node, "x", ct), "y": _to(node, "y", ct)}


@vjp_rule("subtract")
def _subtract_vjp(node: Node, ct: Tensor) -> Cotangents:
    return {"x": _to(node, "x", ct), "y": _to(node, "y", -ct if node.needs("y") else None)}


@vjp_rule("multiply")
def _multiply_vjp(node: Node, ct: Tensor) -> Cotangents:
    x, y = node.args["x"], node.args["y"]
    return {"x": _to(node, "x", ct * y if node.needs("x") else None),
            "y": _to(node, "y", ct * x if node.needs("y") else None)}


@vjp_rule("divide")
def _divide_vjp(node: Node, ct: Tensor) -> Cotangents:
    y = node.args["y"]
    return {"x": _to(node, "x", ct / y if node.needs("x") else None),
            "y": _to(node, "y", -ct * node.out / y if node.needs("y") else None)}


@vjp_rule("floor_divide")
def _floor_divide_vjp(node: Node, ct: Tensor) -> Cotangents:
    return zero_rule(node, ct)  # piecewise constant


@vjp_rule("remainder")
def _remainder_vjp(node: Node, ct: Tensor) -> Cotangents:
    # x % y = x - floor(x / y) * y (numpy's floor division of floats).
    x, y = node.args["x"], node.args["y"]
    return {"x": _to(node, "x", ct),
            "y": _to(node, "y", -ct * floor_divide(x, y) if node.needs("y") else None)}


def _log(x: Tensor, where: SourceLocation) -> Tensor:
    def body(block: Body, values: list[str], dtype: DType) -> str:
        return block.op(f"math.log {values[0]}", dtype.mlir)

    return elementwise("log", [x], body, where)


@vjp_rule("power")
def _power_vjp(node: Node, ct: Tensor) -> Cotangents:
    # As jax: d/dx = y x^(y-1); d/dy = log(x) x^y, taken as 0 where x == 0.
    x, y = node.args["x"], node.args["y"]
    dx = ct * y * power(x, y - 1.0) if node.needs("x") else None
    dy = None
    if node.needs("y"):
        log: Value
        if isinstance(x, Tensor):
            log = _log(where(equal(x, 0.0), 1.0, x), node.where)
        else:
            base = np.asarray(x, np.float64)
            log = np.log(np.where(base == 0, 1.0, base))
        dy = ct * node.out * log
    return {"x": _to(node, "x", dx), "y": _to(node, "y", dy)}


def _share(first: Value, second: Value, better: str) -> Tensor:
    """How much of a cotangent ``first`` gets where it is the chosen one of two
    (``better`` comparison): 1 where it wins, half where they are equal (as jax)."""
    wins = compare(better, first, second)
    return where(wins, 1.0, where(equal(first, second), 0.5, 0.0))


def _select_vjp(node: Node, ct: Tensor, better: str) -> Cotangents:
    x, y = node.args["x"], node.args["y"]
    share = _share(x, y, better)
    return {"x": _to(node, "x", ct * share if node.needs("x") else None),
            "y": _to(node, "y", ct * (1.0 - share) if node.needs("y") else None)}


@vjp_rule("maximum")
def _maximum_vjp(node: Node, ct: Tensor) -> Cotangents:
    return _select_vjp(node, ct, "greater")


@vjp_rule("minimum")
def _minimum_vjp(node: Node, ct: Tensor) -> Cotangents:
    return _select_vjp(node, ct, "less")


@vjp_rule("clip")
def _clip_vjp(node: Node, ct: Tensor) -> Cotangents:
    # clip(x, lo, hi) = minimum(maximum(x, lo), hi), ties shared as there.
    x, lo, hi = node.args["x"], node.args["a_min"], node.args["a_max"]
    inner = x
    through = ct
    result: dict[str, Tensor | None] = {}
    if hi is not None:
        middle = maximum(x, lo) if lo is not None else x
        share = _share(middle, hi, "less")
        result["a_max"] = _to(node, "a_max", ct * (1.0 - share) if node.needs("a_max") else None)
        through = ct * share
    if lo is not None:
        share = _share(inner, lo, "greater")
        result["a_min"] = _to(node, "a_min",
                              through * (1.0 - share) if node.needs("a_min") else None)
        through = through * share
    result["x"] = _to(node, "x", through)
    return result


@vjp_rule("where")
def _where_vjp(node: Node, ct: Tensor) -> Cotangents:
    condition = node.args["condition"]
    if isinstance(condition, Tensor) and not condition.dtype.is_bool:
        condition = compare("not_equal", condition, 0, node.where)
    elif isinstance(condition, np.ndarray):
        condition = condition.astype(bool)
    zero = 0.0
    return {"x": _to(node, "x", where(condition, ct, zero) if node.needs("x") else None),
            "y": _to(node, "y", where(condition, zero, ct) if node.needs("y") else None)}


@vjp_rule("astype")
def _astype_vjp(node: Node, ct: Tensor) -> Cotangents:
    return {"x": ct}
