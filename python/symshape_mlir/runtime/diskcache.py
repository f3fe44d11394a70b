"""The on-disk cache of compiled artifacts, shared by processes.

An entry is a ``.vmfb`` and a ``.json`` of captured sizes, keyed by a hash
of the module text, the target, every ``iree-compile`` flag, the
specialization bindings, the IREE compiler version and a fingerprint of the
installed symshape passes (so an edited pass never serves a stale artifact).
Writers hold a `filelock.FileLock` per key: when several processes compile
the same module at once, one compiles and the others wait, then read::

    >>> cache = DiskCache(Path("/tmp/symshape-cache"))
    >>> key = cache_key(text, "llvm-cpu", flags, bindings="")
    >>> with cache.locked(key):
    ...     entry = cache.read(key) or cache.write(key, vmfb, meta)

The directory is ``$SYMSHAPE_MLIR_CACHE_DIR`` or ``~/.cache/symshape-mlir``
unless the caller names one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import importlib.metadata
import json
import logging
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import filelock

__all__ = ["CacheEntry", "DiskCache", "cache_key", "default_cache_dir", "toolchain_fingerprint"]

logger = logging.getLogger(__name__)

_FORMAT = 1
_ENV = "SYMSHAPE_MLIR_CACHE_DIR"


def default_cache_dir() -> Path:
    """``$SYMSHAPE_MLIR_CACHE_DIR``, else ``~/.cache/symshape-mlir``."""
    env = os.environ.get(_ENV)
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "symshape-mlir"


@functools.cache
def toolchain_fingerprint() -> str:
    """A hash of the IREE compiler version and the installed symshape sources.

    The sources (Python passes and the dialect extension) are identified by
    path, size and modification time: cheap, and any edit changes it.
    """
    digest = hashlib.sha256()
    for dist in ("iree-base-compiler", "symshape-mlir"):
        try:
            digest.update(f"{dist}={importlib.metadata.version(dist)};".encode())
        except importlib.metadata.PackageNotFoundError:
            digest.update(f"{dist}=none;".encode())
    import symshape_mlir
    import symshape_mlir.passes

    roots = {Path(symshape_mlir.__file__).parent, Path(symshape_mlir.passes.__file__).parent}
    for root in sorted(roots):
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".so") and path.is_file():
                stat = path.stat()
                digest.update(f"{path}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    return digest.hexdigest()[:16]


def cache_key(text: str, target: str, flags: Sequence[str], *, bindings: str) -> str:
    """The key of one artifact.

    Args:
        text: The module's source text.
        target: The IREE target.
        flags: Every ``iree-compile`` flag.
        bindings: The ``symshape-specialize`` bindings (``"batch=32"``), or
            ``""`` for the dynamic artifact.
    """
    fields = {
        "format": _FORMAT,
        "text": hashlib.sha256(text.encode()).hexdigest(),
        "target": target,
        "flags": list(flags),
        "bindings": bindings,
        "toolchain": toolchain_fingerprint(),
    }
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:32]


@dataclasses.dataclass(frozen=True)
class CacheEntry:
    """One cached artifact.

    Attributes:
        vmfb: The compiled module.
        meta: What was stored beside it (captured sizes, flags, timings).
    """

    vmfb: bytes = dataclasses.field(repr=False)
    meta: dict[str, Any]


class DiskCache:
    """A directory of artifacts, safe to share between processes."""

    def __init__(self, directory: Path) -> None:
        """Uses (and creates) ``directory``."""
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str, suffix: str) -> Path:
        return self.directory / f"{key}{suffix}"

    @contextlib.contextmanager
    def locked(self, key: str, timeout: float = -1) -> Iterator[None]:
        """Holds the inter-process lock of one key."""
        with filelock.FileLock(str(self._path(key, ".lock")), timeout=timeout):
            yield

    def read(self, key: str) -> CacheEntry | None:
        """Returns the entry of ``key``, or None (also for a damaged entry)."""
        meta_path, vmfb_path = self._path(key, ".json"), self._path(key, ".vmfb")
        try:
            meta = json.loads(meta_path.read_text())
            vmfb = vmfb_path.read_bytes()
        except (OSError, ValueError):
            return None
        if meta.get("vmfb_size") != len(vmfb):
            logger.warning("ignoring a damaged cache entry %s", vmfb_path)
            return None
        return CacheEntry(vmfb, meta)

    def write(self, key: str, vmfb: bytes, meta: dict[str, Any]) -> CacheEntry:
        """Stores an entry atomically (the artifact first, the metadata last)."""
        meta = {**meta, "vmfb_size": len(vmfb)}
        self._atomic_write(self._path(key, ".vmfb"), vmfb)
        self._atomic_write(self._path(key, ".json"), json.dumps(meta, indent=1).encode())
        return CacheEntry(vmfb, meta)

    def _atomic_write(self, path: Path, data: bytes) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
