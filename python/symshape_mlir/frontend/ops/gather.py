"""Gathers: ``take`` (numpy's ``take`` with ``mode="clip"``, ``symshape.gather``),
``gather_along``, ``take_checked``, ``take_along_axis`` and ``gather_nd``.

``take``: each index selects one slice of ``a`` along ``axis``; indices are
clamped to ``[0, extent - 1]`` (``symshape.gather`` clamps its starts),
which is numpy's ``mode="clip"``. The slice sizes are op-local ``dim(0, a)``
of the other axes, so ``a`` may have symbolic extents (the axis taken from
must not be empty: a gather's slice fits its operand).

``gather_along`` reads the entries itself (a ``linalg.generic`` that
``tensor.extract``s at the positions, clamped): no slice is taken, so an
empty axis with no positions is fine (reversing, rolling or masking an
empty axis). ``take_checked`` (``x[ids]``) reads a negative index from the
end and fails the call, with a run-time check, on an index out of range,
as numpy raises ``IndexError``.

``take_along_axis`` (numpy's, ONNX ``GatherElements``) and ``gather_nd``
(ONNX ``GatherND``) read single elements, like ``gather_along``: a
``linalg.generic`` extracts each at its coordinates (negative indices count
from the end of their axis, as in numpy; out-of-range ones are clamped), and
a run-time check fails a call that would read an empty axis.

Example:
    >>> def embed(table, ids):                  # table: [vocab, width], ids: [batch, seq] i64
    ...     return take(table, ids, axis=0)     # [batch, seq, width]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from symshape_mlir.extent.expr import Const
from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.frontend.dtypes import DType, i1, i64
from symshape_mlir.frontend.errors import FrontendError, ShapeError
from symshape_mlir.frontend.ops.constants import constant
from symshape_mlir.frontend.ops.elementwise import astype, elementwise
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_generic
from symshape_mlir.frontend.ops.logical import logical_and
from symshape_mlir.frontend.ops.reductions import all as all_
from symshape_mlir.frontend.ops.shape_ops import insert_unit_axes, transpose
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.frontend.vjp import primitive, save
from symshape_mlir.shapes.gather import (
    gather_nd_shape,
    gather_shape,
    take_along_axis_shape,
    take_shape,
)
from symshape_mlir.shapes.reshape import numel
from symshape_mlir.shapes.rules import normalize_axes
from symshape_mlir.shapes.shape import Shape

__all__ = [
    "clamped_position", "gather_along", "gather_nd", "take", "take_along_axis", "take_checked",
]


@primitive("take")
def take(a: Tensor, indices: Tensor, axis: int = 0) -> Tensor:
    """``numpy.take(a, indices, axis, mode="clip")``.

    Raises:
        FrontendError: non-integer indices.
        ShapeError: an axis out of range.
    """
    where = user_location()
    if not isinstance(a, Tensor):
        raise FrontendError(f"take at {where}: expects a traced tensor, not {a!r}")
    if isinstance(indices, list | tuple | int | np.ndarray | np.integer):
        indices = constant(a.trace, np.asarray(indices), where)
    if not isinstance(indices, Tensor):
        raise FrontendError(f"take at {where}: indices must be integers, not {indices!r}")
    if indices.dtype.is_float or indices.dtype.is_bool:
        raise FrontendError(f"take at {where}: indices must be integers, not {indices.dtype}")
    try:
        (axis,) = normalize_axes((axis,), a.ndim)
    except ShapeError as err:
        raise ShapeError(f"take at {where}: {err}") from None
    if indices.dtype.is_unsigned:
        indices = astype(indices, i64, where)  # the gather reads its indices as signed
    save(indices=indices, axis=axis)
    starts = insert_unit_axes(indices, [indices.ndim], where)
    result = _gather(a, starts, [axis], where)
    if axis == 0:
        return result
    # The gather puts the index axes first; numpy puts them at `axis`.
    n = indices.ndim
    perm = [*range(n, n + axis), *range(n), *range(n + axis, result.ndim)]
    return transpose(result, perm)


def take_checked(a: Tensor, indices: Tensor, axis: int, where: SourceLocation) -> Tensor:
    """``a`` indexed by the integer array ``indices`` along ``axis`` (numpy's
    ``a[..., indices, ...]``): negative indices count from the end; the call
    fails if one is out of range."""
    trace = a.trace
    extent = trace.ssa("i")
    trace.emit(f"{extent} = arith.index_cast {trace.dim_index(a, axis, where)} : index to i64",
               where)

    def wrap(block: Body, values: list[str], dtype: DType) -> str:
        zero = block.const(dtype, 0)
        negative = block.op(f"arith.cmpi slt, {values[0]}, {zero}", dtype.mlir)
        shifted = block.op(f"arith.addi {values[0]}, {extent}", dtype.mlir)
        return block.op(f"arith.select {negative}, {shifted}, {values[0]}", dtype.mlir)

    wrapped = elementwise("indexing", [indices], wrap, where, dtype=i64)

    def below(block: Body, values: list[str], dtype: DType) -> str:
        return block.op(f"arith.cmpi slt, {values[0]}, {extent}", dtype.mlir)

    inside = logical_and(wrapped >= 0, elementwise("indexing", [wrapped], below, where,
                                                   result=i1))
    ok = all_(inside)
    flag = trace.ssa("s")
    trace.emit(f"{flag} = tensor.extract {ok.value}[] : {ok.mlir_type}", where)
    trace.check(flag, "an index is out of bounds", where)
    return gather_along(a, wrapped, axis, where)


@primitive("gather_along")
def gather_along(a: Tensor, positions: Tensor, axis: int, where: SourceLocation) -> Tensor:
    """``a`` with axis ``axis`` replaced by the axes of the integer ``positions``:
    ``out[..., j, ...] = a[..., positions[j], ...]``, each position clamped to
    the axis (callers give positions within it)."""
    trace = a.trace
    k = positions.ndim
    rank = a.ndim - 1 + k
    shape = take_shape(a.symbolic_shape, positions.symbolic_shape, axis)
    sources = [*((a, d) for d in range(axis)), *((positions, d) for d in range(k)),
               *((a, d) for d in range(axis + 1, a.ndim))]
    init = emit_empty(trace, shape, a.dtype, sources, where)
    last = trace.ssa("i")
    size = trace.dim_index(a, axis, where)
    trace.emit(f"{last} = arith.subi {size}, {trace.index_const(1, where)} : index", where)
    zero = trace.index_const(0, where)

    def body(block: Body, args: list[str]) -> str:
        position = block.op(f"arith.index_cast {args[0]}", f"{positions.dtype.mlir} to index")
        position = block.op(f"arith.minsi {block.op(f'arith.maxsi {position}, {zero}', 'index')}"
                            f", {last}", "index")
        loops = [block.op(f"linalg.index {d}", "index") for d in range(rank)]
        coords = [*loops[:axis], position, *loops[axis + k:]]
        name = block.trace.ssa("b")
        block.lines.append(f"  {name} = tensor.extract {a.value}[{', '.join(coords)}] : "
                           f"{a.mlir_type} {block.where.mlir}")
        return name

    return emit_generic(trace, [Operand(positions, tuple(f"d{axis + d}" for d in range(k)))],
                        rank, ["parallel"] * rank, [f"d{d}" for d in range(rank)], shape,
                        a.dtype, init, body, where)


def _gather(a: Tensor, starts: Tensor, axes: Sequence[int], where: SourceLocation) -> Tensor:
    """``symshape.gather`` of whole slices at ``starts[..., k]`` along ``axes[k]`` (collapsed)."""
    trace = a.trace
    sizes = ", ".join("1" if k in axes else f"dim(0, {k})" for k in range(a.ndim))
    slices = [1 if k in axes else a.shape[k] for k in range(a.ndim)]
    shape = gather_shape(starts.symbolic_shape, slices, axes)
    listed = ", ".join(map(str, axes))
    name = trace.ssa("gather")
    trace.emit(
        f"{name} = symshape.gather {a.value}[{starts.value}] start_index_map [{listed}] "
        f"collapsed_slice_dims [{listed}] slice_sizes [{sizes}] : "
        f"({a.mlir_type}, {starts.mlir_type}) -> {tensor_type(shape, a.dtype)}",
        where,
    )
    return Tensor(trace, name, shape, a.dtype)


def _check_indices(op: str, indices: Tensor, where: SourceLocation) -> None:
    if indices.dtype.is_float or indices.dtype.is_bool:
        raise FrontendError(f"{op} at {where}: indices must be integers, not {indices.dtype}")


def _static(extent: ShapeExtent) -> int | None:
    return extent.expr.value if extent.is_exact and isinstance(extent.expr, Const) else None


def _readable(a: Tensor, axes: Sequence[int], reads: Shape, where: SourceLocation) -> None:
    """A run-time check that ``a``'s ``axes`` are not empty unless there are no ``reads``
    (one element per read): a position clamped into an empty axis would read out of
    bounds."""
    if all((_static(a.shape[k]) or 0) > 0 for k in axes):
        return
    trace = a.trace
    zero = trace.index_const(0, where)

    def compare(predicate: str, value: str) -> str:
        name = trace.ssa("i")
        trace.emit(f"{name} = arith.cmpi {predicate}, {value}, {zero} : index", where)
        return name

    def combine(op: str, x: str, y: str) -> str:
        name = trace.ssa("i")
        trace.emit(f"{name} = {op} {x}, {y} : i1", where)
        return name

    count = trace.materialize(numel(reads.dims), where)
    filled: str | None = None
    for k in axes:
        nonempty = compare("sgt", trace.dim_index(a, k, where))
        filled = nonempty if filled is None else combine("arith.andi", filled, nonempty)
    assert filled is not None
    trace.check(combine("arith.ori", compare("eq", count), filled),
                "an index reads an axis of extent 0", where)


def _read(a: Tensor, inputs: list[Operand], shape: Shape, coordinates: Callable[
        [Body, list[str], list[str]], list[str]], where: SourceLocation) -> Tensor:
    """A ``linalg.generic`` over ``shape`` reading one element of ``a`` per output element, at
    ``coordinates(block, loop indices, input values)``."""
    trace = a.trace
    rank = shape.rank
    init = emit_empty(trace, shape, a.dtype, [None] * rank, where)

    def body(block: Body, args: list[str]) -> str:
        loops = [block.op(f"linalg.index {d}", "index") for d in range(rank)]
        coords = coordinates(block, loops, args[:-1])
        name = block.trace.ssa("b")
        block.lines.append(f"  {name} = tensor.extract {a.value}[{', '.join(coords)}] : "
                           f"{a.mlir_type} {block.where.mlir}")
        return name

    return emit_generic(trace, inputs, rank, ["parallel"] * rank, [f"d{d}" for d in range(rank)],
                        shape, a.dtype, init, body, where)


def clamped_position(block: Body, value: str, itype: str, extent: str) -> str:
    """An index read from a tensor: from the end when negative, clamped into the axis."""
    raw = block.op(f"arith.index_cast {value}", f"{itype} to index")
    zero = block.const_index(0)
    negative = block.op(f"arith.cmpi slt, {raw}, {zero}", "index")
    wrapped = block.op(f"arith.select {negative}, "
                       f"{block.op(f'arith.addi {raw}, {extent}', 'index')}, {raw}", "index")
    last = block.op(f"arith.subi {extent}, {block.const_index(1)}", "index")
    return block.op(f"arith.maxsi {block.op(f'arith.minsi {wrapped}, {last}', 'index')}, {zero}",
                    "index")


@primitive("take_along_axis")
def take_along_axis(a: Tensor, indices: Tensor, axis: int) -> Tensor:
    """``numpy.take_along_axis`` (ONNX ``GatherElements``): ``out[i] = a[i with i[axis] =
    indices[i]]``.

    ``indices`` has ``a``'s rank; its extent along each other axis is at most
    ``a``'s. Negative indices count from the end; out-of-range ones are
    clamped; reading an empty axis fails the call.

    Raises:
        FrontendError: non-integer indices.
        ShapeError: ranks differ, an axis is out of range, or an extent of
            ``indices`` is provably larger than ``a``'s.
    """
    where = user_location()
    _check_indices("take_along_axis", indices, where)
    try:
        shape = take_along_axis_shape(a.symbolic_shape, indices.symbolic_shape, axis)
    except ShapeError as err:
        raise ShapeError(f"take_along_axis at {where}: {err}") from None
    axis %= a.ndim
    _readable(a, list(range(a.ndim)), shape, where)
    save(axis=axis)
    extent = a.trace.dim_index(a, axis, where)
    loops = tuple(f"d{d}" for d in range(a.ndim))

    def coordinates(block: Body, index: list[str], values: list[str]) -> list[str]:
        position = clamped_position(block, values[0], indices.dtype.mlir, extent)
        return [position if k == axis else index[k] for k in range(a.ndim)]

    return _read(a, [Operand(indices, loops)], shape, coordinates, where)


@primitive("gather_nd")
def gather_nd(a: Tensor, indices: Tensor, batch_dims: int = 0) -> Tensor:
    """ONNX ``GatherND``: ``out[b, i] = a[b, *indices[b, i, :]]`` over ``batch_dims`` leading
    axes shared by ``a`` and ``indices``.

    The last axis of ``indices`` (a constant ``k``) indexes the first ``k``
    axes of ``a`` after the batch axes; the result is
    ``indices.shape[:-1] + a.shape[batch_dims + k:]``. Negative indices count
    from the end; out-of-range ones are clamped; reading an empty axis fails
    the call.

    Raises:
        FrontendError: non-integer indices.
        ShapeError: the last axis of ``indices`` is not a constant that fits.
    """
    where = user_location()
    _check_indices("gather_nd", indices, where)
    try:
        shape = gather_nd_shape(a.symbolic_shape, indices.symbolic_shape, batch_dims)
    except ShapeError as err:
        raise ShapeError(f"gather_nd at {where}: {err}") from None
    trace = a.trace
    outer = indices.ndim - 1
    k = a.ndim - batch_dims - (shape.rank - outer)  # the indexed axes of `a`
    _readable(a, list(range(batch_dims, batch_dims + k)), shape, where)
    extents = [trace.dim_index(a, batch_dims + c, where) for c in range(k)]
    inputs = [Operand(indices, (*(f"d{d}" for d in range(outer)), str(c))) for c in range(k)]

    def coordinates(block: Body, index: list[str], values: list[str]) -> list[str]:
        positions = [clamped_position(block, values[c], indices.dtype.mlir, extents[c])
                     for c in range(k)]
        return [*index[:batch_dims], *positions, *index[outer:]]

    return _read(a, inputs, shape, coordinates, where)
