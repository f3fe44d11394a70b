"""The ``symshape-infer-shapes`` pass: symbolic shape inference, written as annotations."""

from __future__ import annotations

import logging
from typing import Literal

from mlir import ir

from symshape_mlir.inference import InferenceOptions, annotate
from symshape_mlir.pipeline import ModulePass, inferred, option

__all__ = ["InferShapes"]

logger = logging.getLogger(__name__)


class InferShapes(ModulePass):
    """Infers the extents of every tensor value and annotates the IR.

    Function arguments are seeded from ``symshape.axes``; each op's rule
    (:mod:`symshape_mlir.inference.rules`) derives its results' extents with
    their guarantee. Every op with a tensor result gets ``symshape.shape``;
    scalar and shape-tensor results whose value is known get
    ``symshape.value``; a function whose annotations mention data-dependent
    sizes with a value range gets ``symshape.ranges`` (``{_d0 =
    #symshape.shape<[min(1, batch), max(1, batch)]>}``).

    Before::

        func.func @f(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                     %n: tensor<i64>) -> tensor<?x4xf32> {
          %t = symshape.dynamic_truncate %x, %n axis 0
              : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
          return %t : tensor<?x4xf32>
        }

    After (``truncate-stage=upper_bound``, the default)::

          %t = symshape.dynamic_truncate %x, %n axis 0
              {symshape.shape = #symshape.shape<[ub(batch), 4]>} : ...

    The facts stay with the pipeline for the passes that follow; the
    annotations are output (never read back as trusted facts).

    Options:
        policy: what happens to existing ``symshape.shape`` annotations
            (``skip`` keeps them as written, ``override`` replaces them,
            ``refine`` keeps an exact one more specific than inference's —
            ``batch`` where a fresh ``_d0`` was inferred — as an equation
            checked at run time, replaces the others and rejects
            contradictions, ``strict`` rejects any that inference does not
            establish).
        truncate-stage: what a ``dynamic_truncate`` without ``stage`` reports.
    """

    name = "symshape-infer-shapes"
    summary = "Infer symbolic extents of every value and annotate them (symshape.shape)"

    policy: Literal["skip", "override", "refine", "strict"] = option(
        "refine", help="existing annotations: skip, override, refine or strict"
    )
    truncate_stage: Literal["upper_bound", "exact"] = option(
        "upper_bound", help="extent of a dynamic_truncate without a stage: upper_bound or exact"
    )

    preserves_analyses = True

    def run(self, module: ir.Operation) -> None:
        options = InferenceOptions(policy=self.policy, truncate_stage=self.truncate_stage)
        state = inferred(module, options)
        annotate(module, state)
