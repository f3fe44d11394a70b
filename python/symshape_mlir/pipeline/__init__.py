"""Pass infrastructure: the pass base class, diagnostics, pipeline parsing and running.

It knows no pass by name: the caller hands it a registry
(``symshape_mlir.passes.PASSES``; ``symshape_mlir.passes.run_pipeline``
binds it).

Public API:
    :class:`ModulePass` and :func:`option` to write a pass; :class:`Diagnostic`,
    :class:`DiagnosticError` and :class:`DiagnosticCollector` for diagnostics;
    :func:`run_pipeline` to run a textual pipeline mixing symshape and upstream
    passes on a module, raising :class:`PipelineError` (or
    :class:`InvalidPipelineError` before running) with the diagnostics;
    :func:`inference`/:func:`inferred` for the inference the passes of one
    run share (an :class:`AnalysisCache`, which a caller may hand in).
"""

from __future__ import annotations

import logging

from symshape_mlir.pipeline.analysis import AnalysisCache, inference, inferred
from symshape_mlir.pipeline.diagnostics import (
    Diagnostic,
    DiagnosticCollector,
    DiagnosticError,
    Severity,
    SourceLoc,
    format_diagnostic,
)
from symshape_mlir.pipeline.errors import InvalidPipelineError, PipelineError
from symshape_mlir.pipeline.options import OptionSpec, option
from symshape_mlir.pipeline.pass_base import ModulePass
from symshape_mlir.pipeline.runner import PassPipeline, PassRegistry, run_pipeline

__all__ = [
    "AnalysisCache",
    "Diagnostic",
    "DiagnosticCollector",
    "DiagnosticError",
    "InvalidPipelineError",
    "ModulePass",
    "OptionSpec",
    "PassPipeline",
    "PassRegistry",
    "PipelineError",
    "Severity",
    "SourceLoc",
    "format_diagnostic",
    "inference",
    "inferred",
    "option",
    "run_pipeline",
]

logger = logging.getLogger(__name__)
