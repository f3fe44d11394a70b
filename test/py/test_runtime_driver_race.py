"""Driver races: the calls of a binding choose between the local drivers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from runtime_programs import MATMUL_FLAT
from symshape_mlir import runtime
from symshape_mlir.backend.runtime import Function
from symshape_mlir.runtime import drivers
from symshape_mlir.runtime.drivers import TIMED_CALLS, DriverRace

BINDING = {"m": 2, "k": 4, "n": 3}
# Each contender's untimed first call, then its timed calls.
RACE_CALLS = 2 + 2 * TIMED_CALLS


@pytest.fixture
def faster(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """A stand-in clock under which ``request.param``'s calls take no time."""
    driver: str = request.param

    def timed(function: Function, arguments: list[Any]) -> tuple[list[Any], float]:
        return function.dispatch(arguments), 0.0 if function.driver == driver else 1.0

    monkeypatch.setattr(drivers, "timed_dispatch", timed)
    return driver


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    return (np.arange(8, dtype=np.float32).reshape(2, 4), np.full((4, 3), 0.5, np.float32))


def _key(exe: runtime.Executable) -> tuple[int, ...]:
    return tuple(BINDING[n] for n in exe.mm.named_axes)


@pytest.mark.parametrize("faster", ["local-task", "local-sync"], indirect=True)
def test_static_variant_keeps_the_faster_driver(tmp_path: Path, faster: str) -> None:
    """A pre-specialized variant races the local drivers on its first calls,
    then serves every call on the faster; results do not depend on it."""
    exe = runtime.compile(MATMUL_FLAT, cache_dir=tmp_path, hot_after=None)
    exe.pre_specialize([BINDING])
    a, b = _inputs()
    first = exe.mm(a, b)
    assert isinstance(exe.mm.variants.static_variants()[_key(exe)], DriverRace)
    for _ in range(RACE_CALLS - 1):
        assert exe.mm(a, b).tobytes() == first.tobytes()
    variant = exe.mm.variants.static_variants()[_key(exe)]
    assert isinstance(variant, Function) and variant.driver == faster
    assert [s.function for _, s in exe.mm.specializations()] == [variant]
    assert exe.stats()["sync_variants"] == (faster == "local-sync")
    np.testing.assert_allclose(exe.mm(a, b), (a @ b).reshape(-1), rtol=1e-6)


@pytest.mark.parametrize("faster", ["local-task", "local-sync"], indirect=True)
def test_dynamic_module_races_from_a_binding_second_call(tmp_path: Path, faster: str) -> None:
    """A binding called once runs on the executable's driver; from its second
    call its calls race the drivers, and then run on the faster."""
    exe = runtime.compile(MATMUL_FLAT, cache_dir=tmp_path, hot_after=None)
    a, b = _inputs()
    exe.mm(a, b)
    [(_, spec)] = exe.mm.specializations()
    assert isinstance(spec.function, Function) and spec.function.driver == exe.driver
    for _ in range(RACE_CALLS):
        exe.mm(a, b)
    assert isinstance(spec.function, Function) and spec.function.driver == faster
    assert exe.stats()["sync_variants"] == 0


@pytest.mark.parametrize("faster", ["local-task", "local-sync"], indirect=True)
def test_packed_variants_race_too(tmp_path: Path, faster: str) -> None:
    """Packed static variants and the packed dynamic module race the same way."""
    exe = runtime.compile(MATMUL_FLAT, cache_dir=tmp_path, hot_after=None)
    a, b = _inputs()
    packed = exe.mm.bind_params({1: b}, packed=True)
    for _ in range(1 + RACE_CALLS):
        packed(a)
    assert dict(packed.variants.specializations())[_key(exe)].function.driver == faster
    exe.pre_specialize([BINDING])
    for _ in range(RACE_CALLS):
        np.testing.assert_allclose(packed(a), (a @ b).reshape(-1), rtol=1e-6)
    assert packed.variant_drivers() == {_key(exe): faster}


@pytest.mark.parametrize("faster", ["local-sync"], indirect=True)
def test_device_buffers_stay_on_their_driver(tmp_path: Path, faster: str) -> None:
    """Arguments uploaded to the executable's device (bind_params) are never
    passed to the other driver's module: such a call decides for the executable's."""
    exe = runtime.compile(MATMUL_FLAT, cache_dir=tmp_path, hot_after=None, driver="local-task")
    exe.pre_specialize([BINDING])
    a, b = _inputs()
    bound = exe.mm.bind_params({1: b})
    np.testing.assert_allclose(bound(a), (a @ b).reshape(-1), rtol=1e-6)
    variant = exe.mm.variants.static_variants()[_key(exe)]
    assert isinstance(variant, Function) and variant.driver == "local-task"


def test_a_replaced_race_decides_nothing(tmp_path: Path) -> None:
    """The winner of a race that no longer serves its binding (a static
    variant was installed meanwhile) is not installed."""
    exe = runtime.compile(MATMUL_FLAT, cache_dir=tmp_path, hot_after=None)
    a, b = _inputs()
    exe.mm(a, b)
    exe.mm(a, b)
    [(_, spec)] = exe.mm.specializations()
    race = spec.function
    assert isinstance(race, DriverRace)
    exe.pre_specialize([BINDING])
    spec.decide(race.functions[1])
    assert spec.function is exe.mm.variants.static_variants()[_key(exe)]
