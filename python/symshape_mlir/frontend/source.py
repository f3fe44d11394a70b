"""Python source positions of traced ops: for MLIR locations and error messages.

The user's frame is the innermost one outside the ``symshape_mlir`` package,
so an op emitted by a helper of the frontend is located where the user wrote
the call.

Example:
    >>> where = user_location()
    >>> where.mlir                                  # doctest: +SKIP
    'loc("model.py":12:9)'
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import linecache
import os
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["SourceLocation", "located", "user_location"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _quoted(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


@dataclass(frozen=True)
class SourceLocation:
    """A line (and column, 1-based) of a source file, with its source text.

    Attributes:
        name: when set, the location is that name at the line
            (``loc("node"("model.onnx":3:1))``): a node of an imported graph.
    """

    file: str
    line: int
    column: int = 1
    text: str = ""
    name: str = ""

    @functools.cached_property
    def mlir(self) -> str:
        """The location as MLIR text: ``loc("file.py":line:col)``."""
        position = f"{_quoted(self.file)}:{self.line}:{self.column}"
        if self.name:
            return f"loc({_quoted(self.name)}({position}))"
        return f"loc({position})"

    def __str__(self) -> str:
        where = f"{os.path.basename(self.file)}:{self.line}"
        return f"{where} ({self.text})" if self.text else where


UNKNOWN_LOCATION = SourceLocation("<unknown>", 0)

_CURRENT: contextvars.ContextVar[SourceLocation | None] = contextvars.ContextVar(
    "symshape_source_location", default=None
)


@contextlib.contextmanager
def located(where: SourceLocation) -> Iterator[None]:
    """Locates every op traced inside the block at ``where``.

    For programs that do not come from Python source (an imported ONNX
    graph locates each node's ops at the node).
    """
    token = _CURRENT.set(where)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def _is_internal(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_PACKAGE_DIR + os.sep) and not path.startswith(
        os.path.join(_PACKAGE_DIR, "tools")
    )


def user_location() -> SourceLocation:
    """The location of the innermost calling frame outside this package.

    Inside a :func:`located` block, that block's location.
    """
    current = _CURRENT.get()
    if current is not None:
        return current
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return UNKNOWN_LOCATION
    line = frame.f_lineno
    column = 1
    # The column of the instruction being executed (code units are 2 bytes).
    index = frame.f_lasti // 2
    for i, (start, _, col, _) in enumerate(frame.f_code.co_positions()):
        if i == index:
            if start == line and col is not None:
                column = col + 1
            break
    text = linecache.getline(frame.f_code.co_filename, line).strip()
    return SourceLocation(frame.f_code.co_filename, line, column, text)
