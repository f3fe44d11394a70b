"""``@symshape_mlir.jit``: trace once from annotations, compile once, call at any binding."""

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import symshape_mlir
import symshape_mlir.frontend as fe
from symshape_mlir import backend, runtime
from symshape_mlir.frontend import Tensor, f32, i64


def _layer(x: Tensor["batch", 16, f32], w: Tensor[16, 8, f32], b: Tensor[8, f32]) -> Tensor:  # noqa: F821
    return fe.relu(x @ w + b)


def _layer_ref(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.maximum(x @ w + b, 0)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A disk cache for this module's compiles."""
    return tmp_path_factory.mktemp("frontend-jit")


@pytest.fixture(scope="module")
def layer(cache: Path) -> Any:
    """``_layer`` compiled through the package-level decorator."""
    return symshape_mlir.jit(cache_dir=cache, hot_after=None)(_layer)


def test_jit_returns_the_runtime_entry(layer: Any) -> None:
    """The decorated function is the runtime's entry point for the traced function."""
    assert isinstance(layer, runtime.EntryPoint)
    assert layer.name == "_layer"


@pytest.mark.parametrize("batch", [0, 1, 5, 33])
def test_jit_runs_at_any_binding(layer: Any, batch: int) -> None:
    """One compile serves every batch size, matching numpy."""
    rng = np.random.default_rng(batch)
    x = rng.standard_normal((batch, 16)).astype(np.float32)
    w = rng.standard_normal((16, 8)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    np.testing.assert_allclose(layer(x, w, b), _layer_ref(x, w, b), rtol=1e-5, atol=1e-5)
    assert layer.plan((batch, 16), w, b).shapes == ((batch, 8),)


def test_jit_with_explicit_inputs(cache: Path) -> None:
    """``inputs=`` replaces the annotations; results with upper bounds are left unplanned."""

    def head(x: Any, n: Any) -> Any:
        return fe.dynamic_truncate(x, n, axis=0) * 2.0

    f = symshape_mlir.jit(inputs=[Tensor["rows", 4, f32], Tensor[i64]], cache_dir=cache,
                          hot_after=None)(head)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for n in (-1, 0, 2, 7):
        np.testing.assert_array_equal(f(x, np.array(n)), x[: max(n, 0)] * 2)


def test_jit_without_annotations_is_an_error() -> None:
    """A parameter without a Tensor[...] annotation is named."""

    def f(x: Any) -> Any:
        return x

    with pytest.raises(fe.FrontendError, match=r"parameter 'x' of .*f needs an annotation"):
        symshape_mlir.jit(f)


def _truncated_target(x: Tensor["batch", 8, f32], n: Tensor[i64]) -> Tensor:  # noqa: F821
    kept = fe.dynamic_truncate(x, n)
    return x.reshape(kept.shape[0] * 8)


def test_contract_defer_checks_at_run_time(cache: Path) -> None:
    """With contract="defer" a bound used as a reshape target is traced and checked per call."""
    with pytest.raises(fe.ContractError, match="reshape needs an exact extent"):
        symshape_mlir.jit(_truncated_target)
    f = symshape_mlir.jit(_truncated_target, contract="defer", cache_dir=cache)
    x = np.arange(24, dtype=np.float32).reshape(3, 8)
    np.testing.assert_array_equal(f(x, np.array(5, np.int64)), x.reshape(-1))
    with pytest.raises(backend.RuntimeCallError, match="symshape: "):
        f(x, np.array(2, np.int64))


def test_bucket_pads_calls_to_powers_of_two(cache: Path) -> None:
    """``bucket=`` declares the axis: 3, 5 and 7 rows run the 4- and 8-row variants."""
    f = symshape_mlir.jit(bucket=["batch"], cache_dir=cache, hot_after=None)(_layer)
    assert f.sizes.buckets == ("batch",)
    for batch in (3, 5, 7, 8):
        rng = np.random.default_rng(batch)
        x = rng.standard_normal((batch, 16)).astype(np.float32)
        w = rng.standard_normal((16, 8)).astype(np.float32)
        b = rng.standard_normal(8).astype(np.float32)
        np.testing.assert_allclose(f(x, w, b), _layer_ref(x, w, b), rtol=1e-5, atol=1e-5)
    assert f.executable.stats()["padded"] == 3


@pytest.mark.parametrize(("bucket", "message"), [
    (["rows"], "bucket axis 'rows' is not a named axis of the inputs (named: batch)"),
    (["batch", "batch"], "bucket names an axis twice: ['batch', 'batch']"),
    ("batch", "bucket must be a sequence of axis names, got 'batch'"),
])
def test_bucket_names_are_checked(bucket: Any, message: str) -> None:
    """A bucket that names no input axis, or names one twice, is a trace error."""
    with pytest.raises(fe.FrontendError) as error:
        symshape_mlir.jit(bucket=bucket)(_layer)
    assert str(error.value) == message
