"""The ``symshape-verify-contract`` pass."""

from __future__ import annotations

import logging
from typing import Literal

from mlir import ir

from symshape_mlir.contract import verify_contract
from symshape_mlir.inference import InferenceError
from symshape_mlir.pipeline import ModulePass, option

__all__ = ["VerifyContract"]

logger = logging.getLogger(__name__)


class VerifyContract(ModulePass):
    """Rejects (or defers to run time) every use of an upper bound as a true size.

    Consumers that need exact extents — reshape and broadcast targets, gather
    slice sizes, ``tensor.reshape`` shapes, ``tensor.expand_shape`` sizes,
    linalg inits tied to inputs — must get exact ones, and a reshape must
    provably keep its element count. ``mode=reject`` reports each violation
    with a note at the op that weakened the extent; ``mode=defer`` inserts a
    ``cf.assert`` before the consumer instead.

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

    def run(self, module: ir.Operation) -> None:
        try:
            errors = verify_contract(module, self.mode)
        except InferenceError as error:
            self.error(error.location, error.message, notes=error.notes)
            return
        for violation in errors:
            self.error(violation.location, violation.message, notes=violation.notes)
