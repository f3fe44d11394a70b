"""Tests of run_pipeline: mixing Python and upstream passes, diagnostics, failures."""

from __future__ import annotations

from typing import Literal

import pytest
from mlir import ir

from symshape_mlir.context import new_context
from symshape_mlir.pipeline import (
    DiagnosticCollector,
    DiagnosticError,
    InvalidPipelineError,
    ModulePass,
    PassPipeline,
    PipelineError,
    Severity,
    SourceLoc,
    option,
    run_pipeline,
)

SOURCE = """\
module {
func.func @f() -> index {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %0 = arith.addi %c1, %c2 : index
  return %0 : index
}
}
"""

COUNTS: list[int] = []


def _functions(module: ir.Operation) -> list[ir.Operation]:
    return list(module.regions[0].blocks[0].operations)


class CountOps(ModulePass):
    """Test-only pass: records how many operations the first function holds."""

    name = "symshape-test-count-ops"
    summary = "Record the number of operations"

    def run(self, module: ir.Operation) -> None:
        """Appends the count to COUNTS."""
        COUNTS.append(len(list(_functions(module)[0].regions[0].blocks[0].operations)))


class Report(ModulePass):
    """Test-only pass: reports on every function, with a note on its first operation."""

    name = "symshape-test-report"
    summary = "Report on every function"

    severity: Literal["error", "warning", "remark"] = option("error", help="What to report")

    def run(self, module: ir.Operation) -> None:
        """Reports one diagnostic per function."""
        report = getattr(self, self.severity)
        for function in _functions(module):
            first = function.regions[0].blocks[0].operations[0]
            report(function, f"{self.severity} on function", notes=[(first, "first operation")])


class Raise(ModulePass):
    """Test-only pass: fails by raising DiagnosticError."""

    name = "symshape-test-raise"
    summary = "Raise a located error"

    def run(self, module: ir.Operation) -> None:
        """Raises on the first function."""
        raise DiagnosticError(_functions(module)[0], "raised", notes=[(None, "no location")])


class Break(ModulePass):
    """Test-only pass: leaves invalid IR behind (a block without terminator)."""

    name = "symshape-test-break"
    summary = "Erase the terminator of the first function"

    def run(self, module: ir.Operation) -> None:
        """Erases the return."""
        _functions(module)[0].regions[0].blocks[0].operations[3].erase()


class Crash(ModulePass):
    """Test-only pass with a bug."""

    name = "symshape-test-crash"
    summary = "Raise a Python exception"

    def run(self, module: ir.Operation) -> None:
        """Raises ZeroDivisionError."""
        raise ZeroDivisionError("bug")


class Alias(ModulePass):
    """Test-only pipeline alias whose expansion depends on an option."""

    name = "symshape-test-alias"
    summary = "Count, canonicalize, count"
    pipeline = ("symshape-test-count-ops", "func.func(canonicalize)", "symshape-test-count-ops")

    cse: bool = option(False, help="Also run cse")

    def expand(self) -> tuple[str, ...]:
        """The pipeline, with cse appended when asked."""
        return (*self.pipeline, "cse") if self.cse else self.pipeline


class Loop(ModulePass):
    """Test-only alias that expands to itself."""

    name = "symshape-test-loop"
    summary = "Expand forever"
    pipeline = ("cse", "symshape-test-loop")


PASSES = {cls.name: cls for cls in (CountOps, Report, Raise, Break, Crash, Alias, Loop)}


@pytest.fixture
def context() -> ir.Context:
    """A fresh context with every dialect."""
    return new_context()


@pytest.fixture
def module(context: ir.Context) -> ir.Operation:
    """SOURCE parsed with file name test.mlir."""
    COUNTS.clear()
    return ir.Operation.parse(SOURCE, source_name="test.mlir", context=context).operation


def test_python_and_upstream_passes_run_in_order(module: ir.Operation) -> None:
    """Python passes see the IR as the upstream passes before them left it."""
    run_pipeline(
        module,
        "builtin.module(symshape-test-count-ops,canonicalize,symshape-test-count-ops)",
        passes=PASSES,
    )
    assert COUNTS == [4, 2]


def test_error_with_note_fails_the_pipeline(module: ir.Operation) -> None:
    """An error reported by a pass fails the run; the error carries its note."""
    with pytest.raises(PipelineError) as failure:
        run_pipeline(
            module, "builtin.module(symshape-test-report,symshape-test-count-ops)", passes=PASSES
        )
    (error,) = failure.value.diagnostics
    assert (error.severity, error.message, error.location) == (
        Severity.ERROR,
        "error on function",
        SourceLoc("test.mlir", 2, 1),
    )
    assert [(note.severity, note.message, note.location) for note in error.notes] == [
        (Severity.NOTE, "first operation", SourceLoc("test.mlir", 3, 9))
    ]
    assert COUNTS == [], "passes after a failing pass do not run"
    assert str(failure.value) == (
        "test.mlir:2:1: error: error on function\ntest.mlir:3:9: note: first operation"
    )


@pytest.mark.parametrize("severity", ["warning", "remark"], ids=["warning", "remark"])
def test_warnings_and_remarks_are_returned(module: ir.Operation, severity: str) -> None:
    """Non-error diagnostics do not fail the run and are returned."""
    diagnostics = run_pipeline(
        module, f"builtin.module(symshape-test-report{{severity={severity}}})", passes=PASSES
    )
    assert [(d.severity.value, d.message) for d in diagnostics] == [
        (severity, f"{severity} on function")
    ]


def test_diagnostic_error_fails_the_pass(module: ir.Operation) -> None:
    """DiagnosticError raised in a pass becomes its located error."""
    with pytest.raises(PipelineError) as failure:
        run_pipeline(module, "builtin.module(symshape-test-raise)", passes=PASSES)
    (error,) = failure.value.errors
    assert (error.message, error.location) == ("raised", SourceLoc("test.mlir", 2, 1))
    assert [(note.message, note.location) for note in error.notes] == [("no location", None)]


def test_invalid_ir_from_a_python_pass_is_caught_by_the_verifier(module: ir.Operation) -> None:
    """The IR is verified after each Python pass."""
    with pytest.raises(PipelineError) as failure:
        run_pipeline(module, "builtin.module(symshape-test-break)", passes=PASSES)
    messages = [d.message for d in failure.value.errors]
    assert any("terminator" in message for message in messages), messages


def test_python_exceptions_propagate(module: ir.Operation) -> None:
    """A bug in a pass is not turned into a diagnostic."""
    with pytest.raises(ZeroDivisionError, match="bug"):
        run_pipeline(module, "builtin.module(symshape-test-crash)", passes=PASSES)


def test_alias_expands_with_its_options(context: ir.Context) -> None:
    """A pipeline alias splices its expansion, which may depend on options."""
    pipeline = PassPipeline.parse(
        "builtin.module(symshape-test-alias{cse=true})", context=context, passes=PASSES
    )
    assert pipeline.description == (
        "builtin.module(symshape-test-count-ops,func.func(canonicalize),"
        "symshape-test-count-ops,cse)"
    )


def test_alias_runs_its_expansion(module: ir.Operation) -> None:
    """Running an alias runs the passes it stands for."""
    run_pipeline(module, "builtin.module(symshape-test-alias)", passes=PASSES)
    assert COUNTS == [4, 2]


@pytest.mark.parametrize(
    ("pipeline", "message"),
    [
        (
            "builtin.module(symshape-test-loop)",
            "pipeline alias 'symshape-test-loop' expands to itself "
            "(symshape-test-loop -> symshape-test-loop)",
        ),
        (
            "builtin.module(func.func(symshape-test-count-ops))",
            "'symshape-test-count-ops' runs on the top-level 'builtin.module' and cannot be "
            "nested under 'func.func': symshape passes walk the functions of the module "
            "themselves",
        ),
        (
            "builtin.module(builtin.module(symshape-test-count-ops))",
            "'symshape-test-count-ops' runs on the top-level 'builtin.module' and cannot be "
            "nested under 'builtin.module': symshape passes walk the functions of the module "
            "themselves",
        ),
        (
            "builtin.module(cse,no-such-pass)",
            "'no-such-pass' does not refer to a registered pass or pass pipeline",
        ),
        (
            "builtin.module(canonicalize{max-iterations=abc})",
            "for the --max-iterations option: 'abc' value invalid for long argument!; "
            "failed to add `canonicalize` with options `max-iterations=abc`",
        ),
        (
            "builtin.module(symshape-test-report{severity=fatal})",
            "symshape-test-report: invalid value 'fatal' for option 'severity' "
            "(expected one of: error, warning, remark)",
        ),
        (
            "func.func(cse)",
            "pass pipeline 'func.func(cse)' must be anchored on 'builtin.module', not 'func.func'",
        ),
    ],
    ids=[
        "alias-cycle",
        "nested-python-pass",
        "python-pass-in-nested-module",
        "unknown-upstream-pass",
        "bad-upstream-option",
        "bad-python-option",
        "wrong-anchor",
    ],
)
def test_invalid_pipelines(module: ir.Operation, pipeline: str, message: str) -> None:
    """Invalid pipelines are rejected before anything runs."""
    with pytest.raises(InvalidPipelineError) as error:
        run_pipeline(module, pipeline, passes=PASSES)
    assert str(error.value) == message
    assert COUNTS == []


def test_module_kinds_and_context_state(context: ir.Context) -> None:
    """run_pipeline takes Module or operation; the context's error handling is restored."""
    parsed = ir.Module.parse(SOURCE, context)
    run_pipeline(parsed, "builtin.module(canonicalize)", passes=PASSES)
    run_pipeline(parsed.operation, "builtin.module(cse)", passes=PASSES)
    assert context.emit_error_diagnostics is False
    with pytest.raises(ir.MLIRError) as error:
        ir.Module.parse("func.func @broken(", context)
    assert error.value.error_diagnostics


def test_pipeline_refuses_a_module_of_another_context(module: ir.Operation) -> None:
    """A pipeline only runs on modules of the context it was built for."""
    pipeline = PassPipeline.parse("builtin.module(cse)", context=new_context(), passes=PASSES)
    with pytest.raises(ValueError, match="another context"):
        pipeline.run(module, DiagnosticCollector())
