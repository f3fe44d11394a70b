"""The runtime on every driver with a device here, zero-extent tensors included."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from runtime_programs import MATMUL_FLAT
from symshape_mlir import runtime

from driver_support import DRIVER_TARGETS

CASES = [(0, 3, 2), (2, 0, 3), (0, 0, 0), (3, 5, 4)]


@pytest.fixture(scope="module")
def mm(driver: str, tmp_path_factory: pytest.TempPathFactory) -> runtime.Executable:
    """`[m, k] @ [k, n]` flattened, compiled for the driver's target."""
    return runtime.compile(
        MATMUL_FLAT,
        target=DRIVER_TARGETS[driver],
        driver=driver,
        cache_dir=tmp_path_factory.mktemp("cache"),
        hot_after=None,
    )


@pytest.mark.parametrize(("m", "k", "n"), CASES, ids=["m0", "k0", "all0", "none0"])
def test_zero_extents(mm: runtime.Executable, m: int, k: int, n: int) -> None:
    """Empty inputs and results work on every driver (Vulkan cannot bind empty buffers)."""
    a = np.ones((m, k), np.float32)
    b = np.full((k, n), 2.0, np.float32)
    got = mm(a, b)
    np.testing.assert_array_equal(got, (a @ b).reshape(-1))


@pytest.mark.parametrize(("m", "k", "n"), CASES, ids=["m0", "k0", "all0", "none0"])
def test_zero_extents_bound_params(mm: runtime.Executable, m: int, k: int, n: int) -> None:
    """The same with the right operand resident on the device."""
    a = np.ones((m, k), np.float32)
    b = np.full((k, n), 2.0, np.float32)
    got = mm.mm.bind_params({1: b})(a)
    np.testing.assert_array_equal(got, (a @ b).reshape(-1))


def test_plan_matches_on_driver(mm: runtime.Executable, tmp_path: Path) -> None:
    """plan() agrees with the shapes the driver returns."""
    a, b = np.ones((4, 2), np.float32), np.ones((2, 6), np.float32)
    assert mm.plan(a, b).shapes == (mm(a, b).shape,)


CHOOSE_OR_TRUNCATE = """
func.func @f(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[a, b]>},
             %t: tensor<i32>, %k: tensor<i64>) -> tensor<?x?xf32> {
  %head = symshape.dynamic_truncate %x, %t axis 0 stage exact
      : (tensor<?x?xf32>, tensor<i32>) -> tensor<?x?xf32>
  %kv = tensor.extract %k[] : tensor<i64>
  %two = arith.constant 2 : i64
  %c = arith.cmpi sgt, %kv, %two : i64
  %r = scf.if %c -> (tensor<?x?xf32>) {
    scf.yield %x : tensor<?x?xf32>
  } else {
    scf.yield %head : tensor<?x?xf32>
  }
  return %r : tensor<?x?xf32>
}
"""


@pytest.mark.parametrize(("t", "k"), [(-2, 6), (2, 6), (-2, 0), (9, 0)])
def test_empty_tensor_inside_the_call(
    driver: str, tmp_path_factory: pytest.TempPathFactory, t: int, k: int
) -> None:
    """A call that makes an empty tensor inside it (a truncation to no rows,
    chosen or not) gives numpy's answer on every driver: Vulkan, which cannot
    bind it, runs the call on the host."""
    exe = runtime.compile(
        CHOOSE_OR_TRUNCATE,
        target=DRIVER_TARGETS[driver],
        driver=driver,
        cache_dir=tmp_path_factory.mktemp("cache"),
        hot_after=None,
        unplanned=True,  # a choice's size is known after the call
    )
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    got = exe(x, np.array(t, np.int32), np.array(k, np.int64))
    np.testing.assert_array_equal(got, x if k > 2 else x[: max(t, 0)])
