"""Power-of-two buckets: calls pad a declared axis up to a power of two and
slice the results back (``symshape.bucket``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from symshape_mlir import runtime
from symshape_mlir.runtime import SignatureError

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# Rows are independent (a matmul and a bias per row), so padding `batch`
# with zero rows only adds rows that are sliced away.
ROWS = """
func.func @rows(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                %w: tensor<4x3xf32>,
                %pairs: tensor<?x2xf32> {symshape.axes = #symshape.shape<[2 * batch, 2]>})
    -> (tensor<?x3xf32>, tensor<?xf32>) attributes {symshape.bucket = ["batch"]} {
  %zero = arith.constant 0.0 : f32
  %n = symshape.dim %x, 0 : tensor<?x4xf32>
  %rows = symshape.to_index %n
  %e = tensor.empty(%rows) : tensor<?x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x4xf32>, tensor<4x3xf32>)
                     outs(%f : tensor<?x3xf32>) -> tensor<?x3xf32>
  %flat = symshape.reshape %pairs to [4 * batch] : (tensor<?x2xf32>) -> tensor<?xf32>
  return %y, %flat : tensor<?x3xf32>, tensor<?xf32>
}
"""


@pytest.fixture(scope="module")
def rows(cache_dir: Path) -> runtime.Executable:
    return runtime.compile(ROWS, cache_dir=cache_dir, hot_after=None)


def _inputs(batch: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(batch)
    x = rng.standard_normal((batch, 4)).astype(np.float32)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    pairs = rng.standard_normal((2 * batch, 2)).astype(np.float32)
    return x, w, pairs


@pytest.mark.parametrize("batch", [0, 1, 2, 3, 5, 8, 13])
def test_padded_calls_match_numpy(rows: runtime.Executable, batch: int) -> None:
    """Each axis mentioning `batch` is padded (also `2 * batch`); results are
    sliced back to their true shapes."""
    x, w, pairs = _inputs(batch)
    y, flat = rows(x, w, pairs)
    assert y.shape == (batch, 3) and flat.shape == (4 * batch,)
    assert y.flags.c_contiguous
    np.testing.assert_allclose(y, x @ w, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(flat, pairs.reshape(-1))
    assert rows.plan(x, w, pairs).shapes == ((batch, 3), (4 * batch,))


def test_only_bucket_sizes_are_dispatched(cache_dir: Path) -> None:
    """Batches 5, 6 and 7 run the variant of batch 8: one static variant
    compiled ahead of time serves them all."""
    exe = runtime.compile(ROWS, cache_dir=cache_dir, hot_after=None)
    assert exe.rows.sizes.buckets == ("batch",)
    exe.pre_specialize([{"batch": 8}])
    for batch in (5, 6, 7, 8):
        x, w, pairs = _inputs(batch)
        y, _ = exe(x, w, pairs)
        np.testing.assert_allclose(y, x @ w, rtol=1e-5, atol=1e-5)
    dispatched = {key: spec for key, spec in exe.rows.specializations() if spec.calls}
    assert list(dispatched) == [(8,)]
    assert dispatched[(8,)].static and dispatched[(8,)].calls == 4
    assert exe.stats()["padded"] == 3


def test_bound_parameter_on_a_bucketed_axis(rows: runtime.Executable) -> None:
    """A device-resident argument cannot be padded: a clean error."""
    x, w, pairs = _inputs(3)
    fast = rows.rows.bind_params({0: x})
    with pytest.raises(SignatureError, match=r"argument 0 of @rows is a bound parameter"):
        fast(w, pairs)
    np.testing.assert_allclose(rows.rows.bind_params({1: w})(x, pairs)[0], x @ w, rtol=1e-5,
                               atol=1e-5)


def test_bucketed_function_cannot_pack(rows: runtime.Executable) -> None:
    """Packed parameters are globals of fixed shape: a bucketed function refuses them."""
    _, w, _ = _inputs(3)
    with pytest.raises(ValueError, match=r"@rows has bucketed axes \(.*\): its parameters "
                       r"cannot be packed"):
        rows.rows.bind_params({1: w}, packed=True)


def test_bucketed_function_must_be_planned(cache_dir: Path) -> None:
    """unplanned= cannot list a bucketed function: results are cut to plans."""
    with pytest.raises(ValueError, match=r"@rows declares 'symshape.bucket'"):
        runtime.compile(ROWS, cache_dir=cache_dir, unplanned=["rows"])
