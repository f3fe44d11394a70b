"""The module an executable compiles: read once, copied for each compile.

Every compile (the dynamic module, each static variant, each packed
variant) transforms its own copy of the source module. A module given as
an ``mlir.ir`` object is cloned, never printed and parsed again, so its
constants' blobs stay the buffers they wrap; text or a file is parsed on
the first compile (a disk-cache hit parses nothing). The module reaches
text only where ``iree-compile``, another process, reads it.

Example:
    >>> source = ModuleSource(traced.module)                # doctest: +SKIP
    >>> with source.copy() as module:                       # doctest: +SKIP
    ...     run_pipeline(module, "builtin.module(symshape-to-iree)")
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mlir import ir

from symshape_mlir.context import new_context

__all__ = ["ModuleSource"]


class _Digest:
    """A file-like sink that hashes what is written to it (for ``write_bytecode``)."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.hash.update(data)
        return len(data)


class ModuleSource:
    """A module to compile, from a ``.mlir`` path, MLIR text or an ``mlir.ir`` module.

    Attributes:
        filename: The file it was read from (None for text or a module).
        name: How compile logs and errors name it (``@file`` or ``@module``).

    Raises:
        FileNotFoundError: A one-line string that is no file and no MLIR text.
        TypeError: Anything else that is no module.
    """

    def __init__(self, module: Any) -> None:
        self._text: str | None = None
        self._module: ir.Operation | None = None
        self._parsed_module: ir.Module | None = None
        self.filename: str | None = None
        if isinstance(module, os.PathLike) or (
            isinstance(module, str) and "\n" not in module and os.path.isfile(module)
        ):
            path = Path(module)
            self._text = path.read_text()
            self.filename = str(path)
        elif isinstance(module, str):
            if "\n" not in module and "{" not in module and module.strip():
                # One line without a region is no module: a path that names no file.
                raise FileNotFoundError(f"no file {module!r} (and not MLIR text)")
            self._text = module
        else:
            operation = getattr(module, "operation", None)
            if not isinstance(operation, ir.Operation) or operation.name != "builtin.module":
                raise TypeError(
                    "expected a .mlir path, MLIR text or an mlir.ir Module, "
                    f"got {type(module).__name__}")
            # A copy of its own: the caller may change or drop the module later.
            self._module = operation.clone(ip=False)
        self.name = f"@{self.filename or 'module'}"
        self._digest: str | None = None
        # Guards the fields above; `_turn` lets one compile at a time copy.
        self._lock = threading.Lock()
        self._turn = threading.Lock()

    @property
    def digest(self) -> str:
        """The SHA-256 of the source: of its text, or of a module's bytecode
        (which holds the constants' blobs as they are, not as hex)."""
        with self._lock:
            if self._digest is None:
                if self._text is not None:
                    self._digest = hashlib.sha256(self._text.encode()).hexdigest()
                else:
                    assert self._module is not None
                    sink = _Digest()
                    self._module.write_bytecode(sink)
                    self._digest = sink.hash.hexdigest()
            return self._digest

    @contextlib.contextmanager
    def copy(self) -> Iterator[ir.Operation]:
        """A fresh copy of the module, for one compile to transform, with its
        context entered; compiles of one source take turns. The context's
        ``allow_unregistered_dialects`` (which lowering to IREE sets) is
        restored afterwards: a caller's context is left as it was.

        Raises:
            ir.MLIRError: The source text does not parse.
        """
        with self._turn:
            module = self._parsed()
            context = module.context
            unregistered = context.allow_unregistered_dialects
            copy = module.clone(ip=False)
            try:
                with context:
                    yield copy
            finally:
                copy.erase()
                context.allow_unregistered_dialects = unregistered

    def _parsed(self) -> ir.Operation:
        """The source module (text is parsed in a context of its own on first use,
        then dropped: only its digest is kept)."""
        with self._lock:
            if self._module is None:
                text = self._text
                assert text is not None
                context = new_context()
                if self.filename is not None:
                    parsed = ir.Module.parseFile(self.filename, context)
                else:
                    parsed = ir.Module.parse(text, context)
                self._parsed_module = parsed  # owns the operation below
                self._module = parsed.operation
                if self._digest is None:
                    self._digest = hashlib.sha256(text.encode()).hexdigest()
                self._text = None
            return self._module
