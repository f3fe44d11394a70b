"""Every end-to-end program through ``runtime.compile`` with planning on, at random bindings.

``test_e2e_programs.py`` runs the programs of ``test/e2e/`` through
``symshape-opt`` and the backend; here each file is compiled by
:func:`symshape_mlir.runtime.compile`, so every call is checked, bound,
planned, cached and dispatched by the runtime, sizes read from scalar
inputs (0-d integer tensors) included. A function is planned unless it is
listed in :data:`UNPLANNED` (its results are only bounded before the call),
which a test checks too.

At a program's own bindings the result matches numpy and the plan its
shapes. At random bindings (axes from 0 up, scalar inputs negative, zero,
past the end and huge) a call either matches numpy or fails with one of the
runtime's structured errors: never a crash, a raw exception or a wrong value.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from mlir import ir

from symshape_mlir import runtime
from symshape_mlir.backend import RuntimeCallError
from symshape_mlir.context import new_context
from symshape_mlir.runtime import AxisBindingError, PlanError, SignatureError
from symshape_mlir.runtime.capture import capture_module
from symshape_mlir.runtime.errors import UnplannableSizeError

from test_e2e_programs import E2E_DIR, PROGRAMS, TO_IREE_DEFERRED, Program, program_cases

#: Functions whose results are only bounded before the call (a choice made
#: inside the function between two sizes, a stage-1 truncation), why.
UNPLANNED = {
    "truncate_bound": "an upper-bound truncation is returned",
    "choose": "arith.select between two sizes",
    "branch": "scf.if between two sizes",
    "choose_into_matmul": "arith.select between two sizes",
    "chosen_rows": "arith.select between two sizes",
    "returned_choice_read_again": "scf.if between two sizes",
    "flat_and_head_of_a_choice": "scf.if between two sizes",
}

#: Programs whose scalar ``k`` counts loop trips, not a size: a huge count
#: is a long loop, so it is drawn from small values only.
TRIP_COUNTS = frozenset({
    "loop_from_slice", "insert_beside_loop", "inserts_into_one_copy", "loop_over_offset_slice",
    "reshaped_loop_result", "ones_around_a_loop",
})

#: The structured errors a call at a binding outside a program's domain may raise.
CLEAN = (PlanError, RuntimeCallError, SignatureError, AxisBindingError)

HUGE = (2**62, 2**63 - 1, -(2**63), -(2**40), 2**31)

Source = tuple[str, bool]


def _source(program: Program) -> Source:
    return program.file, program.passes == TO_IREE_DEFERRED


@pytest.fixture(scope="module")
def executables(tmp_path_factory: pytest.TempPathFactory) -> dict[Source, runtime.Executable]:
    """Each e2e file compiled once (per contract mode) with planning on."""
    cache = tmp_path_factory.mktemp("e2e-planned")
    built: dict[Source, runtime.Executable] = {}
    for program in PROGRAMS.values():
        source = _source(program)
        if source in built:
            continue
        file, deferred = source
        unplanned = [p.function for p in PROGRAMS.values()
                     if _source(p) == source and p.function in UNPLANNED]
        built[source] = runtime.compile(
            E2E_DIR / file, "llvm-cpu", cache_dir=cache, hot_after=None,
            contract="defer" if deferred else "reject", unplanned=unplanned)
    return built


def _entry(executables: Mapping[Source, runtime.Executable], name: str) -> runtime.EntryPoint:
    program = PROGRAMS[name]
    return getattr(executables[_source(program)], program.function)


def _results(value: Any) -> tuple[np.ndarray, ...]:
    return tuple(value) if isinstance(value, tuple) else (value,)


def _reference(program: Program, args: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...] | None:
    """numpy's results, or None where numpy refuses the inputs."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return tuple(program.reference(*args))
        except (ValueError, IndexError, ZeroDivisionError, OverflowError):
            return None


def _matches(program: Program, got: Any, expected: tuple[np.ndarray, ...], what: str) -> None:
    got = _results(got)
    assert len(got) == len(expected), what
    for index, (g, e) in enumerate(zip(got, expected, strict=True)):
        assert g.shape == e.shape, f"{what} result {index}"
        np.testing.assert_allclose(g, e, rtol=program.tolerance, atol=program.tolerance,
                                   err_msg=f"{what} result {index}")


@pytest.mark.parametrize("name", sorted(UNPLANNED))
def test_unplanned_functions_cannot_be_planned(name: str) -> None:
    """Each function listed as unplanned is refused by planning, naming it."""
    program = PROGRAMS[name]
    others = [p.function for p in PROGRAMS.values()
              if p.file == program.file and p.function in UNPLANNED and p.function != name]
    text = Path(E2E_DIR / program.file).read_text()
    with new_context():
        module = ir.Module.parse(text)
        with pytest.raises(UnplannableSizeError, match=f"@{name} result"):
            capture_module(module, others)


@pytest.mark.parametrize(("name", "binding"), program_cases())
def test_program_bindings(
    executables: dict[Source, runtime.Executable], name: str, binding: Mapping[str, int]
) -> None:
    """At the program's own bindings the runtime's call matches numpy, and the
    plan (from arrays and scalar values) gives the shapes the call returns."""
    program = PROGRAMS[name]
    entry = _entry(executables, name)
    args = program.inputs(np.random.default_rng(0), binding)
    expected = _reference(program, args)
    assert expected is not None
    got = entry(*args)
    _matches(program, got, expected, f"{name} at {dict(binding)}")
    if name not in UNPLANNED:
        plain = [a.item() if a.ndim == 0 and a.dtype.kind == "i" else a for a in args]
        assert entry.plan(*plain).shapes == tuple(r.shape for r in _results(got))


@functools.cache
def scalar_inputs(name: str) -> frozenset[str]:
    """The binding entries of a program that are scalar inputs' values: changing
    one changes no input's shape (others are axes, named or not)."""
    program = PROGRAMS[name]
    base = dict(program.bindings[0])
    shapes = [a.shape for a in program.inputs(np.random.default_rng(0), base)]
    found = set()
    for key in program.scalars:
        moved = {**base, key: base[key] + 1}
        if [a.shape for a in program.inputs(np.random.default_rng(0), moved)] == shapes:
            found.add(key)
    return frozenset(found)


def _binding(data: st.DataObject, name: str) -> dict[str, int]:
    """A random binding near one of the program's: axes 0 and up, scalar
    inputs negative, zero, past the end and huge."""
    program = PROGRAMS[name]
    base = data.draw(st.sampled_from(program.bindings), label="base")
    binding: dict[str, int] = {}
    for key, value in base.items():
        if key in scalar_inputs(name):
            small = st.integers(-3, 2 * abs(value) + 4)
            trips = name in TRIP_COUNTS and key == "k"
            drawn = small if trips else st.one_of(small, st.sampled_from(HUGE))
            binding[key] = data.draw(drawn, label=key)
        else:
            binding[key] = data.draw(st.integers(0, 2 * value + 3), label=key)
    return binding


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_bindings(
    executables: dict[Source, runtime.Executable], data: st.DataObject
) -> None:
    """At random bindings a call matches numpy or raises a structured error."""
    name = data.draw(st.sampled_from(sorted(PROGRAMS)), label="program")
    program = PROGRAMS[name]
    binding = _binding(data, name)
    try:
        args = program.inputs(np.random.default_rng(0), binding)
    except OverflowError:  # a huge value for a narrow scalar: not a call to make
        assume(False)
    expected = _reference(program, args)
    entry = _entry(executables, name)
    try:
        got = entry(*args)
    except CLEAN:
        return
    assert expected is not None, f"{name} at {binding}: numpy refuses, the call returned {got}"
    _matches(program, got, expected, f"{name} at {binding}")
