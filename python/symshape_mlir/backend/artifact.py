"""Compiled IREE modules (``.vmfb``) and what executables they hold."""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import re
import subprocess
import tempfile
from pathlib import Path

from symshape_mlir.backend.errors import BackendError
from symshape_mlir.backend.targets import TARGETS
from symshape_mlir.backend.tools import iree_dump_module_path

__all__ = ["CompiledModule", "executable_formats"]

logger = logging.getLogger(__name__)

# The executable formats of every target. A module names the format of each
# executable it creates in a read-only data segment.
_EXECUTABLE_FORMAT = re.compile(
    "|".join(f"(?:{spec.executable_format.pattern})" for spec in TARGETS.values())
)


def executable_formats(vmfb: bytes) -> frozenset[str]:
    """Returns the executable formats a compiled module holds.

    Reads the module's read-only data segments with ``iree-dump-module``:
    each HAL executable is created from a data segment and a format string
    segment (``embedded-elf-x86_64``, ``vulkan-spirv-fb``, ``cuda-nvptx-fb``,
    ``metal-msl-fb``, ``rocm-hsaco-fb``: the formats of the targets in
    `TARGETS`).

    Args:
        vmfb: The module's bytes.

    Returns:
        The format strings found; empty for a module without executables.

    Raises:
        BackendError: If ``iree-dump-module`` cannot read the module.
    """
    with tempfile.TemporaryDirectory(prefix="symshape-vmfb-") as tmp:
        path = Path(tmp) / "module.vmfb"
        path.write_bytes(vmfb)
        proc = subprocess.run(
            [str(iree_dump_module_path()), "--output=flatbuffer-json", str(path)],
            capture_output=True,
            check=False,
        )
    if proc.returncode != 0:
        raise BackendError(
            "iree-dump-module could not read the module: "
            + proc.stderr.decode(errors="replace").strip()
        )
    module = json.loads(proc.stdout)
    found = set()
    for segment in module.get("rodata_segments", []):
        text = bytes(segment.get("embedded_data", [])).decode("latin-1")
        if _EXECUTABLE_FORMAT.fullmatch(text):
            found.add(text)
    return frozenset(found)


@dataclasses.dataclass(frozen=True)
class CompiledModule:
    """An IREE module compiled for one target.

    Attributes:
        vmfb: The module's bytes (an IREE VM flatbuffer archive).
        target: The target compiled for (a key of `TARGETS`).
        flags: Every ``iree-compile`` flag used, target flags first.
        compile_seconds: Wall time of the compilation.
        compiler_output: What the compiler printed to stderr on success
            (IREE's warnings, e.g. about demoted types).
    """

    vmfb: bytes = dataclasses.field(repr=False)
    target: str
    flags: tuple[str, ...]
    compile_seconds: float = dataclasses.field(default=0.0, compare=False)
    compiler_output: str = dataclasses.field(default="", compare=False, repr=False)

    @functools.cached_property
    def executable_formats(self) -> frozenset[str]:
        """The executable formats the module holds (see `executable_formats`)."""
        return executable_formats(self.vmfb)
