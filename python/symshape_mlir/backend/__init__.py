"""The IREE backend: compile MLIR modules with ``iree-compile``, run them with ``iree.runtime``.

Typical use::

    from symshape_mlir import backend

    compiled = backend.compile_module(text, "llvm-cpu")
    module = backend.load(compiled, "local-task")
    result = module.invoke("add", a, b)
"""

from __future__ import annotations

import logging

from symshape_mlir.backend.artifact import CompiledModule, executable_formats
from symshape_mlir.backend.compile import PHASES, ModuleSource, compile_module
from symshape_mlir.backend.devices import DRIVERS, available_drivers, get_device
from symshape_mlir.backend.diagnostics import Diagnostic, parse_diagnostics
from symshape_mlir.backend.errors import (
    BackendError,
    CompileError,
    DriverUnavailableError,
    RuntimeCallError,
    SignatureError,
)
from symshape_mlir.backend.runtime import Function, LoadedModule, load
from symshape_mlir.backend.signature import (
    OpaqueType,
    ScalarType,
    Signature,
    TensorType,
    parse_declaration,
)
from symshape_mlir.backend.targets import TARGETS, TargetSpec, get_target, target_flags

__all__ = [
    "DRIVERS",
    "PHASES",
    "TARGETS",
    "BackendError",
    "CompileError",
    "CompiledModule",
    "Diagnostic",
    "DriverUnavailableError",
    "Function",
    "LoadedModule",
    "ModuleSource",
    "OpaqueType",
    "RuntimeCallError",
    "ScalarType",
    "Signature",
    "SignatureError",
    "TargetSpec",
    "TensorType",
    "available_drivers",
    "compile_module",
    "executable_formats",
    "get_device",
    "get_target",
    "load",
    "parse_declaration",
    "parse_diagnostics",
    "target_flags",
]

logger = logging.getLogger(__name__)
