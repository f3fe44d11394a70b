"""Tests of diagnostics: location resolution, conversion, collection and rendering."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from mlir import ir

from symshape_mlir.pipeline import Diagnostic, DiagnosticCollector, Severity, SourceLoc
from symshape_mlir.pipeline.diagnostics import format_diagnostic, resolve_location


@pytest.fixture
def context() -> ir.Context:
    """A fresh upstream context."""
    return ir.Context()


def _file(context: ir.Context, line: int = 3, column: int = 4, name: str = "a.mlir") -> ir.Location:
    return ir.Location.file(name, line, column, context=context)


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda c: _file(c), SourceLoc("a.mlir", 3, 4)),
        (lambda c: ir.Location.name("x", _file(c), context=c), SourceLoc("a.mlir", 3, 4)),
        (
            lambda c: ir.Location.callsite(_file(c), [_file(c, 9, 1, "b.mlir")], context=c),
            SourceLoc("a.mlir", 3, 4),
        ),
        (
            lambda c: ir.Location.fused(
                [ir.Location.name("n", context=c), _file(c, 5, 6)], context=c
            ),
            SourceLoc("a.mlir", 5, 6),
        ),
        (lambda c: ir.Location.unknown(context=c), None),
        (lambda c: ir.Location.name("only-a-name", context=c), None),
    ],
    ids=["file", "name", "callsite-shows-callee", "fused-first-file", "unknown", "bare-name"],
)
def test_resolve_location(
    context: ir.Context,
    build: Callable[[ir.Context], ir.Location],
    expected: SourceLoc | None,
) -> None:
    """Locations resolve to the file position MLIR shows for them."""
    assert resolve_location(build(context)) == expected


def test_diagnostic_at_ir_objects(context: ir.Context) -> None:
    """Diagnostics point at operations, values and locations, with call stacks."""
    function = ir.Operation.parse(
        "func.func @f(%x: index) -> index {\n  return %x : index\n}",
        source_name="f.mlir",
        context=context,
    )
    argument = function.regions[0].blocks[0].arguments[0]
    assert Diagnostic.at(Severity.ERROR, function, "m").location == SourceLoc("f.mlir", 1, 1)
    assert Diagnostic.at(Severity.ERROR, argument, "m").location == SourceLoc("f.mlir", 1, 14)
    call = ir.Location.callsite(
        _file(context),
        [_file(context, 7, 2, "caller.mlir"), _file(context, 9, 1, "main.mlir")],
        context=context,
    )
    diagnostic = Diagnostic.at(Severity.WARNING, call, "m", notes=[(None, "detached")])
    assert diagnostic.call_stack == (SourceLoc("caller.mlir", 7, 2), SourceLoc("main.mlir", 9, 1))
    assert diagnostic.notes == (Diagnostic(Severity.NOTE, "detached"),)
    named = Diagnostic.at(Severity.ERROR, ir.Location.name("n", context=context), "m")
    assert (named.location, named.location_text) == (None, 'loc("n")')


def test_collector_captures_mlir_diagnostics_in_order(context: ir.Context) -> None:
    """MLIR's errors reach an attached collector with their notes; state is restored."""
    collector = DiagnosticCollector()
    with collector.attached(context), pytest.raises(ir.MLIRError):
        ir.Operation.parse(
            "func.func @f(%a: i32) -> i64 {\n  return %a : i32\n}",
            source_name="v.mlir",
            context=context,
        )
    (error,) = collector.diagnostics
    assert (error.severity, error.location) == (Severity.ERROR, SourceLoc("v.mlir", 2, 3))
    assert error.message.startswith("type of return operand 0")
    assert [note.message.split(":")[0] for note in error.notes] == ["see current operation"]
    assert not error.without_current_operation_notes().notes
    assert collector.has_errors and collector.error_count == 1
    assert context.emit_error_diagnostics is False


def test_collector_renames_files() -> None:
    """Positions in a renamed file are reported under the new name."""
    collector = DiagnosticCollector()
    diagnostic = Diagnostic(
        Severity.ERROR,
        "m",
        location=SourceLoc("-", 1, 2),
        notes=(Diagnostic(Severity.NOTE, "n", location=SourceLoc("-", 3, 4)),),
        call_stack=(SourceLoc("other.mlir", 5, 6),),
    )
    with collector.renaming_file("-", "real.mlir"):
        collector.report(diagnostic)
    collector.report(diagnostic)
    renamed, kept = collector.diagnostics
    assert renamed.location == SourceLoc("real.mlir", 1, 2)
    assert renamed.notes[0].location == SourceLoc("real.mlir", 3, 4)
    assert renamed.call_stack == (SourceLoc("other.mlir", 5, 6),)
    assert kept == diagnostic


SOURCES = {"a.mlir": ["func.func @f() {", "\t%0 = op", "}"]}


@pytest.mark.parametrize(
    ("diagnostic", "expected"),
    [
        (
            Diagnostic(Severity.ERROR, "bad", location=SourceLoc("a.mlir", 2, 3)),
            "a.mlir:2:3: error: bad\n\t%0 = op\n\t ^\n",
        ),
        (
            Diagnostic(
                Severity.WARNING,
                "w",
                location=SourceLoc("a.mlir", 1, 1),
                notes=(
                    Diagnostic(Severity.NOTE, "same place", location=SourceLoc("a.mlir", 1, 1)),
                    Diagnostic(Severity.NOTE, "elsewhere", location=SourceLoc("a.mlir", 3, 1)),
                ),
            ),
            "a.mlir:1:1: warning: w\nfunc.func @f() {\n^\n"
            "a.mlir:1:1: note: same place\n"
            "a.mlir:3:1: note: elsewhere\n}\n^\n",
        ),
        (
            Diagnostic(
                Severity.ERROR,
                "in callee",
                location=SourceLoc("b.mlir", 1, 1),
                call_stack=(SourceLoc("c.mlir", 2, 2),),
            ),
            "b.mlir:1:1: error: in callee\nc.mlir:2:2: note: called from\n",
        ),
        (Diagnostic(Severity.REMARK, "r"), "<unknown>:0: remark: r\n"),
        (
            Diagnostic(Severity.ERROR, "e", location_text='loc("n")'),
            '<unknown>:0: error: loc("n"): e\n',
        ),
        (
            Diagnostic(Severity.ERROR, "implicit module", location=SourceLoc("a.mlir", 0, 0)),
            "a.mlir:0:0: error: implicit module\n",
        ),
    ],
    ids=[
        "caret-under-tab",
        "notes-show-new-lines-only",
        "call-stack",
        "unknown",
        "named",
        "line-0",
    ],
)
def test_format_diagnostic(diagnostic: Diagnostic, expected: str) -> None:
    """Diagnostics render like mlir-opt's, with source lines where known."""
    assert format_diagnostic(diagnostic, SOURCES) == expected
