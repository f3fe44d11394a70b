"""The README, read as a user reads it: each code block run as written (inputs of
sensible shapes built with numpy), each claim about an API, a default, an error
class and its message, a CLI flag or a pass checked against the product, and
the misuses a reader would try refused with the structured errors it names."""

import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import symshape_mlir
from runtime_programs import ADD as ADD_BATCH
from runtime_programs import FROM_DATA
from symshape_mlir import frontend as fe
from symshape_mlir import onnx as sso
from symshape_mlir import runtime
from symshape_mlir.frontend import (
    ADError,
    BroadcastError,
    ContractError,
    FrontendError,
    ShapeError,
    Tensor,
    bf16,
    f32,
    i32,
    i64,
    u8,
)
from symshape_mlir.frontend.tracing import trace

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parents[2]
MLP = ROOT / "examples" / "mlp.mlir"
BIN = Path(sys.executable).parent
FILE = Path(__file__).name
RNG = np.random.default_rng(0)


def _f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _tool(name: str, *args: str, cwd: Path | None = None,
          stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Runs an installed command line tool (a separate process: an abort cannot
    take the tests down, and the exit status is the tool's own)."""
    return subprocess.run([str(BIN / name), *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, input=stdin, timeout=300, check=False)


def _line_of(fn: Callable[..., Any], text: str) -> int:
    """The file line of the first line of ``fn``'s source that holds ``text``."""
    lines, first = __import__("inspect").getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


# -- Running programs: symshape_mlir.runtime ------------------------------------------


@pytest.fixture(scope="module")
def weights() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``w1, b1, w2`` of examples/mlp.mlir (64 -> 128 -> 10)."""
    return _f32(64, 128) * 0.1, _f32(128), _f32(128, 10) * 0.1


def _mlp(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray) -> np.ndarray:
    return (np.maximum(x @ w1 + b1, 0.0) @ w2).reshape(-1)


@pytest.fixture(scope="module")
def exe(cache_dir: Path) -> runtime.Executable:
    """``runtime.compile("examples/mlp.mlir")``, with the tests' private disk cache."""
    return runtime.compile(str(MLP), cache_dir=cache_dir)


def test_runtime_block(exe: runtime.Executable, weights: tuple[np.ndarray, ...]) -> None:
    """The runtime code block, line by line."""
    w1, b1, w2 = weights
    x = _f32(5, 64)
    y = exe.mlp(x, w1, b1, w2)
    np.testing.assert_allclose(y, _mlp(x, w1, b1, w2), rtol=1e-4, atol=1e-4)
    plan = exe.mlp.plan((32, 64), w1, b1, w2)
    assert plan.shapes == ((320,),)
    assert plan.buffer_bytes == 32768
    assert sum(plan.buffer_nbytes) == plan.buffer_bytes
    fast = exe.mlp.bind_params({1: w1, 2: b1, 3: w2})
    np.testing.assert_allclose(fast(x), y, rtol=1e-5, atol=1e-5)
    packed = exe.mlp.bind_params({1: w1, 2: b1, 3: w2}, packed=True)
    np.testing.assert_allclose(packed(x), y, rtol=1e-4, atol=1e-4)
    exe.pre_specialize([{"batch": 1}, {"batch": 32}])
    x32 = _f32(32, 64)
    np.testing.assert_allclose(exe.mlp(x32, w1, b1, w2), _mlp(x32, w1, b1, w2),
                               rtol=1e-4, atol=1e-4)
    stats = exe.stats()
    for key in ("hits", "misses", "evictions", "disk_hits", "compiles", "swaps",
                "compile_seconds", "padded", "sync_variants"):
        assert key in stats, key
    assert stats["compiles"] >= 1
    assert isinstance(exe.mlp.variants, runtime.Variants)


@pytest.mark.parametrize(("args", "message"), [
    (lambda x, w1, b1, w2: (x, w1, b1), "@mlp takes 4 arguments, got 3"),
    (lambda x, w1, b1, w2: (x.astype(np.float64), w1, b1, w2),
     "argument 0 of @mlp must be tensor<?x64xf32> (float32), got a float64 array"),
    (lambda x, w1, b1, w2: (x[0], w1, b1, w2),
     "argument 0 of @mlp must be tensor<?x64xf32>, got shape (64,)"),
    (lambda x, w1, b1, w2: (x, w1[:5], b1, w2),
     "argument 1 of @mlp must be tensor<64x128xf32>, got shape (5, 128)"),
], ids=["count", "dtype", "rank", "static-extent"])
def test_level2_signature_errors(exe: runtime.Executable, weights: tuple[np.ndarray, ...],
                                 args: Callable[..., tuple[Any, ...]], message: str) -> None:
    """Level 2 checks argument count, dtype, rank and static extents before the call;
    ``plan`` (which takes shapes too) checks all but the dtype."""
    arguments = args(_f32(3, 64), *weights)
    with pytest.raises(runtime.SignatureError) as info:
        exe.mlp(*arguments)
    assert str(info.value) == message
    if "float64" not in message:
        with pytest.raises(runtime.SignatureError) as info:
            exe.mlp.plan(*(getattr(a, "shape", a) for a in arguments))
        assert str(info.value) == message


def test_misused_entry_points(exe: runtime.Executable, weights: tuple[np.ndarray, ...]) -> None:
    """An unknown function, a bad bind_params index, shape or arity, and bad
    pre_specialize bindings are refused with what was wrong, before any compile."""
    w1, b1, w2 = weights
    with pytest.raises(KeyError, match=r"no function @nope \(the module exports: mlp\)"):
        exe["nope"]
    with pytest.raises(AttributeError, match=r"no function @nope \(the module exports: mlp\)"):
        exe.nope  # noqa: B018
    with pytest.raises(runtime.SignatureError, match="@mlp has no argument 7"):
        exe.mlp.bind_params({7: w1})
    with pytest.raises(runtime.SignatureError, match="argument 1 of @mlp must be "):
        exe.mlp.bind_params({1: w2})
    fast = exe.mlp.bind_params({1: w1, 2: b1, 3: w2})
    with pytest.raises(runtime.SignatureError,
                       match="@mlp with bound parameters takes 1 arguments, got 2"):
        fast(_f32(2, 64), w1)
    compiles = exe.stats()["compiles"]
    with pytest.raises(ValueError, match=r"pre_specialize: axis 'time' is not a named axis "
                       r"of @mlp \(named axes: batch\)"):
        exe.pre_specialize([{"time": 3}])
    with pytest.raises(ValueError, match="axis 'batch' is bound to -3: sizes are non-negative"):
        exe.pre_specialize([{"batch": -3}])
    with pytest.raises(TypeError, match="axis 'batch' is bound to '4', not an integer"):
        exe.pre_specialize([{"batch": "4"}])
    with pytest.raises(KeyError, match="no function @other"):
        exe.pre_specialize([{"batch": 4}], functions=["other"])
    assert exe.stats()["compiles"] == compiles


def test_compile_misuse(cache_dir: Path) -> None:
    """A path that names no file and an unknown target are refused by name."""
    with pytest.raises(FileNotFoundError, match=r"no file 'examples/missing\.mlir'"):
        runtime.compile("examples/missing.mlir", cache_dir=cache_dir)
    with pytest.raises(ValueError, match="unknown target 'tpu'; expected one of llvm-cpu, "
                       "vulkan, cuda, metal, rocm"):
        runtime.compile(MLP, target="tpu", cache_dir=cache_dir)


ADD = ADD_BATCH + """
func.func @scale(%a: tensor<8xf32>, %s: f32) -> tensor<8xf32> {
  %init = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @fill(%n: i32, %v: f32) -> tensor<?xf32> {
  %k = arith.index_cast %n : i32 to index
  %e = tensor.empty(%k) : tensor<?xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %f : tensor<?xf32>
}

func.func @head(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                %sizes: tensor<3xi64>) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %e = tensor.extract %sizes[%c1] : tensor<3xi64>
  %rows = arith.index_cast %e : i64 to index
  %head = tensor.extract_slice %x[0] [%rows] [1] : tensor<?xf32> to tensor<?xf32>
  return %head : tensor<?xf32>
}

func.func @reshaped(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                    %shape: tensor<2xi64>) -> tensor<?x?xf32> {
  %r = tensor.reshape %x(%shape) : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def programs(cache_dir: Path) -> runtime.Executable:
    """Small functions for the Level-2 claims, in one module."""
    return runtime.compile(ADD, cache_dir=cache_dir, hot_after=None)


def test_axis_binding_error(programs: runtime.Executable) -> None:
    """Two inputs that disagree on a named axis: the README's exact message."""
    a = _f32(5, 4)
    np.testing.assert_array_equal(programs.add(a, a), a + a)
    with pytest.raises(runtime.AxisBindingError) as info:
        programs.add(a, _f32(3, 4))
    assert str(info.value) == "axis 'batch': input 1 has 3, input 0 has 5"


def test_signless_i32_scalar_takes_the_signed_range(programs: runtime.Executable) -> None:
    """A signless i32 scalar sizes a result; beyond the signed range it is a
    SignatureError, a negative size a PlanError naming where the result is made."""
    np.testing.assert_array_equal(programs.fill(3, 1.5), np.full(3, 1.5, np.float32))
    assert programs.fill.plan(2**31 - 1, 0.0).shapes == ((2**31 - 1,),)
    with pytest.raises(runtime.SignatureError, match="argument 0 of @fill"):
        programs.fill(2**31, 1.0)
    with pytest.raises(runtime.PlanError, match=r"@fill result 0 \(made at -:\d+:\d+\): "):
        programs.fill(-1, 1.0)


def test_function_without_dynamic_axes(programs: runtime.Executable) -> None:
    """A static function skips binding and planning: no LRU entry is made."""
    misses = programs.stats()["misses"]
    a = _f32(8)
    assert programs.scale.is_static
    np.testing.assert_array_equal(programs.scale(a, 2.0), a * 2)
    assert programs.stats()["misses"] == misses


def test_sizes_read_from_integer_inputs(programs: runtime.Executable) -> None:
    """``tensor.extract %sizes[%c1]`` and ``tensor.reshape %x(%shape)`` are planned from
    the inputs' values; ``plan()`` takes them as numbers, lists or arrays; a reshape
    that changes the element count is a RuntimeCallError naming the op's location,
    the input shapes and the integer values."""
    x = _f32(6)
    np.testing.assert_array_equal(programs.head(x, np.array([9, 4, 0])), x[:4])
    assert programs.head.plan((6,), [9, 2, 0]).shapes == ((2,),)
    assert programs.head.plan(x, np.array([0, 5, 0])).shapes == ((5,),)
    np.testing.assert_array_equal(programs.reshaped(x, np.array([2, 3])), x.reshape(2, 3))
    assert programs.reshaped.plan((6,), [3, 2]).shapes == ((3, 2),)
    with pytest.raises(runtime.RuntimeCallError) as info:
        programs.reshaped(x, np.array([4, 2], np.int64))
    assert re.search(r"tensor\.reshape at -:\d+:\d+\)?.*the call's inputs: \[6\], = \[4, 2\]",
                     str(info.value)), str(info.value)




def test_unplannable_size_and_opt_out(cache_dir: Path) -> None:
    """A result sized by a value computed inside the function is an
    UnplannableSizeError naming the op's location, unless unplanned=["name"]."""
    with pytest.raises(runtime.UnplannableSizeError) as info:
        runtime.compile(FROM_DATA, cache_dir=cache_dir)
    assert info.value.function == "from_data"
    assert info.value.location is not None and ":8:" in info.value.location
    assert "unplanned=" in str(info.value)
    unplanned = runtime.compile(FROM_DATA, cache_dir=cache_dir, unplanned=["from_data"])
    assert unplanned.from_data(np.array([3, 1], np.int64)).shape == (9,)


BUCKET = """
func.func @rows(%x: tensor<?x3xf32> {symshape.axes = #symshape.shape<[batch, 3]>})
    -> tensor<?x3xf32> attributes {symshape.bucket = ["batch"]} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3xf32>
  %init = tensor.empty(%n) : tensor<?x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x3xf32>) outs(%init : tensor<?x3xf32>) {
  ^bb0(%a: f32, %out: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
"""


def test_buckets(cache_dir: Path) -> None:
    """``symshape.bucket``: batches 5 to 8 run one padded binding, results are sliced
    back, ``stats()["padded"]`` counts them; the dialect checks the axis name."""
    exe = runtime.compile(BUCKET, cache_dir=cache_dir, hot_after=None)
    for batch in (5, 7, 8):
        x = _f32(batch, 3)
        np.testing.assert_array_equal(exe.rows(x), x * x)
    assert exe.stats()["padded"] == 2
    exe.pre_specialize([{"batch": 8}])
    compiles = exe.stats()["compiles"]
    for batch in (5, 6, 8):
        x = _f32(batch, 3)
        np.testing.assert_array_equal(exe.rows(x), x * x)
    assert exe.stats()["compiles"] == compiles
    bad = BUCKET.replace('symshape.bucket = ["batch"]', 'symshape.bucket = ["time"]')
    code = f"""
        from symshape_mlir import runtime
        try:
            runtime.compile({bad!r}, cache_dir=False)
        except Exception as err:
            print(type(err).__name__, err)
        """
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "'symshape.bucket' names 'time', which no argument's 'symshape.axes' declares" \
        in done.stdout


def test_disk_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """$SYMSHAPE_MLIR_CACHE_DIR is the default directory; a second compile of the same
    module reads it back; cache_dir=False uses none."""
    monkeypatch.setenv("SYMSHAPE_MLIR_CACHE_DIR", str(tmp_path))
    assert runtime.default_cache_dir() == tmp_path
    first = runtime.compile(ADD, hot_after=None, cache_max_bytes=1 << 30)
    assert first.stats()["disk_hits"] == 0 and any(tmp_path.iterdir())
    second = runtime.compile(ADD, hot_after=None)
    assert second.stats()["disk_hits"] >= 1 and second.stats()["compiles"] == 0
    a = _f32(2, 4)
    np.testing.assert_array_equal(second.add(a, a), a + a)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    runtime.compile(ADD, hot_after=None, cache_dir=False)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_hot_binding_swaps_in_a_static_variant(cache_dir: Path) -> None:
    """With ``hot_after=N`` a binding seen N times gets a static variant compiled in
    the background; ``exe.wait()`` waits for it and ``stats()["swaps"]`` counts it."""
    exe = runtime.compile(ADD, cache_dir=cache_dir, hot_after=2)
    a = _f32(3, 4)
    for _ in range(3):
        np.testing.assert_array_equal(exe.add(a, a), a + a)
    assert exe.wait(timeout=240)
    assert exe.stats()["swaps"] == 1
    np.testing.assert_array_equal(exe.add(a, a), a + a)
    exe.close()


# -- Writing programs in Python: symshape_mlir.frontend --------------------------------


def test_frontend_block(cache_dir: Path) -> None:
    """The frontend code block: softmax(relu(x @ w)) at any batch, against numpy."""

    @symshape_mlir.jit(cache_dir=cache_dir)
    def mlp(x: Tensor["batch", 64, f32], w: Tensor[64, 10, f32]):
        return fe.softmax(fe.relu(x @ w), axis=-1)

    w = _f32(64, 10)
    for batch in (5, 1):
        x = _f32(batch, 64)
        h = np.maximum(x @ w, 0.0)
        e = np.exp(h - h.max(-1, keepdims=True))
        np.testing.assert_allclose(mlp(x, w), e / e.sum(-1, keepdims=True), rtol=1e-5,
                                   atol=1e-6)
    assert mlp(np.ones((5, 64), np.float32), np.ones((64, 10), np.float32)).shape == (5, 10)
    with pytest.raises(runtime.SignatureError, match="got a float64 array"):
        mlp(np.ones((5, 64)), w)


def test_extent_arithmetic_and_numpy_functions(cache_dir: Path) -> None:
    """``x.shape[0]`` is an extent with arithmetic; numpy's functions and operators
    on traced tensors trace them; integer ``/`` gives f64."""

    @symshape_mlir.jit(cache_dir=cache_dir)
    def shapes(x: Tensor["batch", 6, f32]):  # noqa: F821
        assert int(x.shape[1]) == 6 and x.shape[1] == 6 and x.shape[1] != 5
        assert list(range(x.shape[1])) == [0, 1, 2, 3, 4, 5] and x.shape[0] != 6
        return x.reshape(x.shape[0] * 2, -1), x / x.shape[-1]

    @symshape_mlir.jit(cache_dir=cache_dir)
    def numpy_calls(x: Tensor["batch", 4, f32], i: Tensor["batch", 4, i32]):  # noqa: F821
        return np.exp(x), np.sum(x, axis=1), np.ones(4) * x, i / i

    x = _f32(3, 6)
    flat, scaled = shapes(x)
    np.testing.assert_array_equal(flat, x.reshape(6, -1))
    np.testing.assert_allclose(scaled, x / 6, rtol=1e-6)
    x = _f32(3, 4)
    i = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    e, s, o, q = numpy_calls(x, i)
    np.testing.assert_allclose(e, np.exp(x), rtol=1e-5)
    np.testing.assert_allclose(s, np.sum(x, axis=1), rtol=1e-5, atol=1e-6)
    assert o.dtype == (np.ones(4) * x).dtype and q.dtype == np.float64
    np.testing.assert_allclose(o, np.ones(4) * x)
    np.testing.assert_array_equal(q, i / i)


def test_runtime_integers_size_tensors(cache_dir: Path) -> None:
    """The ``head`` block: ``x[:k]``, ``arange(sizes[1])`` and a boolean mask."""

    @symshape_mlir.jit(cache_dir=cache_dir)
    def head(x: Tensor["n", 8, f32], k: Tensor[i64], sizes: Tensor[2, i64]):  # noqa: F821
        return x[:k] * 2.0, fe.arange(sizes[1]), x[x > 0.0]

    shapes = [r.shape for r in head(np.ones((5, 8), np.float32), 3, np.array([0, 4]))]
    assert shapes == [(3, 8), (4,), (40,)]
    x = _f32(5, 8)
    for k in (3, 0, -2, 9, -9):
        top, rng, masked = head(x, k, np.array([0, 2]))
        np.testing.assert_array_equal(top, x[:k] * 2.0)
        np.testing.assert_array_equal(rng, np.arange(2))
        np.testing.assert_array_equal(masked, x[x > 0.0])


def test_unnamed_axis_adopts_a_name(cache_dir: Path) -> None:
    """``[batch] + [?]`` is ``[batch]``; the ``?`` is checked at run time to be 1 or
    ``batch`` (a RuntimeCallError naming the op's line and the input shapes)."""

    def add(x: Tensor["batch", f32], y: Tensor["?", f32]):  # noqa: F821, F722
        return x + y

    assert str(trace(add).result_shapes[0]) == "[batch]"
    jitted = symshape_mlir.jit(add, cache_dir=cache_dir)
    a = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(jitted(a, np.ones(1, np.float32)), a + 1)
    np.testing.assert_array_equal(jitted(a, a), a + a)
    line = _line_of(add, "return x + y")
    with pytest.raises(runtime.RuntimeCallError,
                       match=rf"{FILE}:{line}:\d+\); the call's inputs: \[5\], \[3\]"):
        jitted(a, np.ones(3, np.float32))


def _truncated_reshape(x: Tensor["batch", 6, f32], n: Tensor[i64]):  # noqa: F821
    t = fe.dynamic_truncate(x, n, axis=0)
    return t.reshape(-1)


def _truncated_broadcast(x: Tensor["batch", 6, f32], n: Tensor[i64]):  # noqa: F821
    t = fe.dynamic_truncate(x, n, axis=0)
    return fe.broadcast_to(t, (t.shape[0], 6))


def _mismatch(x: Tensor["batch", 3, f32], y: Tensor["batch", 4, f32]):  # noqa: F821
    return x + y


def _never_divides(x: Tensor["batch", 6, f32]):  # noqa: F821
    return x.reshape(x.shape[0], 4, -1)


def _two_axes(x: Tensor["batch", 512, f32], y: Tensor["time", 512, f32]):  # noqa: F821
    return x + y


def _branch(x: Tensor["batch", f32]):  # noqa: F821
    if x > 0:
        return x
    return -x


def _as_int(x: Tensor[f32]):
    return x * int(x)


def _length(x: Tensor["batch", f32]):  # noqa: F821
    return x * len(x)


@pytest.mark.parametrize(("fn", "error", "line", "message"), [
    (_truncated_reshape, ContractError, "return t.reshape(-1)",
     "input extent 0 is ub(batch), only an upper bound"),
    (_truncated_broadcast, ContractError, "return fe.broadcast_to",
     "broadcast target extent 0 is ub(batch), only an upper bound"),
    (_mismatch, BroadcastError, "return x + y", "cannot broadcast dimension 1: 3"),
    (_never_divides, ShapeError, "return x.reshape",
     "cannot reshape [batch, 6] (6 * batch elements) into (batch, 4, -1)"),
    (_two_axes, BroadcastError, "return x + y", "different axes unless proven equal"),
    (_branch, FrontendError, "if x > 0:", "a traced tensor has no truth value"),
    (_as_int, FrontendError, "int(x)", "a traced tensor has no int value"),
    (_length, FrontendError, "len(x)", "the first axis is batch, not a constant"),
], ids=["upper-bound-reshape", "upper-bound-broadcast", "broadcast", "reshape-divide",
        "named-axes", "truth-value", "int", "len"])
def test_trace_time_errors_name_the_line(fn: Callable[..., Any], error: type[Exception],
                                         line: str, message: str) -> None:
    """The README's trace-time errors: each names the Python line."""
    with pytest.raises(error) as info:
        trace(fn)
    assert f"{FILE}:{_line_of(fn, line)}" in str(info.value)
    assert message in str(info.value)


def test_frontend_module_command(tmp_path: Path) -> None:
    """``python -m symshape_mlir.frontend file.py:fn`` prints the traced module, also of
    a ``@jit`` function; emitted ops carry the user's source locations."""
    program = tmp_path / "prog.py"
    program.write_text(textwrap.dedent("""
        import symshape_mlir
        from symshape_mlir import frontend as fe
        from symshape_mlir.frontend import Tensor, f32

        def plain(x: Tensor["batch", 4, f32]):
            return fe.exp(x)

        @symshape_mlir.jit(cache_dir=False)
        def jitted(x: Tensor["batch", 4, f32]):
            return x * 2.0
        """))
    for name, op in (("plain", "math.exp"), ("jitted", "arith.mulf")):
        done = subprocess.run([sys.executable, "-m", "symshape_mlir.frontend",
                               f"{program}:{name}"], capture_output=True, text=True,
                              timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        assert f"func.func @{name}(" in done.stdout and op in done.stdout
        assert "#symshape.shape<[batch, 4]>" in done.stdout
    assert 'loc("' + str(program) + '":7:' in trace_file_text(program, "plain")
    done = subprocess.run([sys.executable, "-m", "symshape_mlir.frontend", f"{program}:nope"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1 and "has no function 'nope'" in done.stderr


def trace_file_text(path: Path, name: str) -> str:
    """The traced module text (with locations) of ``name`` in ``path``."""
    namespace: dict[str, Any] = {"__name__": "prog", "__file__": str(path)}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return trace(namespace[name]).module_text


def test_element_types_and_backend_differences(cache_dir: Path) -> None:
    """bf16 arrays of ml_dtypes.bfloat16; a 0-d unsigned input is refused;
    ``max`` of an empty axis is -inf, ``argmax`` of one fails the call."""

    @symshape_mlir.jit(cache_dir=cache_dir)
    def twice(x: Tensor["n", bf16]):  # noqa: F821
        return x * 2.0

    x = np.arange(3).astype(ml_dtypes.bfloat16)
    got = twice(x)
    assert got.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(got.astype(np.float32), x.astype(np.float32) * 2)

    def unsigned(x: Tensor[u8]):
        return x + 1

    with pytest.raises(FrontendError, match=r"0-d u8: IREE 3\.13 does not compile 0-d unsigned"):
        symshape_mlir.jit(unsigned, cache_dir=cache_dir)

    @symshape_mlir.jit(cache_dir=cache_dir)
    def extremes(x: Tensor["n", f32]):  # noqa: F821
        return fe.max(x), fe.min(x)

    @symshape_mlir.jit(cache_dir=cache_dir)
    def position(x: Tensor["n", f32]):  # noqa: F821
        return fe.argmax(x)

    empty = np.zeros(0, np.float32)
    assert tuple(map(float, extremes(empty))) == (-np.inf, np.inf)
    assert int(position(np.array([1, 3, 2], np.float32))) == 1
    with pytest.raises(runtime.RuntimeCallError, match="argmax of an empty axis"):
        position(empty)


def test_jit_bucket(cache_dir: Path) -> None:
    """``@jit(bucket=["batch"])`` pads the batch; the name must be a named input axis."""

    def square(x: Tensor["batch", 3, f32]):
        return x * x

    bucketed = symshape_mlir.jit(square, bucket=["batch"], cache_dir=cache_dir, hot_after=None)
    for batch in (3, 4):
        x = _f32(batch, 3)
        np.testing.assert_array_equal(bucketed(x), x * x)
    assert bucketed.executable.stats()["padded"] == 1
    with pytest.raises(FrontendError, match="bucket axis 'time' is not a named axis of the "
                       r"inputs \(named: batch\)"):
        symshape_mlir.jit(square, bucket=["time"], cache_dir=cache_dir)


# -- Derivatives: grad, value_and_grad, vjp --------------------------------------------


def loss(w: Tensor[64, 10, f32], x: Tensor["batch", 64, f32], y: Tensor["batch", i64]):  # noqa: F821
    return -fe.mean(fe.sum(fe.log_softmax(x @ w, axis=-1) * fe.one_hot(y, 10), axis=-1))


def _loss_reference(w: np.ndarray, x: np.ndarray,
                    y: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    z = x @ w
    z = z - z.max(-1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
    g = (p - np.eye(10)[y]) / len(y)
    return float(-np.mean(np.log(p[np.arange(len(y)), y]))), x.T @ g, g @ w.T


@pytest.fixture(scope="module")
def classifier() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``w, x, y`` of the README's loss."""
    return _f32(64, 10) * 0.1, _f32(6, 64), RNG.integers(0, 10, 6)


def test_derivatives_block(cache_dir: Path, classifier: tuple[np.ndarray, ...]) -> None:
    """The derivatives code block, against numpy; ``.entry`` is the runtime's entry."""
    w, x, y = classifier
    value_ref, dw_ref, dx_ref = _loss_reference(w, x, y)
    dw = symshape_mlir.grad(loss, cache_dir=cache_dir)(w, x, y)
    np.testing.assert_allclose(dw, dw_ref, rtol=1e-4, atol=1e-6)
    both = symshape_mlir.value_and_grad(loss, argnums=(0, 1), cache_dir=cache_dir)
    value, (dw, dx) = both(w, x, y)
    np.testing.assert_allclose(value, value_ref, rtol=1e-5)
    np.testing.assert_allclose(dw, dw_ref, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(dx, dx_ref, rtol=1e-4, atol=1e-6)
    assert isinstance(both.entry, runtime.EntryPoint)
    assert both.entry.plan(w, (3, 64), (3,)).shapes == ((), (64, 10), (3, 64))
    assert both.entry.executable.stats()["misses"] >= 1

    def fun(x: Tensor["batch", 64, f32], w: Tensor[64, 10, f32]):  # noqa: F821
        return x @ w

    out, pullback = symshape_mlir.vjp(fun, x, w, cache_dir=cache_dir)
    ct = _f32(6, 10)
    dx, dw = pullback(ct)
    np.testing.assert_allclose(out, x @ w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dx, ct @ w.T, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dw, x.T @ ct, rtol=1e-4, atol=1e-5)

    @symshape_mlir.jit(cache_dir=cache_dir)
    def step(w: Tensor[64, 10, f32], x: Tensor["batch", 64, f32],  # noqa: F821
             y: Tensor["batch", i64]):  # noqa: F821
        value, dw = symshape_mlir.value_and_grad(loss)(w, x, y)
        return value, w - 0.1 * dw

    value, updated = step(w, x, y)
    np.testing.assert_allclose(value, value_ref, rtol=1e-5)
    np.testing.assert_allclose(updated, w - 0.1 * dw_ref, rtol=1e-4, atol=1e-6)


def test_has_aux_and_reusable_vjp(cache_dir: Path) -> None:
    """``has_aux`` returns ``(grads, aux)``; ``vjp(fun)`` is reusable, gives ``None``
    for integer primals, and ``pullback_at`` is one call."""

    def with_aux(x: Tensor["n", 4, f32]):  # noqa: F821
        return fe.sum(x * x), fe.max(x)

    x = _f32(3, 4)
    dx, aux = symshape_mlir.grad(with_aux, has_aux=True, cache_dir=cache_dir)(x)
    np.testing.assert_allclose(dx, 2 * x, rtol=1e-6)
    np.testing.assert_allclose(aux, x.max(), rtol=1e-6)

    def scaled(x: Tensor["n", 4, f32], k: Tensor[i64]):  # noqa: F821
        return x * 3.0, x[:k]

    reusable = symshape_mlir.vjp(scaled, cache_dir=cache_dir)
    (out, head), pullback = reusable(x, 2)
    np.testing.assert_allclose(out, 3 * x, rtol=1e-6)
    np.testing.assert_array_equal(head, x[:2])
    ct = _f32(3, 4)
    ct_head = _f32(2, 4)
    dx, dk = pullback(ct, ct_head)
    expected = 3 * ct
    expected[:2] += ct_head
    np.testing.assert_allclose(dx, expected, rtol=1e-5)
    assert dk is None
    outputs, (dx_at, dk_at) = reusable.pullback_at(x, 2, ct, ct_head)
    np.testing.assert_allclose(dx_at, expected, rtol=1e-5)
    assert dk_at is None
    np.testing.assert_allclose(outputs[0], 3 * x, rtol=1e-6)


def _nonscalar(x: Tensor["n", 4, f32]):  # noqa: F821
    return x * 2.0


def _with_count(x: Tensor["n", 4, f32], k: Tensor[i64]):  # noqa: F821
    return fe.sum(x) * 2.0


def _running_product(x: Tensor["n", 4, f32]):  # noqa: F821
    return fe.sum(fe.cumprod(x, axis=1))


def _square_sum(x: Tensor["n", 4, f32]):  # noqa: F821
    return fe.sum(x * x)


def _flat(x: Tensor["n", 4, f32], k: Tensor[i64]):  # noqa: F821
    t = fe.dynamic_truncate(x, k)
    return fe.sum(t.reshape(8))


def _own_body(x: Tensor["n", 4, f32]):  # noqa: F821
    def body(block: Any, values: list[str], dtype: Any) -> str:
        return block.op(f"math.exp {values[0]}", dtype.mlir)

    return fe.sum(fe.elementwise("my_exp", [x], body))


def _scatter_mul(x: Tensor["n", 4, f32], i: Tensor["n", 1, i64]):  # noqa: F821
    return fe.sum(fe.put_along_axis(x, i, x[:, :1], axis=1, reduction="mul"))


@pytest.mark.parametrize(("make", "args", "primitive", "message"), [
    (lambda: symshape_mlir.grad(_nonscalar), "x", "grad",
     "grad of _nonscalar: the function must return a scalar, but its output has shape "
     "[n, 4]; reduce it (sum, mean) or use vjp"),
    (lambda: symshape_mlir.grad(_with_count, argnums=1), "xk", "grad",
     "grad of _with_count: argument 1 ('k') is i64: integer and boolean inputs are not "
     "differentiable (leave it out of argnums)"),
    (lambda: symshape_mlir.grad(_with_count, argnums=2), "xk", "grad",
     "grad of _with_count: argnums 2 is out of range for 2 arguments"),
    (lambda: symshape_mlir.grad(symshape_mlir.grad(_square_sum)), "x", "grad",
     "grad of <grad of _square_sum>: differentiating a derivative (a gradient of a "
     "gradient) is not supported"),
    (lambda: symshape_mlir.vjp(symshape_mlir.value_and_grad(_square_sum)), "x", "vjp",
     "vjp of <value_and_grad of _square_sum>: differentiating a derivative (a gradient of "
     "a gradient) is not supported"),
    (lambda: symshape_mlir.grad(_running_product), "x", "cumprod",
     "a running product has no VJP rule"),
    (lambda: symshape_mlir.grad(_own_body), "x", "my_exp",
     "my_exp has no VJP rule, and the gradient needs it"),
    (lambda: symshape_mlir.grad(_scatter_mul), "xi", "put_along_axis", "no VJP rule"),
], ids=["non-scalar", "integer-argnum", "argnum-range", "grad-of-grad", "vjp-of-grad",
        "cumprod", "elementwise-body", "scatter-mul"])
def test_ad_errors(make: Callable[[], Any], args: str, primitive: str, message: str) -> None:
    """The ADError cases the README lists, each with its primitive."""
    values = {"x": _f32(3, 4), "k": np.int64(2), "i": np.zeros((3, 1), np.int64)}
    with pytest.raises(ADError) as info:
        make()(*(values[name] for name in args))
    assert info.value.primitive == primitive
    assert message in str(info.value), str(info.value)


def test_ad_error_of_an_upper_bound() -> None:
    """The README's ADError text: op, line, field and guarantee."""
    with pytest.raises(ADError) as info:
        symshape_mlir.grad(_flat)(_f32(3, 4), 2)
    line = _line_of(_flat, "t.reshape(8)")
    assert (info.value.primitive, info.value.field, info.value.guarantee) == (
        "reshape", "input extent 0", "upper bound")
    assert info.value.location is not None and info.value.location.line == line
    assert str(info.value).startswith(
        f"reshape at {FILE}:{line} (return fe.sum(t.reshape(8))): its VJP needs an exact "
        "input extent 0, but it is ub(n), only an upper bound (the bound comes from "
        f"dynamic_truncate at {FILE}:{line - 1} ")


# -- Importing ONNX models: symshape_mlir.onnx ----------------------------------------


def _attention_reshape() -> onnx.ModelProto:
    """x[batch, seq, 768] reshaped to [batch, seq, 12, 64] through Shape -> Gather ->
    Concat -> Reshape (as torch exports it), then transposed."""
    nodes = [
        helper.make_node("Shape", ["x"], ["/attn/Shape_output_0"], name="/attn/Shape"),
        helper.make_node("Gather", ["/attn/Shape_output_0", "i0"], ["/attn/Gather_output_0"],
                         name="/attn/Gather", axis=0),
        helper.make_node("Gather", ["/attn/Shape_output_0", "i1"], ["/attn/Gather_1_output_0"],
                         name="/attn/Gather_1", axis=0),
        helper.make_node("Unsqueeze", ["/attn/Gather_output_0", "axes"], ["/attn/u0"],
                         name="/attn/Unsqueeze"),
        helper.make_node("Unsqueeze", ["/attn/Gather_1_output_0", "axes"], ["/attn/u1"],
                         name="/attn/Unsqueeze_1"),
        helper.make_node("Concat", ["/attn/u0", "/attn/u1", "heads"],
                         ["/attn/Concat_output_0"], name="/attn/Concat", axis=0),
        helper.make_node("Reshape", ["x", "/attn/Concat_output_0"], ["/attn/Reshape_output_0"],
                         name="/attn/Reshape"),
        helper.make_node("Transpose", ["/attn/Reshape_output_0"], ["y"],
                         name="/attn/Transpose", perm=[0, 2, 1, 3]),
    ]
    initializers = [
        numpy_helper.from_array(np.array(0, np.int64), "i0"),
        numpy_helper.from_array(np.array(1, np.int64), "i1"),
        numpy_helper.from_array(np.array([0], np.int64), "axes"),
        numpy_helper.from_array(np.array([12, 64], np.int64), "heads"),
    ]
    graph = helper.make_graph(
        nodes, "attn", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                      ["batch", "seq", 768])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _graph_model(nodes: list[onnx.NodeProto], inputs: list[onnx.ValueInfoProto],
                 outputs: list[onnx.ValueInfoProto], opset: int = 17) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


@pytest.fixture(scope="module")
def onnx_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding model.onnx (the attention reshape) and the misuse models."""
    directory = tmp_path_factory.mktemp("onnx")
    onnx.save(_attention_reshape(), directory / "model.onnx")
    relus = [helper.make_node("Relu", ["a" if i == 0 else f"r{i - 1}"], [f"r{i}"],
                              name=f"relu{i}") for i in range(6)]
    det = helper.make_node("Det", ["r5"], ["d"], name="det")
    onnx.save(_graph_model([*relus, det],
                           [helper.make_tensor_value_info("a", TensorProto.FLOAT, [3, 3])],
                           [helper.make_tensor_value_info("d", TensorProto.FLOAT, [])]),
              directory / "det.onnx")
    reshape = helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")
    onnx.save(_graph_model(
        [reshape],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"]),
         helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]),
        directory / "reshape.onnx")
    (directory / "junk.onnx").write_bytes(b"not a model")
    return directory


def test_onnx_block(onnx_dir: Path, cache_dir: Path) -> None:
    """The ONNX code block: import, compile, run at two bindings; shapes only."""
    from mlir import ir

    path = str(onnx_dir / "model.onnx")
    module = sso.import_model(path)
    assert isinstance(module, ir.Module)
    assert "func.func @main(" in str(module)
    exe = runtime.compile(module, cache_dir=cache_dir, hot_after=None)
    for batch, seq in ((1, 3), (2, 5)):
        x = _f32(batch, seq, 768)
        np.testing.assert_array_equal(exe.main(x),
                                      x.reshape(batch, seq, 12, 64).transpose(0, 2, 1, 3))
    shapes = sso.infer_shapes(path, build=False)
    assert str(shapes["/attn/Reshape_output_0"]) == "[batch, seq, 12, 64]"
    assert str(sso.infer_shapes(path)["/attn/Reshape_output_0"]) == "[batch, seq, 12, 64]"
    for policy in ("skip", "override", "refine", "strict"):
        built = sso.infer_shapes(path, build=False, policy=policy, warn_on_missing=False)
        assert str(built["y"]) == "[batch, 12, seq, 64]"
    with pytest.raises(ValueError, match="policy 'bogus' is not one of skip, override, "
                       "refine, strict"):
        sso.infer_shapes(path, policy="bogus")


def test_onnx_constants_and_bad_models(onnx_dir: Path, cache_dir: Path) -> None:
    """A Reshape shape that is a graph input: bound with ``constants=`` (unbound, the
    import names the input and its node); an unsupported op, a missing file and a
    non-model are OnnxImportErrors naming the file (and the node's position, op, name and opset)."""
    path = onnx_dir / "reshape.onnx"
    bound = sso.import_model(path, constants={"shape": np.array([2, -1], np.int64)})
    fixed = runtime.compile(bound, cache_dir=cache_dir, hot_after=None)
    x = _f32(6)
    np.testing.assert_array_equal(fixed.main(x), x.reshape(2, 3))
    with pytest.raises(sso.OnnxImportError) as info:
        sso.import_model(path)
    assert str(info.value) == (f"{path}:1: Reshape node 'reshape' (opset 17): input 1 (shape) "
                               "must be known when the model is imported: a constant, an "
                               "initializer, or computed from tensor shapes")
    with pytest.raises(sso.OnnxImportError) as info:
        sso.import_model(onnx_dir / "det.onnx")
    assert str(info.value) == (f"{onnx_dir / 'det.onnx'}:7: Det node 'det' (opset 17): "
                               "ONNX Det version 11 is not supported")
    with pytest.raises(sso.OnnxImportError, match=r"missing\.onnx: cannot read the model"):
        sso.import_model(onnx_dir / "missing.onnx")
    with pytest.raises(sso.OnnxImportError, match=r"junk\.onnx: not an ONNX model"):
        sso.import_model(onnx_dir / "junk.onnx")
    with pytest.raises(sso.OnnxImportError, match=r"constants name no graph input: \['nope'\]"):
        sso.import_model(path, constants={"nope": np.zeros(2, np.int64)})
    old = _graph_model([helper.make_node("Relu", ["a"], ["b"])],
                       [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2])],
                       [helper.make_tensor_value_info("b", TensorProto.FLOAT, [2])], opset=11)
    with pytest.raises(sso.OnnxImportError, match="opset 11 is not supported"):
        sso.import_model(old)


def test_supported_ops() -> None:
    """Over a hundred ops, among them those the README names."""
    ops = sso.supported_ops()
    assert len(ops) > 100
    for op in ("Conv", "ConvTranspose", "Resize", "Einsum", "TopK", "NonZero", "CumSum",
               "Trilu", "LayerNormalization", "ScatterND", "GatherND", "If"):
        assert op in ops, op


def test_onnx_command_lines(onnx_dir: Path, tmp_path: Path) -> None:
    """``symshape-import-onnx model.onnx -o model.mlir`` (dim_params become named axes,
    ``--bind name=file.npy``), then ``symshape-opt --symshape-to-iree | iree-compile``."""
    done = _tool("symshape-import-onnx", str(onnx_dir / "model.onnx"), "-o", "model.mlir",
                 cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "model.mlir").read_text()
    assert "#symshape.shape<[batch, seq, 768]>" in text
    lowered = _tool("symshape-opt", "--symshape-to-iree", "model.mlir", cwd=tmp_path)
    assert lowered.returncode == 0, lowered.stderr
    compiled = subprocess.run(
        [str(BIN / "iree-compile"), "-", "--iree-hal-target-device=local",
         "--iree-hal-local-target-device-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=host",
         "-o", str(tmp_path / "model.vmfb")], input=lowered.stdout, capture_output=True,
        text=True, timeout=300, check=False)
    assert compiled.returncode == 0, compiled.stderr
    assert (tmp_path / "model.vmfb").stat().st_size > 0
    np.save(tmp_path / "shape.npy", np.array([3, -1], np.int64))
    bound = _tool("symshape-import-onnx", str(onnx_dir / "reshape.onnx"),
                  "--bind", f"shape={tmp_path / 'shape.npy'}")
    assert bound.returncode == 0, bound.stderr
    assert "func.func @main(%arg0: tensor<?xf32>" in bound.stdout
    assert "tensor<2xi64>" not in bound.stdout.split("{", 1)[0]
    failed = _tool("symshape-import-onnx", str(onnx_dir / "det.onnx"), "-o", "d.mlir",
                   cwd=tmp_path)
    assert failed.returncode == 1
    assert "det.onnx:7: error: Det node 'det' (opset 17): ONNX Det version 11 is not " \
        "supported" in failed.stderr


# -- Using symshape-opt ----------------------------------------------------------------


TASTE = """
func.func @f(%x: tensor<?x768xf32> {symshape.axes = #symshape.shape<[batch, 768]>},
             %n: tensor<i64>) -> tensor<?xf32> {
  // Stage 1 of a runtime truncation: only ub(batch) rows are known.
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x768xf32>, tensor<i64>) """ \
    """-> tensor<?x768xf32>
  // Rejected by symshape-verify-contract: the target is an upper bound.
  %r = symshape.reshape %t to [dim(0, 0) * 768] : (tensor<?x768xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


def test_opt_readme_commands(tmp_path: Path) -> None:
    """The four symshape-opt commands of the README, and the pass list."""
    annotated = _tool("symshape-opt", "--symshape-infer-shapes", "examples/mlp.mlir")
    assert annotated.returncode == 0, annotated.stderr
    assert "{symshape.shape = #symshape.shape<[10 * batch]>}" in annotated.stdout
    verified = _tool("symshape-opt", "--symshape-infer-shapes", "--symshape-verify-contract",
                     "examples/mlp.mlir")
    assert verified.returncode == 0, verified.stderr
    lowered = _tool("symshape-opt", "--symshape-to-iree", "examples/mlp.mlir")
    assert lowered.returncode == 0 and "symshape." not in lowered.stdout.replace(
        "symshape.axes", "")
    pipeline = _tool("symshape-opt", "--pass-pipeline=builtin.module(symshape-infer-shapes"
                     "{policy=strict},canonicalize)", "examples/mlp.mlir", "-o",
                     str(tmp_path / "out.mlir"))
    assert pipeline.returncode == 0, pipeline.stderr
    assert "symshape.shape" in (tmp_path / "out.mlir").read_text()
    listed = _tool("symshape-opt", "--list-passes").stdout
    for name in ("symshape-infer-shapes", "symshape-verify-contract",
                 "symshape-check-guarantees", "symshape-specialize", "symshape-resolve",
                 "symshape-strip-annotations", "symshape-relayout-convolutions",
                 "symshape-to-iree"):
        assert f"--{name} " in listed, name


def test_opt_misuse() -> None:
    """An unknown pass, an unknown option, a bad option value, a missing file and bad
    input are one-line errors with exit status 1 (never an abort)."""
    for args, message in [
        (("--symshape-bogus", "examples/mlp.mlir"),
         "unknown command line argument '--symshape-bogus'"),
        (("--pass-pipeline=builtin.module(symshape-infer-shapes{nope=1})",
          "examples/mlp.mlir"),
         "symshape-infer-shapes: unknown option 'nope' (options of this pass: policy, "
         "truncate-stage)"),
        (("--pass-pipeline=builtin.module(symshape-infer-shapes{policy=bogus})",
          "examples/mlp.mlir"),
         "invalid value 'bogus' for option 'policy' (expected one of: skip, override, "
         "refine, strict)"),
        (("--symshape-specialize=bindings=time=32", "examples/mlp.mlir"),
         "unknown axis 'time' in bindings (axes declared by symshape.axes: batch)"),
        (("missing.mlir",), "could not open input file 'missing.mlir'"),
    ]:
        done = _tool("symshape-opt", *args)
        assert done.returncode == 1, (args, done.stderr)
        assert message in done.stderr, (args, done.stderr)
    parse = _tool("symshape-opt", "-", stdin="func.func @f(")
    assert parse.returncode == 1 and "<stdin>:1:" in parse.stderr


def test_opt_flags(tmp_path: Path) -> None:
    """--split-input-file, --verify-diagnostics and --mlir-print-ir-after-all."""
    source = tmp_path / "split.mlir"
    source.write_text(TASTE + "\n// -----\n" + MLP.read_text())
    split = _tool("symshape-opt", "--symshape-infer-shapes", "--split-input-file", str(source))
    assert split.returncode == 0, split.stderr
    assert split.stdout.count("func.func @") == 2
    expected = tmp_path / "expected.mlir"
    expected.write_text(TASTE.replace(
        "  %r = symshape.reshape",
        "  // expected-error @+1 {{reshape target extent 0 needs an exact extent}}\n"
        "  %r = symshape.reshape").replace(
        "  %t = symshape.dynamic_truncate",
        "  // expected-note @+1 {{the upper bound comes from}}\n"
        "  %t = symshape.dynamic_truncate"))
    checked = _tool("symshape-opt", "--symshape-infer-shapes", "--symshape-verify-contract",
                    "--verify-diagnostics", str(expected))
    assert checked.returncode == 0, checked.stderr
    printed = _tool("symshape-opt", "--symshape-infer-shapes", "--canonicalize",
                    "--mlir-print-ir-after-all", "examples/mlp.mlir")
    assert printed.returncode == 0
    assert "IR Dump After" in printed.stderr and "symshape-infer-shapes" in printed.stderr


def test_contract_rejects_and_defers(tmp_path: Path) -> None:
    """The dialect's taste: verify-contract names the op, the requirement, what it saw
    and (a note) the op that weakened it; mode=defer inserts the cf.assert."""
    source = tmp_path / "taste.mlir"
    source.write_text(TASTE)
    rejected = _tool("symshape-opt", "--symshape-infer-shapes", "--symshape-verify-contract",
                     str(source))
    assert rejected.returncode == 1
    assert ("taste.mlir:7:8: error: 'symshape.reshape' op reshape target extent 0 needs an "
            "exact extent, got upper bound '768 * batch'") in rejected.stderr
    assert "taste.mlir:5:8: note: the upper bound comes from 'symshape.dynamic_truncate' " \
        "here" in rejected.stderr
    deferred = _tool("symshape-opt", "--pass-pipeline=builtin.module(symshape-infer-shapes,"
                     "symshape-verify-contract{mode=defer},symshape-resolve)", str(source))
    assert deferred.returncode == 0, deferred.stderr
    assert re.search(r"cf\.assert .*check failed: reshape target extent 0 \(symshape\.reshape "
                     r"at \S*taste\.mlir:7:8\)", deferred.stdout), deferred.stdout
    assert "symshape.reshape" not in deferred.stdout.replace("(symshape.reshape at", "")


UNPROVEN = """
#id = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>},
             %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


def test_unproven_equations(tmp_path: Path) -> None:
    """An unnamed ``?`` axis meeting a named one: a remark and a run-time check, or an
    error with ``unproven=reject``."""
    source = tmp_path / "unproven.mlir"
    source.write_text(UNPROVEN)
    remarked = _tool("symshape-opt", "--pass-pipeline=builtin.module(symshape-infer-shapes,"
                     "symshape-verify-contract,symshape-resolve)", str(source))
    assert remarked.returncode == 0, remarked.stderr
    assert "remark:" in remarked.stderr and "cf.assert" in remarked.stdout
    rejected = _tool("symshape-opt", "--pass-pipeline=builtin.module(symshape-infer-shapes,"
                     "symshape-verify-contract{unproven=reject})", str(source))
    assert rejected.returncode == 1 and "error:" in rejected.stderr


SELECT = """
func.func @f(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>}, %c: i1)
    -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %k = arith.select %c, %c1, %n : index
  %e = tensor.empty(%k) : tensor<?xf32>
  return %e : tensor<?xf32>
}
"""


def test_data_dependent_sizes_get_ranges(tmp_path: Path) -> None:
    """An ``arith.select`` between 1 and ``batch`` is a fresh exact ``_d0`` with
    ``min(1, batch) <= _d0 <= max(1, batch)``, written as ``symshape.ranges``."""
    source = tmp_path / "select.mlir"
    source.write_text(SELECT)
    done = _tool("symshape-opt", "--symshape-infer-shapes", str(source))
    assert done.returncode == 0, done.stderr
    assert "symshape.ranges" in done.stdout and "_d0" in done.stdout
    ranges = done.stdout.split("symshape.ranges", 1)[1].split("}", 1)[0]
    assert "min(1, batch)" in ranges and "max(1, batch)" in ranges, ranges


def test_other_passes() -> None:
    """specialize, resolve{target=generic}, check-guarantees, strip-annotations."""
    special = _tool("symshape-opt", "--symshape-specialize=bindings=batch=32",
                    "examples/mlp.mlir")
    assert special.returncode == 0 and "-> tensor<320xf32>" in special.stdout
    generic = _tool("symshape-opt", "--pass-pipeline=builtin.module(symshape-infer-shapes,"
                    "symshape-resolve{target=generic})", "examples/mlp.mlir")
    assert generic.returncode == 0 and "symshape.reshape" not in generic.stdout
    checked = _tool("symshape-opt", "--symshape-infer-shapes", "--symshape-check-guarantees",
                    "examples/mlp.mlir")
    assert checked.returncode == 0, checked.stderr
    stripped = _tool("symshape-opt", "--symshape-infer-shapes",
                     "--symshape-strip-annotations", "examples/mlp.mlir")
    assert stripped.returncode == 0 and "{symshape.shape =" not in stripped.stdout


def test_reification(tmp_path: Path) -> None:
    """resolve-ranked-shaped-type-result-dims turns a reshape's ``dim(0, 0) * 768`` into
    ``arith.muli`` of a ``tensor.dim`` and 768; a size naming ``batch`` is left alone."""
    source = tmp_path / "reify.mlir"
    source.write_text("""
func.func @f(%x: tensor<?x768xf32>) -> index {
  %r = symshape.reshape %x to [dim(0, 0) * 768] : (tensor<?x768xf32>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %r, %c0 : tensor<?xf32>
  return %d : index
}
func.func @g(%x: tensor<?x768xf32> {symshape.axes = #symshape.shape<[batch, 768]>}) -> index {
  %r = symshape.reshape %x to [batch * 768] : (tensor<?x768xf32>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %r, %c0 : tensor<?xf32>
  return %d : index
}
""")
    done = _tool("symshape-opt", "--resolve-ranked-shaped-type-result-dims", str(source))
    assert done.returncode == 0, done.stderr
    f, g = done.stdout.split("func.func @g")
    assert "arith.muli" in f and "symshape.reshape" not in f
    assert "symshape.reshape" in g and "arith.muli" not in g


def test_python_pipeline_and_register_dialect() -> None:
    """The Python block, and register_dialect for a context made before the import."""
    from mlir import ir

    from symshape_mlir.passes import run_pipeline

    with ir.Context():
        module = ir.Module.parse(MLP.read_text())
        run_pipeline(module, "builtin.module(symshape-to-iree)")
        assert "symshape.reshape" not in str(module)
    code = """
        from mlir import ir
        ctx = ir.Context()
        import symshape_mlir
        symshape_mlir.register_dialect(ctx)
        with ctx:
            print(ir.Attribute.parse("#symshape.expr<batch * 2>"))
        """
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "#symshape.expr<" in done.stdout


# -- Layout ------------------------------------------------------------------------------


def test_layout_paths_exist() -> None:
    """Every path the Layout section and the README's prose name exists."""
    for path in ("dialect", "python/symshape_mlir/context.py", "python/symshape_mlir/errors.py",
                 "python/symshape_mlir/locations.py", "python/symshape_mlir/registry.py",
                 "python/symshape_mlir/walk.py", "python/symshape_mlir/annotations.py",
                 "python/symshape_mlir/extent", "python/symshape_mlir/attributes.py",
                 "python/symshape_mlir/shapes", "python/symshape_mlir/frontend/vjp.py",
                 "python/symshape_mlir/frontend/autodiff.py", "python/symshape_mlir/onnx",
                 "python/symshape_mlir/inference", "python/symshape_mlir/contract",
                 "python/symshape_mlir/lowering/transposes.py",
                 "python/symshape_mlir/lowering/iree/shields.py",
                 "python/symshape_mlir/pipeline", "passes", "python/symshape_mlir/backend",
                 "python/symshape_mlir/runtime/variants.py", "python/symshape_mlir/transforms.py",
                 "python/symshape_mlir/tools", "test/lit", "test/e2e", "test/fuzz",
                 "test/onnx/models/export.py", "test/onnx/node_suite.py", "bench/runtime.py",
                 "bench/onnx_models.py", "bench/onnx_inference.py", "bench/ad.py",
                 "test/py/test_layers.py", "test/py/test_iree_known_bugs.py",
                 "scripts/demo.sh", "scripts/test.sh", "examples/frontend_mlp.py",
                 "examples/frontend_attention.py", "examples/train_classifier.py"):
        assert (ROOT / path).exists(), path
    assert os.access(BIN / "symshape-opt", os.X_OK)
