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

from symshape_mlir.frontend.dtypes import DType, i32
from symshape_mlir.frontend.errors import FrontendError, ShapeError
from symshape_mlir.frontend.ops.broadcasting import same_extent
from symshape_mlir.frontend.ops.elementwise import (
    add,
    astype,
    divide,
    equal,
    greater,
    maximum,
    minimum,
    multiply,
)
from symshape_mlir.frontend.ops.elementwise import where as where_
from symshape_mlir.frontend.ops.gather import (
    clamped_position,
    gather_along,
    gather_nd,
    take_along_axis,
)
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_fill, emit_generic
from symshape_mlir.frontend.ops.padding import Width, pad
from symshape_mlir.frontend.ops.reductions import COMBINE, identity
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.frontend.vjp import ADError, Cotangents, Node, primitive, save, vjp_rule
from symshape_mlir.shapes.gather import put_along_axis_shape, scatter_nd_shape

__all__ = [
    "REDUCTIONS", "clipped_position", "put_along_axis", "scatter_add_nd", "scatter_along",
    "scatter_nd",
]

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
    wrap: bool = True,
) -> Tensor:
    """The scatter: what lands on each element, reduced, then combined with ``data``.

    ``data``'s axes are loops ``0..rank``, then come the update loops.
    ``positions`` lists, per indexed axis of ``data``, the operand of
    ``reads`` holding its index, that axis, and its extent (``index``).
    Indices count from the end when negative if ``wrap`` (numpy's indexing),
    else are only clipped into the axis (``take``'s ``mode="clip"``).
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
            place = clamped_position if wrap else clipped_position
            here = place(block, indices[operand], itypes[operand], extent)
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


@primitive("scatter_nd")
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
    try:
        scatter_nd_shape(data.symbolic_shape, indices.symbolic_shape, updates.symbolic_shape)
    except ShapeError as err:
        raise ShapeError(f"scatter_nd at {where}: {err}") from None
    batch = indices.ndim - 1
    rank = data.ndim
    k = rank + batch - updates.ndim  # the indexed axes of `data`
    update_loops = [f"d{rank + b}" for b in range(batch)]
    trace = data.trace
    reads = [Operand(indices, (*update_loops, str(j))) for j in range(k)]
    positions = [(j, j, trace.dim_index(data, j, where)) for j in range(k)]
    window = [f"d{a}" for a in range(k, rank)]
    return _scatter(data, reads, Operand(updates, (*update_loops, *window)), positions,
                    rank + batch, reduction, where)


@primitive("put_along_axis")
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
    try:
        put_along_axis_shape(data.symbolic_shape, indices.symbolic_shape, updates.symbolic_shape,
                             axis)
    except ShapeError as err:
        raise ShapeError(f"put_along_axis at {where}: {err}") from None
    axis %= data.ndim
    save(axis=axis)
    rank = data.ndim
    # Loops: data's axes, then the position along `axis` of the update; the
    # other axes of an update are the output's own.
    along = tuple(f"d{rank}" if a == axis else f"d{a}" for a in range(rank))
    extent = data.trace.dim_index(data, axis, where)
    return _scatter(data, [Operand(indices, along)], Operand(updates, along),
                    [(0, axis, extent)], rank + 1, reduction, where)


def clipped_position(block: Body, value: str, itype: str, extent: str) -> str:
    """An index read from a tensor, clipped into the axis (``take``'s ``mode="clip"``:
    a negative one is 0)."""
    raw = block.op(f"arith.index_cast {value}", f"{itype} to index")
    last = block.op(f"arith.subi {extent}, {block.const_index(1)}", "index")
    return block.op(f"arith.maxsi {block.op(f'arith.minsi {raw}, {last}', 'index')}, "
                    f"{block.const_index(0)}", "index")


@primitive("scatter_along")
def scatter_along(data: Tensor, positions: Tensor, updates: Tensor, axis: int,
                  where: SourceLocation) -> Tensor:
    """``data`` plus ``updates`` added at ``positions`` along ``axis``: the transpose of
    :func:`~symshape_mlir.frontend.ops.gather.take` and ``gather_along``.

    ``updates`` is ``data.shape[:axis] + positions.shape + data.shape[axis + 1:]``;
    each position is clipped into the axis, as those gathers clip it, and
    updates at one position add up. Its VJP is the gather at the same positions.
    """
    trace = data.trace
    rank, k = data.ndim, positions.ndim
    moves = tuple(f"d{rank + j}" for j in range(k))
    window = (*(f"d{a}" for a in range(axis)), *moves,
              *(f"d{a}" for a in range(axis + 1, rank)))
    extent = trace.dim_index(data, axis, where)
    return _scatter(data, [Operand(positions, moves)], Operand(updates, window),
                    [(0, axis, extent)], rank + k, "add", where, wrap=False)


@primitive("scatter_add_nd")
def scatter_add_nd(data: Tensor, indices: Tensor, updates: Tensor, batch_dims: int,
                   where: SourceLocation) -> Tensor:
    """``data`` plus ``updates`` added where :func:`~symshape_mlir.frontend.ops.gather.
    gather_nd` with ``batch_dims`` reads (its transpose; its VJP is that gather)."""
    trace = data.trace
    rank = data.ndim
    k = indices.shape[-1].expr.value  # type: ignore[union-attr]  # checked by gather_nd
    moves = [f"d{rank + j}" for j in range(indices.ndim - 1 - batch_dims)]
    batch = [f"d{a}" for a in range(batch_dims)]
    reads = [Operand(indices, (*batch, *moves, str(j))) for j in range(k)]
    positions = [(j, batch_dims + j, trace.dim_index(data, batch_dims + j, where))
                 for j in range(k)]
    window = (*batch, *moves, *(f"d{a}" for a in range(batch_dims + k, rank)))
    return _scatter(data, reads, Operand(updates, window), positions, rank + len(moves), "add",
                    where)


# -- VJP rules: gathers and scatters are each other's transposes -----------------------


def _zeros(like: Tensor, dtype: DType, where: SourceLocation) -> Tensor:
    """Zeros of ``like``'s shape in ``dtype``."""
    trace = like.trace
    init = emit_empty(trace, like.symbolic_shape, dtype, [(like, a) for a in range(like.ndim)],
                      where)
    return Tensor(trace, emit_fill(trace, init, dtype, 0.0, tensor_type(like.shape, dtype),
                                   where), like.symbolic_shape, dtype)


@vjp_rule("take")
def _take_vjp(node: Node, ct: Tensor) -> Cotangents:
    a: Tensor = node.args["a"]
    axis: int = node.saved["axis"]
    return {"a": scatter_along(_zeros(a, ct.dtype, node.where), node.saved["indices"], ct, axis,
                               node.where)}


@vjp_rule("gather_along")
def _gather_along_vjp(node: Node, ct: Tensor) -> Cotangents:
    a: Tensor = node.args["a"]
    return {"a": scatter_along(_zeros(a, ct.dtype, node.where), node.args["positions"], ct,
                               node.args["axis"], node.where)}


@vjp_rule("scatter_along")
def _scatter_along_vjp(node: Node, ct: Tensor) -> Cotangents:
    grad = gather_along(ct, node.args["positions"], node.args["axis"], node.where) \
        if node.needs("updates") else None
    return {"data": ct, "updates": grad}


@vjp_rule("gather_nd")
def _gather_nd_vjp(node: Node, ct: Tensor) -> Cotangents:
    a: Tensor = node.args["a"]
    return {"a": scatter_add_nd(_zeros(a, ct.dtype, node.where), node.args["indices"], ct,
                                node.args["batch_dims"], node.where)}


@vjp_rule("scatter_add_nd")
def _scatter_add_nd_vjp(node: Node, ct: Tensor) -> Cotangents:
    grad = gather_nd(ct, node.args["indices"], node.args["batch_dims"]) \
        if node.needs("updates") else None
    return {"data": ct, "updates": grad}


@vjp_rule("take_along_axis")
def _take_along_axis_vjp(node: Node, ct: Tensor) -> Cotangents:
    # put_along_axis needs the data's extents on the other axes: indices
    # shorter there read nothing past their end, so zeros fill them out.
    a: Tensor = node.args["a"]
    indices: Tensor = node.args["indices"]
    axis: int = node.saved["axis"]
    widths: list[tuple[Width, Width]] = []
    for k in range(a.ndim):
        have, want = indices.shape[k], a.shape[k]
        if k == axis or same_extent(have, want):
            widths.append((0, 0))
        else:
            widths.append((0, want - have))
    if any(w != (0, 0) for w in widths):
        ct, indices = pad(ct, widths), pad(indices, widths)
    return {"a": put_along_axis(_zeros(a, ct.dtype, node.where), indices, ct, axis, "add")}


def _chosen_vjp(node: Node, ct: Tensor, gather: Callable[[Tensor], Tensor],
                scatter: Callable[[Tensor], Tensor]) -> Cotangents:
    """A scatter's cotangents. ``gather(t)``: ``t`` at the update positions;
    ``scatter(t)``: updates-shaped ``t`` added into zeros of the data's shape.

    ``add``: the data gets ``ct``, the updates ``gather(ct)``. ``none``, ``max``,
    ``min``: each element's cotangent goes to what it holds, shared evenly
    among the updates (and, for ``max``/``min``, the data) equal to it: with
    ``none``, the largest of the updates landing on an element is kept.
    """
    data: Tensor = node.args["data"]
    updates: Tensor = node.args["updates"]
    reduction: str = node.args["reduction"]
    if reduction == "add":
        return {"data": ct, "updates": gather(ct) if node.needs("updates") else None}
    if reduction == "mul":
        raise ADError(f"{node.describe()}: a scatter with reduction 'mul' has no VJP rule",
                      primitive=node.label, location=node.where)
    dtype = ct.dtype
    chosen = astype(equal(updates, gather(node.out)), dtype, node.where)
    ties = scatter(chosen)
    if reduction == "none":
        landed = scatter(add(multiply(chosen, 0.0), 1.0))
        share = divide(ct, maximum(ties, 1.0))
        kept = where_(greater(landed, 0.0), 0.0, ct)
    else:
        held = astype(equal(data, node.out), dtype, node.where)
        share = divide(ct, add(ties, held))
        kept = multiply(held, share)
    return {"data": kept,
            "updates": multiply(chosen, gather(share)) if node.needs("updates") else None}


@vjp_rule("scatter_nd")
def _scatter_nd_vjp(node: Node, ct: Tensor) -> Cotangents:
    data, indices = node.args["data"], node.args["indices"]
    return _chosen_vjp(
        node, ct, lambda t: gather_nd(t, indices),
        lambda t: scatter_nd(_zeros(data, t.dtype, node.where), indices, t, "add"))


@vjp_rule("put_along_axis")
def _put_along_axis_vjp(node: Node, ct: Tensor) -> Cotangents:
    data, indices, axis = node.args["data"], node.args["indices"], node.saved["axis"]
    return _chosen_vjp(
        node, ct, lambda t: take_along_axis(t, indices, axis),
        lambda t: put_along_axis(_zeros(data, t.dtype, node.where), indices, t, axis, "add"))
