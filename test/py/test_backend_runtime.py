"""Runs compiled plain-MLIR programs through `symshape_mlir.backend` and checks numerics.

Every program has dynamic shapes and runs at three sizes, one of them zero, on
each driver: ``local-task`` and ``local-sync`` always, ``vulkan`` on lavapipe
(which `scripts/test.sh` installs with `scripts/install_lavapipe.sh`), ``cuda``
where a CUDA device is present.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from symshape_mlir import backend
from symshape_mlir.backend import (
    CompiledModule,
    DriverUnavailableError,
    LoadedModule,
    RuntimeCallError,
    SignatureError,
)
from symshape_mlir.backend.devices import binds_empty_buffers

from driver_support import DRIVER_TARGETS, require_driver

SIZES = (0, 1, 37)

ADD = """
#map = affine_map<(d0) -> (d0)>
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""

BIAS_RELU = """
#rows = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu(%x: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#rows, #cols, #rows],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    %y = arith.maximumf %s, %zero : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""

MATMUL = """
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %sum: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %sum, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""

# Two results (i32 and i1), a 0-d tensor argument and a run-time check.
SCALE = """
#map = affine_map<(d0) -> (d0)>
func.func @scale(%a: tensor<?xi32>, %k: tensor<i32>) -> (tensor<?xi32>, tensor<?xi1>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi32>
  %kv = tensor.extract %k[] : tensor<i32>
  %zero = arith.constant 0 : i32
  %positive = arith.cmpi sgt, %kv, %zero : i32
  cf.assert %positive, "scale factor must be positive"
  %init = tensor.empty(%n) : tensor<?xi32>
  %init_mask = tensor.empty(%n) : tensor<?xi1>
  %r:2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<?xi32>) outs(%init, %init_mask : tensor<?xi32>, tensor<?xi1>) {
  ^bb0(%x: i32, %out: i32, %out_mask: i1):
    %s = arith.muli %x, %kv : i32
    %m = arith.cmpi sgt, %s, %zero : i32
    linalg.yield %s, %m : i32, i1
  } -> (tensor<?xi32>, tensor<?xi1>)
  return %r#0, %r#1 : tensor<?xi32>, tensor<?xi1>
}
"""

# Scalar arguments and results, and two exported functions.
SCALARS = """
#map = affine_map<(d0) -> (d0)>
func.func @axpy(%alpha: f32, %x: tensor<?xf32>, %y: tensor<?xf32>, %limit: index)
    -> (tensor<?xf32>, index) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %p = arith.mulf %alpha, %a : f32
    %s = arith.addf %p, %b : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %clamped = arith.minui %n, %limit : index
  return %r, %clamped : tensor<?xf32>, index
}
func.func @count(%x: tensor<?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  return %n : index
}
"""


@dataclasses.dataclass(frozen=True)
class Program:
    """A test program: its text, inputs at a size, and the numpy reference."""

    text: str
    function: str
    inputs: Callable[[np.random.Generator, int], tuple[np.ndarray, ...]]
    reference: Callable[..., tuple[np.ndarray, ...]]
    rtol: float


PROGRAMS = {
    "add": Program(
        ADD,
        "add",
        lambda rng, n: (
            rng.standard_normal(n, dtype=np.float32),
            rng.standard_normal(n, dtype=np.float32),
        ),
        lambda a, b: (a + b,),
        1e-6,
    ),
    "bias_relu": Program(
        BIAS_RELU,
        "bias_relu",
        lambda rng, n: (
            rng.standard_normal((n, 5), dtype=np.float32),
            rng.standard_normal(5, dtype=np.float32),
        ),
        lambda x, bias: (np.maximum(x + bias, 0),),
        1e-6,
    ),
    "matmul": Program(
        MATMUL,
        "matmul",
        lambda rng, n: (
            rng.standard_normal((n, 3), dtype=np.float32),
            rng.standard_normal((3, 4), dtype=np.float32),
        ),
        lambda a, b: (a @ b,),
        1e-5,
    ),
    "scale": Program(
        SCALE,
        "scale",
        lambda rng, n: (
            rng.integers(-50, 50, n, dtype=np.int32),
            np.array(3, dtype=np.int32),
        ),
        lambda a, k: (a * k, a * k > 0),
        0.0,
    ),
}


@pytest.fixture(scope="module")
def compiled() -> Callable[[str, str], CompiledModule]:
    """Compiles each (program text, target) once per test module."""
    cache: dict[tuple[str, str], CompiledModule] = {}

    def get(text: str, target: str) -> CompiledModule:
        key = (text, target)
        if key not in cache:
            cache[key] = backend.compile_module(text, target)
        return cache[key]

    return get


@pytest.fixture(scope="module")
def loaded(
    compiled: Callable[[str, str], CompiledModule],
) -> Iterator[Callable[[str, str], LoadedModule]]:
    """Loads each (program text, driver) once per test module."""
    cache: dict[tuple[str, str], LoadedModule] = {}

    def get(text: str, driver: str) -> LoadedModule:
        key = (text, driver)
        if key not in cache:
            cache[key] = backend.load(compiled(text, DRIVER_TARGETS[driver]), driver)
        return cache[key]

    yield get
    cache.clear()


def _inputs(program: Program, size: int) -> tuple[np.ndarray, ...]:
    return program.inputs(np.random.default_rng(size), size)


def _assert_matches(actual: object, expected: tuple[np.ndarray, ...], rtol: float) -> None:
    results = actual if isinstance(actual, tuple) else (actual,)
    assert len(results) == len(expected)
    for got, want in zip(results, expected, strict=True):
        assert isinstance(got, np.ndarray)
        assert got.dtype == want.dtype
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("size", SIZES, ids=lambda n: f"n{n}")
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_matches_numpy_given_out_shapes(
    loaded: Callable[[str, str], LoadedModule], driver: str, name: str, size: int
) -> None:
    """Results equal numpy's when the caller passes the expected output shapes."""
    program = PROGRAMS[name]
    inputs = _inputs(program, size)
    expected = program.reference(*inputs)
    module = loaded(program.text, driver)
    result = module.invoke(program.function, *inputs, out_shapes=[e.shape for e in expected])
    _assert_matches(result, expected, program.rtol)


@pytest.mark.parametrize("size", SIZES, ids=lambda n: f"n{n}")
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_matches_numpy_without_out_shapes(
    loaded: Callable[[str, str], LoadedModule], driver: str, name: str, size: int
) -> None:
    """Results equal numpy's without out_shapes, except zero sizes on drivers that refuse them."""
    program = PROGRAMS[name]
    inputs = _inputs(program, size)
    module = loaded(program.text, driver)
    if size == 0 and not binds_empty_buffers(driver):
        with pytest.raises(SignatureError, match=r"pass out_shapes="):
            module(*inputs)
        return
    _assert_matches(module(*inputs), program.reference(*inputs), program.rtol)


def test_vulkan_zero_size_needs_out_shapes(
    loaded: Callable[[str, str], LoadedModule],
) -> None:
    """On vulkan a zero-element input without out_shapes is refused, not guessed."""
    require_driver("vulkan")
    module = loaded(ADD, "vulkan")
    empty = np.zeros(0, np.float32)
    with pytest.raises(SignatureError) as info:
        module(empty, empty)
    assert str(info.value) == (
        "@add got a zero-element argument, which driver 'vulkan' cannot bind: "
        "pass out_shapes= so the call can return without dispatching"
    )


def test_assertion_failure_raises_and_module_stays_usable(
    loaded: Callable[[str, str], LoadedModule], driver: str
) -> None:
    """A failed cf.assert becomes RuntimeCallError; the next call still works."""
    module = loaded(SCALE, driver)
    a = np.arange(4, dtype=np.int32)
    with pytest.raises(RuntimeCallError) as info:
        module(a, np.array(-2, np.int32))
    error = info.value
    assert (error.function, error.driver) == ("scale", driver)
    assert error.status == "FAILED_PRECONDITION"
    assert error.message == "scale factor must be positive"
    assert str(error) == (
        f"call to @scale on '{driver}' failed: FAILED_PRECONDITION: scale factor must be positive"
    )
    scaled, mask = module(a, np.array(2, np.int32))
    np.testing.assert_array_equal(scaled, a * 2)
    np.testing.assert_array_equal(mask, a * 2 > 0)


@pytest.fixture(scope="module")
def cpu_scalars(compiled: Callable[[str, str], CompiledModule]) -> LoadedModule:
    """The two-function scalar program on local-sync."""
    return backend.load(compiled(SCALARS, "llvm-cpu"), "local-sync")


def test_scalar_arguments_and_results(cpu_scalars: LoadedModule) -> None:
    """Float and index scalars go in as Python numbers and come back as them."""
    x = np.arange(6, dtype=np.float32)
    y = np.ones(6, dtype=np.float32)
    result, clamped = cpu_scalars.invoke("axpy", 0.5, x, y, 4)
    np.testing.assert_allclose(result, 0.5 * x + y)
    assert clamped == 4 and isinstance(clamped, int)
    assert cpu_scalars.invoke("count", x) == 6


def test_function_names_and_signature(cpu_scalars: LoadedModule) -> None:
    """Exported functions are listed with their declared signatures."""
    assert cpu_scalars.function_names == ("axpy", "count")
    assert str(cpu_scalars.function("axpy").signature) == (
        "@axpy(f32, tensor<?xf32>, tensor<?xf32>, index) -> (tensor<?xf32>, index)"
    )


def test_call_needs_a_single_function(cpu_scalars: LoadedModule) -> None:
    """Calling a module with two functions directly is a TypeError."""
    with pytest.raises(TypeError, match=r"exports 2 functions \(axpy, count\)"):
        cpu_scalars(np.zeros(1, np.float32))


def test_unknown_function(cpu_scalars: LoadedModule) -> None:
    """Looking up a function the module does not export is a KeyError."""
    with pytest.raises(KeyError, match=r"no function @gemm in the module"):
        cpu_scalars.function("gemm")


SIGNATURE_ERRORS = [
    (
        "arity",
        (np.zeros((2, 3), np.float32),),
        None,
        "@matmul takes 2 arguments, got 1",
    ),
    (
        "dtype",
        (np.zeros((2, 3), np.float64), np.zeros((3, 4), np.float32)),
        None,
        "argument 0 of @matmul must be tensor<?x?xf32> (float32), got a float64 array",
    ),
    (
        "rank",
        (np.zeros(3, np.float32), np.zeros((3, 4), np.float32)),
        None,
        "argument 0 of @matmul must be tensor<?x?xf32>, got shape (3,)",
    ),
    (
        "out_shapes_count",
        (np.zeros((2, 3), np.float32), np.zeros((3, 4), np.float32)),
        [(2, 4), (2, 4)],
        "@matmul has 1 results, out_shapes gives 2",
    ),
    (
        "out_shapes_rank",
        (np.zeros((2, 3), np.float32), np.zeros((3, 4), np.float32)),
        [(8,)],
        "out_shapes[0] = (8,) does not fit result 0 of @matmul: tensor<?x?xf32>",
    ),
    (
        "out_shapes_wrong",
        (np.zeros((2, 3), np.float32), np.zeros((3, 4), np.float32)),
        [(2, 5)],
        "result 0 of @matmul has shape (2, 4), out_shapes gave (2, 5)",
    ),
]


@pytest.mark.parametrize(
    ("args", "out_shapes", "message"),
    [case[1:] for case in SIGNATURE_ERRORS],
    ids=[case[0] for case in SIGNATURE_ERRORS],
)
def test_signature_errors(
    loaded: Callable[[str, str], LoadedModule],
    args: tuple[np.ndarray, ...],
    out_shapes: list[tuple[int, ...]] | None,
    message: str,
) -> None:
    """Arguments and out_shapes that do not fit the signature are refused with a message."""
    module = loaded(MATMUL, "local-sync")
    with pytest.raises(SignatureError) as info:
        module(*args, out_shapes=out_shapes)
    assert str(info.value) == message


def test_static_extent_mismatch(compiled: Callable[[str, str], CompiledModule]) -> None:
    """A static extent in the signature is checked before the call."""
    text = """
func.func @id(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}
"""
    module = backend.load(compiled(text, "llvm-cpu"), "local-sync")
    np.testing.assert_array_equal(module(np.ones((2, 4), np.float32)), np.ones((2, 4)))
    with pytest.raises(SignatureError, match=r"must be tensor<\?x4xf32>, got shape \(2, 3\)"):
        module(np.ones((2, 3), np.float32))


def test_default_driver_is_the_targets_first(
    compiled: Callable[[str, str], CompiledModule],
) -> None:
    """An llvm-cpu module loads on local-task unless told otherwise."""
    assert backend.load(compiled(ADD, "llvm-cpu")).driver == "local-task"


def test_driver_must_fit_target(compiled: Callable[[str, str], CompiledModule]) -> None:
    """A module compiled for one target is not loaded on another target's driver."""
    with pytest.raises(ValueError, match=r"a vulkan module runs on vulkan, not on 'local-task'"):
        backend.load(compiled(ADD, "vulkan"), "local-task")


@pytest.mark.skipif(
    "metal" in backend.available_drivers(), reason="this runtime has a metal driver"
)
def test_missing_driver_is_reported(compiled: Callable[[str, str], CompiledModule]) -> None:
    """A driver the runtime lacks raises DriverUnavailableError naming the ones it has."""
    with pytest.raises(DriverUnavailableError, match=r"driver 'metal' is not in this IREE runtime"):
        backend.load(compiled(ADD, "metal"))
