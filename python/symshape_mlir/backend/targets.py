"""The IREE compilation targets and the ``iree-compile`` flags for each."""

from __future__ import annotations

import dataclasses
import logging
import re

__all__ = ["TARGETS", "TargetSpec", "get_target", "target_flags"]

logger = logging.getLogger(__name__)

_DATA_TILING_FLAG = "--iree-opt-data-tiling"


@dataclasses.dataclass(frozen=True)
class TargetSpec:
    """How to compile for one target and what runs the result.

    Attributes:
        name: The target's name (``"llvm-cpu"``, ``"vulkan"``, ...).
        device_flags: Flags selecting the HAL device and backend, and the
            backend's settings for every module.
        arch_flag: The flag naming the architecture, or None when the target
            has none.
        default_arch: The architecture used when the caller names none, or
            None to leave the flag out (IREE's default).
        data_tiling: Whether ``--iree-opt-data-tiling`` is on by default.
        executable_format: Matches the executable format strings an artifact
            for this target holds (e.g. ``embedded-elf-x86_64``).
        drivers: The runtime drivers that run artifacts of this target, the
            default first.
        static_flags: Flags for modules whose every shape is static (the
            runtime's static variants), where they are measured faster but
            would slow the dynamic module down.
    """

    name: str
    device_flags: tuple[str, ...]
    arch_flag: str | None
    default_arch: str | None
    data_tiling: bool
    executable_format: re.Pattern[str]
    drivers: tuple[str, ...]
    static_flags: tuple[str, ...] = ()


TARGETS: dict[str, TargetSpec] = {
    spec.name: spec
    for spec in (
        TargetSpec(
            name="llvm-cpu",
            device_flags=(
                "--iree-hal-target-device=local",
                "--iree-hal-local-target-device-backends=llvm-cpu",
                # f64 stays f64 (IREE demotes it to f32 by default and changes
                # the function's signature, so f64 arrays were refused).
                "--iree-input-demote-f64-to-f32=false",
                # Float reductions vectorized in any order (as numpy's pairwise
                # sums and onnxruntime's do): static variants of wav2vec2 at
                # 2x1000 and of BERT at 8x48 5-15 % faster in dispatches, one
                # thread; a softmax over rows of 192 1.09 -> 0.76 ms.
                "--iree-llvmcpu-reassociate-fp-reductions=true",
            ),
            arch_flag="--iree-llvmcpu-target-cpu",
            default_arch="host",
            # Dynamic-shape matmuls are 3-8x faster with data tiling.
            data_tiling=True,
            executable_format=re.compile(r"(?:embedded|system)-(?:elf|dll|dylib)-\w+"),
            drivers=("local-task", "local-sync"),
            # Vector loops peeled rather than masked: softmax over rows of 40
            # takes 0.19 ms instead of 1.18 (reductions whose length is not a
            # multiple of the vector width); whisper's and ViT's static variants
            # 1.2-1.4x faster. Dynamic modules are 3-5x slower with it (CNNs).
            # Workgroup tiles of at most 16 (IREE's default 64) along each
            # distributed loop: one thread, mobilenet_v2 at 4x128x128 2.6 ->
            # 2.26 ms, shufflenet 2.1 -> 1.65, wav2vec2 and wavlm at 4x4000 and
            # BERT-base attention at 8x128 9-13 % faster, resnet unchanged,
            # unet 10 % slower (32 is no better than 64).
            static_flags=("--iree-llvmcpu-vector-pproc-strategy=peel",
                          "--iree-llvmcpu-distribution-size=16"),
        ),
        TargetSpec(
            name="vulkan",
            device_flags=("--iree-hal-target-device=vulkan",),
            # Vendor targets (`rdna3`, `ampere`, ...) give wrong results on
            # lavapipe: IREE's default target is kept unless asked otherwise.
            arch_flag="--iree-vulkan-target",
            default_arch=None,
            data_tiling=False,
            executable_format=re.compile(r"vulkan-spirv-fb(?:-ptr)?"),
            drivers=("vulkan",),
        ),
        TargetSpec(
            name="cuda",
            device_flags=("--iree-hal-target-device=cuda",),
            arch_flag="--iree-cuda-target",
            # sm_90/sm_90a/sm_100 fail to compile in IREE 3.13; the driver
            # JITs sm_89 PTX on Hopper and newer.
            default_arch="sm_89",
            data_tiling=False,
            executable_format=re.compile(r"cuda-nvptx-fb"),
            drivers=("cuda",),
        ),
        TargetSpec(
            name="metal",
            device_flags=("--iree-hal-target-device=metal",),
            arch_flag=None,
            default_arch=None,
            data_tiling=False,
            executable_format=re.compile(r"metal-msl-fb"),
            drivers=("metal",),
        ),
        TargetSpec(
            name="rocm",
            device_flags=("--iree-hal-target-device=hip",),
            arch_flag="--iree-rocm-target",
            default_arch="gfx942",
            data_tiling=False,
            executable_format=re.compile(r"rocm-hsaco-fb"),
            drivers=("hip",),
        ),
    )
}


def get_target(name: str) -> TargetSpec:
    """Returns the spec of a target.

    Args:
        name: A key of `TARGETS`.

    Raises:
        ValueError: If the target is unknown.
    """
    try:
        return TARGETS[name]
    except KeyError:
        raise ValueError(f"unknown target '{name}'; expected one of {', '.join(TARGETS)}") from None


def target_flags(
    target: str, *, arch: str | None = None, data_tiling: bool | None = None
) -> tuple[str, ...]:
    """Returns the ``iree-compile`` flags that select a target.

    Args:
        target: A key of `TARGETS`.
        arch: The architecture (CPU name, ``sm_80``, ``gfx90a``, a Vulkan
            target, ...); None for the target's default.
        data_tiling: Turns ``--iree-opt-data-tiling`` on or off; None for the
            target's default (on for ``llvm-cpu``; IREE's default elsewhere).

    Returns:
        The flags, in order.

    Raises:
        ValueError: If the target is unknown, or ``arch`` is given for a
            target without an architecture flag.
    """
    spec = get_target(target)
    flags = list(spec.device_flags)
    if arch is not None and spec.arch_flag is None:
        raise ValueError(f"target '{target}' takes no architecture (got '{arch}')")
    chosen_arch = arch if arch is not None else spec.default_arch
    if chosen_arch is not None:
        flags.append(f"{spec.arch_flag}={chosen_arch}")
    if spec.data_tiling if data_tiling is None else data_tiling:
        flags.append(_DATA_TILING_FLAG)
    elif data_tiling is not None:
        flags.append(f"{_DATA_TILING_FLAG}=false")
    return tuple(flags)
