"""The disk cache's size bound: least recently used artifacts go first, locked ones stay."""

from __future__ import annotations

import os
from pathlib import Path

import filelock
import pytest

from symshape_mlir.runtime.diskcache import DiskCache, default_max_bytes


def _fill(cache: DiskCache, keys: list[str], size: int) -> None:
    """Writes ``keys`` in order, each used one second after the previous."""
    for age, key in enumerate(keys):
        cache.write(key, b"x" * size, {})
        stamp = 1_000_000 + age
        os.utime(cache.directory / f"{key}.json", (stamp, stamp))


def _keys(directory: Path) -> set[str]:
    return {p.stem for p in directory.glob("*.vmfb")}


def test_least_recently_used_entries_are_removed(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path, max_bytes=10_000)
    _fill(cache, ["a", "b", "c"], 3000)
    assert _keys(tmp_path) == {"a", "b", "c"}
    cache.read("a")  # a becomes the most recently used
    cache.write("d", b"x" * 3000, {})
    assert _keys(tmp_path) == {"a", "c", "d"}
    assert cache.read("b") is None


def test_the_entry_just_written_is_kept_even_when_too_large(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path, max_bytes=100)
    _fill(cache, ["a"], 50)
    cache.write("big", b"x" * 500, {})
    assert _keys(tmp_path) == {"big"}
    entry = cache.read("big")
    assert entry is not None and len(entry.vmfb) == 500


def test_an_entry_locked_by_another_process_is_not_removed(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path, max_bytes=10_000)
    _fill(cache, ["oldest", "older", "newest"], 400)
    cache.max_bytes = 1000
    # Another process (here: another lock object) holds the oldest entry.
    with filelock.FileLock(str(tmp_path / "oldest.lock")):
        assert cache.prune() == ["older"]
    assert _keys(tmp_path) == {"oldest", "newest"}
    cache.max_bytes = 500
    assert cache.prune() == ["oldest"]
    assert _keys(tmp_path) == {"newest"}


def test_max_bytes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYMSHAPE_MLIR_CACHE_MAX_BYTES", "12345")
    assert default_max_bytes() == 12345
    monkeypatch.setenv("SYMSHAPE_MLIR_CACHE_MAX_BYTES", "2GB")
    with pytest.raises(ValueError, match="must be a non-negative integer"):
        default_max_bytes()
    monkeypatch.delenv("SYMSHAPE_MLIR_CACHE_MAX_BYTES")
    assert default_max_bytes() == 2 << 30


def test_negative_max_bytes_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="max_bytes must be >= 0"):
        DiskCache(tmp_path, max_bytes=-1)
