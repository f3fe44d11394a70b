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
