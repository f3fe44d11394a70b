"""Compiling many traced functions with few ``iree-compile`` runs, safely.

``symshape-resolve`` lowers the functions of a module one after the other
and, for each, hashes the ops of every unproven obligation in the module. An
op that an earlier function's lowering erased (a ``symshape.gather`` or
``symshape.broadcast_in_dim`` whose run-time check is still owed) is then
touched after being freed, which fails at random. Until that is fixed in the
lowering, each module here holds at most one function with such an
obligation, placed last.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from symshape_mlir import runtime
from symshape_mlir.frontend.tracing import TracedFunction, module_text, trace, trace_module
from symshape_mlir.inference import infer
from symshape_mlir.inference.obligations import Status


def _owes_erased_check(function: TracedFunction) -> bool:
    """Whether an unproven obligation of ``function`` sits on a symshape op."""
    state = infer(trace_module([function]).operation)
    return any(
        ob.status is not Status.PROVEN and ob.op.name.startswith("symshape.")
        for ob in state.obligations
    )


def compile_functions(
    functions: Sequence[TracedFunction], cache_dir: Path
) -> dict[str, runtime.EntryPoint]:
    """Compiles ``functions`` for llvm-cpu in as few modules as is safe; entries by name."""
    plain = [f for f in functions if not _owes_erased_check(f)]
    owing = [f for f in functions if f not in plain]
    groups = [[*plain, owing[0]]] if owing else [plain]
    groups += [[f] for f in owing[1:]]
    entries: dict[str, runtime.EntryPoint] = {}
    for group in groups:
        unplanned = [f.name for f in group if not f.planned]
        while True:
            try:
                exe = runtime.compile(
                    module_text(group),
                    "llvm-cpu",
                    cache_dir=cache_dir,
                    hot_after=None,
                    unplanned=unplanned,
                )
                break
            except runtime.UnplannableSizeError as err:
                # A size only the call computes (a boolean mask's count), as @jit does.
                assert err.function not in unplanned, err
                unplanned.append(err.function)
        entries.update({f.name: getattr(exe, f.name) for f in group})
    return entries


def as_results(value: Any) -> tuple[np.ndarray, ...]:
    """A traced function's (or numpy reference's) results as a tuple."""
    return tuple(value) if isinstance(value, tuple | list) else (value,)


def trace_cases(cases: Sequence[Any]) -> dict[str, TracedFunction]:
    """Each case (``name``, ``fn``, ``specs``) traced, by name."""
    return {case.name: trace(case.fn, *case.specs, name=case.name) for case in cases}
