"""A CI-sized run of the differential soundness fuzzer (``test/fuzz/soundness.py``).

Forty random programs with a fixed seed go through the contract (reject and
defer), ``iree-compile`` (llvm-cpu) and calls at random bindings; the run must
find no mismatch: no accepted program answers a violating input or crashes,
every exact claim holds, every value matches numpy, and every rejected
program is accepted once its upper bounds are exact. Reproducers of a failure
are written under pytest's temporary folder (the path is in the message).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))

import soundness

PROGRAMS = 40
SEED = 9


def test_fuzz_soundness_ci_run(tmp_path: Path) -> None:
    """Forty random programs (seed 9): zero mismatches of any class."""
    summary = soundness.fuzz(
        PROGRAMS,
        SEED,
        jobs=2,
        batch=20,
        calls=6,
        out=tmp_path / "out",
        findings=tmp_path / "findings.md",
        quiet=True,
        shrink=False,
    )
    assert summary.generated == PROGRAMS
    assert summary.accepted + summary.rejected + summary.internal_errors == PROGRAMS
    assert summary.calls > 0, summary.text()
    assert not summary.mismatches, f"{summary.text()}\nreproducers under {tmp_path / 'out'}"
