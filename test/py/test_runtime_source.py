"""The module a runtime executable compiles: copied, never printed and parsed
again; its digest (the disk cache's key) covers the constants' blobs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from mlir import ir

from symshape_mlir import runtime
from symshape_mlir.context import new_context
from symshape_mlir.frontend import Tensor, f32, trace
from symshape_mlir.frontend.ops.constants import INLINE_LIMIT
from symshape_mlir.frontend.tracing import TracedFunction, module_text, trace_module
from symshape_mlir.runtime.source import ModuleSource

SIZE = INLINE_LIMIT + 4  # a constant this large is a resource blob


def _shifted(weights: np.ndarray) -> TracedFunction:
    def shift(x: Any) -> Any:
        return x + weights

    return trace(shift, Tensor["batch", SIZE, f32])


def _weights(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(SIZE).astype(np.float32)


def test_a_traced_module_wraps_its_blobs_and_prints_as_its_text_parses() -> None:
    """`trace_module` (blobs wrapped as arrays) and `module_text` (blobs as hex)
    are one module: both print the same, and the blob holds the weights."""
    weights = _weights(0)
    traced = _shifted(weights)
    built = trace_module([traced])
    with new_context():
        parsed = ir.Module.parse(module_text([traced]))
    assert str(built) == str(parsed)
    assert "dense_resource<shift_k0> : tensor<260xf32>" in str(built)
    assert weights.tobytes().hex().upper() in str(built)


def test_a_traced_constant_is_a_copy_of_the_callers_array() -> None:
    """Changing the array after tracing changes nothing in the module."""
    weights = _weights(1)
    traced = _shifted(weights)
    before = str(traced.module)
    weights[:] = 0
    assert str(traced.module) == before


def test_compiling_a_module_parses_nothing(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    """The runtime compiles a copy of the module object it is given."""
    weights = _weights(2)
    module = _shifted(weights).module

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("the module was parsed again")

    monkeypatch.setattr(ir.Module, "parse", refuse)
    monkeypatch.setattr(ir.Module, "parseFile", refuse)
    exe = runtime.compile(module, cache_dir=tmp_path, hot_after=None)
    x = np.ones((3, SIZE), np.float32)
    np.testing.assert_allclose(exe(x), x + weights)
    assert not module.context.allow_unregistered_dialects


def test_the_copy_is_independent_of_the_callers_module(tmp_path: Path) -> None:
    """Erasing the caller's function after compiling leaves the executable whole:
    its static variants are compiled from its own copy."""
    weights = _weights(3)
    module = _shifted(weights).module
    exe = runtime.compile(module, cache_dir=False, hot_after=None)
    module.body.operations[0].erase()
    exe.pre_specialize([{"batch": 2}])
    x = np.ones((2, SIZE), np.float32)
    np.testing.assert_allclose(exe(x), x + weights)
    assert exe.stats()["compiles"] == 2


def test_the_digest_covers_the_blobs() -> None:
    """Modules that differ only in a constant's values have different digests
    (the disk cache never serves one for the other); equal modules, equal ones."""
    same = [ModuleSource(_shifted(_weights(4)).module) for _ in range(2)]
    other = ModuleSource(_shifted(_weights(5)).module)
    assert same[0].digest == same[1].digest
    assert other.digest != same[0].digest


def test_a_module_is_served_from_the_disk_cache_by_its_digest(tmp_path: Path) -> None:
    weights = _weights(6)
    first = runtime.compile(_shifted(weights).module, cache_dir=tmp_path, hot_after=None)
    again = runtime.compile(_shifted(weights).module, cache_dir=tmp_path, hot_after=None)
    changed = runtime.compile(_shifted(weights + 1).module, cache_dir=tmp_path,
                              hot_after=None)
    assert first.stats()["disk_misses"] == 1
    assert again.stats()["disk_hits"] == 1 and again.stats()["compiles"] == 0
    assert changed.stats()["disk_misses"] == 1
    x = np.zeros((1, SIZE), np.float32)
    np.testing.assert_allclose(changed(x), x + weights + 1)


def test_text_is_parsed_once_for_every_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    """A text source is parsed on the first compile; later variants copy it."""
    calls: list[str] = []
    parse = ir.Module.parse

    def counted(*args: Any, **kwargs: Any) -> ir.Module:
        calls.append("parse")
        return parse(*args, **kwargs)

    monkeypatch.setattr(ir.Module, "parse", counted)
    exe = runtime.compile(_shifted(_weights(7)).module_text, cache_dir=False, hot_after=None)
    exe.pre_specialize([{"batch": 2}])
    exe.pre_specialize([{"batch": 3}])
    assert exe.stats()["compiles"] == 3
    assert calls == ["parse"]


@pytest.mark.parametrize("value", [42, ir, "module { func.func"])
def test_what_is_no_module_is_refused(value: object) -> None:
    """A value of another type is a TypeError; text that does not parse is
    MLIR's parse error when compiled."""
    if isinstance(value, str):
        with pytest.raises(ir.MLIRError):
            runtime.compile(value, cache_dir=False)
    else:
        with pytest.raises(TypeError, match=r"expected a \.mlir path, MLIR text or an mlir\.ir"):
            ModuleSource(value)


_DIGEST = """
import numpy as np
from symshape_mlir.frontend import Tensor, f32, trace
from symshape_mlir.runtime.source import ModuleSource
weights = np.arange(300, dtype=np.float32)
def shift(x):
    return x + weights
print(ModuleSource(trace(shift, Tensor["batch", 300, f32]).module).digest)
"""


def test_the_digest_of_a_module_is_the_same_in_every_process(tmp_path: Path) -> None:
    """The disk cache serves a module traced again in another process."""
    script = tmp_path / "digest.py"
    script.write_text(_DIGEST)
    digests = {subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              check=True).stdout.strip() for _ in range(2)}
    assert len(digests) == 1 and len(digests.pop()) == 64
