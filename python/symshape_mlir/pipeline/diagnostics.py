"""Structured diagnostics shared by MLIR, our Python passes and symshape-opt.

MLIR 22.1.8's Python bindings can only emit errors (``Location.emit_error``),
without notes. Our passes therefore report :class:`Diagnostic` objects (with
any severity and attached notes) to a :class:`DiagnosticCollector`; the same
collector captures MLIR's own diagnostics (parser, verifier, upstream passes)
through ``Context.attach_diagnostic_handler``, in emission order. Locations are
resolved eagerly to ``file:line:col`` (:class:`SourceLoc`), so a diagnostic
outlives the IR it was reported on.

Location resolution follows MLIR's ``SourceMgrDiagnosticHandler``: a
``NameLoc`` shows its child, a ``CallSiteLoc`` its callee (the callers become
"called from" notes when printed), a ``FusedLoc`` its first showable child;
an unknown location shows none.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Protocol, TypeAlias

from mlir import ir

from symshape_mlir.locations import SourceLoc, resolve_location

__all__ = [
    "Diagnostic",
    "DiagnosticCollector",
    "DiagnosticError",
    "DiagnosticSink",
    "Locatable",
    "Note",
    "Severity",
    "SourceLoc",
    "format_diagnostic",
    "resolve_location",
]

logger = logging.getLogger(__name__)

Locatable: TypeAlias = "ir.Location | ir.Operation | ir.OpView | ir.Value"
"""Anything a diagnostic can point at: a location, an operation or a value."""

Note: TypeAlias = "tuple[Locatable | None, str]"
"""A note given to a reporting method: where it points and its message."""

# MLIR attaches this note to verifier errors unless the tool disables it.
_CURRENT_OPERATION_NOTE = "see current operation: "

_CALL_STACK_LIMIT = 10


class Severity(enum.Enum):
    """Severity of a diagnostic, as in MLIR."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"
    REMARK = "remark"

    @classmethod
    def from_mlir(cls, severity: ir.DiagnosticSeverity) -> Severity:
        """Maps an ``mlir.ir.DiagnosticSeverity`` to a :class:`Severity`."""
        return cls[severity.name]


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One diagnostic with its notes.

    Attributes:
        severity: Error, warning, note or remark.
        message: The message, without location or severity prefix.
        location: The resolved file position, or None when there is none.
        location_text: The printed MLIR location when it has no file position
            but is not unknown (e.g. ``loc("name")``); empty otherwise.
        notes: Attached notes (severity ``NOTE``).
        call_stack: Caller positions of a call-site location, innermost first.
    """

    severity: Severity
    message: str
    location: SourceLoc | None = None
    location_text: str = ""
    notes: tuple[Diagnostic, ...] = ()
    call_stack: tuple[SourceLoc, ...] = ()

    @classmethod
    def at(
        cls,
        severity: Severity,
        where: Locatable | None,
        message: str,
        *,
        notes: Iterable[Note] = (),
    ) -> Diagnostic:
        """Builds a diagnostic pointing at an IR object.

        Args:
            severity: The severity.
            where: Location, operation or value the diagnostic is about; None
                for a diagnostic without location.
            message: The message.
            notes: ``(where, message)`` pairs attached as notes.

        Returns:
            The diagnostic with its location resolved.
        """
        note_diagnostics = tuple(
            cls.at(Severity.NOTE, note_where, note_message) for note_where, note_message in notes
        )
        if where is None:
            return cls(severity, message, notes=note_diagnostics)
        location = _location_of(where)
        return cls(
            severity,
            message,
            location=resolve_location(location),
            location_text=_location_text(location),
            notes=note_diagnostics,
            call_stack=_call_stack(location),
        )

    @classmethod
    def from_mlir(cls, diagnostic: ir.Diagnostic | ir.DiagnosticInfo) -> Diagnostic:
        """Converts an MLIR diagnostic (as given to a handler or in ``MLIRError``)."""
        location = diagnostic.location
        return cls(
            Severity.from_mlir(diagnostic.severity),
            diagnostic.message,
            location=resolve_location(location),
            location_text=_location_text(location),
            notes=tuple(cls.from_mlir(note) for note in diagnostic.notes),
            call_stack=_call_stack(location),
        )

    @property
    def is_error(self) -> bool:
        """Whether this diagnostic is an error."""
        return self.severity is Severity.ERROR

    def without_current_operation_notes(self) -> Diagnostic:
        """Drops MLIR's "see current operation" notes, as mlir-opt does when verifying."""
        kept = tuple(
            note for note in self.notes if not note.message.startswith(_CURRENT_OPERATION_NOTE)
        )
        return dataclasses.replace(self, notes=kept)

    def with_filename(self, old: str, new: str) -> Diagnostic:
        """Returns a copy whose positions in file ``old`` now name file ``new``."""

        def rename(loc: SourceLoc) -> SourceLoc:
            return dataclasses.replace(loc, filename=new) if loc.filename == old else loc

        return dataclasses.replace(
            self,
            location=None if self.location is None else rename(self.location),
            notes=tuple(note.with_filename(old, new) for note in self.notes),
            call_stack=tuple(rename(loc) for loc in self.call_stack),
        )

    def __str__(self) -> str:
        return format_diagnostic(self)


class DiagnosticError(Exception):
    """Raised inside a pass to report one located error and fail the pass.

    The pass runner catches it, records its diagnostic and signals the pass
    failure; any other exception escaping a pass is a bug and propagates.
    """

    def __init__(self, where: Locatable | None, message: str, *, notes: Iterable[Note] = ()):
        self.diagnostic = Diagnostic.at(Severity.ERROR, where, message, notes=notes)
        super().__init__(str(self.diagnostic))


class DiagnosticSink(Protocol):
    """Receives diagnostics reported by passes."""

    def report(self, diagnostic: Diagnostic) -> None:
        """Records one diagnostic."""


class DiagnosticCollector:
    """Collects diagnostics, ours and MLIR's, in the order they were emitted.

    Example:
        >>> collector = DiagnosticCollector()
        >>> with collector.attached(module.context):
        ...     pass_manager.run(module.operation)
        >>> errors = [d for d in collector.diagnostics if d.is_error]
    """

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self._renames: dict[str, str] = {}

    def report(self, diagnostic: Diagnostic) -> None:
        """Records one diagnostic."""
        for old, new in self._renames.items():
            diagnostic = diagnostic.with_filename(old, new)
        self.diagnostics.append(diagnostic)

    @property
    def error_count(self) -> int:
        """Number of error diagnostics recorded so far."""
        return sum(1 for diagnostic in self.diagnostics if diagnostic.is_error)

    @property
    def has_errors(self) -> bool:
        """Whether any error was recorded."""
        return any(diagnostic.is_error for diagnostic in self.diagnostics)

    @contextlib.contextmanager
    def attached(self, context: ir.Context) -> Iterator[DiagnosticCollector]:
        """Routes every diagnostic of ``context`` (errors included) here while active.

        Errors normally travel inside ``MLIRError`` exceptions; while attached
        they reach this collector instead, interleaved with warnings, remarks
        and the diagnostics of our Python passes. ``MLIRError`` is still raised
        on failure, without diagnostics.
        """
        previous = context.emit_error_diagnostics
        context.emit_error_diagnostics = True
        handler = context.attach_diagnostic_handler(self._handle)
        try:
            yield self
        finally:
            handler.detach()
            context.emit_error_diagnostics = previous

    @contextlib.contextmanager
    def renaming_file(self, old: str, new: str) -> Iterator[None]:
        """Reports positions in file ``old`` as positions in ``new`` while active."""
        self._renames[old] = new
        try:
            yield
        finally:
            del self._renames[old]

    def _handle(self, diagnostic: ir.Diagnostic) -> bool:
        self.report(Diagnostic.from_mlir(diagnostic))
        return True


def format_diagnostic(
    diagnostic: Diagnostic, sources: Mapping[str, Sequence[str]] | None = None
) -> str:
    """Renders a diagnostic the way mlir-opt prints it.

    Args:
        diagnostic: The diagnostic, with its notes.
        sources: Source lines by file name; when the file of a position is
            known, the source line and a caret are printed under it.

    Returns:
        The text, one ``file:line:col: severity: message`` header per
        diagnostic, note and caller (``<unknown>:0: ...`` without file
        position), newline-terminated.
    """
    sources = sources or {}
    parts = [
        _render(
            diagnostic.location,
            diagnostic.location_text,
            diagnostic.severity,
            diagnostic.message,
            sources,
            show_source=True,
        )
    ]
    for caller in diagnostic.call_stack:
        parts.append(_render(caller, "", Severity.NOTE, "called from", sources, show_source=True))
    previous = diagnostic.location
    for note in diagnostic.notes:
        parts.append(
            _render(
                note.location,
                note.location_text,
                note.severity,
                note.message,
                sources,
                show_source=note.location != previous,
            )
        )
        previous = note.location
    return "".join(parts)


def _render(
    location: SourceLoc | None,
    location_text: str,
    severity: Severity,
    message: str,
    sources: Mapping[str, Sequence[str]],
    *,
    show_source: bool,
) -> str:
    if location is None:
        qualifier = f"{location_text}: " if location_text else ""
        return f"<unknown>:0: {severity.value}: {qualifier}{message}\n"
    text = f"{location}: {severity.value}: {message}\n"
    lines = sources.get(location.filename)
    if (
        not show_source
        or lines is None
        or not 1 <= location.line <= len(lines)
        or location.column < 1
    ):
        return text
    line = lines[location.line - 1].rstrip("\r\n")
    caret = "".join("\t" if char == "\t" else " " for char in line[: location.column - 1])
    return f"{text}{line}\n{caret}^\n"


def _location_of(where: Locatable) -> ir.Location:
    if isinstance(where, ir.Location):
        return where
    if isinstance(where, ir.OpView):
        return where.operation.location
    return where.location


def _location_text(location: ir.Location) -> str:
    if resolve_location(location) is not None or _is_unknown(location):
        return ""
    return str(location)


def _is_unknown(location: ir.Location) -> bool:
    return str(location) == "loc(unknown)"


def _call_stack(location: ir.Location) -> tuple[SourceLoc, ...]:
    stack: list[SourceLoc] = []
    current = _innermost_callsite(location)
    while current is not None and len(stack) < _CALL_STACK_LIMIT:
        caller = current.caller
        resolved = resolve_location(caller)
        if resolved is not None:
            stack.append(resolved)
        current = _innermost_callsite(caller)
    return tuple(stack)


def _innermost_callsite(location: ir.Location) -> ir.Location | None:
    if location.is_a_callsite():
        return location
    if location.is_a_name():
        return _innermost_callsite(location.child_loc)
    if location.is_a_fused():
        for child in location.locations:
            found = _innermost_callsite(child)
            if found is not None:
                return found
    return None
