"""Exceptions raised when a pass pipeline is invalid or fails."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from symshape_mlir.pipeline.diagnostics import Diagnostic, Severity, format_diagnostic

__all__ = ["InvalidPipelineError", "PipelineError"]

logger = logging.getLogger(__name__)


class PipelineError(Exception):
    """A pass pipeline failed; ``diagnostics`` holds everything it reported.

    Attributes:
        diagnostics: Every diagnostic emitted during the run (errors, and the
            warnings, remarks and notes around them), in emission order.
    """

    def __init__(self, diagnostics: Sequence[Diagnostic]):
        self.diagnostics = tuple(diagnostics)
        super().__init__("".join(format_diagnostic(d) for d in self.diagnostics).rstrip("\n"))

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        """The error diagnostics only."""
        return tuple(d for d in self.diagnostics if d.is_error)


class InvalidPipelineError(PipelineError, ValueError):
    """The pipeline text, a pass name or a pass option is invalid; nothing ran."""

    def __init__(self, message: str):
        self.message = message
        super().__init__([Diagnostic(Severity.ERROR, message)])

    def __str__(self) -> str:
        return self.message
