"""Level 1 captures intermediate buffer sizes; Level 2 plans their bytes."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mlir import ir

from symshape_mlir import runtime
from symshape_mlir.context import new_context
from symshape_mlir.passes import run_pipeline
from symshape_mlir.runtime import BufferSizes, FunctionSizes, UnplannableSizeError
from symshape_mlir.walk import collect_ops

ROOT = Path(__file__).resolve().parents[2]
MLP = ROOT / "examples" / "mlp.mlir"

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# Two buffers of its own (the square and the elementwise sum), one view of
# an argument (the slice) and one result whose storage is a tensor.empty.
LAYERS = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @layers(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rows, cols]>},
                  %k: index) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %sq0 = tensor.empty(%r, %r) : tensor<?x?xf32>
  %sq1 = linalg.fill ins(%zero : f32) outs(%sq0 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %xt0 = tensor.empty(%c, %r) : tensor<?x?xf32>
  %xt = linalg.transpose ins(%x : tensor<?x?xf32>) outs(%xt0 : tensor<?x?xf32>) permutation = [1, 0]
  %sq = linalg.matmul ins(%x, %xt : tensor<?x?xf32>, tensor<?x?xf32>)
                      outs(%sq1 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %twice = arith.addf %sq, %sq : tensor<?x?xf32>
  %head = tensor.extract_slice %twice[0, 0] [%k, %r] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %out0 = tensor.empty(%k) : tensor<?xf32>
  %out1 = linalg.fill ins(%zero : f32) outs(%out0 : tensor<?xf32>) -> tensor<?xf32>
  %out = linalg.reduce ins(%head : tensor<?x?xf32>) outs(%out1 : tensor<?xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %out : tensor<?xf32>
}
"""

# An intermediate sized by an element read inside the function: outside the
# grammar, though the result is static.
BUFFER_FROM_DATA = """
func.func @buffer_from_data(%sizes: tensor<2xi64>) -> tensor<2xi64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %squares = arith.muli %sizes, %sizes : tensor<2xi64>
  %e = tensor.extract %squares[%c0] : tensor<2xi64>
  %k = arith.index_cast %e : i64 to index
  %t = tensor.empty(%k) : tensor<?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%t : tensor<?xf32>) -> tensor<?xf32>
  %d = tensor.dim %f, %c0 : tensor<?xf32>
  %di = arith.index_cast %d : index to i64
  %r = tensor.insert %di into %sizes[%c0] : tensor<2xi64>
  return %r : tensor<2xi64>
}
"""

# A buffer sized by an upper bound: its bytes are a maximum.
BOUNDED = """
func.func @bounded(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                   %n: tensor<i64>) -> tensor<4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 stage upper_bound
      : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %s = arith.addf %t, %t : tensor<?x4xf32>
  %zero = arith.constant 0.0 : f32
  %o0 = tensor.empty() : tensor<4xf32>
  %o1 = linalg.fill ins(%zero : f32) outs(%o0 : tensor<4xf32>) -> tensor<4xf32>
  %o = linalg.reduce ins(%s : tensor<?x4xf32>) outs(%o1 : tensor<4xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  return %o : tensor<4xf32>
}
"""


@pytest.fixture(scope="module")
def layers(cache_dir: Path) -> runtime.Executable:
    return runtime.compile(LAYERS, cache_dir=cache_dir, hot_after=None, contract="defer")


def test_buffers_are_storage_not_views_or_results(layers: runtime.Executable) -> None:
    """The transpose, the square and the sum are buffers; the slice is a view
    and the reduction's destination is the result."""
    buffers = layers.layers.sizes.buffers
    assert [(b.op, [str(e) for e in b.sizes]) for b in buffers] == [
        ("tensor.empty", ["rows", "rows"]),
        ("tensor.empty", ["cols", "rows"]),
        ("arith.addf", ["rows", "rows"]),
    ]
    assert all(b.itemsize == 4 and not b.bounded for b in buffers)
    assert all(":" in b.location for b in buffers)


def test_buffers_survive_the_disk_cache(layers: runtime.Executable, cache_dir: Path) -> None:
    """The captured buffers are stored beside the artifact and read back equal."""
    again = runtime.compile(LAYERS, cache_dir=cache_dir, hot_after=None, contract="defer")
    assert again.stats()["disk_hits"] == 1
    assert again.layers.sizes == layers.layers.sizes
    sizes = layers.layers.sizes
    assert FunctionSizes.from_json(sizes.to_json()) == sizes


def test_plan_gives_buffer_bytes(layers: runtime.Executable) -> None:
    """plan() evaluates every buffer for the call's binding."""
    plan = layers.plan((3, 5), 2)
    assert plan.shapes == ((2,),)
    assert plan.buffer_nbytes == (3 * 3 * 4, 5 * 3 * 4, 3 * 3 * 4)
    assert plan.buffer_bytes == 36 + 60 + 36
    x = np.arange(15, dtype=np.float32).reshape(3, 5)
    np.testing.assert_allclose(layers(x, 2), (2 * (x @ x.T))[:2].sum(1), rtol=1e-6)


def _specialized_bytes(text: str, bindings: dict[str, int], buffer: BufferSizes) -> int:
    """The bytes of ``buffer``'s op once ``symshape-specialize`` makes it static."""
    spec = ",".join(f"{k}={v}" for k, v in bindings.items())
    with new_context():
        module = ir.Module.parse(text)
        run_pipeline(module, f"builtin.module(symshape-specialize{{bindings={spec}}},canonicalize)")
        ops = collect_ops(
            module.operation,
            lambda op: op.name == buffer.op and str(op.location) == buffer.location,
        )
        assert len(ops) == 1, buffer
        type_ = ir.RankedTensorType(ops[0].results[0].type)
        assert type_.has_static_shape
        return math.prod(type_.shape) * buffer.itemsize


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batch=st.integers(0, 300))
def test_plan_buffers_equal_specialized_types(batch: int) -> None:
    """On random bindings, each planned buffer has the bytes of the static type
    `symshape-specialize` gives its op (the MLP example)."""
    text = MLP.read_text()
    sizes = runtime.capture_module(_parsed(text))["mlp"]
    assert len(sizes.buffers) == 2
    plan = runtime.make_plan("mlp", sizes.results, [np.dtype(np.float32)], {"batch": batch},
                             sizes.buffers)
    assert plan.buffer_nbytes == tuple(
        _specialized_bytes(text, {"batch": batch}, b) for b in sizes.buffers
    )


def _parsed(text: str) -> ir.Module:
    with new_context():
        return ir.Module.parse(text)


def test_buffer_out_of_grammar_is_compile_error(cache_dir: Path) -> None:
    """A buffer sized by a value computed inside the function is a compile-time
    error naming the op's location; unplanned= opts out."""
    with pytest.raises(UnplannableSizeError) as info:
        runtime.compile(BUFFER_FROM_DATA, cache_dir=cache_dir)
    assert info.value.subject == "the tensor.empty buffer, axis 0"
    assert info.value.location is not None and ":8:8" in info.value.location
    assert "a value computed inside the function by tensor.empty" in str(info.value)
    exe = runtime.compile(BUFFER_FROM_DATA, cache_dir=cache_dir, unplanned=True)
    assert exe.buffer_from_data.sizes.buffers == ()
    np.testing.assert_array_equal(exe(np.array([3, 9], np.int64)), [9, 9])


def test_bounded_buffer_bytes_are_a_maximum(cache_dir: Path) -> None:
    """A buffer sized by an upper bound plans the bound's bytes."""
    exe = runtime.compile(BOUNDED, cache_dir=cache_dir, hot_after=None, contract="defer")
    (buffer,) = exe.bounded.sizes.buffers
    assert buffer.op == "arith.addf" and buffer.bounded
    assert [str(e) for e in buffer.sizes] == ["batch", "4"]
    plan = exe.plan((6, 4), ())
    assert plan.buffer_nbytes == (6 * 4 * 4,)
    x = np.ones((6, 4), np.float32)
    np.testing.assert_array_equal(exe(x, np.array(2, np.int64)), np.full(4, 4, np.float32))
