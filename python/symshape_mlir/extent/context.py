"""Symbol ranges, fresh symbols and the proof cache of one analysis.

Symbols range over the non-negative integers. An :class:`ExtentContext`
narrows that range per symbol (``1 <= batch <= 4096``): the provers assume the
declared ranges, and :meth:`ExtentContext.check_bindings` enforces them on
concrete bindings at run time. A context also hands out fresh symbols
``_d0, _d1, ...`` for data-dependent sizes; names of that form are reserved
for them and never taken by :meth:`ExtentContext.declare`.

A fresh symbol may carry a *value range whose ends are extent expressions*
(as unbacked sizes do in PyTorch's shape environment): a size chosen at run
time between ``1`` and ``batch`` is ``_d3`` with ``min(1, batch) <= _d3 <=
max(1, batch)``, a count of non-zero elements ``_d4`` with ``0 <= _d4 <=
rows * cols``. The provers use these ends (``_d4 <= rows * cols`` is proven);
they are facts inference derived, not checked at run time.

Example:
    >>> from symshape_mlir.extent import ExtentContext, Sym, prove_le
    >>> ctx = ExtentContext()
    >>> count = ctx.fresh_symbol(0, Sym("rows") * Sym("cols"))
    >>> prove_le(count, Sym("rows") * Sym("cols"), ctx)
    True
"""

from __future__ import annotations

import logging
import operator
import re
from collections.abc import Hashable, Mapping
from typing import Final

from symshape_mlir.extent.errors import RangeViolationError
from symshape_mlir.extent.expr import Expr, ExprLike, Sym, as_expr, is_identifier

__all__ = ["FRESH_PREFIX", "ExtentContext", "is_fresh_name"]

logger = logging.getLogger(__name__)

FRESH_PREFIX: Final = "_d"
_FRESH_NAME = re.compile(r"_d[0-9]+\Z")
_CACHE_LIMIT: Final = 1 << 16


def is_fresh_name(name: str) -> bool:
    """Whether ``name`` has the form of a fresh symbol (``_d`` followed by digits)."""
    return _FRESH_NAME.match(name) is not None


class ExtentContext:
    """Declared symbol ranges, a fresh-symbol counter and cached proofs.

    Args:
        ranges: initial ranges, ``{name: (lo, hi)}`` with ``hi`` ``None`` for
            no upper bound.
        use_sympy: whether the provers may fall back to sympy for questions
            the native procedure leaves open.

    Example:
        >>> ctx = ExtentContext({"batch": (1, 4096)})
        >>> ctx.range_of("batch")
        (1, 4096)
        >>> str(ctx.fresh_symbol())
        '_d0'
    """

    def __init__(
        self,
        ranges: Mapping[str, tuple[int, int | None]] | None = None,
        *,
        use_sympy: bool = True,
    ) -> None:
        self._ranges: dict[str, tuple[int, int | None]] = {}
        # Fresh symbols whose range has an end that is not a constant.
        self._limits: dict[str, tuple[Expr, Expr | None]] = {}
        self._next_fresh = 0
        self._proofs: dict[Hashable, bool | None] = {}
        self.use_sympy = use_sympy
        for name, (lo, hi) in (ranges or {}).items():
            self._set_range(name, lo, hi)

    @property
    def ranges(self) -> Mapping[str, tuple[int, int | None]]:
        """The declared ranges (a read-only view)."""
        return dict(self._ranges)

    def declare(self, name: str, lo: int = 0, hi: int | None = None) -> Sym:
        """Declares ``lo <= name <= hi`` and returns the symbol.

        Args:
            name: a symbol name; fresh-symbol names are refused.
            lo: the smallest value, at least 0.
            hi: the largest value, or ``None`` for no upper bound.

        Raises:
            ValueError: for a fresh-symbol name, a negative ``lo`` or an empty range.
        """
        if is_fresh_name(name):
            raise ValueError(f"'{name}' is reserved for fresh symbols")
        return self._set_range(name, lo, hi)

    def _set_range(self, name: str, lo: int, hi: int | None) -> Sym:
        if not is_identifier(name):
            raise ValueError(f"invalid symbol name {name!r}")
        lo = operator.index(lo)
        hi = None if hi is None else operator.index(hi)
        if lo < 0:
            raise ValueError(f"'{name}' ranges over extents: lower bound {lo} is negative")
        if hi is not None and hi < lo:
            raise ValueError(f"empty range {lo} <= {name} <= {hi}")
        self._ranges[name] = (lo, hi)
        self._proofs.clear()
        return Sym(name)

    def range_of(self, name: str) -> tuple[int, int | None]:
        """Returns ``(lo, hi)`` for ``name``; ``(0, None)`` unless declared."""
        return self._ranges.get(name, (0, None))

    def fresh_symbol(self, lo: ExprLike = 0, hi: ExprLike | None = None) -> Sym:
        """Returns a new symbol ``_dN``, distinct from every one this context made.

        This is how a data-dependent size gets its value range: the ends are
        extent expressions over earlier symbols (see the module docstring).

        Args:
            lo: its smallest value (a constant below 0 counts as 0: the
                symbol is a size).
            hi: its largest value, or ``None``.
        """
        name = f"{FRESH_PREFIX}{self._next_fresh}"
        self._next_fresh += 1
        logger.debug("fresh symbol %s", name)
        if isinstance(lo, int) and lo == 0 and hi is None:
            return Sym(name)
        return self.limit(name, lo, hi)

    def limit(self, name: str, lo: ExprLike = 0, hi: ExprLike | None = None) -> Sym:
        """Sets the value range of the fresh symbol ``name`` to ``[lo, hi]`` (ends
        that mention ``name`` itself are dropped), replacing its earlier one.

        Raises:
            ValueError: ``name`` is not a fresh-symbol name.
        """
        if not is_fresh_name(name):
            raise ValueError(f"'{name}' is not a fresh symbol: declare its range instead")
        low, high = as_expr(lo), None if hi is None else as_expr(hi)
        if name in low.free_symbols:
            low = as_expr(0)
        if high is not None and name in high.free_symbols:
            high = None
        low_value, high_value = low.const_value, None if high is None else high.const_value
        limits = (low, high) if low_value is None or (
            high is not None and high_value is None) else None
        start = max(low_value or 0, 0)
        numbers = (start, None if high_value is None else max(high_value, start))
        if self._limits.get(name) == limits and self.range_of(name) == numbers:
            return Sym(name)
        self._limits.pop(name, None)
        if limits is not None:
            self._limits[name] = limits
        self._ranges.pop(name, None)
        if numbers != (0, None):
            self._ranges[name] = numbers
        self._proofs.clear()
        return Sym(name)

    @property
    def has_limits(self) -> bool:
        """Whether some symbol's range has an end that is not a constant."""
        return bool(self._limits)

    def limits(self, name: str) -> tuple[Expr, Expr | None] | None:
        """The ends of ``name``'s range when one is not a constant, else ``None``."""
        return self._limits.get(name)

    def check_bindings(self, bindings: Mapping[str, int]) -> None:
        """Checks concrete values against the symbols' ranges.

        Raises:
            RangeViolationError: a value is negative or outside its declared
                range (names the symbol, the value and the range).
        """
        for name, raw in bindings.items():
            value = operator.index(raw)
            lo, hi = self.range_of(name)
            if value < lo or (hi is not None and value > hi):
                raise RangeViolationError(name, value, lo, hi)

    def _cached_proof(self, key: Hashable) -> tuple[bool, bool | None]:
        """Returns ``(found, answer)`` for a cached proof."""
        if key in self._proofs:
            return True, self._proofs[key]
        return False, None

    def _store_proof(self, key: Hashable, answer: bool | None) -> None:
        if len(self._proofs) >= _CACHE_LIMIT:
            self._proofs.clear()
        self._proofs[key] = answer
