"""Compiles MLIR modules to IREE modules by running ``iree-compile``.

The compiler runs as a subprocess: ``iree.compiler`` and the upstream ``mlir``
Python package cannot be imported into one process (both ship
``libnanobind-mlir.so``).
"""

from __future__ import annotations

import logging
import subprocess
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Union

from symshape_mlir.backend.artifact import CompiledModule
from symshape_mlir.backend.diagnostics import parse_diagnostics
from symshape_mlir.backend.errors import CompileError
from symshape_mlir.backend.targets import target_flags
from symshape_mlir.backend.tools import iree_compile_path

if TYPE_CHECKING:
    import mlir.ir

__all__ = ["PHASES", "ModuleSource", "compile_module"]

logger = logging.getLogger(__name__)

ModuleSource = Union[str, "mlir.ir.Module", "mlir.ir.Operation", "mlir.ir.OpView"]

# IREE's `--compile-to` phases, in pipeline order; `start` is parsing.
PHASES: tuple[str, ...] = (
    "start",
    "input",
    "abi",
    "preprocessing",
    "global-optimization",
    "dispatch-creation",
    "flow",
    "stream",
    "executable-sources",
    "executable-configurations",
    "executable-targets",
    "hal",
    "vm",
    "end",
)
_PARSE_PHASE = "parse"
_COMMAND_LINE_PHASE = "command-line"
# LLVM's option parser prefixes its errors with the program name.
_OPTION_ERROR_PREFIX = "iree-compile: "


def _module_text(module: ModuleSource) -> str:
    """Returns the MLIR text of a module, keeping its source locations.

    Args:
        module: MLIR text, or an ``mlir.ir`` module or operation.

    Raises:
        TypeError: If ``module`` is none of these.
    """
    if isinstance(module, str):
        return module
    operation = getattr(module, "operation", None)
    if operation is None or not hasattr(operation, "get_asm"):
        raise TypeError(
            f"expected MLIR text or an mlir.ir Module/Operation, got {type(module).__name__}"
        )
    return operation.get_asm(enable_debug_info=True)


def _run(
    command: Sequence[str], source: bytes, timeout: float | None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        list(command), input=source, capture_output=True, timeout=timeout, check=False
    )


def _locate_phase(command: Sequence[str], source: bytes, timeout: float | None) -> str | None:
    """Finds the first ``--compile-to`` phase that fails, by bisection.

    Args:
        command: The failed command line, writing to stdout.
        source: The module text.
        timeout: Per-run time limit in seconds.

    Returns:
        The failing phase (``"parse"`` for ``start``), or None if a rerun
        timed out.
    """
    passing, failing = -1, len(PHASES) - 1  # The full pipeline failed.
    while failing - passing > 1:
        middle = (passing + failing) // 2
        try:
            proc = _run([*command, f"--compile-to={PHASES[middle]}"], source, timeout)
        except subprocess.TimeoutExpired:
            return None
        if proc.returncode == 0:
            passing = middle
        else:
            failing = middle
    phase = PHASES[failing]
    return _PARSE_PHASE if phase == "start" else phase


def compile_module(
    module: ModuleSource,
    target: str = "llvm-cpu",
    *,
    flags: Sequence[str] = (),
    arch: str | None = None,
    data_tiling: bool | None = None,
    timeout: float | None = None,
    locate_phase: bool = True,
) -> CompiledModule:
    """Compiles a module with ``iree-compile`` for one target.

    Args:
        module: MLIR text, or an ``mlir.ir`` module or operation (printed with
            its locations, so diagnostics point at the original source). Text
            is read from stdin: its diagnostics name the file ``<stdin>``.
        target: ``"llvm-cpu"`` (the host CPU), ``"vulkan"``, ``"cuda"``,
            ``"metal"`` or ``"rocm"``.
        flags: Extra ``iree-compile`` flags, passed after the target's flags
            (a repeated option takes the last value).
        arch: The target architecture (see `target_flags`): a CPU name for
            ``llvm-cpu`` (default ``host``), ``sm_XX`` for ``cuda`` (default
            ``sm_89``), ``gfxNNN`` for ``rocm`` (default ``gfx942``), a Vulkan
            target for ``vulkan`` (default: IREE's generic target).
        data_tiling: ``--iree-opt-data-tiling`` on or off; None for the
            target's default (on for ``llvm-cpu``).
        timeout: Time limit in seconds for the compilation.
        locate_phase: On failure, rerun the compiler up to a few times with
            ``--compile-to`` to find the failing phase.

    Returns:
        The compiled module.

    Raises:
        CompileError: If the compiler fails or times out.
        ValueError: If the target is unknown or takes no ``arch``.
        TypeError: If ``module`` is neither text nor an MLIR operation.
        BackendError: If ``iree-compile`` is not installed.
    """
    all_flags = (*target_flags(target, arch=arch, data_tiling=data_tiling), *flags)
    command = (str(iree_compile_path()), "-", *all_flags, "-o", "-")
    source = _module_text(module).encode()
    logger.debug("running %s", " ".join(command))
    start = time.perf_counter()
    try:
        proc = _run(command, source, timeout)
    except subprocess.TimeoutExpired as exc:
        raise CompileError(
            target=target,
            phase=None,
            diagnostics=(),
            stderr=f"timed out after {exc.timeout} s",
            returncode=None,
            command=command,
        ) from None
    seconds = time.perf_counter() - start
    stderr = proc.stderr.decode(errors="replace")
    if proc.returncode != 0:
        if stderr.startswith(_OPTION_ERROR_PREFIX):
            phase: str | None = _COMMAND_LINE_PHASE
        elif locate_phase:
            phase = _locate_phase(command, source, timeout)
        else:
            phase = None
        raise CompileError(
            target=target,
            phase=phase,
            diagnostics=parse_diagnostics(stderr),
            stderr=stderr,
            returncode=proc.returncode,
            command=command,
        )
    if stderr.strip():
        logger.warning("iree-compile (%s) printed:\n%s", target, stderr.strip())
    logger.debug("compiled for %s in %.2f s", target, seconds)
    return CompiledModule(
        vmfb=proc.stdout,
        target=target,
        flags=all_flags,
        compile_seconds=seconds,
        compiler_output=stderr,
    )
