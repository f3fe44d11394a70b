"""Runtime drivers for the tests: which exist here, and lavapipe for Vulkan.

Vulkan runs on Mesa's CPU implementation (lavapipe) when no GPU is present.
The tests never install system packages: ``scripts/test.sh`` runs
``scripts/install_lavapipe.sh`` before them, and without a Vulkan driver the
Vulkan tests skip, naming that command. CUDA tests skip unless a device
opens.
"""

from __future__ import annotations

import ctypes.util
from pathlib import Path

import pytest

from symshape_mlir import backend
from symshape_mlir.backend import DriverUnavailableError

__all__ = ["DRIVER_TARGETS", "require_driver"]

VULKAN_ICD_DIRS = ("/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d")
# The driver under test -> the target its artifacts are compiled for.
DRIVER_TARGETS = {
    "local-task": "llvm-cpu",
    "local-sync": "llvm-cpu",
    "vulkan": "vulkan",
    "cuda": "cuda",
}


def _vulkan_installed() -> bool:
    has_icd = any(any(Path(d).glob("*.json")) for d in VULKAN_ICD_DIRS if Path(d).is_dir())
    return has_icd and ctypes.util.find_library("vulkan") is not None


def require_driver(driver: str) -> None:
    """Skips (with the reason) when ``driver`` has no device here."""
    if driver == "vulkan" and not _vulkan_installed():
        pytest.skip("no Vulkan ICD or loader: install lavapipe with "
                    "'sudo bash scripts/install_lavapipe.sh'")
    try:
        backend.get_device(driver)
    except DriverUnavailableError as exc:
        pytest.skip(str(exc))
