"""A compile infers once: the runtime captures sizes from the facts the pipeline reuses."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import symshape_mlir.inference
from symshape_mlir import runtime

PROGRAM = """
func.func @f(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
             %n: tensor<i64>) -> tensor<?x4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 stage exact
      : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %s = arith.addf %t, %t : tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}
"""


@pytest.fixture
def inference_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the module inferences (every ``infer`` runs ``infer_module`` once)."""
    runs: list[int] = []
    original: Callable[..., None] = symshape_mlir.inference.infer_module

    def counted(*args: object) -> None:
        runs.append(1)
        original(*args)

    monkeypatch.setattr(symshape_mlir.inference, "infer_module", counted)
    return runs


@pytest.mark.parametrize("contract", ["reject", "defer"])
def test_one_inference_per_compile(inference_runs: list[int], contract: str) -> None:
    exe = runtime.compile(PROGRAM, cache_dir=False, hot_after=None, contract=contract)
    assert len(inference_runs) == 1
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(exe(x, np.array(2, np.int64)), 2 * x[:2])
    assert len(inference_runs) == 1
