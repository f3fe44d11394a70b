"""Statistics over axes: ``var``, ``std``, ``logsumexp``, ``argmax``, ``argmin``.

Composed from the reductions and elementwise ops, except the arg-reductions:
``argmax`` takes the maximum, then the first position holding it (a ``min``
reduction over positions, ``linalg.index``); a NaN is the maximum and the
minimum, as in numpy. An arg-reduction over an empty axis fails: at trace
time when the axis is statically empty, else with a run-time check, as numpy
raises.

Example:
    >>> def f(x):                              # x: [batch, classes]
    ...     return x.argmax(axis=-1), x.std(axis=0, ddof=1)
"""

from __future__ import annotations

from symshape_mlir.frontend.dtypes import DType, i64
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.ops.elementwise import astype, elementwise, where
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_fill, emit_generic
from symshape_mlir.frontend.ops.reductions import (
    Axis,
    element_count,
    reduce,
    reduced_axes,
)
from symshape_mlir.frontend.ops.reductions import max as max_
from symshape_mlir.frontend.ops.reductions import mean as mean_
from symshape_mlir.frontend.ops.reductions import sum as sum_
from symshape_mlir.frontend.ops.shape_ops import drop_unit_axes, insert_unit_axes, reshape
from symshape_mlir.frontend.ops.unary import exp, isfinite, log, sqrt
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.frontend.vjp import Cotangents, Node, composite, primitive, save, vjp_rule
from symshape_mlir.shapes.shape import Shape

__all__ = ["argmax", "argmin", "logsumexp", "std", "var"]


@primitive("var")
def var(x: Tensor, axis: Axis = None, *, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """``numpy.var``: the mean squared deviation, divided by ``count - ddof``."""
    where = user_location()
    if isinstance(ddof, bool) or not isinstance(ddof, int):
        raise FrontendError(f"var at {where}: ddof must be an int, not {ddof!r}")
    if not x.dtype.is_float:
        x = astype(x, "f64", where)
    axes = reduced_axes("var", x, axis, where)
    save(axes=axes)
    centered = x - mean_(x, axes, keepdims=True)
    total = sum_(centered * centered, axes, keepdims=keepdims)
    count = element_count(x, axes, x.dtype, where)

    def body(block: Body, values: list[str], dtype: DType) -> str:
        t = dtype.mlir
        free = block.op(f"arith.subf {count}, {block.const(dtype, float(ddof))}", t)
        return block.op(f"arith.divf {values[0]}, {free}", t)

    return elementwise("var", [total], body, where)


@composite
def std(x: Tensor, axis: Axis = None, *, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """``numpy.std``: ``sqrt(var)``."""
    return sqrt(var(x, axis, ddof=ddof, keepdims=keepdims))


@primitive("logsumexp")
def logsumexp(x: Tensor, axis: Axis = None, *, keepdims: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` along ``axis`` without overflow (``scipy.special.logsumexp``):
    the maximum is taken out first (where it is finite)."""
    where_ = user_location()
    if not x.dtype.is_float:
        x = astype(x, "f64", where_)
    axes = reduced_axes("logsumexp", x, axis, where_)
    save(axes=axes)
    top = max_(x, axes, keepdims=True)
    shift = where(isfinite(top), top, 0.0)
    total = log(sum_(exp(x - shift), axes, keepdims=True)) + shift
    return total if keepdims else drop_unit_axes(total, sorted(axes), where_)


@primitive("argmax")
def argmax(x: Tensor, axis: int | None = None, *, keepdims: bool = False) -> Tensor:
    """``numpy.argmax`` (``i64``; the first of equal maxima)."""
    return _arg("argmax", "max", x, axis, keepdims, user_location())


@primitive("argmin")
def argmin(x: Tensor, axis: int | None = None, *, keepdims: bool = False) -> Tensor:
    """``numpy.argmin`` (``i64``; the first of equal minima)."""
    return _arg("argmin", "min", x, axis, keepdims, user_location())


def _arg(op: str, kind: str, x: Tensor, axis: int | None, keepdims: bool,
         where: SourceLocation) -> Tensor:
    if axis is None:
        flat = reshape(x, [-1]) if x.ndim != 1 else x
        result = _arg(op, kind, flat, 0, False, where)
        return insert_unit_axes(result, list(range(x.ndim)), where) if keepdims else result
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise FrontendError(f"{op} at {where}: axis must be an int or None, not {axis!r}")
    (axis,) = reduced_axes(op, x, axis, where)
    trace = x.trace
    extent = x.shape[axis]
    if extent.is_exact and extent.expr is not None and extent.expr.const_value == 0:
        raise FrontendError(f"{op} at {where}: attempt to get {op} of an empty axis ({axis})")
    if extent.expr is None or extent.expr.const_value is None:
        size = trace.dim_index(x, axis, where)
        positive = trace.ssa("i")
        trace.emit(f"{positive} = arith.cmpi sgt, {size}, {trace.index_const(0, where)} : index",
                   where)
        trace.check(positive, f"{op} of an empty axis", where)
    best = reduce(kind, x, axis, keepdims=True, where=where)
    kept = [a for a in range(x.ndim) if a != axis]
    shape = Shape([x.shape[a] for a in kept])
    init = emit_empty(trace, shape, i64, [(x, a) for a in kept], where)
    filled = emit_fill(trace, init, i64, i64.int_range[1], tensor_type(shape, i64), where)
    dtype = x.dtype
    loops = tuple(f"d{a}" for a in range(x.ndim))
    best_map = tuple("0" if a == axis else f"d{a}" for a in range(x.ndim))

    def body(block: Body, args: list[str]) -> str:
        value, target, acc = args
        t = dtype.mlir
        if dtype.is_float:
            hit = block.op(f"arith.cmpf oeq, {value}, {target}", t)
            both_nan = block.op(
                f"arith.andi {block.op(f'arith.cmpf uno, {value}, {value}', t)}, "
                f"{block.op(f'arith.cmpf uno, {target}, {target}', t)}", "i1")
            hit = block.op(f"arith.ori {hit}, {both_nan}", "i1")
        else:
            hit = block.op(f"arith.cmpi eq, {value}, {target}", t)
        position = block.op(f"linalg.index {axis}", "index")
        position = block.op(f"arith.index_cast {position}", "index to i64")
        candidate = block.op(f"arith.select {hit}, {position}, {acc}", "i64")
        return block.op(f"arith.minsi {candidate}, {acc}", "i64")

    result = emit_generic(
        trace, [Operand(x, loops), Operand(best, best_map)], x.ndim,
        ["reduction" if a == axis else "parallel" for a in range(x.ndim)],
        [f"d{a}" for a in kept], shape, i64, filled, body, where)
    return insert_unit_axes(result, [axis], where) if keepdims else result


# -- VJP rules -------------------------------------------------------------------------


def _kept(node: Node, value: Tensor, axes: tuple[int, ...]) -> Tensor:
    """A reduction's result or cotangent with its reduced axes as 1 (broadcasting
    reads them at 0)."""
    if node.args["keepdims"] or not axes:
        return value
    return insert_unit_axes(value, sorted(axes), node.where)


@vjp_rule("var")
def _var_vjp(node: Node, ct: Tensor) -> Cotangents:
    # d var = 2 (x - mean) / (count - ddof)
    x: Tensor = node.args["x"]
    axes: tuple[int, ...] = node.saved["axes"]
    centered = x - mean_(x, axes, keepdims=True)
    count = element_count(x, axes, x.dtype, node.where)
    ddof = float(node.args["ddof"])

    def body(block: Body, values: list[str], dtype: DType) -> str:
        t = dtype.mlir
        free = block.op(f"arith.subf {count}, {block.const(dtype, ddof)}", t)
        twice = block.op(f"arith.addf {values[0]}, {values[0]}", t)
        return block.op(f"arith.divf {twice}, {free}", t)

    return {"x": elementwise("var", [centered], body, node.where) * _kept(node, ct, axes)}


@vjp_rule("logsumexp")
def _logsumexp_vjp(node: Node, ct: Tensor) -> Cotangents:
    # d logsumexp = softmax(x) = exp(x - logsumexp)
    x: Tensor = node.args["x"]
    axes: tuple[int, ...] = node.saved["axes"]
    return {"x": exp(x - _kept(node, node.out, axes)) * _kept(node, ct, axes)}
