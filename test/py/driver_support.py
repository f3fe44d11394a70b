"""Runtime drivers for the tests: which exist here, and lavapipe for Vulkan.

Vulkan runs on Mesa's CPU implementation (lavapipe) when no GPU is present:
as root, a missing driver is installed by ``scripts/install_lavapipe.sh``;
otherwise the Vulkan tests skip with the reason. CUDA tests skip unless a
device opens.
"""

from __future__ import annotations

import ctypes.util
import os
import subprocess
from pathlib import Path

import pytest

from symshape_mlir import backend
from symshape_mlir.backend import DriverUnavailableError

__all__ = ["DRIVER_TARGETS", "require_driver"]

INSTALL_LAVAPIPE = Path(__file__).resolve().parents[2] / "scripts" / "install_lavapipe.sh"
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
    """Skips (with the reason) when ``driver`` has no device here.

    For ``vulkan``, installs lavapipe first when running as root without a
    Vulkan driver.
    """
    if driver == "vulkan" and not _vulkan_installed():
        if os.geteuid() != 0:
            pytest.skip("no Vulkan ICD or loader, and not root: run scripts/install_lavapipe.sh")
        proc = subprocess.run(
            ["bash", str(INSTALL_LAVAPIPE)], capture_output=True, text=True, check=False
        )
        print(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            pytest.skip(f"install_lavapipe.sh failed: {proc.stderr.strip()}")
    try:
        backend.get_device(driver)
    except DriverUnavailableError as exc:
        pytest.skip(str(exc))
