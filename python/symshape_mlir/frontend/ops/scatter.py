"""Scatters: ``scatter_nd`` (ONNX ``ScatterND``) and ``put_along_axis`` (``ScatterElements``).

A scatter writes ``updates`` into a copy of ``data`` at positions read from
``indices``, replacing (``reduction="none"``) or combining (``"add"``,
``"mul"``, ``"max"``, ``"min"``) what is there. It is a ``linalg.generic``
over the *output* with a reduction loop over the update positions (output
element ``p`` reduces every update whose index is ``p``), then an
elementwise op combining that with ``data`` (with ``"none"``, a count of the
updates landing on each element picks the update or the data). That costs
the output's size times the number of updates, and in exchange is plain
linalg with affine maps, which every IREE backend compiles, and whose loops
carry the shape contract: the update positions shared by ``indices`` and
``updates`` are one loop, so inference proves or checks their extents equal.

Indices count from the end when negative (numpy and ONNX) and are clipped
into their axis otherwise, as ``take`` clips them (``mode="clip"``), so a
scatter-add is the transpose of the gather at the same indices. With
``"none"``, positions written twice take one of their updates.

Example:
    >>> def cache_update(cache, positions, rows):   # [slots, 64], [n, 1] i64, [n, 64]
    ...     return scatter_nd(cache, positions, rows)
"""

from __future__ import annotations

from collections.abc import Callable

from symshape_mlir.extent.expr import Const
from symshape_mlir.frontend.dtypes import DType, i32
from symshape_mlir.frontend.errors import FrontendError, ShapeError
from symshape_mlir.frontend.ops.elementwise import add, greater, maximum, minimum, multiply
from symshape_mlir.frontend.ops.elementwise import where as where_
from symshape_mlir.frontend.ops.gather import clamped_position
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_fill, emit_generic
from symshape_mlir.frontend.ops.reductions import COMBINE, identity
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.shapes.rules import normalize_axes

__all__ = ["REDUCTIONS", "put_along_axis", "scatter_nd"]

#: The ways an update combines with what it meets.
REDUCTIONS = ("none", "add", "mul", "max", "min")


def _check(op: str, data: Tensor, indices: Tensor, updates: Tensor, reduction: str,
           where: SourceLocation) -> None:
    if reduction not in REDUCTIONS:
        raise FrontendError(f"{op} at {where}: reduction {reduction!r} is not one of "
                            f"{', '.join(REDUCTIONS)}")
    if indices.dtype.is_float or indices.dtype.is_bool:
        raise FrontendError(f"{op} at {where}: indices must be integers, not {indices.dtype}")
    if updates.dtype != data.dtype:
        raise FrontendError(f"{op} at {where}: updates are {updates.dtype}, data {data.dtype}")
    if data.dtype.is_bool and reduction != "none":
        raise FrontendError(f"{op} at {where}: reduction {reduction!r} of i1 is not supported")


def _scatter(
    data: Tensor,
    reads: list[Operand],
    updates: Operand,
    positions: list[tuple[int, int, str]],
    loops: int,
    reduction: str,
    where: SourceLocation,
) -> Tensor:
    """The scatter: what lands on each element, reduced, then combined with ``data``.

    ``data``'s axes are loops ``0..rank``, then come the update loops.
    ``positions`` lists, per indexed axis of ``data``, the operand of
    ``reads`` holding its index, that axis, and its extent (``index``).
    The reduction starts from a fill, never from ``data``: IREE 3.13 fails
    to distribute reductions chained through their inits (two scatters in a
    row: "write affecting operations on global resources are restricted to
    workgroup distributed contexts").
    """
    trace, dtype = data.trace, data.dtype
    rank = data.ndim
    itypes = [r.tensor.dtype.mlir for r in reads]
    kind = "sum" if reduction in ("none", "add") else "prod" if reduction == "mul" else reduction

    def hit(block: Body, indices: list[str]) -> str:
        found: str | None = None
        for operand, axis, extent in positions:
            here = clamped_position(block, indices[operand], itypes[operand], extent)
            same = block.op(f"arith.cmpi eq, {here}, {block.op(f'linalg.index {axis}', 'index')}",
                            "index")
            found = same if found is None else block.op(f"arith.andi {found}, {same}", "i1")
        assert found is not None
        return found

    def reduced(value: Callable[[Body, list[str]], str], out: DType, combine: str,
                start: float | int) -> Tensor:
        init = emit_empty(trace, data.symbolic_shape, out, [(data, a) for a in range(rank)],
                          where)
        filled = emit_fill(trace, init, out, start, tensor_type(data.shape, out), where)

        def body(block: Body, args: list[str]) -> str:
            *indices, update, acc = args
            taken = block.op(f"arith.select {hit(block, indices)}, {value(block, [update])}, "
                             f"{block.const(out, start)}", out.mlir)
            return block.op(f"{combine} {acc}, {taken}", out.mlir)

        iterators = ["parallel"] * rank + ["reduction"] * (loops - rank)
        return emit_generic(trace, [*reads, updates], loops, iterators,
                            [f"d{a}" for a in range(rank)], data.symbolic_shape, out, filled,
                            body, where)

    if reduction == "none":
        # How many updates land on each element, and (unique indices) which one.
        count = reduced(lambda b, v: b.const(i32, 1), i32, "arith.addi", 0)
        value = reduced(lambda b, v: v[0], dtype, COMBINE["max"][0] if dtype.is_float
                        else "arith.ori" if dtype.is_bool else COMBINE["max"][1],
                        identity("max", dtype) if not dtype.is_bool else 0)
        return where_(greater(count, 0), value, data)
    combine = COMBINE[kind][0 if dtype.is_float else 1]
    landed = reduced(lambda b, v: v[0], dtype, combine, identity(kind, dtype))
    merge = {"add": add, "mul": multiply, "max": maximum, "min": minimum}[reduction]
    return merge(data, landed)


def scatter_nd(data: Tensor, indices: Tensor, updates: Tensor, reduction: str = "none") -> Tensor:
    """ONNX ``ScatterND``: ``out[*indices[w]] = updates[w]`` (or combined by ``reduction``).

    ``indices`` is ``[*w, k]`` with a constant ``k``: each of its vectors
    indexes the first ``k`` axes of ``data``; ``updates`` is
    ``[*w, *data.shape[k:]]``.

    Raises:
        FrontendError: bad element types or reduction.
        ShapeError: ``k`` is not a constant that fits, or ranks do not match.
    """
    where = user_location()
    _check("scatter_nd", data, indices, updates, reduction, where)
    last = indices.shape[-1] if indices.ndim else None
    if last is None or not last.is_exact or not isinstance(last.expr, Const) \
            or not 0 < last.expr.value <= data.ndim:
        raise ShapeError(f"scatter_nd at {where}: the last axis of the indices must have a "
                         f"constant extent from 1 to {data.ndim}")
    k = last.expr.value
    batch = indices.ndim - 1
    if updates.ndim != batch + data.ndim - k:
        raise ShapeError(f"scatter_nd at {where}: updates have rank {updates.ndim}, not "
                         f"{batch + data.ndim - k} (indices rank - 1 + data rank - {k})")
    rank = data.ndim
    update_loops = [f"d{rank + b}" for b in range(batch)]
    trace = data.trace
    reads = [Operand(indices, (*update_loops, str(j))) for j in range(k)]
    positions = [(j, j, trace.dim_index(data, j, where)) for j in range(k)]
    window = [f"d{a}" for a in range(k, rank)]
    return _scatter(data, reads, Operand(updates, (*update_loops, *window)), positions,
                    rank + batch, reduction, where)


def put_along_axis(data: Tensor, indices: Tensor, updates: Tensor, axis: int,
                   reduction: str = "none") -> Tensor:
    """``numpy.put_along_axis`` as a function (ONNX ``ScatterElements``): ``out[i with
    i[axis] = indices[i]] = updates[i]`` for every position ``i`` of ``indices``.

    ``indices`` and ``updates`` have one shape, of ``data``'s rank and
    ``data``'s extents on every axis but ``axis`` (a run-time check where
    they cannot be proven).

    Raises:
        FrontendError: bad element types or reduction.
        ShapeError: ranks differ, or an axis is out of range.
    """
    where = user_location()
    _check("put_along_axis", data, indices, updates, reduction, where)
    if not indices.ndim == updates.ndim == data.ndim:
        raise ShapeError(f"put_along_axis at {where}: data, indices and updates have ranks "
                         f"{data.ndim}, {indices.ndim} and {updates.ndim}, not one rank")
    try:
        (axis,) = normalize_axes((axis,), data.ndim)
    except ShapeError as err:
        raise ShapeError(f"put_along_axis at {where}: {err}") from None
    rank = data.ndim
    # Loops: data's axes, then the position along `axis` of the update; the
    # other axes of an update are the output's own.
    along = tuple(f"d{rank}" if a == axis else f"d{a}" for a in range(rank))
    extent = data.trace.dim_index(data, axis, where)
    return _scatter(data, [Operand(indices, along)], Operand(updates, along),
                    [(0, axis, extent)], rank + 1, reduction, where)
