"""A CI-sized run of the bad-input fuzzer (``test/fuzz/bad_input.py``, issue 14).

Bad input must never crash or hang the process, never leak a raw traceback,
never give a wrong answer and never produce an error without a usable
location. Each case runs in its own child process; a failing class lists its
signatures and the reproducer folder. A long run is
``python test/fuzz/bad_input.py --cases 5000 --seed 1``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

FUZZ_DIR = Path(__file__).resolve().parents[1] / "fuzz"
sys.path.insert(0, str(FUZZ_DIR))

import bad_input  # noqa: E402

CASES = int(os.environ.get("BAD_INPUT_CASES", "150"))
SEED = int(os.environ.get("BAD_INPUT_SEED", "20261123"))
BAD_CLASSES = ("crash", "hang", "traceback", "wrong", "unlocated")


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory) -> bad_input.Summary:
    """One fuzz campaign shared by the per-class assertions."""
    out = tmp_path_factory.mktemp("bad_input")
    result = bad_input.run_campaign(CASES, SEED, out=out, jobs=2, timeout=30.0)
    print(result.format())
    print(f"reproducers: {out}")
    return result


@pytest.mark.parametrize("cls", BAD_CLASSES)
def test_no_bad_outcomes(summary: bad_input.Summary, cls: str) -> None:
    """No case of the campaign ends in this failure class."""
    failing = {sig: ids for sig, ids in summary.signatures.items() if sig.startswith(cls + ":")}
    listing = "\n".join(f"{len(ids):4d} {ids[0]:14s} {sig}" for sig, ids in failing.items())
    assert summary.counts[cls] == 0, f"{summary.counts[cls]} {cls} case(s):\n{listing}"


def test_every_family_ran(summary: bad_input.Summary) -> None:
    """The campaign exercised every input family (syntax, CLI, runtime, algebra, dialect)."""
    families = {r.case.family for r in summary.results}
    assert families == set(bad_input.FAMILIES)
