"""Packed parameters (`bind_params(..., packed=True)`): arguments bound once
become IREE parameters of modules compiled for the binding."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from mlir import ir

from runtime_programs import MATMUL_FLAT
from symshape_mlir import runtime
from symshape_mlir.context import new_context
from symshape_mlir.passes import run_pipeline
from symshape_mlir.runtime import AxisBindingError, SignatureError
from symshape_mlir.runtime.params import PackedParams

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# [batch, 8] @ [8, h] + [h], with the weight's rows named by the input's axis.
LAYER = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @layer(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, d]>},
                 %w: tensor<?x?xf32> {symshape.axes = #symshape.shape<[d, h]>},
                 %b: tensor<?xf32> {symshape.axes = #symshape.shape<[h]>}) -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %n = symshape.dim %x, 0 : tensor<?x?xf32>
  %m = symshape.dim %w, 1 : tensor<?x?xf32>
  %ni = symshape.to_index %n
  %mi = symshape.to_index %m
  %e = tensor.empty(%ni, %mi) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %p = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %b : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


def _weights(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((8, 6)).astype(np.float32),
            rng.standard_normal(6).astype(np.float32))


def _x(batch: int) -> np.ndarray:
    return np.arange(batch * 8, dtype=np.float32).reshape(batch, 8) / 10


def test_parameters_become_globals() -> None:
    """The resolved module loads each bound argument from a parameter global,
    with the array's static shape, cast to the argument's type."""
    with new_context() as context:
        module = ir.Module.parse(LAYER)
        run_pipeline(module, "builtin.module(symshape-to-iree)")
        w, b = _weights(0)
        PackedParams("layer", {1: w, 2: b}).globalize(module)
        text = str(module)
        assert context.allow_unregistered_dialects
    assert ('initial_value = #stream.parameter.named<"symshape"::"layer.1"> : '
            'tensor<8x6xf32>') in text
    assert '"symshape"::"layer.2"> : tensor<6xf32>' in text
    assert "func.func @layer(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32>" in text
    assert ('"util.global.load"() {global = @__param_layer_1} : () -> tensor<8x6xf32>'
            in text)
    assert "tensor.cast %{{" not in text
    assert "to tensor<?x?xf32>" in text


def test_packed_matches_numpy_across_bindings(tmp_path: Path) -> None:
    """A packed function takes the free arguments only and matches numpy at
    several batches, empty included; hot bindings get packed static variants
    whose results are bit-identical to the packed dynamic module's."""
    exe = runtime.compile(LAYER, cache_dir=tmp_path, hot_after=2)
    w, b = _weights(0)
    packed = exe.layer.bind_params({1: w, 2: b}, packed=True)
    before = {}
    for batch in (3, 3, 1, 0, 5):
        x = _x(batch)
        got = packed(x)
        np.testing.assert_allclose(got, x @ w + b, rtol=1e-5, atol=1e-5)
        before.setdefault(batch, got)
    assert exe.wait(timeout=120)
    assert sorted(packed.variants.static_variants()) == [(3, 8, 6)]
    assert packed(_x(3)).tobytes() == before[3].tobytes()
    assert exe.stats()["swaps"] == 1
    with pytest.raises(SignatureError, match="takes 1 arguments, got 3"):
        packed(_x(3), w, b)
    exe.close()


def test_packed_checks_the_other_arguments_against_the_parameters(tmp_path: Path) -> None:
    """An input whose axis disagrees with a packed weight is refused by name."""
    exe = runtime.compile(LAYER, cache_dir=tmp_path, hot_after=None)
    w, b = _weights(0)
    packed = exe.layer.bind_params({1: w, 2: b}, packed=True)
    with pytest.raises(AxisBindingError, match="axis 'd'"):
        packed(np.ones((2, 5), np.float32))


def test_packed_values_are_not_compiled_in(tmp_path: Path) -> None:
    """Two bindings of equal shapes share one artifact (the disk cache keys
    shapes, not values) and each computes with its own values."""
    exe = runtime.compile(LAYER, cache_dir=tmp_path, hot_after=None)
    (w0, b0), (w1, b1) = _weights(0), _weights(1)
    first = exe.layer.bind_params({1: w0, 2: b0}, packed=True)
    second = exe.layer.bind_params({1: w1, 2: b1}, packed=True)
    x = _x(4)
    np.testing.assert_allclose(first(x), x @ w0 + b0, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(second(x), x @ w1 + b1, rtol=1e-5, atol=1e-5)
    stats = exe.stats()
    assert stats["disk_hits"] == 1 and stats["compiles"] == 2


def test_pre_specialized_variants_are_packed_at_bind_time(tmp_path: Path) -> None:
    """Bindings pre-specialized before bind_params get packed static variants."""
    exe = runtime.compile(MATMUL_FLAT, cache_dir=tmp_path, hot_after=None)
    binding = {"m": 2, "k": 4, "n": 3}
    exe.pre_specialize([binding])
    b = np.full((4, 3), 0.5, np.float32)
    packed = exe.mm.bind_params({1: b}, packed=True)
    assert list(packed.variants.static_variants()) == [tuple(binding[n] for n in exe.mm.named_axes)]
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(packed(a), (a @ b).reshape(-1), rtol=1e-6)


def test_bindings_pre_specialized_after_binding_are_packed(tmp_path: Path) -> None:
    """pre_specialize after bind_params also compiles the packed variant, which
    the packed function then runs; results equal the packed dynamic module's."""
    exe = runtime.compile(MATMUL_FLAT, cache_dir=tmp_path, hot_after=None)
    b = np.full((4, 3), 0.5, np.float32)
    packed = exe.mm.bind_params({1: b}, packed=True)
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    before = packed(a)
    binding = {"m": 2, "k": 4, "n": 3}
    exe.pre_specialize([binding])
    key = tuple(binding[n] for n in exe.mm.named_axes)
    assert list(packed.variants.static_variants()) == [key]
    assert exe.stats()["swaps"] == 1  # the binding's entry in the LRU that planned the call
    assert packed(a).tobytes() == before.tobytes()
    assert packed.variant_drivers()[key] in ("local-task", "local-sync")


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({3: np.ones(6, np.float32)}, SignatureError, "@layer has no argument 3"),
        ({1: np.ones((8, 6, 1), np.float32)}, SignatureError, "argument 1 of @layer"),
    ],
    ids=["position", "rank"],
)
def test_bad_parameters(tmp_path: Path, params: dict[int, np.ndarray], error: type[Exception],
                        message: str) -> None:
    exe = runtime.compile(LAYER, cache_dir=tmp_path, hot_after=None)
    with pytest.raises(error, match=message):
        exe.layer.bind_params(params, packed=True)
