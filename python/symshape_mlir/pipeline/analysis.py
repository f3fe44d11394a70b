"""The inference analysis, computed once per pipeline run and shared by passes.

Passes talk to each other through this cache, never through the attributes
they print: ``symshape-infer-shapes`` computes the facts (with its options)
and annotates; ``symshape-verify-contract`` judges the same facts' obligations
and marks the ones it checks; ``symshape-resolve`` emits the rest and lowers.
A pass that changes what inference would derive declares it
(``preserves_analyses = False``, the default); the runner then drops the
analysis, as it does after any upstream pass.

Example:
    >>> state = inference(module)      # inside a pass: cached, or inferred now
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from mlir import ir

from symshape_mlir.inference import InferenceOptions, InferenceState, infer

__all__ = ["AnalysisCache", "inference", "sharing", "store_inference"]


class AnalysisCache:
    """The analyses of one module while a pipeline runs on it."""

    def __init__(self) -> None:
        self.state: InferenceState | None = None
        self.module: ir.Operation | None = None

    def invalidate(self) -> None:
        """Forgets everything (the IR changed)."""
        self.state = self.module = None


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
    """The facts of ``module``: the pipeline's cached ones, else inferred now
    (with default options) and cached.

    Raises:
        InferenceError: when inferring fails.
    """
    cache = _current.get()
    if cache is not None and cache.state is not None and cache.module == module:
        return cache.state
    state = infer(module, InferenceOptions())
    store_inference(module, state)
    return state


def store_inference(module: ir.Operation, state: InferenceState) -> None:
    """Makes ``state`` the cached facts of ``module`` (when a pipeline runs)."""
    cache = _current.get()
    if cache is not None:
        cache.state, cache.module = state, module
