"""Deferred contract checks at run time: a bound used as a size fails the call cleanly.

``test/e2e/contract_checks.mlir`` uses an upper bound where a true size is
needed through each path the contract guards (elementwise operands, linalg
inits without indexing maps, reductions, static casts, slices, insertions,
expand_shape, also to the truncation's bound, calls sharing a callee axis,
windows read through affine maps), a scalar used as a size and a row count
chosen by a select. It
is resolved with ``symshape-verify-contract{mode=defer}`` and compiled for
llvm-cpu once. Every call runs in a child process (a crash would be a test
failure, not a dead test run): a violating input must raise
``RuntimeCallError`` naming the check, a satisfying one must give numpy's
answer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from driver_support import require_driver
from test_e2e_programs import E2E_DIR, compiled, run_opt

DEFER = (
    "--symshape-infer-shapes",
    "--symshape-verify-contract=mode=defer",
    "--symshape-resolve=target=iree",
    "--canonicalize",
    "--cse",
)

# Functions whose %x has four columns (the others take a vector).
ROWS_OF_FOUR = ("reduce_rows", "chosen_rows")

CHILD = r"""
import json, sys
import numpy as np
from symshape_mlir import backend

vmfb, calls, four = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
module = backend.load(backend.CompiledModule(open(vmfb, "rb").read(), "llvm-cpu", ()),
                      "local-sync")
out = []
for function, n, k in calls:
    x = np.arange(n * (4 if function in four else 1), dtype=np.float32)
    if function in four:
        x = x.reshape(n, 4)
    try:
        result = module.invoke(function, x, np.array(k, np.int64))
        out.append({"result": np.asarray(result).tolist()})
    except backend.RuntimeCallError as exc:
        out.append({"error": exc.message})
print(json.dumps(out))
"""

Reference = Callable[[np.ndarray, int], np.ndarray]

# function: (numpy answer for a satisfying input, satisfying (n, k) pairs,
# violating (n, k) pairs, a word the failing check's message holds)
CASES: dict[str, tuple[Reference, list[tuple[int, int]], list[tuple[int, int]], str]] = {
    "elementwise": (lambda x, k: 2 * x, [(6, 6), (0, 3), (5, 9)], [(6, 3), (6, -1)],
                    "operand #0 and operand #1 are equal"),
    "copy_init": (lambda x, k: x, [(6, 6), (3, 8)], [(6, 2)], "'linalg.copy' loop d0"),
    "reduce_rows": (lambda x, k: x.sum(axis=1), [(5, 5), (0, 1)], [(5, 4)],
                    "'linalg.reduce' loop d0"),
    "cast_static": (lambda x, k: x[:4], [(4, 9), (6, 4)], [(6, 3), (3, 9)],
                    "the static result extent 4"),
    "slice_full": (lambda x, k: x, [(6, 6), (2, 7)], [(6, 5)], "lies within the source extent"),
    "insert_full": (lambda x, k: x, [(6, 6), (1, 2)], [(6, 5)],
                    "lies within the destination extent"),
    "expand_pairs": (lambda x, k: x.reshape(-1, 2), [(6, 6), (4, 10)], [(6, 4)],
                     "the product of result axes [0, 1]"),
    "expand_to_bound": (lambda x, k: x.reshape(-1, 1), [(6, 6), (3, 9), (1, 2)], [(6, 4), (2, -1)],
                        "the product of result axes [0, 1]"),
    "chosen_rows": (lambda x, k: x[: 1 if k > 0 else len(x)].reshape(-1),
                    [(5, 2), (5, 0), (0, 0), (1, 7)], [(0, 3)], "lies within the source extent"),
    "call_shared": (lambda x, k: 2 * x, [(6, 6), (2, 5)], [(6, 3)], "call to @pair"),
    "scalar_size": (lambda x, k: np.ones(k, np.float32), [(2, 0), (2, 5)], [(2, -3)],
                    "size of result axis 0 is non-negative"),
    "window_sum": (lambda x, k: x[:-1] + x[1:], [(5, 5), (1, 3)], [(5, 4), (5, 0)],
                   "the window of operand #0 axis 0 (d0 + d1) lies within the operand extent"),
    # k = 0 reads nothing, whatever n is; k = 5 reads index -1, n = 3 index 3.
    "window_reverse": (lambda x, k: x[3 - np.arange(k)], [(4, 4), (6, 2), (2, 0)],
                       [(8, 5), (3, 2)], "the window of operand #0 axis 0 (-d0 + 3)"),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int, int], dict]:
    """Every call of every case, made in one child process."""
    require_driver("local-sync")
    text = run_opt(E2E_DIR / "contract_checks.mlir", *DEFER)
    vmfb = tmp_path_factory.mktemp("contract") / "module.vmfb"
    vmfb.write_bytes(compiled(text, "llvm-cpu").vmfb)
    calls = [(name, n, k) for name, (_, good, bad, _) in CASES.items() for n, k in good + bad]
    proc = subprocess.run([sys.executable, "-c", CHILD, str(vmfb), json.dumps(calls),
                           json.dumps(ROWS_OF_FOUR)],
                          capture_output=True, text=True, check=False, timeout=300)
    assert proc.returncode == 0, f"the child died ({proc.returncode}):\n{proc.stderr}"
    answers = json.loads(proc.stdout.strip().splitlines()[-1])
    return {tuple(call): answer for call, answer in zip(calls, answers, strict=True)}


def _cases(which: int) -> list[object]:
    return [pytest.param(name, n, k, id=f"{name}-n{n}-k{k}")
            for name, case in CASES.items() for n, k in case[which]]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "n", "k"), _cases(1))
def test_satisfying_input_matches_numpy(results: dict, name: str, n: int, k: int) -> None:
    """Where the bound is the size, the deferred program gives numpy's answer."""
    reference = CASES[name][0]
    x = np.arange(n * (4 if name in ROWS_OF_FOUR else 1), dtype=np.float32)
    if name in ROWS_OF_FOUR:
        x = x.reshape(n, 4)
    answer = results[(name, n, k)]
    assert "result" in answer, answer
    np.testing.assert_allclose(np.asarray(answer["result"], np.float32), reference(x, k))


@pytest.mark.parametrize(("name", "n", "k"), _cases(2))
def test_violating_input_fails_cleanly(results: dict, name: str, n: int, k: int) -> None:
    """Where the bound is not the size, the call fails with the check's message."""
    answer = results[(name, n, k)]
    assert "error" in answer, f"{name}(n={n}, k={k}) returned {answer}"
    assert answer["error"].startswith("symshape: check failed: "), answer["error"]
    assert CASES[name][3] in answer["error"], answer["error"]
    assert str(E2E_DIR / "contract_checks.mlir") in answer["error"]


def test_every_function_has_cases() -> None:
    """Each function of the program is exercised."""
    text = Path(E2E_DIR / "contract_checks.mlir").read_text()
    public = {line.split("@")[1].split("(")[0] for line in text.splitlines()
              if line.startswith("func.func @")}
    assert public == set(CASES)
