"""Tests of the expected-* matcher behind --verify-diagnostics."""

from __future__ import annotations

import pytest

from symshape_mlir.pipeline import Diagnostic, Severity, SourceLoc
from symshape_mlir.tools.verify_diagnostics import DiagnosticVerifier

SOURCE = """\
op_a // expected-warning {{careful}}
// expected-remark@below {{noted}}
// expected-note@below {{noted too}}
op_b
op_c
// expected-error@above {{bad c}}
// expected-error@-3 {{also on b}}
// expected-error@unknown {{nowhere}}
op_d // expected-error-re {{value {{[0-9]+}} too {{(big|small)}}}}
"""


def _at(severity: Severity, line: int, message: str, filename: str = "t.mlir") -> Diagnostic:
    return Diagnostic(severity, message, location=SourceLoc(filename, line, 1))


EXPECTED = [
    _at(Severity.WARNING, 1, "be careful"),
    _at(Severity.REMARK, 4, "noted"),
    _at(Severity.NOTE, 4, "noted too"),
    _at(Severity.ERROR, 5, "bad c"),
    _at(Severity.ERROR, 4, "this is also on b"),
    Diagnostic(Severity.ERROR, "from nowhere"),
    _at(Severity.ERROR, 9, "value 12 too big"),
]


def _failures(diagnostics: list[Diagnostic], *, only_expected: bool = False) -> list[str]:
    verifier = DiagnosticVerifier(SOURCE, "t.mlir", only_expected=only_expected)
    for diagnostic in diagnostics:
        verifier.process(diagnostic)
    return [f"{d.location}: {d.message}" if d.location else d.message for d in verifier.finish()]


def test_all_kinds_and_designators_match() -> None:
    """Every kind and every @designator matches its diagnostic."""
    assert _failures(EXPECTED) == []


def test_notes_are_matched_separately() -> None:
    """A note attached to a diagnostic meets an expected-note; MLIR's op dump is ignored."""
    remark = Diagnostic(
        Severity.REMARK,
        "noted",
        location=SourceLoc("t.mlir", 4, 1),
        notes=(
            _at(Severity.NOTE, 4, "noted too"),
            _at(Severity.NOTE, 4, 'see current operation: "x.y"() : () -> ()'),
        ),
    )
    diagnostics = [
        d for d in EXPECTED if d.severity is not Severity.REMARK and d.severity is not Severity.NOTE
    ]
    assert _failures([*diagnostics, remark]) == []


def test_one_expectation_absorbs_repeated_diagnostics() -> None:
    """The same diagnostic emitted twice meets one expectation."""
    assert _failures([*EXPECTED, EXPECTED[0]]) == []


@pytest.mark.parametrize(
    ("diagnostics", "failures"),
    [
        (
            EXPECTED[1:],
            ['t.mlir:1:9: expected warning "careful" was not produced'],
        ),
        (
            [*EXPECTED, _at(Severity.ERROR, 5, "surprise")],
            ["t.mlir:5:1: unexpected error: surprise"],
        ),
        (
            [*EXPECTED, Diagnostic(Severity.WARNING, "lost")],
            ["unexpected warning: lost"],
        ),
        (
            [_at(Severity.ERROR, 1, "be careful"), *EXPECTED[1:]],
            [
                "t.mlir:1:9: 'error' diagnostic emitted when expecting a 'warning'",
                't.mlir:1:9: expected warning "careful" was not produced',
            ],
        ),
        (
            [*EXPECTED, _at(Severity.WARNING, 1, "careful", filename="other.mlir")],
            ["other.mlir:1:1: unexpected warning: careful"],
        ),
        (
            [*EXPECTED[:6], _at(Severity.ERROR, 9, "value x too big")],
            [
                "t.mlir:9:1: unexpected error: value x too big",
                't.mlir:9:9: expected error "value {{[0-9]+}} too {{(big|small)}}" '
                "was not produced",
            ],
        ),
    ],
    ids=[
        "missing",
        "unexpected",
        "unexpected-unknown",
        "wrong-kind",
        "other-file",
        "regex-mismatch",
    ],
)
def test_mismatches(diagnostics: list[Diagnostic], failures: list[str]) -> None:
    """Each mismatch is reported as an error at the diagnostic or at the comment."""
    assert _failures(diagnostics) == failures


def test_only_expected_ignores_unexpected_diagnostics() -> None:
    """In only-expected mode, only unmet expectations fail."""
    extra = [_at(Severity.ERROR, 5, "surprise"), _at(Severity.ERROR, 1, "be careful")]
    assert _failures([*EXPECTED, *extra], only_expected=True) == []
    assert _failures(EXPECTED[1:], only_expected=True) == [
        't.mlir:1:9: expected warning "careful" was not produced'
    ]


def test_dangling_below_and_bad_regexes() -> None:
    """@below at the end of the buffer never matches; malformed -re comments are errors."""
    source = "x // expected-error-re {{a {{(}}}}\n// expected-error@below {{dangling}}"
    verifier = DiagnosticVerifier(source, "r.mlir")
    failures = [(str(d.location), d.message) for d in verifier.finish()]
    assert failures[0][0] == "r.mlir:1:6"
    assert failures[0][1].startswith("invalid regex: ")
    assert failures[1] == ("r.mlir:2:4", 'expected error "dangling" was not produced')
