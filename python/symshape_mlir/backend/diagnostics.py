"""Structured diagnostics parsed from ``iree-compile`` output."""

from __future__ import annotations

import dataclasses
import logging
import re

__all__ = ["Diagnostic", "parse_diagnostics"]

logger = logging.getLogger(__name__)

# `file:line:col: severity: message`; MLIR prints `<unknown>:0:` (no column)
# for unknown locations.
_LOCATED = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+)(?::(?P<col>\d+))?: "
    r"(?P<severity>error|warning|note|remark): (?P<message>.*)$"
)
# Command-line errors from LLVM's option parser, and fatal LLVM errors.
_TOOL = re.compile(r"^(?:iree-compile|LLVM ERROR): (?P<message>.*)$")
_UNKNOWN_FILE = "<unknown>"


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One compiler diagnostic.

    Attributes:
        severity: ``"error"``, ``"warning"``, ``"note"`` or ``"remark"``.
        message: The first line of the message (multi-line operation dumps
            that follow it are left out; the raw text keeps them).
        file: The source file, or None when the location is unknown.
        line: The 1-based line, or None when unknown.
        col: The 1-based column, or None when unknown.
        notes: The notes attached to this diagnostic.
    """

    severity: str
    message: str
    file: str | None = None
    line: int | None = None
    col: int | None = None
    notes: tuple[Diagnostic, ...] = ()

    def __str__(self) -> str:
        """Formats the diagnostic the way MLIR prints it, without notes."""
        if self.file is None:
            return f"{self.severity}: {self.message}"
        position = ":".join(str(p) for p in (self.line, self.col) if p is not None)
        return f"{self.file}:{position}: {self.severity}: {self.message}"


def _make(match: re.Match[str]) -> Diagnostic:
    file = match["file"]
    if file == _UNKNOWN_FILE:
        return Diagnostic(match["severity"], match["message"])
    col = match["col"]
    return Diagnostic(
        severity=match["severity"],
        message=match["message"],
        file=file,
        line=int(match["line"]),
        col=int(col) if col is not None else None,
    )


def parse_diagnostics(text: str) -> tuple[Diagnostic, ...]:
    """Parses the diagnostics ``iree-compile`` printed to stderr.

    Notes are attached to the diagnostic they follow. Lines that are neither a
    located diagnostic nor an option-parser/fatal error (source excerpts,
    carets, operation dumps, IREE's free-form warnings) are skipped.

    Args:
        text: The compiler's stderr.

    Returns:
        The top-level diagnostics in the order printed.
    """
    result: list[Diagnostic] = []
    follows_tool_line = False
    for line in text.splitlines():
        located = _LOCATED.match(line)
        tool = None if located is not None else _TOOL.match(line)
        if located is not None:
            diagnostic = _make(located)
        elif tool is not None:
            # A tool line right after another ("Did you mean ...") is a note.
            severity = "note" if follows_tool_line else "error"
            diagnostic = Diagnostic(severity, tool["message"])
        else:
            follows_tool_line = False
            continue
        follows_tool_line = tool is not None
        if diagnostic.severity == "note" and result:
            parent = result[-1]
            result[-1] = dataclasses.replace(parent, notes=(*parent.notes, diagnostic))
        else:
            result.append(diagnostic)
    return tuple(result)
