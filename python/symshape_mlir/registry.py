"""The one way tables of passes, shape rules and op importers are filled.

Each table is a plain dict filled at import time; :func:`add_unique` is the
only writer, so a second entry under one key is an error at import rather
than a silent replacement.

Example:
    >>> RULES: dict[str, Rule] = {}
    >>> add_unique(RULES, "tensor.cast", cast_rule, "shape rule")
    >>> add_unique(RULES, "tensor.cast", other_rule, "shape rule")
    ValueError: a shape rule for 'tensor.cast' is already registered
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import TypeVar

__all__ = ["add_unique"]

K = TypeVar("K")
V = TypeVar("V")


def add_unique(table: MutableMapping[K, V], key: K, value: V, what: str) -> None:
    """Adds ``value`` under ``key``.

    Args:
        table: The table.
        key: Its key.
        value: The entry.
        what: What the table holds, for the error (``"shape rule"``).

    Raises:
        ValueError: ``key`` already has an entry.
    """
    if key in table:
        raise ValueError(f"a {what} for '{key}' is already registered")
    table[key] = value
