"""Copies between numpy arrays and IREE device buffers.

Results are read back without ``DeviceArray.to_host()``: on Vulkan that path
imports the numpy array's memory, which fails on lavapipe
(``minImportedHostPointerAlignment 4096``). A buffer the host cannot map is
copied into a mappable staging buffer instead.

On a device with memory of its own (CUDA, Vulkan) the staging buffers are
page-locked host memory, which is slow to allocate (5.7 ms for 12 MiB on an
H100 machine): `Transfers` keeps them, by size, for the next call. There
uploads also go through a staging buffer (the runtime's
``allocate_buffer_copy`` copied 12 MiB from pageable memory in 10.7 ms, a
staged copy takes about a tenth). A device in host memory (``local-sync``,
``local-task``) maps its buffers, and an upload is one host copy.

Example:
    >>> transfers = Transfers(device, staged_uploads=True)
    >>> views = transfers.to_device([(x, rt.HalElementType.FLOAT_32)])
    >>> transfers.to_host(views)[0].shape == x.shape
    True
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import iree.runtime as rt
import numpy as np

__all__ = ["STAGING_CACHE_BYTES", "Transfers"]

#: Page-locked staging memory a device keeps for reuse, at most.
STAGING_CACHE_BYTES = 256 << 20

_MAPPABLE = int(rt.MemoryType.HOST_VISIBLE)
_MAPPING = int(rt.BufferUsage.MAPPING_SCOPED)
_STAGING_MEMORY = rt.MemoryType.HOST_LOCAL | rt.MemoryType.DEVICE_VISIBLE
_STAGING_USAGE = rt.BufferUsage.TRANSFER | rt.BufferUsage.MAPPING_SCOPED


def _is_mappable(buffer: rt.HalBuffer) -> bool:
    return (buffer.memory_type() & _MAPPABLE) == _MAPPABLE and (
        buffer.allowed_usage() & _MAPPING
    ) == _MAPPING


def _dtype(view: rt.HalBufferView) -> np.dtype:
    return np.dtype(rt.HalElementType.map_to_dtype(view.element_type))


def _read(mapped: rt.MappedMemory, view: rt.HalBufferView) -> np.ndarray:
    return np.array(mapped.asarray(view.shape, _dtype(view)), copy=True)


class _Chain:
    """Queue copies that run one after another, waited for once."""

    def __init__(self, device: rt.HalDevice) -> None:
        self._device = device
        self._semaphore: rt.HalSemaphore | None = None
        self._steps = 0

    def copy(self, source: rt.HalBuffer, target: rt.HalBuffer) -> None:
        if self._semaphore is None:
            self._semaphore = self._device.create_semaphore(0)
        self._device.queue_copy(
            source,
            target,
            wait_semaphores=rt.HalFence.create_at(self._semaphore, self._steps),
            signal_semaphores=rt.HalFence.create_at(self._semaphore, self._steps + 1),
        )
        self._steps += 1

    def wait(self) -> None:
        if self._semaphore is not None:
            rt.HalFence.create_at(self._semaphore, self._steps).wait()


class Transfers:
    """Copies between numpy arrays and one device's buffers.

    Staging buffers (mappable host memory the device can copy to and from)
    are reused by exact byte size, up to `STAGING_CACHE_BYTES` in all; a
    buffer is taken by one transfer at a time, so calls on several threads
    may share the object.

    Args:
        device: The device.
        staged_uploads: Upload through a staging buffer and a queue copy
            (a device with memory of its own) rather than with the
            allocator's copy.
        cache_bytes: The staging memory kept for reuse, at most.
    """

    def __init__(self, device: rt.HalDevice, staged_uploads: bool,
                 cache_bytes: int = STAGING_CACHE_BYTES) -> None:
        self._device = device
        self._staged_uploads = staged_uploads
        self._cache_bytes = cache_bytes
        self._free: dict[int, list[rt.HalBuffer]] = {}
        self._cached = 0
        self._lock = threading.Lock()

    @property
    def cached_bytes(self) -> int:
        """The staging memory now kept for reuse."""
        return self._cached

    def clear(self) -> None:
        """Frees the staging buffers kept for reuse."""
        with self._lock:
            self._free.clear()
            self._cached = 0

    def _take(self, size: int) -> rt.HalBuffer:
        with self._lock:
            free = self._free.get(size)
            if free:
                self._cached -= size
                return free.pop()
        return self._device.allocator.allocate_buffer(
            memory_type=_STAGING_MEMORY, allowed_usage=_STAGING_USAGE, allocation_size=size)

    def _give(self, buffer: rt.HalBuffer) -> None:
        size = buffer.byte_length()
        with self._lock:
            if self._cached + size <= self._cache_bytes:
                self._free.setdefault(size, []).append(buffer)
                self._cached += size

    def to_device(
        self, arrays: Sequence[tuple[np.ndarray, rt.HalElementType]]
    ) -> list[rt.HalBufferView]:
        """Copies C-contiguous arrays into new device buffers.

        Args:
            arrays: Per array, the array and the HAL element type of its dtype.

        Returns:
            A buffer view of each array's shape, in order; staged copies
            have completed when it returns.
        """
        views: list[rt.HalBufferView] = []
        chain = _Chain(self._device)
        staged: list[rt.HalBuffer] = []
        for array, element_type in arrays:
            if not self._staged_uploads or array.nbytes == 0:
                views.append(self._device.allocator.allocate_buffer_copy(
                    memory_type=rt.MemoryType.DEVICE_LOCAL,
                    allowed_usage=rt.BufferUsage.DEFAULT,
                    device=self._device,
                    buffer=array,
                    element_type=element_type,
                ))
                continue
            staging = self._take(array.nbytes)
            staging.map().asarray(array.shape, array.dtype)[...] = array
            target = self._device.allocator.allocate_buffer(
                memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT,
                allocation_size=array.nbytes)
            chain.copy(staging, target)
            staged.append(staging)
            views.append(rt.HalBufferView(target, list(array.shape), element_type))
        chain.wait()
        for staging in staged:
            self._give(staging)
        return views

    def to_host(self, views: Sequence[rt.HalBufferView]) -> list[np.ndarray]:
        """Copies buffer views into new numpy arrays.

        Mappable buffers are read directly; the others are copied to staging
        buffers by chained queue copies, waited for once, then read.
        Zero-byte views are not touched (mapping them fails).

        Args:
            views: The views to read; their buffers belong to the device.

        Returns:
            One array per view, owning its memory.
        """
        arrays: dict[int, np.ndarray] = {}
        staged: list[tuple[int, rt.HalBuffer]] = []
        chain = _Chain(self._device)
        for i, view in enumerate(views):
            if view.byte_length == 0:
                arrays[i] = np.empty(view.shape, _dtype(view))
                continue
            buffer = view.get_buffer()
            if _is_mappable(buffer):
                arrays[i] = _read(view.map(), view)
                continue
            staging = self._take(buffer.byte_length())
            chain.copy(buffer, staging)
            staged.append((i, staging))
        chain.wait()
        for i, staging in staged:
            arrays[i] = _read(staging.map(), views[i])
            self._give(staging)
        return [arrays[i] for i in range(len(views))]
