"""Symbol ranges, fresh symbols and the proof cache of one analysis.

Symbols range over the non-negative integers. An :class:`ExtentContext`
narrows that range per symbol (``1 <= batch <= 4096``): the provers assume the
declared ranges, and :meth:`ExtentContext.check_bindings` enforces them on
concrete bindings at run time. A context also hands out fresh symbols
``_d0, _d1, ...`` for data-dependent sizes; names of that form are reserved
for them and never taken by :meth:`ExtentContext.declare`.
"""

from __future__ import annotations

import logging
import operator
import re
from collections.abc import Hashable, Mapping
from typing import Final

from symshape_mlir.extent.errors import RangeViolationError
from symshape_mlir.extent.expr import Sym, is_identifier

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

    def fresh_symbol(self, lo: int = 0, hi: int | None = None) -> Sym:
        """Returns a new symbol ``_dN``, distinct from every one this context made.

        Args:
            lo: its smallest value.
            hi: its largest value, or ``None``.
        """
        name = f"{FRESH_PREFIX}{self._next_fresh}"
        self._next_fresh += 1
        logger.debug("fresh symbol %s", name)
        if lo == 0 and hi is None:
            return Sym(name)
        return self._set_range(name, lo, hi)

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
