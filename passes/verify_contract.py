"""The ``symshape-verify-contract`` pass."""

from __future__ import annotations

import logging
from typing import Literal

from mlir import ir

from symshape_mlir.contract import verify_contract
from symshape_mlir.lowering.checks import emit_checks
from symshape_mlir.pipeline import ModulePass, inference, option

__all__ = ["VerifyContract"]

logger = logging.getLogger(__name__)


class VerifyContract(ModulePass):
    """Rejects (or defers to run time) every use of an upper bound as a true size.

    Judges what inference recorded that each op requires: true sizes for
    reshape, broadcast and gather targets, ``tensor.reshape`` shapes and
    ``expand_shape`` sizes; equal extents wherever two must agree (one
    ``linalg`` loop, elementwise operands, a slice and its source, call
    arguments sharing a callee axis, a static ``tensor.cast``); slices within
    their source; non-negative sizes. ``mode=reject`` reports each use of an
    upper bound or unknown extent with a note at the op that weakened it;
    ``mode=defer`` inserts a ``cf.assert`` before the op instead. Equations
    between exact extents that cannot be proven get a remark and a run-time
    check from ``symshape-resolve`` (``unproven=reject`` rejects them).

    Before::

        %t = symshape.dynamic_truncate %x, %n axis 0
            : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
        %r = symshape.reshape %t to [dim(0, 0) * 4]
            : (tensor<?x4xf32>) -> tensor<?xf32>

    After (``mode=reject``)::

        error: 'symshape.reshape' op reshape target extent 0 needs an exact
            extent, got upper bound '4 * batch'
        note: the upper bound comes from 'symshape.dynamic_truncate' here

    After (``mode=defer``)::

        cf.assert %same, "symshape: deferred contract check failed: reshape
            target of symshape.reshape at f.mlir:3:8"
        %r = symshape.reshape %t to [dim(0, 0) * 4] : ...
    """

    name = "symshape-verify-contract"
    summary = "Reject (or defer to runtime checks) upper bounds used where exact extents are needed"

    mode: Literal["reject", "defer"] = option(
        "reject", help="reject violations, or defer them to runtime checks"
    )
    unproven: Literal["check", "reject"] = option(
        "check", help="equations between exact extents the provers cannot decide: "
                      "check them at run time (with a remark), or reject them"
    )
    preserves_analyses = True

    def run(self, module: ir.Operation) -> None:
        report = verify_contract(module, inference(module), self.mode, self.unproven)
        logger.debug("%d of %d requirements hold without a run-time check", report.static,
                     report.requirements)
        with module.context:
            emit_checks(report.deferred)
        for location, message in report.remarks:
            self.remark(location, message)
        for violation in report.errors:
            self.error(violation.location, violation.message, notes=violation.notes)
