"""The run-time side: calls compiled fuzz functions in a child process (see `soundness_child`).

`setup` loads one compiled module (``llvm-cpu``) on ``local-sync``; `handle`
calls one exported function and returns its results, or the runtime's error as
text. A signal kills the child, which `soundness_child.run_items` reports as ``Died``.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

__all__ = ["handle", "setup"]

logger = logging.getLogger(__name__)

DRIVER = "local-sync"


def setup(compiled: Any) -> Any:
    """Loads the compiled module (a `symshape_mlir.backend.CompiledModule`)."""
    from symshape_mlir import backend

    return backend.load(compiled, DRIVER)


def handle(module: Any, job: tuple[str, list[np.ndarray]]) -> tuple[str, Any]:
    """Calls ``job = (function, inputs)``: ``("ok", [arrays])`` or ``("error", message)``."""
    fname, inputs = job
    try:
        result = module.function(fname)(*inputs)
    except Exception as exc:
        return "error", f"{type(exc).__name__}: {exc}"
    results = list(result) if isinstance(result, tuple) else [result]
    return "ok", [np.asarray(r) for r in results]
