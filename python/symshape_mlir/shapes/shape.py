"""Shapes with exact rank, symbolic extents and named axes.

A :class:`Shape` is a tuple of :class:`~symshape_mlir.extent.ShapeExtent`:
its rank is always exact, each extent is exact, an upper bound or unknown.
An axis is *named* when its extent is exactly a named symbol (``batch``);
fresh symbols (``_d0``) and unknown extents are unnamed placeholders.

Items accepted wherever a shape is built: ``int`` (a constant extent), ``str``
(an axis name), :class:`~symshape_mlir.extent.Expr` (an exact extent) or a
``ShapeExtent``. A whole shape may also be given as its text
(``"[batch, 512, ub(n)]"``).

Example:
    >>> s = Shape(["batch", 512])
    >>> s.axis_names, s.is_dynamic, s.has_named_axes
    (('batch', None), True, True)
    >>> s.resolve({"batch": 32}).as_ints()
    (32, 512)
"""

from __future__ import annotations

import operator
import typing
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TypeAlias, Union, overload

from symshape_mlir.extent.context import ExtentContext, is_fresh_name
from symshape_mlir.extent.expr import Const, Expr, Sym, is_identifier
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.extent.parse import format_shape, parse_shape
from symshape_mlir.shapes.checks import ShapeCheck
from symshape_mlir.shapes.errors import ShapeError

__all__ = ["Shape", "ShapeItem", "ShapeLike", "as_shape", "axis_name", "is_placeholder"]

ShapeItem: TypeAlias = int | str | Expr | ShapeExtent
ShapeLike: TypeAlias = Union["Shape", str, Iterable[ShapeItem]]


def _as_item(item: ShapeItem) -> ShapeExtent:
    if isinstance(item, ShapeExtent):
        return item
    if isinstance(item, str):
        if not is_identifier(item):
            raise ValueError(f"invalid axis name {item!r}")
        return Exact(Sym(item))
    if isinstance(item, Expr):
        return Exact(item)
    if isinstance(item, bool):
        raise TypeError("a bool is not an extent")
    value = operator.index(item)
    if value < 0:
        raise ValueError(f"negative extent {value}")
    return Exact(Const(value))


def axis_name(extent: ShapeExtent) -> str | None:
    """The axis name when ``extent`` is exactly a named (non-fresh) symbol."""
    if extent.is_exact and isinstance(extent.expr, Sym) and not is_fresh_name(extent.expr.name):
        return extent.expr.name
    return None


def is_placeholder(extent: ShapeExtent) -> bool:
    """Whether ``extent`` is an unnamed dynamic axis: unknown or exactly a fresh symbol."""
    if extent.is_unknown:
        return True
    return extent.is_exact and isinstance(extent.expr, Sym) and is_fresh_name(extent.expr.name)


class Shape(Sequence[ShapeExtent]):
    """An immutable shape: exact rank, one extent per axis.

    Args:
        items: the extents (see the module docstring for accepted items).
        checks: runtime conditions the shape was derived under (recorded by
            the shape rules). They travel with the shape but are not part of
            its identity: equality and hashing look at the extents only.
    """

    __slots__ = ("_checks", "_dims", "_hash")

    def __init__(
        self, items: Iterable[ShapeItem] = (), *, checks: Iterable[ShapeCheck] = ()
    ) -> None:
        if isinstance(items, str):
            raise TypeError("use Shape.parse() for shape text")
        given = tuple(items)
        dims = typing.cast(tuple[ShapeExtent, ...], given)
        for item in given:  # a loop, not a generator: shape rules build many small shapes
            if not isinstance(item, ShapeExtent):
                dims = tuple(map(_as_item, given))
                break
        self._dims = dims
        self._checks = checks if type(checks) is tuple else tuple(checks)

    @classmethod
    def parse(cls, text: str) -> Shape:
        """Reads the shape syntax (``[batch, 512, ub(n), ?]``)."""
        return cls(parse_shape(text))

    # -- sequence protocol --------------------------------------------------------------

    @property
    def dims(self) -> tuple[ShapeExtent, ...]:
        """The extents."""
        return self._dims

    @property
    def checks(self) -> tuple[ShapeCheck, ...]:
        """Runtime conditions recorded while deriving this shape."""
        return self._checks

    @property
    def rank(self) -> int:
        """The number of axes (always exact)."""
        return len(self._dims)

    def __len__(self) -> int:
        return len(self._dims)

    @overload
    def __getitem__(self, index: int) -> ShapeExtent: ...

    @overload
    def __getitem__(self, index: slice) -> Shape: ...

    def __getitem__(self, index: int | slice) -> ShapeExtent | Shape:
        if isinstance(index, slice):
            return Shape(self._dims[index])
        return self._dims[index]

    def __iter__(self) -> Iterator[ShapeExtent]:
        return iter(self._dims)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Shape):
            return self._dims == other._dims
        return NotImplemented

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            self._hash: int = hash(self._dims)
            return self._hash

    def __str__(self) -> str:
        return format_shape(self._dims)

    def __repr__(self) -> str:
        if self._checks:
            return f"Shape({str(self)!r}, checks={len(self._checks)})"
        return f"Shape({str(self)!r})"

    # -- properties ---------------------------------------------------------------------

    @property
    def axis_names(self) -> tuple[str | None, ...]:
        """Per axis, its name (see :func:`axis_name`) or ``None``."""
        return tuple(axis_name(d) for d in self._dims)

    @property
    def is_dynamic(self) -> bool:
        """Whether some extent is not an exact constant."""
        return not self.is_fully_concrete

    @property
    def has_named_axes(self) -> bool:
        """Whether some axis is named."""
        return any(name is not None for name in self.axis_names)

    @property
    def is_fully_concrete(self) -> bool:
        """Whether every extent is an exact constant."""
        return all(d.is_exact and isinstance(d.expr, Const) for d in self._dims)

    @property
    def is_exact(self) -> bool:
        """Whether every extent is exact (possibly symbolic)."""
        return all(d.is_exact for d in self._dims)

    @property
    def free_symbols(self) -> frozenset[str]:
        """Symbols mentioned by the extents."""
        names: frozenset[str] = frozenset()
        for d in self._dims:
            names |= d.free_symbols
        return names

    # -- binding ------------------------------------------------------------------------

    def as_ints(self) -> tuple[int, ...]:
        """The extents of a fully concrete shape.

        Raises:
            ShapeError: some extent is not an exact constant.
        """
        out: list[int] = []
        for axis, d in enumerate(self._dims):
            if not (d.is_exact and isinstance(d.expr, Const)):
                raise ShapeError(f"axis {axis} is not a constant: {d}")
            out.append(d.expr.value)
        return tuple(out)

    def resolve(self, bindings: Mapping[str, int], ctx: ExtentContext | None = None) -> Shape:
        """Replaces bound symbols by their values; unbound ones stay symbolic.

        Recorded checks whose extents all become constants are verified (and
        dropped); the others are kept, resolved.

        Args:
            bindings: symbol values.
            ctx: when given, the values are checked against its ranges.

        Raises:
            RangeViolationError: a value outside its symbol's range.
            BroadcastError, ShapeError: a recorded check fails.
        """
        if ctx is not None:
            ctx.check_bindings(bindings)
        dims = tuple(d.substitute(bindings) for d in self._dims)
        kept: list[ShapeCheck] = []
        for check in self._checks:
            extents = tuple(e.substitute(bindings) for e in check.extents)
            values = [e.expr.value for e in extents
                      if isinstance(e, Exact) and isinstance(e.expr, Const)]
            if len(values) == len(extents):
                check.verify(values)
            else:
                kept.append(ShapeCheck(check.kind, check.operands, extents, check.dim))
        return Shape(dims, checks=kept)

    def evaluate(
        self, bindings: Mapping[str, int], ctx: ExtentContext | None = None
    ) -> tuple[int, ...]:
        """The concrete extents under ``bindings``.

        Raises:
            ShapeError: an extent is not exact, or a recorded check fails.
            MissingBindingError, NegativeExtentError: from evaluating an extent.
        """
        resolved = self.resolve(bindings, ctx)
        values: list[int] = []
        for axis, d in enumerate(resolved):
            if not isinstance(d, Exact):
                raise ShapeError(f"axis {axis} has no exact extent: {d}")
            values.append(d.expr.evaluate_size(bindings))
        return tuple(values)


def as_shape(value: ShapeLike) -> Shape:
    """Returns ``value`` as a :class:`Shape` (text is parsed, items converted)."""
    if isinstance(value, Shape):
        return value
    if isinstance(value, str):
        return Shape.parse(value)
    return Shape(value)
