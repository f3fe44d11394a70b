"""A softmax over the last axis runs over rows (``lowering/iree/softmax.py``):
a static, small one with its exponentials written once, any other of rank 3
or more as one ``linalg.softmax``. The same values as numpy, in the dynamic
module and in static variants, at extents that are prime, 1 and 0, with
masked (``-inf``) entries."""

from pathlib import Path

import numpy as np
import pytest

import symshape_mlir.frontend as fe
from symshape_mlir import runtime
from symshape_mlir.context import new_context
from symshape_mlir.frontend import Tensor, f32
from symshape_mlir.frontend.tracing import module_text, trace, trace_module
from symshape_mlir.passes import run_pipeline


def heads(x: Tensor["batch", 4, "seq", "seq", f32]):  # noqa: F821
    return fe.softmax(x, -1)


def rows(x: Tensor["n", "m", "k", f32]):  # noqa: F821
    return fe.softmax(x, axis=2) * 2.0


def matrix(x: Tensor["n", "k", f32]):  # noqa: F821
    return fe.softmax(x, -1)


def small(x: Tensor[2, 4, 9, 9, f32]):
    return fe.softmax(x, -1)


def small_matrix(x: Tensor[5, 7, f32]):
    return fe.softmax(x, -1)


def large(x: Tensor[48, 384, 384, f32]):
    return fe.softmax(x, -1)


def _softmax(x: np.ndarray) -> np.ndarray:
    shifted = np.exp(x - x.max(axis=-1, keepdims=True, initial=-np.inf))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def _lowered(function) -> str:
    module = trace_module([trace(function)], new_context())
    run_pipeline(module.operation, "builtin.module(symshape-to-iree)")
    return str(module)


@pytest.mark.parametrize("function", [heads, rows])
def test_last_axis_softmax_is_one_op_over_rows(function) -> None:
    text = _lowered(function)
    assert text.count("linalg.softmax dimension(1)") == 1
    assert "tensor.collapse_shape" in text and "math.exp" not in text


def test_matrix_softmax_stays_a_chain() -> None:
    text = _lowered(matrix)
    assert "linalg.softmax" not in text and "math.exp" in text
    assert "compute_barrier" not in text


@pytest.mark.parametrize("function", [small, small_matrix])
def test_small_static_softmax_stores_its_exponentials(function) -> None:
    text = _lowered(function)
    assert "linalg.softmax" not in text
    assert text.count("math.exp") == 1 and text.count("iree_tensor_ext.compute_barrier") == 1


def test_large_static_softmax_is_one_op() -> None:
    text = _lowered(large)
    assert "linalg.softmax dimension(1)" in text and "math.exp" not in text


@pytest.mark.parametrize("shape", [(1, 4, 7, 7), (2, 4, 13, 13), (3, 4, 1, 1), (0, 4, 5, 5),
                                   (2, 4, 0, 0)])
@pytest.mark.parametrize("static", [False, True], ids=["dynamic", "static"])
def test_heads_match_numpy(shape: tuple[int, ...], static: bool, tmp_path: Path) -> None:
    exe = runtime.compile(module_text([trace(heads)]), cache_dir=tmp_path, hot_after=None)
    binding = {"batch": shape[0], "seq": shape[2]}
    if static:
        exe.pre_specialize([binding])
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32) * 4
    np.testing.assert_allclose(exe.heads(x), _softmax(x), rtol=1e-5, atol=1e-6)
    assert not static or any(
        s.static_key == (shape[0], shape[2]) for _, s in exe.heads.specializations())


@pytest.mark.parametrize("shape", [(3, 5, 199), (2, 1, 11)])
def test_rows_match_numpy(shape: tuple[int, ...], tmp_path: Path) -> None:
    exe = runtime.compile(module_text([trace(rows)]), cache_dir=tmp_path, hot_after=None)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(exe.rows(x), 2 * _softmax(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(5, 7), (1, 1), (3, 199), (0, 4), (2, 0)])
@pytest.mark.parametrize("static", [False, True], ids=["dynamic", "static"])
def test_matrix_matches_numpy_with_masked_entries(shape: tuple[int, ...], static: bool,
                                                  tmp_path: Path) -> None:
    exe = runtime.compile(module_text([trace(matrix)]), cache_dir=tmp_path, hot_after=None)
    if static:
        exe.pre_specialize([{"n": shape[0], "k": shape[1]}])
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32) * 4
    if x.size > 1:
        x.reshape(-1)[::3] = -np.inf  # a masked entry; no row is all masked
        x[:, -1] = 0.0
    np.testing.assert_allclose(exe.matrix(x), _softmax(x), rtol=1e-5, atol=1e-6)
