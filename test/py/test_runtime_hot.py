"""The hot threshold: bindings become hot sooner where the dynamic module is slower."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from runtime_programs import MATMUL_FLAT
from symshape_mlir import runtime
from symshape_mlir.backend.runtime import Function
from symshape_mlir.backend.signature import TensorType
from symshape_mlir.runtime import drivers
from symshape_mlir.runtime.drivers import TIMED_CALLS
from symshape_mlir.runtime.hot import HotThreshold

# Each contender's untimed first call, then its timed calls.
RACE_CALLS = 2 + 2 * TIMED_CALLS


@pytest.mark.parametrize(
    ("hot_after", "observed", "calls"),
    [
        (16, [], 16),
        (16, [(0.040, 0.004)], 2),
        (16, [(0.003, 0.002)], 11),
        (16, [(0.002, 0.003)], 16),
        (16, [(0.040, 0.004), (0.003, 0.002), (0.009, 0.002)], 4),
        (1, [(0.040, 0.004)], 1),
        (-1, [(0.040, 0.004)], -1),
    ],
    ids=["unknown", "10x", "1.5x", "static_slower", "median", "hot_after_1", "tiers_off"],
)
def test_threshold_follows_the_median_slowdown(
    hot_after: int, observed: list[tuple[float, float]], calls: int
) -> None:
    """``ceil(hot_after / slowdown)`` calls, at least 2, at most ``hot_after``."""
    hot = HotThreshold(hot_after)
    for dynamic, static in observed:
        hot.observe(dynamic, static)
    assert hot.calls == calls
    assert hot.is_hot(calls) == (calls > 0)
    assert not hot.is_hot(calls - 1)


@pytest.fixture
def slow_dynamic(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in clock: dynamic-module calls take 10 s, static-variant calls 1 s."""

    def timed(function: Function, arguments: list[Any]) -> tuple[list[Any], float]:
        static = all(None not in t.dims for t in function.signature.inputs
                     if isinstance(t, TensorType))
        return function.dispatch(arguments), 1.0 if static else 10.0

    monkeypatch.setattr(drivers, "timed_dispatch", timed)


def _call(exe: runtime.Executable, m: int, times: int) -> None:
    a = np.ones((m, 4), np.float32)
    b = np.full((4, 3), 0.5, np.float32)
    for _ in range(times):
        np.testing.assert_allclose(exe.mm(a, b), (a @ b).reshape(-1), rtol=1e-6)


@pytest.mark.usefixtures("slow_dynamic")
def test_a_slow_dynamic_module_makes_bindings_hot_sooner(tmp_path: Path) -> None:
    """Once a binding measured the dynamic module 10x slower than its static
    variant, a new binding is hot at its second call."""
    exe = runtime.compile(MATMUL_FLAT, cache_dir=tmp_path, hot_after=16)
    _call(exe, 2, 1 + RACE_CALLS)  # the dynamic module's race at m = 2
    exe.pre_specialize([{"m": 2, "k": 4, "n": 3}])
    _call(exe, 2, RACE_CALLS)  # the static variant's race
    assert exe.mm.hot.slowdown == pytest.approx(10.0)
    assert exe.mm.hot.calls == 2
    _call(exe, 5, 2)
    assert exe.wait(timeout=300)
    assert exe.stats()["variants"] == {"mm": 2}
    _call(exe, 5, 1)


@pytest.mark.usefixtures("slow_dynamic")
def test_packed_bindings_learn_the_slowdown_too(tmp_path: Path) -> None:
    """Packed parameters: the packed dynamic module against its packed static variant."""
    exe = runtime.compile(MATMUL_FLAT, cache_dir=tmp_path, hot_after=16)
    b = np.full((4, 3), 0.5, np.float32)
    packed = exe.mm.bind_params({1: b}, packed=True)
    a = np.ones((2, 4), np.float32)
    for _ in range(1 + RACE_CALLS):
        packed(a)
    exe.pre_specialize([{"m": 2, "k": 4, "n": 3}])
    for _ in range(RACE_CALLS):
        np.testing.assert_allclose(packed(a), (a @ b).reshape(-1), rtol=1e-6)
    assert exe.mm.hot.calls == 2
