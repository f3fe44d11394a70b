"""Exceptions raised by the IREE backend."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from symshape_mlir.backend.diagnostics import Diagnostic

__all__ = [
    "BackendError",
    "CompileError",
    "DriverUnavailableError",
    "RuntimeCallError",
    "SignatureError",
]

logger = logging.getLogger(__name__)


class BackendError(Exception):
    """Base class of the backend's errors."""


class CompileError(BackendError):
    """``iree-compile`` rejected a module.

    Attributes:
        target: The backend target compiled for (``"llvm-cpu"``, ...).
        phase: The IREE compilation phase that failed (a ``--compile-to``
            phase name such as ``"flow"`` or ``"executable-configurations"``),
            ``"parse"`` when the input did not parse or verify,
            ``"command-line"`` when a flag was rejected, or None when unknown.
        diagnostics: The compiler's diagnostics, notes attached.
        stderr: The compiler's raw stderr.
        returncode: The compiler's exit status, or None when it timed out.
        command: The command line that ran (the module is read from stdin).
    """

    def __init__(
        self,
        *,
        target: str,
        phase: str | None,
        diagnostics: Sequence[Diagnostic],
        stderr: str,
        returncode: int | None,
        command: Sequence[str],
    ) -> None:
        """Initializes the error; see the class attributes."""
        self.target = target
        self.phase = phase
        self.diagnostics = tuple(diagnostics)
        self.stderr = stderr
        self.returncode = returncode
        self.command = tuple(command)
        super().__init__(self._summary())

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        """The diagnostics of severity ``error``."""
        return tuple(d for d in self.diagnostics if d.severity == "error")

    def _summary(self) -> str:
        where = f" in phase '{self.phase}'" if self.phase is not None else ""
        head = f"iree-compile failed for target '{self.target}'{where}"
        lines = [str(d) for d in self.errors]
        if not lines:
            tail = self.stderr.strip().splitlines()[-5:]
            lines = tail or [f"exit status {self.returncode}, no output"]
        return head + ":\n" + "\n".join(lines)


class RuntimeCallError(BackendError):
    """A call into a loaded module failed at run time.

    Raised for failed ``util.assert``/``cf.assert`` checks, device errors and
    anything else the IREE runtime reports for an invocation. The process and
    the loaded module stay usable.

    Attributes:
        function: The called function's name.
        driver: The runtime driver (``"local-task"``, ``"vulkan"``, ...).
        status: IREE's status code name (``"FAILED_PRECONDITION"``, ...), or
            None when the runtime's text carries none.
        message: IREE's message without the status prefix and call stack
            (for an assertion: the assertion's message).
        detail: The runtime's full error text.
    """

    def __init__(
        self,
        *,
        function: str,
        driver: str,
        status: str | None,
        message: str,
        detail: str,
    ) -> None:
        """Initializes the error; see the class attributes."""
        self.function = function
        self.driver = driver
        self.status = status
        self.message = message
        self.detail = detail
        code = f"{status}: " if status is not None else ""
        super().__init__(f"call to @{function} on '{driver}' failed: {code}{message}")


class DriverUnavailableError(BackendError):
    """A runtime driver or its device cannot be used in this process."""


class SignatureError(BackendError, ValueError):
    """Arguments or expected output shapes do not fit a function's signature."""
