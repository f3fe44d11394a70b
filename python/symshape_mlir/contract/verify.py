"""``symshape-verify-contract``: an upper bound is never used where a true size is needed.

In ``reject`` mode every violated requirement of
:mod:`symshape_mlir.contract.consumers` is an error (an
:class:`UnsupportedDynamicShapeError` for an extent, a :class:`ContractError`
for an unprovable element count). In ``defer`` mode a violated requirement
becomes a runtime check inserted before the consumer:

.. code-block:: mlir

    %n = tensor.dim %t, %c0 : tensor<?x4xf32>   // %t: first ub(batch) rows
    ...
    cf.assert %same, "symshape: deferred contract check failed: reshape target of
        symshape.reshape at f.mlir:7:8"
    %r = symshape.reshape %t to [dim(0, 0) * 4] : ...

A requirement that no runtime check can establish (the extent of an axis a
``linalg.broadcast`` adds) is rejected in both modes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from mlir import ir

from symshape_mlir.contract.consumers import Requirement, requirements
from symshape_mlir.contract.errors import UnsupportedDynamicShapeError
from symshape_mlir.inference import InferenceOptions, infer
from symshape_mlir.inference.facts import Origin
from symshape_mlir.inference.state import InferenceState
from symshape_mlir.lowering.exprs import AxisBindings
from symshape_mlir.lowering.index_builder import IndexBuilder
from symshape_mlir.walk import collect_ops, functions

__all__ = ["MODES", "ContractError", "Violation", "verify_contract"]

logger = logging.getLogger(__name__)

MODES = ("reject", "defer")


@dataclass
class ContractError(Exception):
    """A requirement that is a proof rather than one exact extent (a reshape's
    element count, a broadcast's compatibility)."""

    location: ir.Location
    message: str
    origin: Origin | None = None

    def __post_init__(self) -> None:
        super().__init__(self.message)

    @property
    def notes(self) -> list[tuple[ir.Location, str]]:
        if self.origin is None:
            return []
        return [(self.origin.location,
                 f"an extent involved is weakened by '{self.origin.op_name}' here")]


Violation = UnsupportedDynamicShapeError | ContractError


def _error(req: Requirement) -> Violation:
    if req.observed is None:
        return ContractError(req.op.location, req.detail, req.origin)
    detail = "no runtime check can establish it" if req.emit_check is None else ""
    return UnsupportedDynamicShapeError(req.op.name, req.op.location, req.field, req.observed,
                                        req.origin, detail)


def verify_contract(
    module: ir.Operation, mode: str = "reject", state: InferenceState | None = None
) -> list[Violation]:
    """Checks every consumer of ``module``; in ``defer`` mode inserts runtime checks.

    Returns:
        The violations that were not deferred, in program order.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode '{mode}' (expected one of: {', '.join(MODES)})")
    state = state or infer(module, InferenceOptions())
    errors: list[Violation] = []
    with module.context:
        for func in functions(module):
            axes = AxisBindings(func)
            for op in collect_ops(func):
                emitted: set[int] = set()
                for req in list(requirements(op, state, axes)):
                    if req.satisfied:
                        continue
                    if mode == "defer" and req.emit_check is not None:
                        if id(req.emit_check) not in emitted:
                            emitted.add(id(req.emit_check))
                            with ir.InsertionPoint(op), op.location:
                                req.emit_check(IndexBuilder())
                        continue
                    errors.append(_error(req))
    return errors
