"""Copies between numpy arrays and IREE device buffers.

Results are read back without ``DeviceArray.to_host()``: on Vulkan that path
imports the numpy array's memory, which fails on lavapipe
(``minImportedHostPointerAlignment 4096``). A buffer the host cannot map is
copied into a separately allocated mappable buffer instead.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import iree.runtime as rt
import numpy as np

__all__ = ["to_device", "to_host"]

logger = logging.getLogger(__name__)

_MAPPABLE = int(rt.MemoryType.HOST_VISIBLE)
_MAPPING = int(rt.BufferUsage.MAPPING_SCOPED)
_STAGING_MEMORY = rt.MemoryType.HOST_LOCAL | rt.MemoryType.DEVICE_VISIBLE
_STAGING_USAGE = rt.BufferUsage.TRANSFER_TARGET | rt.BufferUsage.MAPPING_SCOPED


def to_device(
    device: rt.HalDevice, array: np.ndarray, element_type: rt.HalElementType
) -> rt.HalBufferView:
    """Copies a C-contiguous array into a new device buffer.

    Args:
        device: The device.
        array: The array; C-contiguous.
        element_type: The HAL element type of the array's dtype.

    Returns:
        A buffer view of the array's shape.
    """
    return device.allocator.allocate_buffer_copy(
        memory_type=rt.MemoryType.DEVICE_LOCAL,
        allowed_usage=rt.BufferUsage.DEFAULT,
        device=device,
        buffer=array,
        element_type=element_type,
    )


def _is_mappable(buffer: rt.HalBuffer) -> bool:
    return (buffer.memory_type() & _MAPPABLE) == _MAPPABLE and (
        buffer.allowed_usage() & _MAPPING
    ) == _MAPPING


def _read(mapped: rt.MappedMemory, view: rt.HalBufferView) -> np.ndarray:
    dtype = rt.HalElementType.map_to_dtype(view.element_type)
    return np.array(mapped.asarray(view.shape, dtype), copy=True)


def to_host(device: rt.HalDevice, views: Sequence[rt.HalBufferView]) -> list[np.ndarray]:
    """Copies buffer views into new numpy arrays.

    Mappable buffers are read directly; the others are copied to mappable
    staging buffers by chained queue copies, waited for once, then read.
    Zero-byte views are not touched (mapping them fails).

    Args:
        device: The device that owns the buffers.
        views: The views to read.

    Returns:
        One array per view, owning its memory.
    """
    arrays: dict[int, np.ndarray] = {}
    staged: list[tuple[int, rt.HalBuffer]] = []
    semaphore = None
    for i, view in enumerate(views):
        if view.byte_length == 0:
            arrays[i] = np.empty(view.shape, rt.HalElementType.map_to_dtype(view.element_type))
            continue
        buffer = view.get_buffer()
        if _is_mappable(buffer):
            arrays[i] = _read(view.map(), view)
            continue
        if semaphore is None:
            semaphore = device.create_semaphore(0)
        staging = device.allocator.allocate_buffer(
            memory_type=_STAGING_MEMORY,
            allowed_usage=_STAGING_USAGE,
            allocation_size=buffer.byte_length(),
        )
        step = len(staged)
        device.queue_copy(
            buffer,
            staging,
            wait_semaphores=rt.HalFence.create_at(semaphore, step),
            signal_semaphores=rt.HalFence.create_at(semaphore, step + 1),
        )
        staged.append((i, staging))
    if semaphore is not None:
        rt.HalFence.create_at(semaphore, len(staged)).wait()
        for i, staging in staged:
            arrays[i] = _read(staging.map(), views[i])
    return [arrays[i] for i in range(len(views))]
