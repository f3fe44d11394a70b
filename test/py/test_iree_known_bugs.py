"""Upstream-only programs that IREE 3.13 compiles to wrong answers.

Each is a minimal reproducer of a class the soundness fuzzer
(``test/fuzz/soundness.py``) reports as ``wrong-value``: plain ``func``,
``tensor``, ``linalg`` and ``scf`` ops, no symshape op, so the wrong answer
is IREE's. The tests assert the right answer and are strict ``xfail``: when
an IREE upgrade fixes the bug the test starts passing, fails as XPASS, and
the reproducer should be deleted.
"""

from __future__ import annotations

import numpy as np
import pytest

from symshape_mlir import backend

# A loop adds a strided slice of %y (its first %k columns, captured from
# above) to a copy of that slice, while another result copies all of %y.
# Dispatch creation collapses the loop body's elementwise op to 1-D and
# reads the captured slice as if it were contiguous: row 1 of the slice
# comes back as elements 2..3 of %y instead of 5..6.
STRIDED_SLICE_IN_LOOP = """
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%y: tensor<?x?xf32>, %k: tensor<i64>, %n: tensor<i32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %y, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %y, %c1 : tensor<?x?xf32>
  %k_i64 = tensor.extract %k[] : tensor<i64>
  %width = arith.index_cast %k_i64 : i64 to index
  %slice = tensor.extract_slice %y[0, 0] [%rows, %width] [1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %n_i32 = tensor.extract %n[] : tensor<i32>
  %trips = arith.index_cast %n_i32 : i32 to index
  %full_init = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %full = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x?xf32>) outs(%full_init : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %zero : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %init = tensor.empty(%rows, %width) : tensor<?x?xf32>
  %copy = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%slice : tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %zero : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %sum = scf.for %i = %c0 to %trips step %c1 iter_args(%acc = %copy) -> (tensor<?x?xf32>) {
    %next = arith.addf %acc, %slice : tensor<?x?xf32>
    scf.yield %next : tensor<?x?xf32>
  }
  return %full, %sum : tensor<?x?xf32>, tensor<?x?xf32>
}
"""


@pytest.mark.xfail(strict=True, reason="IREE 3.13 reads a captured strided slice as contiguous")
def test_strided_slice_captured_by_a_loop() -> None:
    module = backend.load(backend.compile_module(STRIDED_SLICE_IN_LOOP, "llvm-cpu"), "local-task")
    y = np.arange(10, dtype=np.float32).reshape(2, 5)
    full, total = module(y, np.array(2, np.int64), np.array(1, np.int32))
    np.testing.assert_array_equal(full, y)
    np.testing.assert_array_equal(total, 2 * y[:, :2])
