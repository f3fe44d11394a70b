"""The on-disk cache of compiled artifacts, shared by processes.

An entry is a ``.vmfb`` and a ``.json`` of captured sizes, keyed by a hash
of the module (its text, or bytecode), the target, every ``iree-compile`` flag, the
specialization bindings, the IREE compiler version and a fingerprint of the
installed symshape passes (so an edited pass never serves a stale artifact).
Writers hold a `filelock.FileLock` per key: when several processes compile
the same module at once, one compiles and the others wait, then read::

    >>> cache = DiskCache(Path("/tmp/symshape-cache"))
    >>> key = cache_key(source.digest, "llvm-cpu", flags, bindings="")
    >>> with cache.locked(key):
    ...     entry = cache.read(key) or cache.write(key, vmfb, meta)

The directory is ``$SYMSHAPE_MLIR_CACHE_DIR`` or ``~/.cache/symshape-mlir``
unless the caller names one. Its size is bounded (``max_bytes``, by default
``$SYMSHAPE_MLIR_CACHE_MAX_BYTES`` or 2 GiB): a read marks an entry as used,
and after each write the least recently used entries are removed until the
artifacts fit. An entry another process holds the lock of is never removed.
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

__all__ = [
    "CacheEntry", "DiskCache", "cache_key", "default_cache_dir", "default_max_bytes",
    "toolchain_fingerprint",
]

logger = logging.getLogger(__name__)

_FORMAT = 3
_ENV = "SYMSHAPE_MLIR_CACHE_DIR"
_MAX_ENV = "SYMSHAPE_MLIR_CACHE_MAX_BYTES"
_DEFAULT_MAX_BYTES = 2 << 30


def default_cache_dir() -> Path:
    """``$SYMSHAPE_MLIR_CACHE_DIR``, else ``~/.cache/symshape-mlir``."""
    env = os.environ.get(_ENV)
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "symshape-mlir"


def default_max_bytes() -> int:
    """``$SYMSHAPE_MLIR_CACHE_MAX_BYTES``, else 2 GiB.

    Raises:
        ValueError: the variable is not a non-negative integer.
    """
    text = os.environ.get(_MAX_ENV)
    if text is None:
        return _DEFAULT_MAX_BYTES
    if not text.strip().isdigit():
        raise ValueError(f"{_MAX_ENV} must be a non-negative integer (bytes), got {text!r}")
    return int(text)


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
    # The installed package, its passes included (packaged as symshape_mlir/passes).
    for path in sorted(Path(__file__).resolve().parents[1].rglob("*")):
        if path.suffix in (".py", ".so") and path.is_file():
            stat = path.stat()
            digest.update(f"{path}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    return digest.hexdigest()[:16]


def cache_key(source: str, target: str, flags: Sequence[str], *, bindings: str) -> str:
    """The key of one artifact.

    Args:
        source: The SHA-256 of the module (`ModuleSource.digest`).
        target: The IREE target.
        flags: Every ``iree-compile`` flag.
        bindings: The ``symshape-specialize`` bindings (``"batch=32"``), or
            ``""`` for the dynamic artifact.
    """
    fields = {
        "format": _FORMAT,
        "source": source,
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

    def __init__(self, directory: Path, max_bytes: int | None = None) -> None:
        """Uses (and creates) ``directory``, holding at most ``max_bytes`` of
        artifacts (None: `default_max_bytes`)."""
        self.directory = Path(directory)
        self.max_bytes = default_max_bytes() if max_bytes is None else max_bytes
        if self.max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, got {self.max_bytes}")
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
        with contextlib.suppress(OSError):
            os.utime(meta_path)  # most recently used
        return CacheEntry(vmfb, meta)

    def write(self, key: str, vmfb: bytes, meta: dict[str, Any]) -> CacheEntry:
        """Stores an entry atomically (the artifact first, the metadata last)."""
        meta = {**meta, "vmfb_size": len(vmfb)}
        self._atomic_write(self._path(key, ".vmfb"), vmfb)
        self._atomic_write(self._path(key, ".json"), json.dumps(meta, indent=1).encode())
        self.prune(keep=key)
        return CacheEntry(vmfb, meta)

    def prune(self, keep: str = "") -> list[str]:
        """Removes least recently used entries until the artifacts fit ``max_bytes``.

        Args:
            keep: a key never removed (the entry just written).

        Returns:
            The keys removed.
        """
        entries = []
        total = 0
        for meta_path in self.directory.glob("*.json"):
            key = meta_path.stem
            try:
                used = meta_path.stat().st_mtime_ns
                size = self._path(key, ".vmfb").stat().st_size
            except OSError:
                continue
            entries.append((used, key, size))
            total += size
        removed: list[str] = []
        for _, key, size in sorted(entries):
            if total <= self.max_bytes:
                break
            if key == keep:
                continue
            try:
                with self.locked(key, timeout=0):
                    for suffix in (".json", ".vmfb"):
                        with contextlib.suppress(FileNotFoundError):
                            self._path(key, suffix).unlink()
            except filelock.Timeout:
                continue  # in use by another process
            total -= size
            removed.append(key)
            logger.info("removed cache entry %s (%d bytes) to stay under %d bytes",
                        key, size, self.max_bytes)
        return removed

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
