"""The ``symshape-check-guarantees`` pass."""

from __future__ import annotations

import logging

from mlir import ir

from symshape_mlir.contract import check_guarantees
from symshape_mlir.pipeline import ModulePass

__all__ = ["CheckGuarantees"]

logger = logging.getLogger(__name__)


class CheckGuarantees(ModulePass):
    """Fails if a pass upgraded a guarantee recorded by ``symshape-infer-shapes``.

    Re-infers the module while ignoring its ``symshape.shape`` annotations and
    compares each annotated extent with the new one: an upper bound that
    became exact, an unknown extent that became known, or an exact extent
    whose value changed is an error. Extents that became weaker are fine (a
    pass may become conservative).

    Before (a pass made a truncated axis static)::

        %t = symshape.dynamic_truncate %x, %n axis 0
            {symshape.shape = #symshape.shape<[ub(batch), 4]>}
            : (tensor<?x4xf32>, tensor<i64>) -> tensor<8x4xf32>

    After::

        error: 'symshape.dynamic_truncate' result #0 dimension 0: the guarantee
            was upgraded from 'ub(batch)' to '8'
    """

    name = "symshape-check-guarantees"
    summary = "Fail if any pass upgraded a guarantee (upper bound or unknown became exact)"

    preserves_analyses = True

    def run(self, module: ir.Operation) -> None:
        problems = check_guarantees(module)
        for location, message in problems:
            self.error(location, message)
