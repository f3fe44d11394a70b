"""The base of every error located at an op: what the pass runner reports.

Inference, contract and lowering raise subclasses of :class:`LocatedError`
(:class:`~symshape_mlir.inference.InferenceError`,
:class:`~symshape_mlir.lowering.LoweringError`); the pass runner turns one
escaping a pass into an MLIR-style diagnostic at its location, with its
notes. Any other exception escaping a pass is a bug and propagates with its
traceback.

Example:
    >>> raise LocatedError(op.location, "needs an exact extent", [(other, "defined here")])
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

__all__ = ["LocatedError"]


class LocatedError(Exception):
    """A message at an IR location, with optional notes.

    Attributes:
        location: where the problem is.
        message: the text, without the location.
        notes: ``(location, message)`` pairs.
    """

    def __init__(
        self,
        location: ir.Location,
        message: str,
        notes: Sequence[tuple[ir.Location, str]] = (),
    ) -> None:
        super().__init__(message)
        self.location = location
        self.message = message
        self.notes = tuple(notes)
