"""Basic indexing of traced tensors: ``x[1:, :k, 0, None, ...]`` (``tensor.extract_slice``).

Supported: slices with step 1 whose bounds are ``int`` (negative counts from
the end), an exact extent or an :class:`~symshape_mlir.extent.Expr`
(clamped to the axis as numpy does); integer indices (the axis is dropped);
``None`` (a new axis of extent 1); one ``Ellipsis``. The result extents are
symbolic: ``x[:k]`` on an axis ``n`` has ``min(k, n)`` entries.

Example:
    >>> def f(x):                              # x: [batch, seq, 64]
    ...     return x[:, 1:, 0]                 # [batch, max(seq - 1, 0)] ...
"""

from __future__ import annotations

from typing import Any

from symshape_mlir.extent import guarantee
from symshape_mlir.extent.expr import Const, Expr
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.ops.shape_ops import insert_unit_axes
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import FunctionTrace, tensor_type
from symshape_mlir.shapes.shape import Shape

__all__ = ["getitem"]


class _Index:
    """``index`` values and their extents, built side by side."""

    def __init__(self, trace: FunctionTrace, where: SourceLocation) -> None:
        self.trace = trace
        self.where = where

    def const(self, value: int) -> tuple[str, ShapeExtent]:
        """A constant, written as a literal (an SSA value only where an op needs one)."""
        return str(value), Exact(Const(value))

    def ssa(self, value: str) -> str:
        """``value`` as an SSA ``index`` value."""
        return value if value.startswith("%") else self.trace.index_const(int(value), self.where)

    def op(
        self, name: str, a: tuple[str, ShapeExtent], b: tuple[str, ShapeExtent]
    ) -> tuple[str, ShapeExtent]:
        combine = {
            "arith.minsi": guarantee.minimum,
            "arith.maxsi": guarantee.maximum,
            "arith.subi": guarantee.sub,
            "arith.addi": guarantee.add,
        }[name]
        extent = combine(a[1], b[1])
        if extent.is_exact and isinstance(extent.expr, Const):
            return self.const(extent.expr.value)
        value = self.trace.ssa("i")
        self.trace.emit(f"{value} = {name} {self.ssa(a[0])}, {self.ssa(b[0])} : index", self.where)
        return value, extent


def _bound(
    item: Any, size: tuple[str, ShapeExtent], b: _Index, default: tuple[str, ShapeExtent]
) -> tuple[str, ShapeExtent]:
    """A slice bound clamped to ``[0, size]``."""
    if item is None:
        return default
    if isinstance(item, bool):
        raise FrontendError(f"indexing at {b.where}: a bool is not a slice bound")
    if isinstance(item, int):
        if item < 0:
            return b.op("arith.maxsi", b.op("arith.subi", size, b.const(-item)), b.const(0))
        return b.op("arith.minsi", b.const(item), size)
    if isinstance(item, Expr):
        item = Exact(item)
    if isinstance(item, ShapeExtent):
        if not item.is_exact:
            raise FrontendError(
                f"indexing at {b.where}: the slice bound {item} is only an upper bound"
            )
        return b.op("arith.minsi", (b.trace.materialize(item, b.where), item), size)
    raise FrontendError(f"indexing at {b.where}: unsupported slice bound {item!r}")


def getitem(x: Tensor, key: Any) -> Tensor:
    """``x[key]`` for basic indexing (see the module docstring)."""
    where = user_location()
    items = list(key) if isinstance(key, tuple) else [key]
    if sum(item is Ellipsis for item in items) > 1:
        raise FrontendError(f"indexing at {where}: more than one Ellipsis")
    used = sum(item is not None and item is not Ellipsis for item in items)
    if used > x.ndim:
        raise FrontendError(f"indexing at {where}: {used} indices for rank {x.ndim}")
    at = items.index(Ellipsis) if Ellipsis in items else len(items)
    items[at : at + 1] = [slice(None)] * (x.ndim - used)
    b = _Index(x.trace, where)
    offsets: list[str] = []
    sizes: list[str] = []
    kept: list[ShapeExtent] = []
    new_axes: list[int] = []
    axis = 0
    for item in items:
        if item is None:
            new_axes.append(len(kept) + len(new_axes))
            continue
        extent = x.shape[axis]
        size = (
            b.const(extent.expr.value)
            if extent.is_exact and isinstance(extent.expr, Const)
            else (x.trace.dim_index(x, axis, where), extent)
        )
        if isinstance(item, slice):
            if item.step not in (None, 1):
                raise FrontendError(f"indexing at {where}: only step 1 is supported")
            start = _bound(item.start, size, b, b.const(0))
            stop = _bound(item.stop, size, b, size)
            count = b.op("arith.maxsi", b.op("arith.subi", stop, start), b.const(0))
            offsets.append(start[0])
            sizes.append(count[0])
            kept.append(count[1])
        elif isinstance(item, int) and not isinstance(item, bool):
            static = extent.expr.value if isinstance(extent.expr, Const) else None
            if static is not None and not -static <= item < static:
                raise IndexError(
                    f"indexing at {where}: index {item} is out of bounds for axis {axis} "
                    f"with extent {static}"
                )
            if item < 0:
                offsets.append(b.op("arith.subi", size, b.const(-item))[0])
            else:
                offsets.append(b.const(item)[0])
            sizes.append(b.const(1)[0])
        else:
            raise FrontendError(f"indexing at {where}: unsupported index {item!r}")
        axis += 1
    shape = Shape(kept)
    trace = x.trace
    name = trace.ssa("sl")
    ones = ", ".join(["1"] * x.ndim)
    trace.emit(
        f"{name} = tensor.extract_slice {x.value}[{', '.join(offsets)}] [{', '.join(sizes)}] "
        f"[{ones}] : {x.mlir_type} to {tensor_type(shape, x.dtype)}",
        where,
    )
    result = Tensor(trace, name, shape, x.dtype)
    if new_axes:
        result = insert_unit_axes(result, new_axes, where)
    return result
