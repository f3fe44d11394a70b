"""Copies between numpy arrays and device buffers (`backend.transfer.Transfers`).

The staged path (page-locked staging buffers and queue copies, what CUDA
and Vulkan devices use) runs here on the CPU drivers too, whose buffers
accept it; Vulkan runs it where lavapipe is installed.
"""

from __future__ import annotations

import iree.runtime as rt
import numpy as np
import pytest

from symshape_mlir.backend.devices import get_device, get_transfers
from symshape_mlir.backend.transfer import Transfers

from driver_support import require_driver

_F32 = rt.HalElementType.FLOAT_32
_I64 = rt.HalElementType.SINT_64


def _arrays() -> list[tuple[np.ndarray, rt.HalElementType]]:
    return [(np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5, _F32),
            (np.zeros((0, 4), np.float32), _F32),
            (np.array([7, -1, 2**40], np.int64), _I64),
            (np.float32(2.5).reshape(()), _F32)]


@pytest.mark.parametrize("staged", [True, False])
@pytest.mark.parametrize("driver", ["local-sync", "local-task", "vulkan"])
def test_round_trip(driver: str, staged: bool) -> None:
    """Arrays of every rank, an empty one among them, come back equal, with
    their shapes and dtypes."""
    require_driver(driver)
    transfers = Transfers(get_device(driver), staged_uploads=staged)
    arrays = _arrays()
    back = transfers.to_host(transfers.to_device(arrays))
    for (array, _), got in zip(arrays, back, strict=True):
        assert got.shape == array.shape and got.dtype == array.dtype
        np.testing.assert_array_equal(got, array)


def test_staging_buffers_are_reused_up_to_the_cap() -> None:
    """A staged upload keeps its staging buffer for the next of the same size;
    what would pass the cap is freed instead."""
    device = get_device("local-sync")
    x = np.ones((64, 64), np.float32)
    transfers = Transfers(device, staged_uploads=True, cache_bytes=x.nbytes)
    transfers.to_device([(x, _F32)])
    assert transfers.cached_bytes == x.nbytes
    view = transfers.to_device([(2 * x, _F32)])[0]
    assert transfers.cached_bytes == x.nbytes
    np.testing.assert_array_equal(transfers.to_host([view])[0], 2 * x)
    # Two staging buffers at once: only one fits under the cap.
    transfers.to_device([(x, _F32), (3 * x, _F32)])
    assert transfers.cached_bytes == x.nbytes
    none_kept = Transfers(device, staged_uploads=True, cache_bytes=0)
    none_kept.to_device([(x, _F32)])
    assert none_kept.cached_bytes == 0


def test_host_memory_drivers_upload_without_staging() -> None:
    """The CPU drivers' buffers are host memory: uploads are one copy and
    read-backs map them, so nothing is staged."""
    transfers = get_transfers("local-sync")
    before = transfers.cached_bytes
    views = transfers.to_device([(np.ones((128, 128), np.float32), _F32)])
    transfers.to_host(views)
    assert transfers.cached_bytes == before
    assert get_transfers("local-sync") is transfers


def test_clear_frees_the_kept_staging_buffers() -> None:
    """`Transfers.clear` (run for every device's transfers at exit) empties the cache."""
    transfers = Transfers(get_device("local-sync"), staged_uploads=True)
    transfers.to_device([(np.ones((16, 16), np.float32), _F32)])
    assert transfers.cached_bytes == 16 * 16 * 4
    transfers.clear()
    assert transfers.cached_bytes == 0
