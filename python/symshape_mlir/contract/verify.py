"""``symshape-verify-contract``: an upper bound is never used where a true size is needed.

Inference records what every op requires
(:mod:`symshape_mlir.inference.obligations`); this module judges those
obligations:

* proven ones need nothing;
* *unproven* ones — equations between exact extents the provers cannot
  decide — are checked at run time by ``symshape-resolve`` and reported as
  remarks, or rejected with ``unproven=reject`` (sizes not provably
  non-negative are checked without a remark);
* *violations* — an upper bound or an unknown extent where a true size is
  needed — are rejected in ``reject`` mode (an
  :class:`UnsupportedDynamicShapeError` naming the op, the field, what was
  seen and, in a note, the op that weakened it); in ``defer`` mode each is
  returned as *deferred*, and the pass has lowering emit its run-time check
  before its op (:func:`symshape_mlir.lowering.checks.emit_checks`):

.. code-block:: mlir

    %n = tensor.dim %t, %c0 : tensor<?x4xf32>   // %t: first ub(batch) rows
    ...
    cf.assert %same, "symshape: check failed: the element counts of source and
        result are equal (symshape.reshape at f.mlir:7:8)"
    %r = symshape.reshape %t to [dim(0, 0) * 4] : ...

A violation that no run-time check can establish (the extent of an axis a
``linalg.broadcast`` adds) is rejected in both modes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from mlir import ir

from symshape_mlir.contract.errors import UnsupportedDynamicShapeError, describe
from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.inference.facts import Origin
from symshape_mlir.inference.obligations import Kind, Obligation, Status
from symshape_mlir.inference.state import InferenceState

__all__ = ["MODES", "UNPROVEN", "ContractError", "ContractReport", "Violation",
           "verify_contract"]

logger = logging.getLogger(__name__)

MODES = ("reject", "defer")
UNPROVEN = ("check", "reject")


@dataclass
class ContractError(Exception):
    """A requirement between extents that does not hold statically (an
    equation, a bound), rather than one extent that is not exact."""

    location: ir.Location
    message: str
    origin: Origin | None = None
    #: The weakest extent involved (names the note).
    observed: ShapeExtent | None = None

    def __post_init__(self) -> None:
        super().__init__(self.message)

    @property
    def notes(self) -> list[tuple[ir.Location, str]]:
        if self.origin is None:
            return []
        what = "an extent involved is weakened"
        if self.observed is not None and not self.observed.is_exact:
            what = "the upper bound comes" if self.observed.is_upper_bound else \
                "the unknown extent comes"
        return [(self.origin.location, f"{what} from '{self.origin.op_name}' here")]


Violation = UnsupportedDynamicShapeError | ContractError


@dataclass
class ContractReport:
    """What :func:`verify_contract` found.

    Attributes:
        errors: violations that were not deferred, in program order.
        remarks: ``(location, message)`` for each equation left to a run-time check.
        deferred: in ``defer`` mode, the violations a run-time check establishes.
        requirements: how many requirements the ops made (see
            :attr:`InferenceState.requirements`).
        static: how many of them hold without a run-time check: proven, or
            holding by construction (a deferred violation whose check is
            empty).
    """

    errors: list[Violation] = field(default_factory=list)
    remarks: list[tuple[ir.Location, str]] = field(default_factory=list)
    deferred: list[Obligation] = field(default_factory=list)
    requirements: int = 0
    static: int = 0


def _seen(ob: Obligation) -> str:
    return " vs ".join(f"'{e}'" for e in ob.observed)


def _violation(ob: Obligation) -> Violation:
    op = ob.op
    if ob.kind is Kind.EXACT:
        detail = "no runtime check can establish it" if ob.condition is None else ""
        return UnsupportedDynamicShapeError(op.name, op.location, ob.field, ob.weakest,
                                            ob.origin, detail)
    seen = " and ".join(describe(e) for e in ob.observed)
    message = (f"'{op.name}' op cannot establish that {ob.field}: it needs exact extents, "
               f"got {seen}")
    if ob.condition is None:
        message += "; no runtime check can establish it"
    return ContractError(op.location, message, ob.origin, ob.weakest)


def verify_contract(
    module: ir.Operation, state: InferenceState, mode: str = "reject",
    unproven: str = "check",
) -> ContractReport:
    """Judges the obligations of ``state`` (inferred from ``module``); changes no IR.

    In ``defer`` mode, violations with a run-time form are returned in
    ``deferred`` rather than ``errors`` (``symshape-resolve`` emits the checks
    of unproven ones).
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode '{mode}' (expected one of: {', '.join(MODES)})")
    if unproven not in UNPROVEN:
        raise ValueError(f"unknown unproven '{unproven}' (expected one of: "
                         f"{', '.join(UNPROVEN)})")
    report = ContractReport(requirements=state.requirements)
    report.static = state.requirements - len(state.obligations)
    with module.context:
        for ob in state.obligations:
            if ob.status is Status.PROVEN or ob.checked_in_ir:
                continue
            if ob.status is Status.UNPROVEN:
                if ob.condition == ():
                    report.static += 1
                    continue
                text = f"'{ob.op.name}' op cannot prove that {ob.field} ({_seen(ob)})"
                if unproven == "reject" or ob.condition is None:
                    report.errors.append(ContractError(ob.op.location, text, ob.origin))
                elif ob.kind is not Kind.NONNEG:
                    report.remarks.append((ob.op.location, f"{text}: checked at run time"))
                continue
            if mode == "defer" and ob.condition is not None:
                report.deferred.append(ob)
                report.static += ob.condition == ()
                continue
            report.errors.append(_violation(ob))
    return report
