"""Gathers along an axis: ``take`` (numpy's ``take`` with ``mode="clip"``,
``symshape.gather``), ``gather_along`` and ``take_checked``.

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

Example:
    >>> def embed(table, ids):                  # table: [vocab, width], ids: [batch, seq] i64
    ...     return take(table, ids, axis=0)     # [batch, seq, width]
"""

from __future__ import annotations

import numpy as np

from symshape_mlir.frontend.dtypes import DType, i1, i64
from symshape_mlir.frontend.errors import FrontendError, ShapeError
from symshape_mlir.frontend.ops.constants import constant
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_generic
from symshape_mlir.frontend.ops.shape_ops import insert_unit_axes, transpose
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.shapes.rules import normalize_axes
from symshape_mlir.shapes.shape import Shape

__all__ = ["gather_along", "take", "take_checked"]


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
        from symshape_mlir.frontend.ops.elementwise import astype

        indices = astype(indices, i64, where)  # the gather reads its indices as signed
    trace = a.trace
    starts = insert_unit_axes(indices, [indices.ndim], where)
    sizes = ", ".join("1" if k == axis else f"dim(0, {k})" for k in range(a.ndim))
    rest = [a.shape[k] for k in range(a.ndim) if k != axis]
    shape = Shape([*indices.shape, *rest])
    name = trace.ssa("gather")
    trace.emit(
        f"{name} = symshape.gather {a.value}[{starts.value}] start_index_map [{axis}] "
        f"collapsed_slice_dims [{axis}] slice_sizes [{sizes}] : "
        f"({a.mlir_type}, {starts.mlir_type}) -> {tensor_type(shape, a.dtype)}",
        where,
    )
    result = Tensor(trace, name, shape, a.dtype)
    if axis == 0:
        return result
    # The gather puts the index axes first; numpy puts them at `axis`.
    n = indices.ndim
    perm = [*range(n, n + axis), *range(n), *range(n + axis, shape.rank)]
    return transpose(result, perm)


def take_checked(a: Tensor, indices: Tensor, axis: int, where: SourceLocation) -> Tensor:
    """``a`` indexed by the integer array ``indices`` along ``axis`` (numpy's
    ``a[..., indices, ...]``): negative indices count from the end; the call
    fails if one is out of range."""
    from symshape_mlir.frontend.ops.elementwise import elementwise
    from symshape_mlir.frontend.ops.logical import logical_and
    from symshape_mlir.frontend.ops.reductions import all as all_

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


def gather_along(a: Tensor, positions: Tensor, axis: int, where: SourceLocation) -> Tensor:
    """``a`` with axis ``axis`` replaced by the axes of the integer ``positions``:
    ``out[..., j, ...] = a[..., positions[j], ...]``, each position clamped to
    the axis (callers give positions within it)."""
    trace = a.trace
    k = positions.ndim
    rank = a.ndim - 1 + k
    shape = Shape([*a.shape[:axis], *positions.shape, *a.shape[axis + 1:]])
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
