"""numpy's slice rule, written once over any index algebra.

A slice ``start:stop:step`` of an axis of ``n`` entries reads ``count``
entries from ``offset`` (numpy's ``slice.indices``): a negative bound
counts from the end, bounds are clamped to the axis, and a negative step
reads the axis reversed (``offset`` is then an offset into the reversed
axis). The same code computes extents (:data:`EXTENTS`, for the ONNX
importer's shape rules) and builds ``index`` IR with the extents beside it
(the frontend's :class:`~symshape_mlir.frontend.index.IndexBuilder`), so the
two cannot disagree; :func:`range_count` is ``arange``'s length likewise.

Example:
    >>> from symshape_mlir.extent import Sym
    >>> n = Sym("n")
    >>> offset, count = slice_indices(EXTENTS, Const(-3), None, 1, n)
    >>> str(offset), str(count)
    ('max(0, n - 3)', 'n - max(0, n - 3)')
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from symshape_mlir.extent import canon
from symshape_mlir.extent.expr import Const, Expr
from symshape_mlir.extent.prove import cancel_exact_divisions, prove_le, prove_nonnegative

__all__ = [
    "EXTENTS",
    "ExtentAlgebra",
    "IndexAlgebra",
    "clamp",
    "is_negative",
    "range_count",
    "slice_indices",
    "wrapped",
]

T = TypeVar("T")


class IndexAlgebra(Protocol[T]):
    """Signed integer arithmetic on some representation of index values."""

    def const(self, value: int) -> T:
        """A constant."""

    def add(self, a: T, b: T) -> T:
        """``a + b``."""

    def sub(self, a: T, b: T) -> T:
        """``a - b``."""

    def mul(self, a: T, b: T) -> T:
        """``a * b``."""

    def min(self, a: T, b: T) -> T:
        """``min(a, b)``."""

    def max(self, a: T, b: T) -> T:
        """``max(a, b)``."""

    def ceildiv(self, a: T, b: T) -> T:
        """``a ceildiv b``."""

    def proven_le(self, a: T, b: T) -> bool:
        """Whether ``a <= b`` is proven for every binding."""

    def nonneg(self, a: T) -> bool:
        """Whether ``a >= 0`` is proven for every binding."""

    def known(self, a: T) -> int | None:
        """The value of ``a`` when it is a constant."""


class ExtentAlgebra:
    """:class:`IndexAlgebra` over extent expressions (the canonical constructors)."""

    def const(self, value: int) -> Expr:
        return Const(value)

    def add(self, a: Expr, b: Expr) -> Expr:
        return canon.add(a, b)

    def sub(self, a: Expr, b: Expr) -> Expr:
        return canon.sub(a, b)

    def mul(self, a: Expr, b: Expr) -> Expr:
        return canon.mul(a, b)

    def min(self, a: Expr, b: Expr) -> Expr:
        return canon.minimum(a, b)

    def max(self, a: Expr, b: Expr) -> Expr:
        return canon.maximum(a, b)

    def ceildiv(self, a: Expr, b: Expr) -> Expr:
        return cancel_exact_divisions(canon.ceildiv(a, b))

    def proven_le(self, a: Expr, b: Expr) -> bool:
        return prove_le(a, b, fallback=False) is True

    def nonneg(self, a: Expr) -> bool:
        return prove_nonnegative(a, fallback=False) is True

    def known(self, a: Expr) -> int | None:
        return a.value if isinstance(a, Const) else None


EXTENTS = ExtentAlgebra()
"""The extent algebra (no state)."""


def clamp(alg: IndexAlgebra[T], value: T, low: T, high: T) -> T:
    """``min(max(value, low), high)``, without the sides that provably hold."""
    if not alg.proven_le(low, value):
        value = alg.max(value, low)
    if not alg.proven_le(value, high):
        value = alg.min(value, high)
    return value


def is_negative(alg: IndexAlgebra[T], value: T) -> T:
    """1 where ``value < 0``, else 0: ``min(max(-value, 0), 1)``."""
    return clamp(alg, alg.sub(alg.const(0), value), alg.const(0), alg.const(1))


def wrapped(alg: IndexAlgebra[T], value: T, extent: T) -> T:
    """numpy's reading of an index into an axis of ``extent`` entries: a
    negative one counts from the end (``value + extent``), branch-free
    (``value + extent * [value < 0]``)."""
    if alg.nonneg(value):
        return value
    if alg.known(value) is not None:
        return alg.add(value, extent)
    return alg.add(value, alg.mul(extent, is_negative(alg, value)))


def slice_indices(
    alg: IndexAlgebra[T], start: T | None, stop: T | None, step: int, n: T
) -> tuple[T, T]:
    """The offset and count of ``start:stop:step`` on an axis of ``n`` entries.

    For a negative ``step`` the offset is into the axis reversed (entry
    ``start`` of the axis is entry ``n - 1 - start`` of the reversed one).

    Raises:
        ValueError: ``step`` is 0.
    """
    if step == 0:
        raise ValueError("slice step cannot be zero")
    zero = alg.const(0)
    if step > 0:
        first = zero if start is None else clamp(alg, wrapped(alg, start, n), zero, n)
        end = n if stop is None else clamp(alg, wrapped(alg, stop, n), zero, n)
        span = alg.sub(end, first)
        return first, _at_least_zero(alg, alg.ceildiv(span, alg.const(step)) if step != 1
                                     else span)
    last = alg.sub(n, alg.const(1))
    minus_one = alg.const(-1)
    first = last if start is None else clamp(alg, wrapped(alg, start, n), minus_one, last)
    end = minus_one if stop is None else clamp(alg, wrapped(alg, stop, n), minus_one, last)
    count = _at_least_zero(alg, alg.ceildiv(alg.sub(first, end), alg.const(-step)))
    return alg.sub(last, first), count


def range_count(alg: IndexAlgebra[T], start: T, stop: T, step: int) -> T:
    """The length of ``arange(start, stop, step)``: ``max(ceildiv(stop - start,
    step), 0)`` (the same entries as the slice ``start:stop:step`` of an
    axis long enough, without the clamps).

    Raises:
        ValueError: ``step`` is 0.
    """
    if step == 0:
        raise ValueError("range step cannot be zero")
    span = alg.sub(stop, start) if step > 0 else alg.sub(start, stop)
    return _at_least_zero(alg, alg.ceildiv(span, alg.const(abs(step))))


def _at_least_zero(alg: IndexAlgebra[T], value: T) -> T:
    """``max(value, 0)``, or ``value`` where it is proven non-negative (two
    slices that split an axis then sum back to it: ``n - max(n - 3, 0)`` and
    ``max(n - 3, 0)``)."""
    return value if alg.nonneg(value) else alg.max(value, alg.const(0))
