"""Level 2 of `symshape_mlir.runtime`: argument checks, binding conflicts, plans, numerics."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runtime_programs import ADD, FILL, FROM_DATA, MATMUL_FLAT, STATIC
from symshape_mlir import runtime
from symshape_mlir.backend import RuntimeCallError
from symshape_mlir.runtime import (
    AxisBindingError,
    PlanError,
    SignatureError,
    UnplannableSizeError,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def add(cache_dir: Path) -> runtime.Executable:
    """Elementwise add of two `[batch, 4]` arguments."""
    return runtime.compile(ADD, cache_dir=cache_dir, hot_after=None)


@pytest.fixture(scope="module")
def mm(cache_dir: Path) -> runtime.Executable:
    """`[m, k] @ [k, n]` flattened to `[m * n]`."""
    return runtime.compile(MATMUL_FLAT, cache_dir=cache_dir, hot_after=None)


def _f32(*shape: int) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def test_add_matches_numpy(add: runtime.Executable) -> None:
    """A call returns numpy arrays equal to numpy's result."""
    a, b = _f32(5, 4), _f32(5, 4) * 2
    np.testing.assert_array_equal(add(a, b), a + b)
    np.testing.assert_array_equal(add.add(a, b), a + b)


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        (((5, 4), (3, 4)), "axis 'batch': input 1 has 3, input 0 has 5"),
        (((2, 4), (7, 4)), "axis 'batch': input 1 has 7, input 0 has 2"),
    ],
    ids=["5-vs-3", "2-vs-7"],
)
def test_binding_conflict_names_axis_arguments_values(
    add: runtime.Executable, shapes: tuple[tuple[int, ...], ...], message: str
) -> None:
    """One named axis with two sizes raises AxisBindingError naming both arguments and values."""
    with pytest.raises(AxisBindingError) as info:
        add(*(_f32(*s) for s in shapes))
    assert str(info.value) == message
    assert info.value.axis == "batch"
    with pytest.raises(AxisBindingError, match="axis 'batch'"):
        add.plan(*shapes)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((_f32(5, 3), _f32(5, 3)), r"argument 0 of @add must be tensor<\?x4xf32>, got shape"),
        ((_f32(5, 4, 1), _f32(5, 4)), "got shape"),
        ((_f32(5, 4).astype(np.float64), _f32(5, 4)), "got a float64 array"),
        ((_f32(5, 4),), "takes 2 arguments, got 1"),
    ],
    ids=["static-axis", "rank", "dtype", "count"],
)
def test_signature_errors(add: runtime.Executable, args: tuple[object, ...], match: str) -> None:
    """Wrong static extent, rank, dtype or argument count raise SignatureError."""
    with pytest.raises(SignatureError, match=match):
        add(*args)


def test_plan_without_running(mm: runtime.Executable) -> None:
    """plan() takes shapes or arrays and gives shapes and bytes."""
    plan = mm.plan((3, 5), _f32(5, 7))
    assert plan.shapes == ((21,),)
    assert plan.nbytes == (84,)
    assert plan.total_bytes == 84
    assert plan.bindings == {"m": 3, "k": 5, "n": 7}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(m=st.integers(0, 9), k=st.integers(0, 9), n=st.integers(0, 9))
def test_plan_equals_real_shapes(mm: runtime.Executable, m: int, k: int, n: int) -> None:
    """On random bindings, plan() gives the shapes the call returns, and numerics match numpy."""
    a = np.random.default_rng(m * 100 + k * 10 + n).standard_normal((m, k)).astype(np.float32)
    b = np.ones((k, n), np.float32)
    got = mm(a, b)
    assert mm.plan(a.shape, b.shape).shapes == (got.shape,)
    np.testing.assert_allclose(got, (a @ b).reshape(-1), rtol=1e-5, atol=1e-5)


@pytest.fixture(scope="module")
def fill(cache_dir: Path) -> runtime.Executable:
    """A result sized by an `index` argument."""
    return runtime.compile(FILL, cache_dir=cache_dir, hot_after=None)


def test_scalar_argument_sizes_result(fill: runtime.Executable) -> None:
    """A result sized by a scalar argument is planned from its value."""
    np.testing.assert_array_equal(fill(3, 1.5), np.full(3, 1.5, np.float32))
    assert fill.plan(11, 0.0).shapes == ((11,),)


@pytest.mark.parametrize(
    ("n", "error"),
    [(-1, PlanError), (2**63, SignatureError), ("3", SignatureError)],
    ids=["negative", "beyond-int64", "string"],
)
def test_bad_size_scalar(fill: runtime.Executable, n: object, error: type[Exception]) -> None:
    """A negative, out-of-range or non-integer size scalar raises before the call."""
    with pytest.raises(error):
        fill(n, 1.0)


def test_out_of_grammar_size_is_compile_error(cache_dir: Path) -> None:
    """A result size computed inside the function is a compile-time error with its location."""
    with pytest.raises(UnplannableSizeError) as info:
        runtime.compile(FROM_DATA, cache_dir=cache_dir)
    assert info.value.function == "from_data"
    assert info.value.location is not None and ":8:8" in info.value.location
    assert "computed inside the function" in str(info.value)


def test_unplanned_opt_out_runs(cache_dir: Path) -> None:
    """unplanned= compiles such a function; its result shape is read after the call."""
    exe = runtime.compile(FROM_DATA, cache_dir=cache_dir, unplanned=["from_data"])
    assert exe(np.array([3, 9], np.int64)).shape == (9,)
    with pytest.raises(SignatureError, match="planning off"):
        exe.plan((2,))


def test_static_function_direct(cache_dir: Path) -> None:
    """A function without dynamic axes is called without binding or LRU work."""
    exe = runtime.compile(STATIC, cache_dir=cache_dir)
    assert exe.scale.is_static
    a = _f32(8)
    np.testing.assert_array_equal(exe(a, 2.0), a * 2)
    assert exe.stats()["misses"] == 0


def test_bound_params_stay_on_device(mm: runtime.Executable) -> None:
    """bind_params uploads an argument once; calls pass only the others."""
    b = np.full((4, 3), 0.5, np.float32)
    fast = mm.mm.bind_params({1: b})
    for m in (1, 6):
        a = _f32(m, 4)
        np.testing.assert_allclose(fast(a), (a @ b).reshape(-1), rtol=1e-6)
    with pytest.raises(SignatureError, match="takes 1 arguments"):
        fast(a, b)


def test_sources_path_text_module(tmp_path: Path, cache_dir: Path) -> None:
    """A path, its text and a parsed mlir.ir module compile to executables that agree."""
    from mlir import ir

    from symshape_mlir.context import new_context

    path = tmp_path / "add.mlir"
    path.write_text(ADD)
    with new_context():
        parsed = ir.Module.parse(ADD)
        executables = [
            runtime.compile(source, cache_dir=cache_dir, hot_after=None)
            for source in (path, str(path), ADD, parsed)
        ]
    a = _f32(3, 4)
    for exe in executables:
        np.testing.assert_array_equal(exe(a, a), a + a)


def test_unplannable_location_names_file(tmp_path: Path, cache_dir: Path) -> None:
    """Compiled from a file, the out-of-grammar error points into that file."""
    path = tmp_path / "from_data.mlir"
    path.write_text(FROM_DATA)
    with pytest.raises(UnplannableSizeError, match=r"from_data\.mlir.*:8:8"):
        runtime.compile(path, cache_dir=cache_dir)


ELEMENT_SIZES = """
func.func @head(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                %sizes: tensor<3xi64>, %k: tensor<i32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c1 = arith.constant 1 : index
  %e = tensor.extract %sizes[%c1] : tensor<3xi64>
  %rows = arith.index_cast %e : i64 to index
  %head = tensor.extract_slice %x[0] [%rows] [1] : tensor<?xf32> to tensor<?xf32>
  %kv = tensor.extract %k[] : tensor<i32>
  %count = arith.index_cast %kv : i32 to index
  %zero = arith.constant 0.0 : f32
  %t = tensor.empty(%count) : tensor<?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%t : tensor<?xf32>) -> tensor<?xf32>
  return %head, %f : tensor<?xf32>, tensor<?xf32>
}

func.func @reshaped(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                    %shape: tensor<2xi64>) -> tensor<?x?xf32> {
  %r = tensor.reshape %x(%shape) : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


def test_sizes_read_from_arguments_are_planned(cache_dir: Path) -> None:
    """An element of a short integer argument at a constant position and a 0-d
    integer argument size results: planned from their values (given as arrays,
    numbers or lists), cached per value, refused when negative."""
    exe = runtime.compile(ELEMENT_SIZES, cache_dir=cache_dir, hot_after=None)
    x = _f32(6)
    for second, k in ((4, 2), (0, 0), (6, 5), (4, 2)):
        sizes = np.array([9, second, -7], np.int64)
        head, zeros = exe.head(x, sizes, np.array(k, np.int32))
        np.testing.assert_array_equal(head, x[:second])
        assert zeros.shape == (k,)
        assert exe.head.plan(x, [9, second, -7], k).shapes == ((second,), (k,))
    assert (exe.stats()["misses"], exe.stats()["hits"]) == (3, 5)  # one entry per value
    assert exe.head.plan((6,), np.array([0, 3, 0]), np.int32(1)).shapes == ((3,), (1,))
    with pytest.raises(PlanError, match=r"result 1 \(made at -:12:8\): axis 0: size .* "
                       r"evaluates to -1 < 0"):
        exe.head(x, np.array([0, 1, 0], np.int64), -1)
    with pytest.raises(SignatureError, match="argument 2 of @head"):
        exe.head.plan(x, [0, 1, 0], 2**31)
    fast = exe.head.bind_params({1: np.array([0, 2, 0], np.int64)})
    np.testing.assert_array_equal(fast(x, 1)[0], x[:2])


def test_shape_given_as_an_input_is_planned(cache_dir: Path) -> None:
    """A reshape to a shape input (an ONNX Reshape whose shape is a graph input) is
    planned from the shape's values; a shape that changes the element count fails
    the call cleanly."""
    exe = runtime.compile(ELEMENT_SIZES, cache_dir=cache_dir, hot_after=None)
    x = _f32(6)
    for shape in ([2, 3], [6, 1], [1, 6]):
        got = exe.reshaped(x, np.array(shape, np.int64))
        np.testing.assert_array_equal(got, x.reshape(shape))
        assert exe.reshaped.plan((6,), shape).shapes == (tuple(shape),)
    with pytest.raises(RuntimeCallError, match="the call's inputs: \\[6\\], = \\[4, 2\\]"):
        exe.reshaped(x, np.array([4, 2], np.int64))
