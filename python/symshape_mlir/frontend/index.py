"""``index`` values with their extents, built side by side: sizes, offsets, run-time integers.

An :class:`Index` is an ``index`` value of the function being traced (a
literal or an SSA name) and what is known of it: an exact expression, which
may be negative where the value may be (an offset before it is clamped, a
run-time integer). :class:`IndexBuilder` combines them with ``arith`` ops
and, in step, with the algebra inference uses for those ops
(``canon.add``, ``canon.minimum``, ...), so the traced extent of a slice is
the one inference derives.

Sizes come from ``int`` values, axis names, extents of traced shapes and
0-d integer tensors (run-time integers: a scalar input, or an element of a
1-D input read at a constant position). A run-time integer is read with
``symshape.runtime_scalar`` (``index`` semantics) and is ``plus - minus``
of two fresh symbols: its sign is unknown at trace time.

Example:
    >>> b = IndexBuilder(trace, where)                          # doctest: +SKIP
    >>> n = b.dim(x, 0); k = b.size(k_tensor, "slice")         # doctest: +SKIP
    >>> b.min(b.max(k, b.const(0)), n).extent                   # doctest: +SKIP
    Exact('min(max(_d0 - _d1, 0), batch)')
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from symshape_mlir.extent import canon
from symshape_mlir.extent import guarantee as g
from symshape_mlir.extent.expr import Const, Expr, Sym
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.extent.prove import cancel_exact_divisions, prove_le, prove_nonnegative
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.source import SourceLocation
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import FunctionTrace
from symshape_mlir.shapes import slices

__all__ = ["Index", "IndexBuilder", "SizeLike", "is_runtime_integer"]

#: What may give a size: an int, an axis name, an extent, a 0-d integer tensor.
SizeLike = int | str | Expr | ShapeExtent | Tensor

_Build = Callable[[Expr, Expr], Expr]
# (arith op, exact expression of two exact operands, combinator otherwise):
# the rules inference applies to these ops (inference/rules/arith.py).
_OPS: dict[str, tuple[str, _Build, g.Combine]] = {
    "add": ("arith.addi", canon.add, g.add_signed),
    "sub": ("arith.subi", canon.sub, g.sub_signed),
    "mul": ("arith.muli", canon.mul, g.mul_signed),
    "min": ("arith.minsi", canon.minimum, g.min_signed),
    "max": ("arith.maxsi", canon.maximum, g.max_signed),
    "floordiv": ("arith.floordivsi", canon.floordiv, g.floordiv_signed),
    "ceildiv": ("arith.ceildivsi", canon.ceildiv, g.ceildiv_signed),
}


def is_runtime_integer(value: Any) -> bool:
    """Whether ``value`` is a traced 0-d integer tensor (a size known at run time)."""
    return isinstance(value, Tensor) and value.ndim == 0 and value.dtype.is_integer


@dataclass(frozen=True)
class Index:
    """An ``index`` value (a decimal literal or an SSA name) and its extent."""

    value: str
    extent: ShapeExtent

    @property
    def const(self) -> int | None:
        """The value when it is a constant."""
        expr = self.extent.expr
        return expr.value if self.extent.is_exact and isinstance(expr, Const) else None


class IndexBuilder:
    """Builds :class:`Index` values in one traced function at one location."""

    def __init__(self, trace: FunctionTrace, where: SourceLocation) -> None:
        self.trace = trace
        self.where = where

    def const(self, value: int) -> Index:
        """A constant (written as a literal; an SSA value only where an op needs one)."""
        return Index(str(value), Exact(Const(value)))

    def ssa(self, index: Index) -> str:
        """``index`` as an SSA value."""
        if index.value.startswith("%"):
            return index.value
        return self.trace.index_const(int(index.value), self.where)

    def _op(self, name: str, a: Index, b: Index) -> Index:
        op, build, bounded = _OPS[name]
        if isinstance(a.extent, Exact) and isinstance(b.extent, Exact):
            expr = build(a.extent.expr, b.extent.expr)
            if name in ("floordiv", "ceildiv"):
                expr = cancel_exact_divisions(expr)
            extent: ShapeExtent = Exact(expr)
        else:
            extent = bounded(a.extent, self.nonneg(a), b.extent, self.nonneg(b))
        if extent.is_exact and isinstance(extent.expr, Const):
            return self.const(extent.expr.value)
        value = self.trace.ssa("i")
        self.trace.emit(f"{value} = {op} {self.ssa(a)}, {self.ssa(b)} : index", self.where)
        return Index(value, extent)

    def proven_le(self, a: Index, b: Index) -> bool:
        """Whether ``a <= b`` is proven (both exact)."""
        return isinstance(a.extent, Exact) and isinstance(b.extent, Exact) and prove_le(
            a.extent.expr, b.extent.expr, fallback=False) is True

    def nonneg(self, index: Index) -> bool:
        """Whether ``index >= 0`` is proven (it is exact)."""
        return isinstance(index.extent, Exact) and prove_nonnegative(
            index.extent.expr, fallback=False) is True

    def known(self, index: Index) -> int | None:
        """The value of ``index`` when it is a constant."""
        return index.const

    def add(self, a: Index, b: Index) -> Index:
        """``a + b``."""
        return self._op("add", a, b)

    def sub(self, a: Index, b: Index) -> Index:
        """``a - b``."""
        return self._op("sub", a, b)

    def mul(self, a: Index, b: Index) -> Index:
        """``a * b``."""
        return self._op("mul", a, b)

    def min(self, a: Index, b: Index) -> Index:
        """``min(a, b)``."""
        return self._op("min", a, b)

    def max(self, a: Index, b: Index) -> Index:
        """``max(a, b)``."""
        return self._op("max", a, b)

    def floordiv(self, a: Index, b: Index) -> Index:
        """``a floordiv b`` (``b`` must not be 0: resolve guards it at run time)."""
        return self._op("floordiv", a, b)

    def ceildiv(self, a: Index, b: Index) -> Index:
        """``a ceildiv b``."""
        return self._op("ceildiv", a, b)

    def clamp(self, value: Index, low: Index, high: Index) -> Index:
        """``min(max(value, low), high)``, without the sides that provably hold."""
        return slices.clamp(self, value, low, high)

    def wrapped(self, value: Index, extent: Index) -> Index:
        """numpy's reading of an index into an axis of ``extent`` entries
        (:func:`~symshape_mlir.shapes.slices.wrapped`)."""
        return slices.wrapped(self, value, extent)

    # -- sources -------------------------------------------------------------------------

    def dim(self, tensor: Tensor, axis: int) -> Index:
        """The size of ``tensor``'s axis."""
        extent = tensor.shape[axis]
        if extent.is_exact and isinstance(extent.expr, Const):
            return self.const(extent.expr.value)
        return Index(self.trace.dim_index(tensor, axis, self.where), extent)

    def of_extent(self, extent: ShapeExtent, op: str, what: str) -> Index:
        """An exact extent (from ``x.shape``, extent arithmetic) as an ``index`` value.

        Raises:
            ContractError: the extent is only an upper bound.
        """
        self.trace.require_exact(op, what, [extent], self.where)
        if extent.is_exact and isinstance(extent.expr, Const):
            return self.const(extent.expr.value)
        return Index(self.trace.materialize(extent, self.where), extent)

    def of_scalar(self, tensor: Tensor) -> Index:
        """The value of a 0-d integer tensor, read at run time before it is used.

        The same tensor (or the same element of a 1-D argument) reads as the
        same ``plus - minus`` pair of fresh symbols.
        """
        trace = self.trace
        plus, minus = trace.signed_value(self._read_key(tensor))
        trace.scalar_reads.append((plus.name, minus.name))
        extent = Exact(plus - minus)
        raw = trace.ssa("e")
        value = trace.ssa("n")
        trace.emit(f"{raw} = symshape.runtime_scalar {tensor.value} index : {tensor.mlir_type}",
                   self.where)
        trace.emit(f"{value} = symshape.to_index {raw}", self.where)
        return Index(value, extent)

    def _read_key(self, tensor: Tensor) -> object:
        """What a run-time integer reads: an element of an argument (which every
        read of that element shares), else the tensor itself."""
        trace = self.trace
        source = trace.element_of(tensor)
        if source is not None and trace.argument_index(source[0]) is not None:
            return source
        return (tensor.value, None)

    def size(self, item: Any, op: str, what: str = "size") -> Index:
        """A size-like ``item`` as an :class:`Index` (its value may be negative).

        Args:
            item: an ``int`` (numpy's too), an axis name of the inputs, an
                exact extent or expression, or a 0-d integer tensor.
            op: the op, for messages.
            what: what the item is to the op, for messages.

        Raises:
            FrontendError: anything else (a float, a tensor of another rank
                or type, an unknown axis name).
            ContractError: an upper-bound extent.
        """
        if isinstance(item, bool | np.bool_):
            raise FrontendError(f"{op} at {self.where}: a bool is not a {what}")
        if isinstance(item, int | np.integer):
            return self.const(operator.index(item))
        if isinstance(item, str):
            if item not in self.trace.named_axes:
                raise FrontendError(
                    f"{op} at {self.where}: unknown axis name {item!r} (the inputs name "
                    f"{sorted(self.trace.named_axes)})")
            return self.of_extent(Exact(Sym(item)), op, what)
        if isinstance(item, Expr):
            item = Exact(item)
        if isinstance(item, ShapeExtent):
            return self.of_extent(item, op, what)
        if is_runtime_integer(item):
            if item.trace is not self.trace:
                raise FrontendError(
                    f"{op} at {self.where}: the {what} comes from another traced function")
            return self.of_scalar(item)
        if isinstance(item, Tensor):
            raise FrontendError(
                f"{op} at {self.where}: a {what} tensor must be a 0-d integer, not "
                f"{item.mlir_type}")
        raise FrontendError(f"{op} at {self.where}: {item!r} is not a {what}")
