"""Tensors made from sizes and values: ``arange``, ``zeros``, ``ones``, ``full``,
``*_like``, ``eye`` and numpy arrays as constants.

Sizes may be symbolic: an ``int``, an axis name, an extent of a traced
shape, or a run-time integer (a 0-d integer tensor: ``arange(k)`` has
``max(k, 0)`` entries). Default element types are numpy's: ``f64`` for
``zeros``/``ones``/``eye``, the fill value's type for ``full``, ``i64`` for
integer ``arange`` and ``f64`` for a float one. Inside a traced function
these ops need no tensor operand.

Example:
    >>> def f(x, k):                          # x: [batch, 8] f32, k: a 0-d i64 input
    ...     mask = arange(8) < k              # the first k columns
    ...     return where(mask, x, zeros_like(x))
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from symshape_mlir.frontend.dtypes import DType, as_dtype, f64, i64
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.index import Index, IndexBuilder, SizeLike
from symshape_mlir.frontend.ops.constants import constant
from symshape_mlir.frontend.ops.elementwise import astype
from symshape_mlir.frontend.ops.generic import (
    Body,
    Operand,
    emit_empty,
    emit_empty_sized,
    emit_fill,
    emit_generic,
)
from symshape_mlir.frontend.ops.shape_ops import sum_axes
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import FunctionTrace, current_trace, tensor_type
from symshape_mlir.frontend.vjp import Cotangents, Node, primitive, vjp_rule, zero_rule
from symshape_mlir.shapes.slices import range_count

__all__ = [
    "arange",
    "array",
    "eye",
    "full",
    "full_like",
    "ones",
    "ones_like",
    "zeros",
    "zeros_like",
]


def _trace_of(op: str, items: Sequence[Any], where: SourceLocation) -> FunctionTrace:
    """The trace of the tensors among ``items``, else the one being traced."""
    for item in items:
        if isinstance(item, Tensor):
            return item.trace
    return current_trace(op, where)


def _dtype(op: str, dtype: Any, where: SourceLocation) -> DType:
    try:
        return as_dtype(dtype)
    except TypeError as err:
        raise FrontendError(f"{op} at {where}: {err}") from None


def _sizes(op: str, shape: Any, where: SourceLocation) -> tuple[FunctionTrace, list[Index]]:
    """The sizes of a ``shape`` argument (one size or a sequence of them)."""
    items = list(shape) if isinstance(shape, list | tuple) else [shape]
    trace = _trace_of(op, items, where)
    b = IndexBuilder(trace, where)
    sizes = []
    for axis, item in enumerate(items):
        size = b.size(item, op, f"size of axis {axis}")
        if size.const is not None and size.const < 0:
            raise FrontendError(f"{op} at {where}: negative dimensions are not allowed "
                                f"(axis {axis} is {size.const})")
        sizes.append(size)
    return trace, sizes


def _literal_type(value: Any, where: SourceLocation) -> DType:
    """numpy's type of a Python or numpy scalar fill value."""
    try:
        return as_dtype(np.asarray(value).dtype)
    except TypeError:
        raise FrontendError(f"full at {where}: no element type holds {value!r}") from None


@primitive("full")
def full(shape: SizeLike | Sequence[SizeLike], fill_value: Any, dtype: Any = None) -> Tensor:
    """``numpy.full``: ``shape`` filled with ``fill_value`` (a number, or a 0-d tensor)."""
    where = user_location()
    trace, sizes = _sizes("full", shape, where)
    if isinstance(fill_value, Tensor):
        if fill_value.ndim != 0:
            raise FrontendError(f"full at {where}: the fill value must be a number or a 0-d "
                                f"tensor, not {fill_value.mlir_type}")
        target = _dtype("full", dtype, where) if dtype is not None else fill_value.dtype
        init, out = emit_empty_sized(trace, sizes, target, where)
        value = astype(fill_value, target, where)
        rank = out.rank
        return emit_generic(trace, [Operand(value, ())], rank, ["parallel"] * rank,
                            [f"d{a}" for a in range(rank)], out, target, init,
                            lambda block, args: args[0], where)
    if isinstance(fill_value, np.ndarray) and fill_value.ndim == 0:
        fill_value = fill_value.item()
    if not isinstance(fill_value, int | float | bool | np.generic):
        raise FrontendError(f"full at {where}: the fill value must be a number or a 0-d "
                            f"tensor, not {fill_value!r}")
    target = _dtype("full", dtype, where) if dtype is not None else \
        _literal_type(fill_value, where)
    return _filled(trace, sizes, target, fill_value, where)


def _filled(trace: FunctionTrace, sizes: Sequence[Index], dtype: DType, value: Any,
            where: SourceLocation) -> Tensor:
    init, shape = emit_empty_sized(trace, sizes, dtype, where)
    number = bool(value) if dtype.is_bool else value if dtype.is_float else _as_int(value)
    try:
        filled = emit_fill(trace, init, dtype, number, tensor_type(shape, dtype), where)
    except OverflowError as err:
        raise FrontendError(f"fill at {where}: {err}") from None
    return Tensor(trace, filled, shape, dtype)


def _as_int(value: Any) -> int:
    number = float(value)
    if not math.isfinite(number):
        raise OverflowError(f"{value} is not an integer")
    return int(number)


@primitive("zeros")
def zeros(shape: SizeLike | Sequence[SizeLike], dtype: Any = f64) -> Tensor:
    """``numpy.zeros`` (``f64`` by default)."""
    where = user_location()
    trace, sizes = _sizes("zeros", shape, where)
    return _filled(trace, sizes, _dtype("zeros", dtype, where), 0, where)


@primitive("ones")
def ones(shape: SizeLike | Sequence[SizeLike], dtype: Any = f64) -> Tensor:
    """``numpy.ones`` (``f64`` by default)."""
    where = user_location()
    trace, sizes = _sizes("ones", shape, where)
    return _filled(trace, sizes, _dtype("ones", dtype, where), 1, where)


@primitive("full_like")
def full_like(x: Tensor, fill_value: Any, dtype: Any = None) -> Tensor:
    """``numpy.full_like``: ``x``'s shape (and type, unless given)."""
    where = user_location()
    if not isinstance(x, Tensor):
        raise FrontendError(f"full_like at {where}: expected a traced tensor, got {x!r}")
    target = _dtype("full_like", dtype, where) if dtype is not None else x.dtype
    if isinstance(fill_value, Tensor):
        return full(list(x.shape), fill_value, target)
    init = emit_empty(x.trace, x.symbolic_shape, target, [(x, a) for a in range(x.ndim)], where)
    number = bool(fill_value) if target.is_bool else fill_value if target.is_float \
        else _as_int(fill_value)
    try:
        filled = emit_fill(x.trace, init, target, number, tensor_type(x.shape, target), where)
    except OverflowError as err:
        raise FrontendError(f"full_like at {where}: {err}") from None
    return Tensor(x.trace, filled, x.symbolic_shape, target)


@primitive("zeros_like")
def zeros_like(x: Tensor, dtype: Any = None) -> Tensor:
    """``numpy.zeros_like``."""
    return full_like(x, 0, dtype)


@primitive("ones_like")
def ones_like(x: Tensor, dtype: Any = None) -> Tensor:
    """``numpy.ones_like``."""
    return full_like(x, 1, dtype)


@primitive("arange")
def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Tensor:
    """``numpy.arange``: ``start, start + step, ...`` below ``stop``.

    With Python numbers only, the length is computed now (floats allowed).
    With a symbolic bound (an extent, a 0-d integer tensor) the bounds are
    integers and ``step`` a non-zero ``int``; the length is
    ``max(ceildiv(stop - start, step), 0)``.
    """
    where = user_location()
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    numbers = all(isinstance(v, int | float | np.integer | np.floating) and
                  not isinstance(v, bool) for v in (start, stop, step))
    trace = _trace_of("arange", [start, stop, step], where)
    if numbers:
        if step == 0:
            raise FrontendError(f"arange at {where}: step must not be zero")
        count = max(math.ceil((stop - start) / step), 0)
        natural = i64 if all(isinstance(v, int | np.integer) for v in (start, stop, step)) \
            else f64
        target = _dtype("arange", dtype, where) if dtype is not None else natural
        return _iota(trace, IndexBuilder(trace, where).const(count), float(start)
                     if natural.is_float else int(start), step, natural, target, where)
    if isinstance(step, bool) or not isinstance(step, int | np.integer) or step == 0:
        raise FrontendError(f"arange at {where}: with a symbolic bound, step must be a "
                            f"non-zero int, not {step!r}")
    for value in (start, stop):
        if isinstance(value, float | np.floating):
            raise FrontendError(f"arange at {where}: with a symbolic bound, start and stop "
                                f"must be integers, not {value!r}")
    b = IndexBuilder(trace, where)
    low, high = b.size(start, "arange", "start"), b.size(stop, "arange", "stop")
    step = operator.index(step)
    count = range_count(b, low, high, step)
    target = _dtype("arange", dtype, where) if dtype is not None else i64
    return _iota(trace, count, low, step, i64, target, where)


def _iota(trace: FunctionTrace, count: Index, start: Index | int | float, step: Any,
          natural: DType, target: DType, where: SourceLocation) -> Tensor:
    """``start + step * i`` for ``i < count``, computed in ``natural``, given as ``target``."""
    init, shape = emit_empty_sized(trace, [count], natural, where)
    first = None
    if isinstance(start, Index):
        first = trace.ssa("i")
        trace.emit(f"{first} = arith.index_cast {IndexBuilder(trace, where).ssa(start)} : "
                   f"index to i64", where)
        start = 0

    def body(block: Body, args: list[str]) -> str:
        position = block.op("linalg.index 0", "index")
        t = natural.mlir
        wide = block.op(f"arith.index_cast {position}", "index to i64")
        if natural.is_float:
            value = block.op(f"arith.sitofp {wide}", f"i64 to {t}")
            value = block.op(f"arith.mulf {value}, {block.const(natural, step)}", t)
            return block.op(f"arith.addf {value}, {block.const(natural, start)}", t)
        value = block.op(f"arith.muli {wide}, {block.const(natural, step)}", t)
        offset = first if first is not None else block.const(natural, start)
        return block.op(f"arith.addi {value}, {offset}", t)

    result = emit_generic(trace, [], 1, ["parallel"], ["d0"], shape, natural, init, body, where)
    return astype(result, target, where)


@primitive("eye")
def eye(n: SizeLike, m: SizeLike | None = None, k: int = 0, dtype: Any = f64) -> Tensor:
    """``numpy.eye``: ones on the ``k``-th diagonal of an ``n x m`` matrix."""
    where = user_location()
    if isinstance(k, bool) or not isinstance(k, int):
        raise FrontendError(f"eye at {where}: k must be an int, not {k!r}")
    trace, sizes = _sizes("eye", [n, n if m is None else m], where)
    target = _dtype("eye", dtype, where)
    init, shape = emit_empty_sized(trace, sizes, target, where)

    def body(block: Body, args: list[str]) -> str:
        row = block.op("linalg.index 0", "index")
        column = block.op("linalg.index 1", "index")
        offset = block.op(f"arith.subi {column}, {row}", "index")
        on = block.op(f"arith.cmpi eq, {offset}, {block.op(f'arith.constant {k}', 'index')}",
                      "index")
        one = block.const(target, True if target.is_bool else 1)
        zero = block.const(target, False if target.is_bool else 0)
        return block.op(f"arith.select {on}, {one}, {zero}", target.mlir)

    return emit_generic(trace, [], 2, ["parallel", "parallel"], ["d0", "d1"], shape, target,
                        init, body, where)


@primitive("array")
def array(value: Any, dtype: Any = None) -> Tensor:
    """A constant of the function being traced (``numpy.asarray`` of ``value``),
    or a traced tensor converted to ``dtype``."""
    where = user_location()
    if isinstance(value, Tensor):
        return value if dtype is None else astype(value, _dtype("array", dtype, where), where)
    trace = current_trace("array", where)
    try:
        data = np.asarray(value) if dtype is None else \
            np.asarray(value, dtype=_dtype("array", dtype, where).numpy)
    except (TypeError, ValueError) as err:
        raise FrontendError(f"array at {where}: cannot make an array of {value!r}: {err}") \
            from None
    return constant(trace, data, where)


# Made from the input's shape alone (sizes, not values): no cotangent flows back.
vjp_rule("zeros_like", "ones_like")(zero_rule)


@vjp_rule("full", "full_like")
def _full_vjp(node: Node, ct: Tensor) -> Cotangents:
    # Every entry is the (0-d tensor) fill value; the shape gets nothing.
    if not node.wants(node.args["fill_value"]):
        return {}
    return {"fill_value": sum_axes(ct, range(ct.ndim), node.where)}
