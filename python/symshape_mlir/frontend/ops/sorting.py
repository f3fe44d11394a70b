"""Sorting along an axis: ``sort``, ``argsort`` and ``topk``.

Without data-dependent control flow: each entry's rank is the number of
entries that come before it (smaller, or equal at a smaller position: a
stable order; NaN after every number, as numpy sorts), and the entry of
rank ``k`` is picked for position ``k``. Both steps are ``linalg.generic``
ops with a reduction over the axis (quadratic work in its extent).

Example:
    >>> def f(scores):                      # scores: [batch, n] f32
    ...     values, indices = topk(scores, 5)
    ...     return sort(scores, axis=-1), values, indices
"""

from __future__ import annotations

from typing import Any

from symshape_mlir.frontend.dtypes import DType, i64
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.ops.gather import take_along_axis
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_fill, emit_generic
from symshape_mlir.frontend.ops.indexing import getitem
from symshape_mlir.frontend.ops.reductions import reduced_axes
from symshape_mlir.frontend.ops.shape_ops import reshape
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.frontend.vjp import Cotangents, Node, composite, primitive, vjp_rule

__all__ = ["argsort", "sort", "topk"]


@composite
def sort(x: Tensor, axis: int | None = -1) -> Tensor:
    """``numpy.sort`` (ascending; NaN last; the flattened tensor for ``axis=None``)."""
    where = user_location()
    x, axis = _axis("sort", x, axis, where)
    return _by_rank(x, _ranks(x, axis, False, where), axis, True, where)


@composite
def argsort(x: Tensor, axis: int | None = -1) -> Tensor:
    """``numpy.argsort(kind="stable")``: the positions that sort ``x`` (``i64``)."""
    where = user_location()
    x, axis = _axis("argsort", x, axis, where)
    return _by_rank(x, _ranks(x, axis, False, where), axis, False, where)


@composite
def topk(x: Tensor, k: Any) -> tuple[Tensor, Tensor]:
    """The ``k`` largest entries along the last axis, largest first, and their
    positions (``jax.lax.top_k``; equal entries in order of position).

    ``k`` is an ``int``, an extent or a run-time integer; more than the
    axis holds keeps them all.
    """
    where = user_location()
    if x.ndim == 0:
        raise FrontendError(f"topk at {where}: needs a tensor of rank >= 1")
    if isinstance(k, int) and not isinstance(k, bool):
        if k < 0:
            raise FrontendError(f"topk at {where}: k must be >= 0, not {k}")
        static = x.shape[-1].expr.const_value if x.shape[-1].is_exact and \
            x.shape[-1].expr is not None else None
        if static is not None and k > static:
            raise FrontendError(f"topk at {where}: k = {k} is more than the {static} entries")
    axis = x.ndim - 1
    ranks = _ranks(x, axis, True, where)
    head = (Ellipsis, slice(None, k))
    return (getitem(_by_rank(x, ranks, axis, True, where), head),
            getitem(_by_rank(x, ranks, axis, False, where), head))


def _axis(op: str, x: Tensor, axis: int | None, where: SourceLocation) -> tuple[Tensor, int]:
    if axis is None:
        return (reshape(x, [-1]) if x.ndim != 1 else x), 0
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise FrontendError(f"{op} at {where}: axis must be an int or None, not {axis!r}")
    (axis,) = reduced_axes(op, x, axis, where)
    return x, axis


def _ranks(x: Tensor, axis: int, descending: bool, where: SourceLocation) -> Tensor:
    """Per entry, how many entries along ``axis`` come before it."""
    trace = x.trace
    rank = x.ndim
    init = emit_empty(trace, x.symbolic_shape, i64, [(x, a) for a in range(rank)], where)
    filled = emit_fill(trace, init, i64, 0, tensor_type(x.shape, i64), where)
    here = tuple(f"d{a}" for a in range(rank))
    other = tuple(f"d{rank}" if a == axis else f"d{a}" for a in range(rank))
    dtype = x.dtype

    def body(block: Body, args: list[str]) -> str:
        mine, theirs, acc = args
        i = block.op(f"linalg.index {axis}", "index")
        j = block.op(f"linalg.index {rank}", "index")
        first, second = (mine, theirs) if descending else (theirs, mine)
        smaller = _less(block, first, second, dtype)
        tie = block.op(f"arith.andi {_same(block, theirs, mine, dtype)}, "
                       f"{block.op(f'arith.cmpi ult, {j}, {i}', 'index')}", "i1")
        before = block.op(f"arith.ori {smaller}, {tie}", "i1")
        return block.op(f"arith.addi {acc}, {block.op(f'arith.extui {before}', 'i1 to i64')}",
                        "i64")

    return emit_generic(trace, [Operand(x, here), Operand(x, other)], rank + 1,
                        ["parallel"] * rank + ["reduction"], list(here), x.symbolic_shape, i64,
                        filled, body, where)


def _less(block: Body, a: str, b: str, dtype: DType) -> str:
    """``a`` sorts before ``b``: smaller, or a number before a NaN."""
    t = dtype.mlir
    if not dtype.is_float:
        predicate = "ult" if dtype.is_unsigned or dtype.is_bool else "slt"
        return block.op(f"arith.cmpi {predicate}, {a}, {b}", t)
    smaller = block.op(f"arith.cmpf olt, {a}, {b}", t)
    number_before_nan = block.op(
        f"arith.andi {block.op(f'arith.cmpf ord, {a}, {a}', t)}, "
        f"{block.op(f'arith.cmpf uno, {b}, {b}', t)}", "i1")
    return block.op(f"arith.ori {smaller}, {number_before_nan}", "i1")


def _same(block: Body, a: str, b: str, dtype: DType) -> str:
    """``a`` and ``b`` sort alike: equal, or both NaN."""
    t = dtype.mlir
    if not dtype.is_float:
        return block.op(f"arith.cmpi eq, {a}, {b}", t)
    equal = block.op(f"arith.cmpf oeq, {a}, {b}", t)
    nans = block.op(f"arith.andi {block.op(f'arith.cmpf uno, {a}, {a}', t)}, "
                    f"{block.op(f'arith.cmpf uno, {b}, {b}', t)}", "i1")
    return block.op(f"arith.ori {equal}, {nans}", "i1")


@primitive("by_rank")
def _by_rank(x: Tensor, ranks: Tensor, axis: int, values: bool,
             where: SourceLocation) -> Tensor:
    """At position ``k`` along ``axis``: the entry of rank ``k`` (``values``) or its position."""
    trace = x.trace
    rank = x.ndim
    dtype = x.dtype if values else i64
    init = emit_empty(trace, x.symbolic_shape, dtype, [(x, a) for a in range(rank)], where)
    filled = emit_fill(trace, init, dtype, 0, tensor_type(x.shape, dtype), where)
    here = tuple(f"d{a}" for a in range(rank))
    other = tuple(f"d{rank}" if a == axis else f"d{a}" for a in range(rank))

    def body(block: Body, args: list[str]) -> str:
        entry, entry_rank, acc = args
        k = block.op(f"arith.index_cast {block.op(f'linalg.index {axis}', 'index')}",
                     "index to i64")
        hit = block.op(f"arith.cmpi eq, {entry_rank}, {k}", "i64")
        picked = entry if values else block.op(
            f"arith.index_cast {block.op(f'linalg.index {rank}', 'index')}", "index to i64")
        return block.op(f"arith.select {hit}, {picked}, {acc}", dtype.mlir)

    # Exactly one entry has each rank: the fill is always replaced.
    return emit_generic(trace, [Operand(x, other), Operand(ranks, other)], rank + 1,
                        ["parallel"] * rank + ["reduction"], list(here), x.symbolic_shape,
                        dtype, filled, body, where)


@vjp_rule("by_rank")
def _by_rank_vjp(node: Node, ct: Tensor) -> Cotangents:
    # The entry of rank k went to position k: its cotangent comes back from there.
    return {"x": take_along_axis(ct, node.args["ranks"], node.args["axis"])}
