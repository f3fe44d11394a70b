"""``python -m symshape_mlir.frontend FILE.py:FUNCTION``: the traced module, or one error line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PROGRAM = '''
from __future__ import annotations

from dataclasses import dataclass

from symshape_mlir.frontend import Tensor, f32


@dataclass
class Config:
    scale: float = 2.0


def scaled(x: Tensor["batch", 4, f32]):  # noqa: F821
    return x * Config().scale


def broken(x: Tensor["batch", 4, f32]):  # noqa: F821
    return x.reshape(-1, -1)
'''


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "symshape_mlir.frontend", *args],
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file with postponed annotations and a dataclass."""
    path = tmp_path_factory.mktemp("cli") / "model.py"
    path.write_text(PROGRAM)
    return path


def test_file_with_future_annotations_and_dataclass(program: Path) -> None:
    """The file is imported as a module (registered while it runs), so a dataclass
    under ``from __future__ import annotations`` works; the module is printed."""
    done = _run(f"{program}:scaled")
    assert done.returncode == 0, done.stderr
    assert "func.func @scaled(%arg0: tensor<?x4xf32>" in done.stdout
    assert done.stderr == ""


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("{program}:missing", "error: {program} has no function 'missing'\n"),
        ("{program}.txt:scaled", "error: no file {program}.txt\n"),
        ("{program}:broken",
         "error: reshape at model.py:19 (return x.reshape(-1, -1)): more than one -1"),
    ],
    ids=["no-function", "no-file", "trace-error"],
)
def test_errors_are_one_line(program: Path, target: str, message: str) -> None:
    """A missing function or file, or a trace error, is one ``error:`` line, exit code 1."""
    done = _run(target.format(program=program))
    assert done.returncode == 1
    assert done.stderr.startswith(message.format(program=program)), done.stderr
    assert "Traceback" not in done.stderr


def test_user_file_that_fails_to_run(tmp_path: Path) -> None:
    """A file that raises while it is imported is reported as such, without our frames."""
    path = tmp_path / "bad.py"
    path.write_text("import numpy\nraise RuntimeError('no model here')\n")
    done = _run(f"{path}:f")
    assert done.returncode == 1
    assert done.stderr == f"error: running {path} failed: RuntimeError: no model here\n"
