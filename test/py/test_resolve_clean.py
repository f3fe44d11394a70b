"""symshape-resolve leaves no symshape op, type or attribute, for every lit input.

Every split chunk of every lit test (and every end-to-end program) that
parses and infers cleanly is resolved; the output must hold no symshape op,
type or attribute and must parse and verify in a context that knows only the
upstream dialects. The constructs resolution cannot lower (a symshape
attribute stored under a user's attribute name, an extent value returned
from a function, a named symbol no argument declares, an upper bound where a
true size is needed that no run-time check can establish) must be located
errors instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mlir import ir

import symshape_mlir
from symshape_mlir.passes import run_pipeline
from symshape_mlir.pipeline import PipelineError

LIT = Path(__file__).resolve().parents[1] / "lit"
E2E = Path(__file__).resolve().parents[1] / "e2e"


def _inferable(text: str) -> bool:
    """Whether a chunk parses and infers (the others test error messages)."""
    with symshape_mlir.new_context():
        try:
            run_pipeline(ir.Module.parse(text), "builtin.module(symshape-infer-shapes)")
        except (ir.MLIRError, PipelineError):
            return False
    return True


def _chunks() -> list[tuple[str, str]]:
    found = []
    for path in sorted([*LIT.rglob("*.mlir"), *E2E.glob("*.mlir")]):
        for index, chunk in enumerate(path.read_text().split("\n// -----\n")):
            if _inferable(chunk):
                found.append((f"{path.relative_to(LIT.parent)}#{index}", chunk))
    return found


CHUNKS = _chunks()
LOWERING_ERRORS = (
    "symshape-resolve cannot lower",
    "extent values cannot cross function or region boundaries",
    "is not bound by any function argument's 'symshape.axes'",
    "and no run-time check can establish it",
)
SYMSHAPE_IR = re.compile(
    r'[#!]symshape\b|^\s*(%\S+ = )?"?symshape\.|symshape\.(shape|value|axes) =', re.MULTILINE
)


def _plain_context() -> ir.Context:
    """A context with every upstream dialect loaded and no symshape."""
    context = ir.Context.__mro__[1]()  # the bindings' base class: no site hooks
    context.append_dialect_registry(_upstream_registry())
    context.load_all_available_dialects()
    return context


def _upstream_registry() -> ir.DialectRegistry:
    from mlir._mlir_libs import _mlirRegisterEverything

    registry = ir.DialectRegistry()
    _mlirRegisterEverything.register_dialects(registry)
    return registry


@pytest.mark.parametrize(("name", "text"), CHUNKS, ids=[name for name, _ in CHUNKS])
def test_resolved_output_has_no_symshape(name: str, text: str) -> None:
    """Resolution removes every symshape construct and yields valid upstream MLIR."""
    with symshape_mlir.new_context():
        module = ir.Module.parse(text)
        try:
            run_pipeline(module, "builtin.module(symshape-infer-shapes,symshape-resolve)")
        except PipelineError as error:
            # What cannot be lowered is a located error, never leftover IR.
            assert all(d.location is not None for d in error.errors), str(error)
            assert all(any(m in d.message for m in LOWERING_ERRORS) for d in error.errors), (
                str(error))
            return
        resolved = str(module)
    # Runtime check messages may name symshape ops; no op, type or attribute may.
    assert not SYMSHAPE_IR.search(resolved), resolved
    with _plain_context():
        assert ir.Module.parse(resolved).operation.verify()
