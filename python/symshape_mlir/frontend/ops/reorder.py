"""Reordering entries along axes: ``flip`` and ``roll``.

Both read along each axis (``gather_along``) at positions computed from
``arange``: ``flip`` reads ``n - 1 - i``, ``roll`` reads ``(i - shift) mod n``.
A shift may be a run-time integer (a 0-d integer tensor).

Example:
    >>> def f(x, k):                       # x: [batch, seq], k: 0-d i64
    ...     return roll(flip(x, 1), k, axis=1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from symshape_mlir.frontend.dtypes import DType
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.index import IndexBuilder
from symshape_mlir.frontend.ops.creation import arange
from symshape_mlir.frontend.ops.elementwise import elementwise
from symshape_mlir.frontend.ops.gather import gather_along
from symshape_mlir.frontend.ops.generic import Body
from symshape_mlir.frontend.ops.reductions import reduced_axes
from symshape_mlir.frontend.ops.shape_ops import reshape
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.vjp import composite

__all__ = ["flip", "roll"]


@composite
def flip(x: Tensor, axis: int | Sequence[int] | None = None) -> Tensor:
    """``numpy.flip``: the entries along ``axis`` (all axes for None) reversed."""
    where = user_location()
    for a in reduced_axes("flip", x, axis, where):
        n = x.shape[a]
        x = gather_along(x, arange(n - 1, -1, -1), a, where)
    return x


@composite
def roll(x: Tensor, shift: Any, axis: int | Sequence[int] | None = None) -> Tensor:
    """``numpy.roll``: entries shifted by ``shift`` along ``axis``, wrapping around
    (the flattened tensor for ``axis=None``)."""
    where = user_location()
    if axis is None:
        return reshape(roll(reshape(x, [-1]), shift, 0), list(x.shape))
    shifts = list(shift) if isinstance(shift, list | tuple) else [shift]
    axes = list(axis) if isinstance(axis, list | tuple) else [axis]
    if len(shifts) == 1 and len(axes) > 1:
        shifts *= len(axes)
    if len(shifts) != len(axes):
        raise FrontendError(f"roll at {where}: {len(shifts)} shifts for {len(axes)} axes")
    for s, a in zip(shifts, axes, strict=True):
        (a,) = reduced_axes("roll", x, a, where)
        x = gather_along(x, _rolled_positions(x, s, a, where), a, where)
    return x


def _rolled_positions(x: Tensor, shift: Any, axis: int, where: SourceLocation) -> Tensor:
    """``(i - shift) mod n`` for ``i < n`` (``n`` the axis's extent; 0 entries for 0)."""
    trace = x.trace
    b = IndexBuilder(trace, where)
    by = b.size(shift, "roll", "shift")
    n = b.dim(x, axis)
    modulus = b.max(n, b.const(1))
    # In [0, modulus) first: i - shift cannot overflow.
    by = b.sub(by, b.mul(modulus, b.floordiv(by, modulus)))
    values = []
    for index in (by, modulus):
        value = trace.ssa("i")
        trace.emit(f"{value} = arith.index_cast {b.ssa(index)} : index to i64", where)
        values.append(value)
    by64, mod64 = values

    def body(block: Body, args: list[str], dtype: DType) -> str:
        t = dtype.mlir
        moved = block.op(f"arith.subi {args[0]}, {by64}", t)
        rem = block.op(f"arith.remsi {moved}, {mod64}", t)
        negative = block.op(f"arith.cmpi slt, {rem}, {block.const(dtype, 0)}", t)
        return block.op(f"arith.select {negative}, {block.op(f'arith.addi {rem}, {mod64}', t)}, "
                        f"{rem}", t)

    return elementwise("roll", [arange(x.shape[axis])], body, where)
