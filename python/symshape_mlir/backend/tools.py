"""Locates the IREE command-line tools shipped by the installed IREE wheels."""

from __future__ import annotations

import functools
import importlib.metadata
import logging
import os
import sys
from pathlib import Path

from symshape_mlir.backend.errors import BackendError

__all__ = ["iree_compile_path", "iree_dump_module_path"]

logger = logging.getLogger(__name__)


def _find_tool(distribution: str, wheel_path: str, name: str) -> Path:
    """Finds a native tool inside an installed wheel, else next to Python.

    The native binary inside the wheel is preferred: the console script of the
    same name that pip puts next to the interpreter starts a Python process
    (and, for the compiler, imports ``iree.compiler``) before running it.

    Args:
        distribution: The distribution that ships the tool.
        wheel_path: The tool's path inside the distribution's files.
        name: The executable's name.

    Returns:
        The path of an executable file.

    Raises:
        BackendError: If neither location holds an executable.
    """
    candidates: list[Path] = []
    try:
        files = importlib.metadata.files(distribution) or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    candidates.extend(Path(str(f.locate())) for f in files if str(f) == wheel_path)
    candidates.append(Path(sys.executable).parent / name)
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            logger.debug("using %s at %s", name, candidate)
            return candidate
    raise BackendError(
        f"{name} not found (looked in: {', '.join(map(str, candidates))}); install {distribution}"
    )


@functools.cache
def iree_compile_path() -> Path:
    """Returns the ``iree-compile`` executable of ``iree-base-compiler``.

    Raises:
        BackendError: If the compiler is not installed.
    """
    return _find_tool("iree-base-compiler", "iree/compiler/_mlir_libs/iree-compile", "iree-compile")


@functools.cache
def iree_dump_module_path() -> Path:
    """Returns the ``iree-dump-module`` executable of ``iree-base-runtime``.

    Raises:
        BackendError: If the runtime wheel is not installed.
    """
    return _find_tool(
        "iree-base-runtime", "iree/_runtime_libs/iree-dump-module", "iree-dump-module"
    )
