"""The symshape passes and their registry (packaged as ``symshape_mlir.passes``).

:func:`run_pipeline` runs a textual pipeline with every symshape pass
available (the pipeline layer below knows no pass by name)::

    run_pipeline(module, "builtin.module(symshape-infer-shapes,canonicalize)")

To add a pass: write ``passes/<snake_name>.py`` holding one
:class:`~symshape_mlir.pipeline.ModulePass` subclass, add it to the
tuple that fills :data:`PASSES` (keyed by its ``name``), and add ``test/lit/<snake_name>.mlir``
(``test/py/test_pass_registry.py`` checks all three).
"""

from __future__ import annotations

import logging

from mlir import ir

from symshape_mlir.passes.check_guarantees import CheckGuarantees
from symshape_mlir.passes.infer_shapes import InferShapes
from symshape_mlir.passes.relayout_convolutions import RelayoutConvolutions
from symshape_mlir.passes.resolve import Resolve
from symshape_mlir.passes.specialize import Specialize
from symshape_mlir.passes.strip_annotations import StripAnnotations
from symshape_mlir.passes.to_iree import ToIree
from symshape_mlir.passes.verify_contract import VerifyContract
from symshape_mlir.pipeline import AnalysisCache, Diagnostic, ModulePass
from symshape_mlir.pipeline import run_pipeline as _run_pipeline
from symshape_mlir.registry import add_unique

__all__ = ["PASSES", "run_pipeline"]

logger = logging.getLogger(__name__)

PASSES: dict[str, type[ModulePass]] = {}
for _pass in (CheckGuarantees, InferShapes, RelayoutConvolutions, Resolve, Specialize,
              StripAnnotations, ToIree, VerifyContract):
    add_unique(PASSES, _pass.name, _pass, "pass")
"""Every symshape pass and pipeline alias, by pass name."""


def run_pipeline(
    module: ir.Module | ir.Operation | ir.OpView, pipeline: str,
    analyses: AnalysisCache | None = None,
) -> tuple[Diagnostic, ...]:
    """:func:`symshape_mlir.pipeline.run_pipeline` with :data:`PASSES` registered
    (``analyses``: the caller's inference of ``module``, which the first
    passes reuse).

    Raises:
        InvalidPipelineError: The pipeline is invalid; nothing ran.
        PipelineError: A pass failed or the IR did not verify.
    """
    return _run_pipeline(module, pipeline, passes=PASSES, analyses=analyses)
