"""Bad scalar and tensor arguments are `SignatureError`s, never silent truncation or raw errors."""

from __future__ import annotations

import numpy as np
import pytest

from symshape_mlir import backend
from symshape_mlir.backend import SignatureError

PROGRAM = """
func.func @pick(%t: tensor<?xi8>, %n: i32) -> (tensor<?xi8>, i32) {
  return %t, %n : tensor<?xi8>, i32
}
"""


@pytest.fixture(scope="module")
def pick() -> backend.LoadedModule:
    """Echoes an i8 tensor and an i32 scalar."""
    return backend.load(backend.compile_module(PROGRAM, "llvm-cpu"), "local-sync")


@pytest.mark.parametrize(
    "n",
    [2**40 + 7, np.int64(2**40), 2**31, 2**32 - 1, 2**32, -(2**31) - 1, 2**63, -(2**64), 1.5,
     "7"],
    ids=["2**40+7", "np.int64-2**40", "2**31", "2**32-1", "2**32", "below-int32", "2**63",
         "-2**64", "float", "str"],
)
def test_i32_scalar_out_of_range(pick: backend.LoadedModule, n: object) -> None:
    """An i32 argument outside [-2**31, 2**31 - 1] (or not an integer) is refused: the
    module reads a signless i32 as signed, so 2**31 would arrive as -2**31."""
    with pytest.raises(SignatureError, match="argument 1 of @pick"):
        pick(np.zeros(2, np.int8), n)


@pytest.mark.parametrize("n", [-(2**31), 7, 2**31 - 1], ids=["min", "small", "max"])
def test_i32_scalar_in_range(pick: backend.LoadedModule, n: int) -> None:
    """An i32 argument in range comes back unchanged."""
    _, got = pick(np.zeros(2, np.int8), n)
    assert got == n


@pytest.mark.parametrize(
    "values",
    [[300], [2**63], [-129], [1.5], ["a"], [True, False]],
    ids=["300", "2**63", "-129", "fraction", "string", "booleans"],
)
def test_tensor_values_out_of_range(pick: backend.LoadedModule, values: list[object]) -> None:
    """A list whose values a tensor<i8> cannot hold is refused, not wrapped or raised raw."""
    with pytest.raises(SignatureError, match="argument 0 of @pick"):
        pick(values, 1)


def test_tensor_values_in_range(pick: backend.LoadedModule) -> None:
    """A list of values that fit is converted."""
    got, _ = pick([-128, 0, 127], 1)
    np.testing.assert_array_equal(got, np.array([-128, 0, 127], np.int8))


def test_f64_stays_f64() -> None:
    """llvm-cpu keeps f64 arguments and results (IREE demotes them to f32 by default,
    which changed the signature: a float64 array was refused)."""
    program = """
#id = affine_map<(d0) -> (d0)>
func.func @double(%x: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %e = tensor.empty(%n) : tensor<?xf64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf64>) outs(%e : tensor<?xf64>) {
  ^bb0(%a: f64, %o: f64):
    %s = arith.addf %a, %a : f64
    linalg.yield %s : f64
  } -> tensor<?xf64>
  return %r : tensor<?xf64>
}
"""
    module = backend.load(backend.compile_module(program, "llvm-cpu"), "local-sync")
    x = np.array([1.0 + 2.0**-40, -3.5], np.float64)
    got = module(x)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, 2 * x)
