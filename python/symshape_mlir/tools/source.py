"""Reading MLIR source for symshape-opt: split-input-file chunks and parsing.

Splitting follows mlir-opt: the input is cut at every ``// -----``; a
``// ---`` that is not a full marker (``// ----``, ``// ------``) draws a
"near miss with file split marker" warning and does not split. Each chunk is
padded with blank lines and spaces up to its position in the original file,
so every location (and every ``expected-*`` line number) is relative to the
original file, as mlir-opt 22 reports them.

Parsing follows mlir-opt too: a source holding a single ``builtin.module``
yields that module; otherwise the top-level operations are placed in an
implicit module located at ``file:0:0``.
"""

from __future__ import annotations

import bisect
import dataclasses
import logging
import re

from mlir import ir

from symshape_mlir.pipeline import Diagnostic, DiagnosticCollector, Severity, SourceLoc

__all__ = ["SPLIT_MARKER", "Chunk", "parse_module", "split_input"]

logger = logging.getLogger(__name__)

SPLIT_MARKER = "// -----"

_MARKER_PREFIX = SPLIT_MARKER[:-2]
_MARKER_TAIL = SPLIT_MARKER[-2:]
_MODULE_OP = "builtin.module"
_TOP_LEVEL_COUNT_ERROR = "source must contain a single top-level operation"
# Module.parse takes no file name: its locations name this buffer.
_UNNAMED_BUFFER = "-"


@dataclasses.dataclass(frozen=True)
class Chunk:
    """One chunk of the input.

    Attributes:
        text: The chunk, padded so that positions match the original file.
        first_line: The line of the original file where the chunk starts.
    """

    text: str
    first_line: int


def split_input(text: str, filename: str) -> tuple[list[Chunk], list[Diagnostic]]:
    """Splits ``text`` at ``// -----`` markers.

    Args:
        text: The whole input.
        filename: The input's name, for the near-miss warnings.

    Returns:
        The chunks in order and the near-miss warnings.
    """
    line_starts = [0] + [match.end() for match in re.finditer("\n", text)]

    def position(offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(line_starts, offset)
        return line, offset - line_starts[line - 1] + 1

    chunks: list[Chunk] = []
    warnings: list[Diagnostic] = []
    start = 0
    found = text.find(_MARKER_PREFIX)
    while found >= 0:
        after = found + len(_MARKER_PREFIX)
        full = text.startswith(_MARKER_TAIL, after) and not text.startswith("-", after + 2)
        if full:
            chunks.append(_chunk(text, start, found, position(start)))
            start = after + len(_MARKER_TAIL)
        else:
            line, column = position(after)
            warnings.append(
                Diagnostic(
                    Severity.WARNING,
                    "near miss with file split marker",
                    location=SourceLoc(filename, line, column),
                )
            )
        found = text.find(_MARKER_PREFIX, after)
    chunks.append(_chunk(text, start, len(text), position(start)))
    return chunks, warnings


def parse_module(
    text: str, filename: str, context: ir.Context, collector: DiagnosticCollector
) -> ir.Operation | None:
    """Parses source text into a ``builtin.module``, reporting to ``collector``.

    Args:
        text: The source (a chunk's padded text).
        filename: The name locations carry (``<stdin>`` for standard input).
        context: The context to parse in.
        collector: Receives parser and verifier diagnostics.

    Returns:
        The module, or None when parsing or verification failed.
    """
    with collector.attached(context):
        mark = len(collector.diagnostics)
        try:
            parsed = ir.Operation.parse(text, source_name=filename, context=context)
        except ir.MLIRError:
            new = collector.diagnostics[mark:]
            if not (len(new) == 1 and new[0].message.startswith(_TOP_LEVEL_COUNT_ERROR)):
                return None
            del collector.diagnostics[mark:]
            return _parse_implicit_module(text, filename, context, collector)
    operation = parsed.operation
    if operation.name == _MODULE_OP:
        return operation
    module = ir.Module.create(loc=ir.Location.file(filename, 0, 0, context=context))
    module.body.append(operation)
    return module.operation


def _parse_implicit_module(
    text: str, filename: str, context: ir.Context, collector: DiagnosticCollector
) -> ir.Operation | None:
    """Parses several top-level operations (and aliases) into an implicit module."""
    try:
        with collector.renaming_file(_UNNAMED_BUFFER, filename):
            module = ir.Module.parse(text, context)
    except ir.MLIRError:
        return None
    _rename_locations(module.operation, filename)
    return module.operation


def _rename_locations(root: ir.Operation, filename: str) -> None:
    """Gives the parser's locations (file ``-``) the input's file name."""

    def renamed(location: ir.Location) -> ir.Location | None:
        if location.is_a_file() and location.filename == _UNNAMED_BUFFER:
            return ir.Location.file(
                filename,
                location.start_line,
                location.start_col,
                location.end_line,
                location.end_col,
                context=location.context,
            )
        return None

    def visit(op: ir.Operation) -> ir.WalkResult:
        location = renamed(op.location)
        if location is not None:
            op.location = location
        for region in op.regions:
            for block in region.blocks:
                for argument in block.arguments:
                    location = renamed(argument.location)
                    if location is not None:
                        argument.set_location(location)
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.PRE_ORDER)


def _chunk(text: str, start: int, end: int, position: tuple[int, int]) -> Chunk:
    line, column = position
    return Chunk("\n" * (line - 1) + " " * (column - 1) + text[start:end], line)
