"""Runtime drivers and the devices they open, shared within the process."""

from __future__ import annotations

import atexit
import ctypes
import functools
import logging
import os
import platform
import threading

import iree.runtime as rt

from symshape_mlir.backend.errors import DriverUnavailableError
from symshape_mlir.backend.transfer import Transfers

__all__ = [
    "ALLOCATOR",
    "CACHE_BYTES",
    "DRIVERS",
    "MALLOC_ENV",
    "available_drivers",
    "binds_empty_buffers",
    "get_device",
    "get_transfers",
    "keep_large_blocks",
    "vm_instance",
]

logger = logging.getLogger(__name__)

# The drivers the backend knows, in the names `iree.runtime` uses.
DRIVERS: tuple[str, ...] = ("local-task", "local-sync", "vulkan", "cuda", "hip", "metal")
# Drivers that reject a dispatch binding of zero bytes: calls on them with
# zero-element tensors must not dispatch. Vulkan refuses the binding ("resolved
# to an empty buffer range"); CUDA fails the call's `hal.device.queue.dealloca`
# of the empty buffer (INVALID_ARGUMENT), after which every allocation on the
# device fails too (IREE 3.13, H100).
_NO_EMPTY_BINDINGS = frozenset({"vulkan", "cuda"})
# The CPU drivers allocate through IREE's caching allocator: its own takes each
# call's transient buffers from the system allocator, which maps large ones
# afresh, and every page of them faulted in on every call (the upsampler at
# 4x128x128: 10,900 page faults and 46 ms per call, 21 ms with the cache, one
# thread). A freed buffer is kept for a later one of the same size while all
# buffers together stay within `CACHE_BYTES` (the oldest kept ones go first).
CACHE_BYTES = 1 << 30
#: That allocator's spec (heap ``*``: max size per buffer; bytes kept; buffers kept).
ALLOCATOR = f"caching:*=*;{CACHE_BYTES};64"
_ALLOCATORS = {driver: [ALLOCATOR] for driver in ("local-task", "local-sync")}
# The local-task device takes a call's transients from a pool of 64 MiB and,
# beyond it, from malloc, which maps each block over 32 MiB afresh (glibc) and
# unmaps it when freed: every page faulted in and zeroed on every call
# (BERT-base attention at 4x384: 19,000 faults and 84 ms per call, 64 ms
# without; local-sync allocates through `ALLOCATOR`). `keep_large_blocks`
# has glibc serve large blocks from its heap instead (``M_MMAP_MAX`` 0) and
# keep up to `CACHE_BYTES` free at the heap's top (``M_TRIM_THRESHOLD``).
_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4
#: The environment variable that, set to ``system``, leaves malloc as it is.
MALLOC_ENV = "SYMSHAPE_MALLOC"

# Drivers whose device buffers are host memory: they map, and an upload is one
# host copy (the others stage uploads through page-locked buffers, `Transfers`).
_HOST_MEMORY = frozenset({"local-task", "local-sync"})

_lock = threading.Lock()
_devices: dict[str, rt.HalDevice] = {}
_transfers: dict[str, Transfers] = {}


@functools.cache
def vm_instance() -> rt.VmInstance:
    """Returns the process's IREE VM instance."""
    return rt.VmInstance()


@functools.cache
def keep_large_blocks() -> bool:
    """Has glibc's malloc keep freed large blocks for the next call's
    transients (see `MALLOC_ENV` to opt out); returns whether it does.

    Process-wide and once: the heap then holds large blocks of every
    allocation (numpy's too) and returns freed memory to the system only
    beyond `CACHE_BYTES` at its top. Other C libraries are left alone.
    """
    if os.environ.get(MALLOC_ENV) == "system" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    kept = bool(libc.mallopt(_M_MMAP_MAX, 0)) and bool(libc.mallopt(_M_TRIM_THRESHOLD,
                                                                     CACHE_BYTES))
    logger.debug("malloc keeps large blocks: %s", kept)
    return kept


def available_drivers() -> frozenset[str]:
    """Returns the drivers compiled into the installed IREE runtime."""
    return frozenset(rt.query_available_drivers())


def binds_empty_buffers(driver: str) -> bool:
    """Whether a driver accepts zero-byte dispatch bindings."""
    return driver not in _NO_EMPTY_BINDINGS


def get_device(driver: str) -> rt.HalDevice:
    """Returns the process's device for a driver, opening it on first use.

    Args:
        driver: A name in `DRIVERS`.

    Returns:
        The driver's default device.

    Raises:
        ValueError: If the driver name is unknown.
        DriverUnavailableError: If the runtime lacks the driver or no device
            of it can be opened (no GPU, no Vulkan ICD, ...).
    """
    if driver not in DRIVERS:
        raise ValueError(f"unknown driver '{driver}'; expected one of {', '.join(DRIVERS)}")
    with _lock:
        device = _devices.get(driver)
        if device is not None:
            return device
        if driver not in available_drivers():
            raise DriverUnavailableError(
                f"driver '{driver}' is not in this IREE runtime (it has: "
                f"{', '.join(sorted(available_drivers()))})"
            )
        if driver == "local-task":
            keep_large_blocks()
        try:
            device = rt.get_driver(driver).create_default_device(
                allocators=_ALLOCATORS.get(driver))
        except (RuntimeError, ValueError, OSError) as exc:
            raise DriverUnavailableError(f"driver '{driver}' cannot open a device: {exc}") from exc
        logger.debug("opened a %s device", driver)
        _devices[driver] = device
        return device


def get_transfers(driver: str) -> Transfers:
    """Returns the copier between numpy arrays and the driver's device
    (`get_device`), whose staging buffers calls on that device share.

    Raises:
        ValueError, DriverUnavailableError: As `get_device`.
    """
    device = get_device(driver)
    with _lock:
        transfers = _transfers.get(driver)
        if transfers is None:
            transfers = _transfers[driver] = Transfers(
                device, staged_uploads=driver not in _HOST_MEMORY)
        return transfers


@atexit.register
def _release_staging() -> None:
    """Frees the kept staging buffers before the runtime's module is torn down
    (buffers alive then are reported as leaks, and outlive their device)."""
    with _lock:
        for transfers in _transfers.values():
            transfers.clear()
