"""A zero divisor in a shape computation fails the call; the process lives on.

Each case runs in a child Python process that loads the compiled module,
makes the failing call, catches `RuntimeCallError`, then makes a valid call
on the same module. The child exiting normally (not killed by SIGFPE) with
the expected error message is the proof. A control case compiles the same
ONNX-style program with plain IREE (no ``symshape-resolve``): its child dies
on the signal, which is why the check runs out of process.
"""

from __future__ import annotations

import dataclasses
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from driver_support import DRIVER_TARGETS, require_driver
from test_e2e_programs import E2E_DIR, PROGRAMS, Program, compiled, program_module

# Loads a module, calls it once expecting RuntimeCallError, then once more
# expecting success; prints one JSON line with what happened.
CHILD = r"""
import json, sys
import numpy as np
from symshape_mlir import backend

vmfb, target, driver, function, inputs = sys.argv[1:6]
data = np.load(inputs)
bad = [data[k] for k in sorted(data) if k.startswith("bad")]
good = [data[k] for k in sorted(data) if k.startswith("good")]
module = backend.load(backend.CompiledModule(open(vmfb, "rb").read(), target, ()), driver)
report = {}
try:
    module.invoke(function, *bad)
    report["bad"] = "returned"
except backend.RuntimeCallError as exc:
    report["bad"] = "RuntimeCallError"
    report["status"] = exc.status
    report["message"] = exc.message
report["good_shape"] = list(module.invoke(function, *good).shape)
print(json.dumps(report))
"""


@dataclasses.dataclass(frozen=True)
class ZeroDivisorCase:
    """A program, a binding whose shape computation divides by zero, and a valid one."""

    program: str
    bad: dict[str, int]
    good: dict[str, int]
    message: str


CASES = {
    "runtime_scalar_divisor": ZeroDivisorCase(
        "split_by",
        {"batch": 2, "k": 0},
        {"batch": 2, "k": 4},
        "symshape: division by zero in floordiv (symshape.floordiv at "
        f"{E2E_DIR / 'zero_divisor.mlir'}:13:11)",
    ),
    "negative_scalar_clamped_to_zero": ZeroDivisorCase(
        "split_by",
        {"batch": 3, "k": -5},
        {"batch": 3, "k": 12},
        "symshape: division by zero in floordiv (symshape.floordiv at "
        f"{E2E_DIR / 'zero_divisor.mlir'}:13:11)",
    ),
    "onnx_minus_one_at_batch_0": ZeroDivisorCase(
        "onnx_minus_one",
        {"batch": 0, "width": 64},
        {"batch": 2, "width": 64},
        f"symshape: division by zero in arith.divsi at {E2E_DIR / 'onnx_reshape.mlir'}:21:11",
    ),
    "onnx_attention_at_batch_0": ZeroDivisorCase(
        "attention_onnx",
        {"batch": 0, "seq": 3},
        {"batch": 2, "seq": 3},
        f"symshape: division by zero in arith.divsi at {E2E_DIR / 'transformer_onnx.mlir'}:89:10",
    ),
}


def _write_inputs(path: Path, program: Program, bad: dict[str, int], good: dict[str, int]
                  ) -> None:
    rng = np.random.default_rng(0)
    arrays = {f"bad{i}": a for i, a in enumerate(program.inputs(rng, bad))}
    arrays |= {f"good{i}": a for i, a in enumerate(program.inputs(rng, good))}
    np.savez(path, **arrays)


def _run_child(tmp_path: Path, vmfb: bytes, target: str, driver: str, program: Program,
               case: ZeroDivisorCase) -> subprocess.CompletedProcess[str]:
    module_path = tmp_path / "module.vmfb"
    module_path.write_bytes(vmfb)
    inputs = tmp_path / "inputs.npz"
    _write_inputs(inputs, program, case.bad, case.good)
    return subprocess.run(
        [sys.executable, "-c", CHILD, str(module_path), target, driver, program.function,
         str(inputs)],
        capture_output=True, text=True, check=False, timeout=120,
    )


@pytest.mark.parametrize("driver", ["local-task", "local-sync"])
@pytest.mark.parametrize("name", list(CASES))
def test_zero_divisor_raises_and_process_survives(tmp_path: Path, name: str, driver: str
                                                  ) -> None:
    """The failing call raises RuntimeCallError naming the division; the next call works."""
    require_driver(driver)
    case = CASES[name]
    program = PROGRAMS[case.program]
    target = DRIVER_TARGETS[driver]
    proc = _run_child(tmp_path, program_module(program, target).vmfb, target, driver, program,
                      case)
    assert proc.returncode == 0, f"child exited with {proc.returncode}:\n{proc.stderr}"
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    expected_good = program.reference(*program.inputs(np.random.default_rng(0), case.good))
    assert report == {
        "bad": "RuntimeCallError",
        "status": "FAILED_PRECONDITION",
        "message": case.message,
        "good_shape": list(expected_good[0].shape),
    }


def test_plain_iree_build_dies_on_the_signal(tmp_path: Path) -> None:
    """Control: without symshape-resolve, the ONNX-style reshape at batch 0 kills the process."""
    case = CASES["onnx_minus_one_at_batch_0"]
    program = PROGRAMS[case.program]
    # The same function as plain upstream MLIR: only the axis declaration removed.
    plain = re.sub(r" \{symshape\.axes = [^}]*\}", "", program.path.read_text())
    vmfb = compiled(plain, "llvm-cpu").vmfb
    proc = _run_child(tmp_path, vmfb, "llvm-cpu", "local-sync", program, case)
    assert proc.returncode == -signal.SIGFPE, (proc.returncode, proc.stdout, proc.stderr)
