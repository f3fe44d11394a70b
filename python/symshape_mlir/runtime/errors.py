"""Errors of the runtime: sizes that cannot be planned, and plans that fail.

Argument errors reuse the backend's and the binding extraction's classes:
`SignatureError` (wrong count, rank, dtype, static extent, out-of-range
scalar) and `AxisBindingError` (one named axis with two sizes); a call that
fails a run-time check inside the module is the backend's
`RuntimeCallError`::

    >>> exe.add(np.zeros((5, 4), np.float32), np.zeros((3, 4), np.float32))  # both [batch, 4]
    AxisBindingError: axis 'batch': input 1 has 3, input 0 has 5
"""

from __future__ import annotations

import logging

from symshape_mlir.backend.errors import BackendError, RuntimeCallError, SignatureError
from symshape_mlir.shapes.errors import AxisBindingError

__all__ = [
    "AxisBindingError", "PlanError", "RuntimeCallError", "SignatureError", "UnplannableSizeError",
]

logger = logging.getLogger(__name__)


class UnplannableSizeError(BackendError):
    """A size that the host cannot compute before the call (compile time).

    Raised by `symshape_mlir.runtime.compile` when a result extent depends on
    a value computed inside the function (a fresh symbol that is neither an
    argument axis nor an argument scalar), or is only an upper bound or
    unknown; or when an intermediate buffer's extent depends on such a value
    or is unknown (an upper bound is enough for a buffer). Opt a function
    out of planning with ``unplanned=`` to run it anyway (its result shapes
    are then read after the call)::

        model.mlir:7:8: @from_data result 0 axis 0: its size _d0 depends on '_d0', ...

    Attributes:
        function: The function's name.
        subject: The size, as the message names it (``result 0 axis 1``,
            ``the tensor.empty buffer, axis 0``).
        location: The source location of the op the size comes from, as MLIR
            prints it (``loc("model.mlir":12:8)``), or None when unknown.
    """

    def __init__(self, function: str, subject: str, reason: str, location: str | None) -> None:
        """Initializes the error; see the class attributes."""
        self.function = function
        self.subject = subject
        self.location = location
        where = f"{location}: " if location else ""
        super().__init__(
            f"{where}@{function} {subject}: {reason}; the size cannot be computed on the "
            "host before the call (pass unplanned=... to opt out of planning)"
        )


class PlanError(BackendError, ValueError):
    """A planned result size that is negative or outside the int64 range for these inputs.

    Attributes:
        function: The function's name.
        result: The result's position.
        location: Where the result is made (``file:line:column``), if known.
    """

    def __init__(self, function: str, result: int, message: str,
                 location: str | None = None) -> None:
        """Initializes the error; see the class attributes."""
        self.function = function
        self.result = result
        self.location = location
        made = f" (made at {location})" if location else ""
        super().__init__(f"@{function} result {result}{made}: {message}")
