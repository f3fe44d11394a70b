"""Transposes that undo each other: folded by symshape-resolve, because the
pinned MLIR's canonicalizer aborts on them once it has refined a type.

The reproducer is upstream-only IR run through ``symshape-opt --canonicalize``
in a child process (the assertion aborts it). It is a strict ``xfail``:
when an MLIR upgrade fixes the folder it passes, fails as XPASS, and
``symshape_mlir.lowering.transposes`` can go.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mlir import ir

from symshape_mlir.context import new_context
from symshape_mlir.lowering.transposes import fold_transpose_pairs

# Soundness-fuzzer program p141000177 reduced: the outer init is sized by a
# constant, the canonicalizer makes it static and folds the cast into the
# transpose, then folds the pair to %a, whose type is less static.
UNDONE = """
func.func @f(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d1, %d0) : tensor<?x?xf32>
  %t = linalg.transpose ins(%a : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) permutation = [1, 0]
  %e2 = tensor.empty(%d0, %c1) : tensor<?x?xf32>
  %u = linalg.transpose ins(%t : tensor<?x?xf32>) outs(%e2 : tensor<?x?xf32>) permutation = [1, 0]
  return %u : tensor<?x?xf32>
}
"""


def _opt() -> str:
    found = shutil.which("symshape-opt", path=str(Path(sys.executable).parent))
    assert found, "symshape-opt is installed beside the interpreter"
    return found


@pytest.mark.xfail(strict=True, reason="MLIR 22.1.8 folds a transpose pair to a value of "
                                       "another type ('incorrect fold result type')")
def test_upstream_canonicalizer_on_a_transpose_pair(tmp_path: Path) -> None:
    source = tmp_path / "undone.mlir"
    source.write_text(UNDONE)
    done = subprocess.run([_opt(), "--canonicalize", str(source)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_pairs_are_folded_before_it() -> None:
    with new_context():
        module = ir.Module.parse(UNDONE)
        func = module.body.operations[0]
        assert fold_transpose_pairs(func) == 1
        text = str(module)
    assert "return %arg0 : tensor<?x?xf32>" in text
    assert text.count("linalg.transpose") == 1
