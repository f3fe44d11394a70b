"""Gathers: ``take``, ``take_along_axis`` and ``gather_nd`` (``symshape.gather``).

``take`` is numpy's ``take`` with ``mode="clip"``: each index selects one
slice of ``a`` along ``axis``; indices are clamped to ``[0, extent - 1]``
(``symshape.gather`` clamps its starts). The slice sizes are op-local
``dim(0, a)`` of the other axes, so ``a`` may have symbolic extents.

``take_along_axis`` (numpy's, ONNX ``GatherElements``) and ``gather_nd``
(ONNX ``GatherND``) read single elements: a ``linalg.generic`` builds the
full coordinates of each one (negative indices count from the end of their
axis, as in numpy), and a ``symshape.gather`` with every axis collapsed reads
them; coordinates out of range are clamped.

Example:
    >>> def embed(table, ids):                  # table: [vocab, width], ids: [batch, seq] i64
    ...     return take(table, ids, axis=0)     # [batch, seq, width]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from symshape_mlir.extent.expr import Const
from symshape_mlir.extent.guarantee import Exact
from symshape_mlir.frontend.dtypes import i64
from symshape_mlir.frontend.errors import FrontendError, ShapeError
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_generic
from symshape_mlir.frontend.ops.shape_ops import concatenate, insert_unit_axes, transpose
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.shapes.rules import normalize_axes
from symshape_mlir.shapes.shape import Shape

__all__ = ["gather_nd", "take", "take_along_axis"]


def take(a: Tensor, indices: Tensor, axis: int = 0) -> Tensor:
    """``numpy.take(a, indices, axis, mode="clip")``.

    Raises:
        FrontendError: non-integer indices.
        ShapeError: an axis out of range.
    """
    where = user_location()
    if indices.dtype.is_float or indices.dtype.is_bool:
        raise FrontendError(f"take at {where}: indices must be integers, not {indices.dtype}")
    try:
        (axis,) = normalize_axes((axis,), a.ndim)
    except ShapeError as err:
        raise ShapeError(f"take at {where}: {err}") from None
    starts = insert_unit_axes(indices, [indices.ndim], where)
    result = _gather(a, starts, [axis], where)
    if axis == 0:
        return result
    # The gather puts the index axes first; numpy puts them at `axis`.
    n = indices.ndim
    perm = [*range(n, n + axis), *range(n), *range(n + axis, result.ndim)]
    return transpose(result, perm)


def _gather(a: Tensor, starts: Tensor, axes: Sequence[int], where: SourceLocation) -> Tensor:
    """``symshape.gather`` of whole slices at ``starts[..., k]`` along ``axes[k]`` (collapsed)."""
    trace = a.trace
    sizes = ", ".join("1" if k in axes else f"dim(0, {k})" for k in range(a.ndim))
    rest = [a.shape[k] for k in range(a.ndim) if k not in axes]
    shape = Shape([*starts.shape[:-1], *rest])
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


def _coordinates(
    indices: Tensor,
    loops: int,
    components: int,
    read: Mapping[int, tuple[int | None, str]],
    where: SourceLocation,
) -> Tensor:
    """An ``i64`` tensor ``indices.shape[:loops] + [components]`` of coordinates.

    Component ``c`` is ``read[c] = (d, "")``: the loop index ``d``; or
    ``(None, extent)``: the value of ``indices`` at this element (``indices``
    has ``loops`` axes), or at ``[..., c]`` (it has one more, of extent
    ``components``), wrapped by the ``index`` value ``extent`` when negative.
    """
    trace = indices.trace
    shape = Shape([*indices.shape[:loops], Exact(Const(components))])
    init = emit_empty(trace, shape, i64, [(indices, a) for a in range(loops)] + [None], where)
    rank = loops + 1
    reads = any(loop is None for loop, _ in read.values())
    inputs = [Operand(indices, tuple(f"d{d}" for d in range(indices.ndim)))] if reads else []
    itype = indices.dtype.mlir

    def body(block: Body, args: list[str]) -> str:
        component = block.op(f"linalg.index {loops}", "index")
        if reads:
            value = block.op(f"arith.index_cast {args[0]}", f"{itype} to index")
            negative = block.op(f"arith.cmpi slt, {value}, {block.const_index(0)}", "index")
        result: str | None = None
        for c in reversed(range(components)):
            loop, extent = read[c]
            if loop is None:
                shifted = block.op(f"arith.addi {value}, {extent}", "index")
                coord = block.op(f"arith.select {negative}, {shifted}, {value}", "index")
            else:
                coord = block.op(f"linalg.index {loop}", "index")
            if result is None:
                result = coord
                continue
            here = block.op(f"arith.cmpi eq, {component}, {block.const_index(c)}", "index")
            result = block.op(f"arith.select {here}, {coord}, {result}", "index")
        assert result is not None
        return block.op(f"arith.index_cast {result}", "index to i64")

    return emit_generic(
        trace, inputs, rank, ["parallel"] * rank, [f"d{d}" for d in range(rank)], shape, i64,
        init, body, where,
    )


def take_along_axis(a: Tensor, indices: Tensor, axis: int) -> Tensor:
    """``numpy.take_along_axis`` (ONNX ``GatherElements``): ``out[i] = a[i with i[axis] =
    indices[i]]``.

    ``indices`` has ``a``'s rank; its extent along each other axis is at most
    ``a``'s. Negative indices count from the end; out-of-range ones are clamped.

    Raises:
        FrontendError: non-integer indices.
        ShapeError: ranks differ, an axis is out of range, or an extent of
            ``indices`` is provably larger than ``a``'s.
    """
    where = user_location()
    _check_indices("take_along_axis", indices, where)
    if indices.ndim != a.ndim:
        raise ShapeError(f"take_along_axis at {where}: indices have rank {indices.ndim}, "
                         f"not {a.ndim}")
    try:
        (axis,) = normalize_axes((axis,), a.ndim)
    except ShapeError as err:
        raise ShapeError(f"take_along_axis at {where}: {err}") from None
    for k in range(a.ndim):
        have, most = indices.shape[k], a.shape[k]
        if k != axis and have.is_exact and most.is_exact and isinstance(have.expr, Const) \
                and isinstance(most.expr, Const) and have.expr.value > most.expr.value:
            raise ShapeError(f"take_along_axis at {where}: indices extent {have} along axis {k} "
                             f"exceeds {most}")
    extent = a.trace.dim_index(a, axis, where)
    read = {k: ((None, extent) if k == axis else (k, "")) for k in range(a.ndim)}
    coords = _coordinates(indices, a.ndim, a.ndim, read, where)
    return _gather(a, coords, list(range(a.ndim)), where)


def gather_nd(a: Tensor, indices: Tensor, batch_dims: int = 0) -> Tensor:
    """ONNX ``GatherND``: ``out[b, i] = a[b, *indices[b, i, :]]`` over ``batch_dims`` leading
    axes shared by ``a`` and ``indices``.

    The last axis of ``indices`` (a constant ``k``) indexes the first ``k``
    axes of ``a`` after the batch axes; the result is
    ``indices.shape[:-1] + a.shape[batch_dims + k:]``.

    Raises:
        FrontendError: non-integer indices.
        ShapeError: the last axis of ``indices`` is not a constant that fits.
    """
    where = user_location()
    _check_indices("gather_nd", indices, where)
    last = indices.shape[-1] if indices.ndim else None
    if last is None or not last.is_exact or not isinstance(last.expr, Const):
        raise ShapeError(f"gather_nd at {where}: the last axis of the indices must have a "
                         f"constant extent")
    k = last.expr.value
    if not 0 <= batch_dims < indices.ndim or batch_dims + k > a.ndim:
        raise ShapeError(f"gather_nd at {where}: {k} indices after {batch_dims} batch axes do "
                         f"not fit rank {a.ndim}")
    trace = a.trace
    read = {c: (None, trace.dim_index(a, batch_dims + c, where)) for c in range(k)}
    loops = indices.ndim - 1
    coords = _coordinates(indices, loops, k, read, where)
    if batch_dims:
        batches = _coordinates(indices, loops, batch_dims,
                               {c: (c, "") for c in range(batch_dims)}, where)
        coords = concatenate([batches, coords], axis=-1)
    return _gather(a, coords, list(range(batch_dims + k)), where)
