"""Source positions of MLIR locations, as MLIR's diagnostic handler shows them.

A ``NameLoc`` shows its child, a ``CallSiteLoc`` its callee, a ``FusedLoc``
its first showable child; an unknown location shows none. Every layer that
reports a location uses these (lowering's check messages, the pass
runner's diagnostics).

Example:
    >>> resolve_location(ir.Location.file("f.mlir", 3, 8))
    SourceLoc(filename='f.mlir', line=3, column=8)
    >>> location_text(ir.Location.name("weights"))
    'loc("weights")'
"""

from __future__ import annotations

import dataclasses
import re

from mlir import ir

__all__ = ["SourceLoc", "location_text", "resolve_location"]

_FILE_LOC_TEXT = re.compile(r'loc\("((?:[^"\\]|\\.)*)":(\d+):(\d+)')


@dataclasses.dataclass(frozen=True)
class SourceLoc:
    """A resolved source position (1-based line and column, 0 when unknown)."""

    filename: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column}"


def resolve_location(location: ir.Location) -> SourceLoc | None:
    """Finds the file position MLIR would show for ``location``.

    Args:
        location: Any MLIR location.

    Returns:
        The position, or None for unknown locations and locations without a
        file position.
    """
    if location.is_a_file():
        return SourceLoc(location.filename, location.start_line, location.start_col)
    if location.is_a_callsite():
        return resolve_location(location.callee)
    if location.is_a_name():
        return resolve_location(location.child_loc)
    if location.is_a_fused():
        for child in location.locations:
            found = resolve_location(child)
            if found is not None:
                return found
        return None
    # Opaque locations are not exposed to Python: read their printed fallback.
    match = _FILE_LOC_TEXT.search(str(location))
    if match is None:
        return None
    filename = re.sub(r"\\(.)", r"\1", match.group(1))
    return SourceLoc(filename, int(match.group(2)), int(match.group(3)))


def location_text(location: ir.Location) -> str:
    """``file:line:col`` where the location has a file position, else MLIR's spelling."""
    position = resolve_location(location)
    return str(position) if position is not None else str(location)
