"""Tests of symshape-opt's main(): exit codes, streams and diagnostics of Python passes."""

from __future__ import annotations

import io
import pathlib
import sys
from typing import Literal

import pytest
from mlir import ir

from symshape_mlir.passes import PASSES
from symshape_mlir.pipeline import ModulePass, PassPipeline, option
from symshape_mlir.tools.opt import main


class Annotate(ModulePass):
    """Test-only pass: reports on every function, with a note on its first operation."""

    name = "symshape-test-annotate"
    summary = "Report on every function"

    severity: Literal["error", "warning", "remark"] = option("warning", help="What to report")

    def run(self, module: ir.Operation) -> None:
        """Reports one diagnostic per function."""
        report = getattr(self, self.severity)
        for function in module.regions[0].blocks[0].operations:
            first = function.regions[0].blocks[0].operations[0]
            report(function, f"{self.severity} on function", notes=[(first, "first operation")])


class Crash(ModulePass):
    """Test-only pass with a bug."""

    name = "symshape-test-crash"
    summary = "Raise a Python exception"

    def run(self, module: ir.Operation) -> None:
        """Raises KeyError."""
        raise KeyError("missing")


@pytest.fixture(autouse=True)
def register_test_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registers the test-only passes for the duration of a test."""
    monkeypatch.setitem(PASSES, Annotate.name, Annotate)
    monkeypatch.setitem(PASSES, Crash.name, Crash)


VERIFIED = """\
// expected-warning@below {{warning on function}}
func.func @f() {
  // expected-note@below {{first operation}}
  return
}

// -----

// expected-warning@below {{warning on function}}
func.func @g() {
  return // expected-note {{first operation}}
}
"""


def _write(tmp_path: pathlib.Path, text: str, name: str = "input.mlir") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_verify_diagnostics_matches_notes_of_python_passes(tmp_path: pathlib.Path) -> None:
    """Warnings and their notes from a Python pass meet expected-* comments."""
    path = _write(tmp_path, VERIFIED)
    args = [path, "--split-input-file", "--verify-diagnostics", "--symshape-test-annotate"]
    assert main(args) == 0


def test_verify_diagnostics_reports_a_missing_note(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unmet expected-note fails the run and is reported at the comment."""
    path = _write(
        tmp_path, VERIFIED.replace("first operation}}\n  return\n", "other}}\n  return\n")
    )
    args = [path, "--split-input-file", "--verify-diagnostics", "--symshape-test-annotate"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert f"{path}:4:3: error: unexpected note: first operation\n" in err
    assert f'{path}:3:6: error: expected note "other" was not produced\n' in err


@pytest.mark.parametrize(
    ("severity", "status"),
    [("warning", 0), ("remark", 0), ("error", 1)],
    ids=["warning", "remark", "error"],
)
def test_diagnostics_are_printed_and_set_the_exit_status(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], severity: str, status: int
) -> None:
    """Diagnostics print with source lines; only errors fail, and suppress the output."""
    path = _write(tmp_path, "func.func @f() {\n  return\n}\n")
    assert main([path, f"--symshape-test-annotate=severity={severity}"]) == status
    out, err = capsys.readouterr()
    assert err == (
        f"{path}:1:1: {severity}: {severity} on function\nfunc.func @f() {{\n^\n"
        f"{path}:2:3: note: first operation\n  return\n  ^\n"
    )
    assert ("func.func @f()" in out) == (status == 0)


def test_a_bug_is_an_internal_error_with_its_traceback(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An exception that is not a located error is reported as a bug, exit status 2."""
    path = _write(tmp_path, "func.func @f() {\n  return\n}\n")
    assert main([path, "--symshape-test-crash"]) == 2
    out, err = capsys.readouterr()
    first, *rest = err.splitlines()
    assert first == ("symshape-opt: error: internal error: KeyError('missing'). This is a bug "
                     "in symshape-mlir; please report it with the input and this traceback:")
    assert rest[0] == "Traceback (most recent call last):"
    assert rest[-1] == "KeyError: 'missing'"
    assert out == ""


def test_output_file_is_written_only_on_success(tmp_path: pathlib.Path) -> None:
    """-o writes the result; a failing run leaves no output file."""
    path = _write(tmp_path, "func.func @f() {\n  return\n}\n")
    written = tmp_path / "out.mlir"
    assert main([path, "-o", str(written)]) == 0
    assert written.read_text() == "module {\n  func.func @f() {\n    return\n  }\n}\n\n"
    failed = tmp_path / "failed.mlir"
    assert main([path, "-o", str(failed), "--symshape-test-annotate=severity=error"]) == 1
    assert not failed.exists()


def test_standard_input_is_named_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Input read from '-' is located as <stdin>."""
    stdin = io.TextIOWrapper(io.BytesIO(b"func.func @f() {\n  return %x\n}\n"))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["-"]) == 1
    assert capsys.readouterr().err.startswith("<stdin>:2:")


def test_silent_pipeline_failure_is_reported(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pipeline that fails without any diagnostic still explains the exit status."""
    monkeypatch.setattr(PassPipeline, "run", lambda self, module, collector: False)
    path = _write(tmp_path, "func.func @f() {\n  return\n}\n")
    assert main([path, "--cse"]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", "symshape-opt: error: pass pipeline failed without a diagnostic\n")


def test_print_ir_after_all_names_python_passes(
    tmp_path: pathlib.Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """IR dumps after Python passes carry their class name and argument."""
    path = _write(tmp_path, "func.func @f() {\n  return\n}\n")
    assert (
        main(
            [path, "--symshape-test-annotate=severity=remark", "--cse", "--mlir-print-ir-after-all"]
        )
        == 0
    )
    err = capfd.readouterr().err
    annotate = err.index("// -----// IR Dump After Annotate (symshape-test-annotate) //----- //")
    assert annotate < err.index("// -----// IR Dump After CSE (cse) //----- //")


@pytest.mark.parametrize(
    ("args", "status", "stream", "text"),
    [
        (["--help"], 0, "out", "usage: symshape-opt"),
        (["-h"], 0, "out", "--symshape-test-annotate='OPTION=VALUE ...'"),
        (["--list-passes"], 0, "out", "--symshape-test-annotate  -  Report on every function"),
        (["-o"], 1, "err", "symshape-opt: error: option '-o' needs a value"),
        (["--=x"], 1, "err", "symshape-opt: error: unknown command line argument '--=x'"),
        (
            ["--symshape-test-annotate=severity=loud"],
            1,
            "err",
            "symshape-opt: error: symshape-test-annotate: invalid value 'loud' for option "
            "'severity' (expected one of: error, warning, remark)",
        ),
    ],
    ids=["help", "short-help", "list-passes", "missing-value", "empty-flag", "bad-option"],
)
def test_command_line(
    capsys: pytest.CaptureFixture[str], args: list[str], status: int, stream: str, text: str
) -> None:
    """Help, pass listing and usage errors have mlir-opt's exit statuses."""
    assert main(args) == status
    captured = capsys.readouterr()
    assert text in (captured.out if stream == "out" else captured.err)


def test_list_passes_shows_every_registered_pass(capsys: pytest.CaptureFixture[str]) -> None:
    """--list-passes names every pass of the registry with its summary."""
    assert main(["--list-passes"]) == 0
    out = capsys.readouterr().out
    for name, cls in PASSES.items():
        assert f"--{name}  -  {cls.summary}" in out
