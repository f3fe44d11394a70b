"""The local-task device has glibc keep freed large blocks (`keep_large_blocks`).

Each case runs in a fresh interpreter, which opens the device, then maps,
touches and frees a block larger than glibc's mmap threshold twice: the
second round faults its pages in again unless malloc kept the block.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from symshape_mlir.backend.devices import MALLOC_ENV

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or platform.libc_ver()[0] != "glibc", reason="glibc's malloc only")

_BLOCK = 96 << 20
_PAGES = _BLOCK // 4096

_PROBE = f"""
import ctypes, resource
from symshape_mlir.backend.devices import get_device, keep_large_blocks
get_device("local-task")
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
def touch():
    block = libc.malloc({_BLOCK})
    ctypes.memset(block, 1, {_BLOCK})
    libc.free(block)
touch()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
touch()
print(keep_large_blocks(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _probe(malloc: str | None) -> tuple[str, int]:
    env = {k: v for k, v in os.environ.items() if k != MALLOC_ENV}
    if malloc is not None:
        env[MALLOC_ENV] = malloc
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    return out[0], int(out[1])


def test_local_task_device_keeps_large_blocks() -> None:
    kept, faults = _probe(None)
    assert kept == "True"
    assert faults < _PAGES // 10


def test_system_malloc_is_left_alone() -> None:
    kept, faults = _probe("system")
    assert kept == "False"
    assert faults > _PAGES // 2
