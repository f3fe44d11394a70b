"""The inference analysis, computed once per pipeline run and shared by passes.

It is a cache, not a channel: passes pass on what they decide through the
IR. ``symshape-infer-shapes`` computes the facts (with its options) and
annotates; ``symshape-verify-contract{mode=defer}`` emits a check and names
the requirement in its op's ``symshape.checked``; ``symshape-resolve`` emits
the checks of the other unproven requirements and lowers. A pass that
changes what inference would derive declares it (``preserves_analyses =
False``, the default); the runner then drops the analysis, as it does after
any upstream pass, and the next pass that needs it infers again.

Example:
    >>> state = inference(module)      # inside a pass: cached, or inferred now
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from mlir import ir

from symshape_mlir.inference import InferenceOptions, InferenceState, infer

__all__ = ["AnalysisCache", "inference", "inferred", "sharing"]


class AnalysisCache:
    """The analyses of one module while a pipeline runs on it.

    A caller that inferred the module already (the runtime, which captures
    sizes from the same facts) hands its cache to
    :func:`~symshape_mlir.pipeline.run_pipeline`, and a first
    ``symshape-infer-shapes`` with the same options reuses them.
    """

    def __init__(self) -> None:
        self.state: InferenceState | None = None
        self.module: ir.Operation | None = None
        self.options: InferenceOptions | None = None

    def invalidate(self) -> None:
        """Forgets everything (the IR changed)."""
        self.state = self.module = self.options = None

    def infer(self, module: ir.Operation, options: InferenceOptions | None = None
              ) -> InferenceState:
        """The facts of ``module`` under ``options`` (the defaults when not
        given): the cached ones when they are for the same module and
        options, else inferred now and cached.

        Raises:
            InferenceError: when inferring fails.
        """
        options = options or InferenceOptions()
        if self.state is None or self.module != module or self.options != options:
            self.state, self.module, self.options = infer(module, options), module, options
        return self.state


_current: contextvars.ContextVar[AnalysisCache | None] = contextvars.ContextVar(
    "symshape_analysis_cache", default=None)


@contextlib.contextmanager
def sharing(cache: AnalysisCache) -> Iterator[None]:
    """Passes run inside this block share ``cache``."""
    token = _current.set(cache)
    try:
        yield
    finally:
        _current.reset(token)


def inference(module: ir.Operation) -> InferenceState:
    """The facts of ``module``: the pipeline's cached ones (whatever options
    ``symshape-infer-shapes`` used), else inferred now with default options
    and cached.

    Raises:
        InferenceError: when inferring fails.
    """
    cache = _current.get()
    if cache is not None and cache.state is not None and cache.module == module:
        return cache.state
    return inferred(module, InferenceOptions())


def inferred(module: ir.Operation, options: InferenceOptions) -> InferenceState:
    """The facts of ``module`` under ``options``: the pipeline's cached ones
    when they were inferred with the same options, else inferred now (and
    cached when a pipeline runs).

    Raises:
        InferenceError: when inferring fails.
    """
    cache = _current.get()
    return infer(module, options) if cache is None else cache.infer(module, options)
