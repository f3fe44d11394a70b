"""Every frontend op: traced, compiled for llvm-cpu once, run against numpy.

The cases' functions share one or two modules (see ``frontend_support``),
compiled once per test module.
Each case runs at several bindings of its named axes, including 0 and 1
where the op allows them, and its traced result shapes are evaluated at the
same bindings and compared with numpy's.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import symshape_mlir
import symshape_mlir.frontend as fe
from symshape_mlir import runtime
from symshape_mlir.backend import RuntimeCallError
from symshape_mlir.frontend import Tensor, TensorSpec, f32, i32, i64
from symshape_mlir.frontend.tracing import TracedFunction, trace

from frontend_support import as_results, compile_functions, trace_cases
from roundtrip_support import check_round_trip


@dataclass(frozen=True)
class Case:
    """A traced function, its numpy reference and the bindings it runs at."""

    name: str
    fn: Callable[..., Any]
    specs: tuple[TensorSpec, ...]
    reference: Callable[..., Any]
    bindings: tuple[Mapping[str, int], ...]
    positive: bool = False
    scalars: Mapping[str, str] = field(default_factory=dict)


def _binary(x: Tensor, y: Tensor) -> tuple[Tensor, ...]:
    return (
        x + y,
        x - y,
        x * y,
        x / (fe.abs(y) + 1.0),
        fe.maximum(x, y),
        fe.minimum(x, y),
        2.0 * x - 1.0,
        1.0 / (1.0 + x * x),
        fe.add(x, 3.0),
        fe.subtract(1.0, y),
        fe.multiply(x, y),
        fe.divide(x, 2.0),
        -x,
    )


def _binary_ref(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, ...]:
    return (
        x + y,
        x - y,
        x * y,
        x / (np.abs(y) + 1),
        np.maximum(x, y),
        np.minimum(x, y),
        2 * x - 1,
        1 / (1 + x * x),
        x + 3,
        1 - y,
        x * y,
        x / 2,
        -x,
    )


def _unary(x: Tensor) -> tuple[Tensor, ...]:
    return (
        fe.exp(x),
        fe.log(x),
        fe.sqrt(x),
        fe.tanh(x),
        fe.sigmoid(x),
        fe.relu(x - 1.0),
        fe.negative(x),
        fe.abs(x - 1.0),
        fe.power(x, 2.0),
    )


def _unary_ref(x: np.ndarray) -> tuple[np.ndarray, ...]:
    return (
        np.exp(x),
        np.log(x),
        np.sqrt(x),
        np.tanh(x),
        1 / (1 + np.exp(-x)),
        np.maximum(x - 1, 0),
        -x,
        np.abs(x - 1),
        x**2,
    )


def _integers(a: Tensor, b: Tensor) -> tuple[Tensor, ...]:
    return a + b, a * b, a - 1, fe.maximum(a, b), fe.minimum(a, b), fe.relu(a), -a, fe.abs(a)


def _integers_ref(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    return a + b, a * b, a - 1, np.maximum(a, b), np.minimum(a, b), np.maximum(a, 0), -a, np.abs(a)


def _reductions(x: Tensor) -> tuple[Tensor, ...]:
    return (
        x.sum(axis=1),
        x.max(axis=-1, keepdims=True),
        x.mean(),
        fe.min(x, axis=(0, 2)),
        x.sum(keepdims=True),
        fe.mean(x, axis=-1),
        fe.sum(x, axis=(0, 1)),
        fe.max(x, axis=2),
        x.min(axis=-1, keepdims=True),
    )


def _reductions_ref(x: np.ndarray) -> tuple[np.ndarray, ...]:
    return (
        x.sum(axis=1),
        x.max(axis=-1, keepdims=True),
        x.mean(),
        x.min(axis=(0, 2)),
        x.sum(keepdims=True),
        x.mean(axis=-1),
        x.sum(axis=(0, 1)),
        x.max(axis=2),
        x.min(axis=-1, keepdims=True),
    )


def _softmax_ref(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True)) if x.size else x
    return e / e.sum(axis=axis, keepdims=True) if x.size else x


def _layer_norm_ref(x: np.ndarray) -> np.ndarray:
    centered = x - x.mean(axis=-1, keepdims=True)
    return centered / np.sqrt((centered * centered).mean(axis=-1, keepdims=True) + 1e-5)


def _reshapes(x: Tensor) -> tuple[Tensor, ...]:
    b, s, _ = x.shape
    flat = x.reshape(b * s, 4)
    return (
        flat,
        flat.reshape(-1, s, 4),
        x.reshape(-1),
        x.reshape(b, -1),
        fe.reshape(x, (b, s, 2, 2)),
    )


def _reshapes_ref(x: np.ndarray) -> tuple[np.ndarray, ...]:
    b, s, _ = x.shape
    flat = x.reshape(b * s, 4)
    return flat, flat.reshape(b, s, 4), x.reshape(-1), x.reshape(b, 4 * s), x.reshape(b, s, 2, 2)


def _general_reshapes(x: Tensor) -> tuple[Tensor, ...]:
    return x.reshape(2, 3 * x.shape[0]), x.reshape(3, -1).reshape(x.shape[0], 6)


def _general_reshapes_ref(x: np.ndarray) -> tuple[np.ndarray, ...]:
    return x.reshape(2, 3 * x.shape[0]), x.reshape(3, -1).reshape(x.shape[0], 6)


def _transposes(x: Tensor, y: Tensor) -> tuple[Tensor, ...]:
    return x.T, fe.transpose(x, (1, 0, 2)), x.transpose(0, 2, 1), x @ y.transpose(0, 2, 1)


def _transposes_ref(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, ...]:
    return x.T, x.transpose(1, 0, 2), x.transpose(0, 2, 1), x @ y.transpose(0, 2, 1)


def _truncate(x: Tensor, n: Tensor) -> tuple[Tensor, ...]:
    kept = fe.dynamic_truncate(x, n, axis=0)
    exact = fe.dynamic_truncate(x, n, axis=0, stage="exact")
    return kept * 2.0, exact.reshape(-1), fe.exp(exact).sum(axis=1)


def _truncate_ref(x: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, ...]:
    kept = x[: max(int(n), 0)]
    return kept * 2, kept.reshape(-1), np.exp(kept).sum(axis=1)


def _indexing(x: Tensor, y: Tensor) -> tuple[Tensor, ...]:
    k = y.shape[0]
    return x[1:], x[:, :3], x[-2:, 1:-1], x[0], x[:, -1], x[None, ..., 2], x[:k], x[1:3, None]


def _indexing_ref(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, ...]:
    k = y.shape[0]
    return x[1:], x[:, :3], x[-2:, 1:-1], x[0], x[:, -1], x[None, ..., 2], x[:k], x[1:3, None]


def _select(x: Tensor, y: Tensor) -> tuple[Tensor, ...]:
    return (
        fe.where(x > y, x, y),
        (x < 0.0).astype(f32),
        fe.where(fe.equal(x, y), 1.0, x),
        fe.gelu(x),
        x**2.0,
        x.astype("i32"),
        fe.not_equal(x, x).astype(f32),
        fe.where(x >= 0.5, x, 0.0),
        (x <= y).astype(i32),
        fe.less_equal(x, 0.0).astype(f32),
        fe.greater_equal(y, x).astype(f32),
    )


def _select_ref(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, ...]:
    c = np.sqrt(2 / np.pi)
    return (
        np.where(x > y, x, y),
        (x < 0).astype(np.float32),
        np.where(x == y, 1.0, x),
        0.5 * x * (1 + np.tanh(c * (x + 0.044715 * x**3))),
        x**2,
        x.astype(np.int32),
        (x != x).astype(np.float32),
        np.where(x >= 0.5, x, 0.0),
        (x <= y).astype(np.int32),
        (x <= 0).astype(np.float32),
        (y >= x).astype(np.float32),
    )


def _take(t: Tensor, ids: Tensor, ids2: Tensor) -> tuple[Tensor, ...]:
    return fe.take(t, ids, axis=0), fe.take(t, ids2, axis=1), fe.take(t, ids2, axis=-2)


def _take_ref(t: np.ndarray, ids: np.ndarray, ids2: np.ndarray) -> tuple[np.ndarray, ...]:
    return (
        np.take(t, ids, 0, mode="clip"),
        np.take(t, ids2, 1, mode="clip"),
        np.take(t, ids2, 0, mode="clip"),
    )


def _pad(x: Tensor) -> tuple[Tensor, ...]:
    b, k = x.shape
    return fe.pad(x, [(0, 1), (2, 2)], 0.5), fe.pad(x, 1), fe.pad(x, [(b, 0), (0, k)])


def _pad_ref(x: np.ndarray) -> tuple[np.ndarray, ...]:
    b, k = x.shape
    return (
        np.pad(x, [(0, 1), (2, 2)], constant_values=0.5),
        np.pad(x, 1),
        np.pad(x, [(b, 0), (0, k)]),
    )


CASES = [
    Case(
        "take",
        _take,
        (Tensor["vocab", "width", f32], Tensor["batch", "seq", i64], Tensor["n", i64]),
        _take_ref,
        (
            {"vocab": 5, "width": 3, "batch": 2, "seq": 4, "n": 3},
            {"vocab": 1, "width": 1, "batch": 1, "seq": 1, "n": 1},
            {"vocab": 4, "width": 2, "batch": 0, "seq": 3, "n": 0},
        ),
    ),
    Case(
        "pad",
        _pad,
        (Tensor["batch", "k", f32],),
        _pad_ref,
        ({"batch": 2, "k": 3}, {"batch": 1, "k": 1}, {"batch": 0, "k": 2}),
    ),
    Case(
        "indexing",
        _indexing,
        (Tensor["batch", 6, f32], Tensor["k", f32]),
        _indexing_ref,
        ({"batch": 4, "k": 2}, {"batch": 1, "k": 3}, {"batch": 3, "k": 0}, {"batch": 2, "k": 9}),
    ),
    Case(
        "select",
        _select,
        (Tensor["batch", 6, f32], Tensor[6, f32]),
        _select_ref,
        ({"batch": 3}, {"batch": 1}, {"batch": 0}),
    ),
    Case(
        "binary",
        _binary,
        (Tensor["batch", 8, f32], Tensor[8, f32]),
        _binary_ref,
        ({"batch": 3}, {"batch": 1}, {"batch": 0}),
    ),
    Case(
        "broadcast_ranks",
        lambda x, y: x * y,
        (Tensor["batch", 1, 8, f32], Tensor["seq", 1, f32]),
        lambda x, y: x * y,
        ({"batch": 2, "seq": 3}, {"batch": 1, "seq": 1}, {"batch": 0, "seq": 2}),
    ),
    Case(
        "unary",
        _unary,
        (Tensor["batch", "?", f32],),
        _unary_ref,
        ({"batch": 2, "x_1": 5}, {"batch": 1, "x_1": 1}, {"batch": 0, "x_1": 3}),
        positive=True,
    ),
    Case(
        "integers",
        _integers,
        (Tensor["n", i32], Tensor["n", i32]),
        _integers_ref,
        ({"n": 6}, {"n": 1}, {"n": 0}),
    ),
    Case(
        "matmul",
        lambda a, b: a @ b,
        (Tensor["m", "k", f32], Tensor["k", "n", f32]),
        lambda a, b: a @ b,
        (
            {"m": 3, "k": 5, "n": 2},
            {"m": 1, "k": 1, "n": 1},
            {"m": 0, "k": 4, "n": 2},
            {"m": 2, "k": 0, "n": 3},
        ),
    ),
    Case(
        "batch_matmul",
        fe.matmul,
        (Tensor["batch", "m", 8, f32], Tensor["batch", 8, "n", f32]),
        np.matmul,
        ({"batch": 2, "m": 3, "n": 4}, {"batch": 1, "m": 1, "n": 1}, {"batch": 0, "m": 2, "n": 2}),
    ),
    Case(
        "matmul_broadcast",
        lambda a, b: a @ b,
        (Tensor["batch", "m", 8, f32], Tensor[8, "n", f32]),
        np.matmul,
        ({"batch": 2, "m": 3, "n": 4}, {"batch": 1, "m": 1, "n": 1}),
    ),
    Case(
        "matmul_rank4",
        lambda a, b: a @ b,
        (Tensor["b", 1, "m", 8, f32], Tensor[3, 8, "n", f32]),
        np.matmul,
        ({"b": 2, "m": 3, "n": 4}, {"b": 1, "m": 1, "n": 2}, {"b": 0, "m": 1, "n": 2}),
    ),
    Case(
        "reductions",
        _reductions,
        (Tensor["batch", "seq", 4, f32],),
        _reductions_ref,
        ({"batch": 2, "seq": 3}, {"batch": 1, "seq": 1}, {"batch": 3, "seq": 0}),
    ),
    Case(
        "softmax",
        lambda x: (fe.softmax(x), fe.softmax(x, axis=0), fe.layer_norm(x)),
        (Tensor["batch", "seq", f32],),
        lambda x: (_softmax_ref(x, -1), _softmax_ref(x, 0), _layer_norm_ref(x)),
        ({"batch": 2, "seq": 5}, {"batch": 1, "seq": 1}, {"batch": 0, "seq": 3}),
    ),
    Case(
        "reshape",
        _reshapes,
        (Tensor["batch", "seq", 4, f32],),
        _reshapes_ref,
        ({"batch": 2, "seq": 3}, {"batch": 1, "seq": 1}, {"batch": 0, "seq": 2}),
    ),
    Case(
        "reshape_general",
        _general_reshapes,
        (Tensor["batch", 6, f32],),
        _general_reshapes_ref,
        ({"batch": 4}, {"batch": 1}, {"batch": 0}),
    ),
    Case(
        "transpose",
        _transposes,
        (Tensor["batch", "seq", 4, f32], Tensor["batch", "seq", 4, f32]),
        _transposes_ref,
        ({"batch": 2, "seq": 3}, {"batch": 1, "seq": 1}, {"batch": 0, "seq": 2}),
    ),
    Case(
        "broadcast_to",
        lambda x, r: (fe.broadcast_to(x, ("rows", 3, 4)), fe.broadcast_to(r, (r.shape[0], 5))),
        (Tensor[3, 4, f32], Tensor["rows", 1, f32]),
        lambda x, r: (np.broadcast_to(x, (r.shape[0], 3, 4)), np.broadcast_to(r, (r.shape[0], 5))),
        ({"rows": 2}, {"rows": 1}, {"rows": 0}),
    ),
    Case(
        "expand_squeeze",
        lambda x: (
            fe.expand_dims(x, 0),
            fe.expand_dims(x, -1),
            fe.squeeze(fe.expand_dims(x, 1), 1),
            fe.squeeze(fe.expand_dims(x, (0, 2))),
        ),
        (Tensor["batch", 4, f32],),
        lambda x: (x[None], x[..., None], x, x),
        ({"batch": 3}, {"batch": 1}, {"batch": 0}),
    ),
    Case(
        "concatenate",
        lambda a, b: (fe.concatenate([a, b], axis=0), fe.concatenate([a, a], axis=1)),
        (Tensor["n", 4, f32], Tensor["m", 4, f32]),
        lambda a, b: (np.concatenate([a, b]), np.concatenate([a, a], axis=1)),
        ({"n": 2, "m": 3}, {"n": 1, "m": 0}, {"n": 0, "m": 0}),
    ),
    Case(
        "dynamic_truncate",
        _truncate,
        (Tensor["batch", 8, f32], Tensor[i64]),
        _truncate_ref,
        (
            {"batch": 5, "n": 3},
            {"batch": 5, "n": -1},
            {"batch": 5, "n": 9},
            {"batch": 0, "n": 2},
            {"batch": 1, "n": 1},
        ),
        scalars={"n": "n"},
    ),
    # The unnamed axis of y adopts `batch` (seed 004): its rows are 1 or batch.
    Case(
        "broadcast_runtime",
        lambda x, y: x + y,
        (Tensor["batch", 8, f32], Tensor["?", 8, f32]),
        lambda x, y: x + y,
        (
            {"batch": 3, "_d0": 3},
            {"batch": 4, "_d0": 1},
            {"batch": 1, "_d0": 1},
            {"batch": 0, "_d0": 1},
            {"batch": 0, "_d0": 0},
        ),
    ),
]


def _inputs(
    case: Case, function: TracedFunction, binding: Mapping[str, int], rng: np.random.Generator
) -> list[np.ndarray]:
    """Random inputs of the case's declared types at ``binding``."""
    arrays: list[np.ndarray] = []
    for spec, shape in zip(case.specs, function.input_shapes, strict=True):
        if spec.rank == 0:
            (name,) = case.scalars.values()
            arrays.append(np.array(binding[name], dtype=spec.dtype.numpy))
            continue
        dims = shape.evaluate(binding)
        if spec.dtype.is_float:
            data = rng.standard_normal(dims)
            if case.positive:
                data = np.abs(data) + 0.1
        else:
            data = rng.integers(-20, 20, dims)
        arrays.append(data.astype(spec.dtype.numpy))
    return arrays


@pytest.fixture(scope="module")
def traced() -> dict[str, TracedFunction]:
    """Every case traced."""
    return trace_cases(CASES)


@pytest.fixture(scope="module")
def entries(
    traced: dict[str, TracedFunction], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, runtime.EntryPoint]:
    """Every case compiled for llvm-cpu, in as few modules as is safe (one or two)."""
    return compile_functions(list(traced.values()), tmp_path_factory.mktemp("frontend-cache"))


def test_round_trip(traced: dict[str, TracedFunction]) -> None:
    """Every traced case passes infer/verify/check-guarantees; inference reproduces its shapes."""
    check_round_trip(list(traced.values()))


def test_unnamed_axes() -> None:
    """'?' axes of inputs without names are fresh symbols, matched by inference up to renaming."""

    def f(x: Tensor, y: Tensor) -> tuple[Tensor, ...]:
        return x.reshape(-1), (fe.expand_dims(x, 0) + y).sum(axis=0), fe.softmax(x) @ x.T

    traced = trace(f, Tensor["?", 4, f32], Tensor["?", "?", 4, f32])
    assert [str(s) for s in traced.input_shapes] == ["[_d0, 4]", "[_d1, _d2, 4]"]
    assert [str(s) for s in traced.result_shapes] == [
        "[4 * _d0]",
        "[min(_d0 * _d2, max(_d0, _d2)), 4]",
        "[_d0, _d0]",
    ]
    check_round_trip([traced])


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_numpy(
    case: Case, traced: dict[str, TracedFunction], entries: dict[str, runtime.EntryPoint]
) -> None:
    """The compiled case matches numpy at each binding, as do its traced (exact) shapes."""
    rng = np.random.default_rng(0)
    entry = entries[case.name]
    for binding in case.bindings:
        inputs = _inputs(case, traced[case.name], binding, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = as_results(case.reference(*inputs))
        got = as_results(entry(*inputs))
        assert len(got) == len(expected)
        for index, (g, e, shape) in enumerate(
            zip(got, expected, traced[case.name].result_shapes, strict=True)
        ):
            assert g.shape == e.shape, (binding, index)
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, err_msg=f"{binding} #{index}")
            if shape.is_exact and not any(s.startswith("_d") for s in shape.free_symbols):
                assert shape.evaluate(binding) == e.shape, (binding, index)


def test_adopted_axis_is_checked(
    traced: dict[str, TracedFunction], entries: dict[str, runtime.EntryPoint]
) -> None:
    """An unnamed axis that adopted `batch` must be 1 or batch at run time: 4 rows of y
    against batch 1 (numpy would broadcast x) fail the call cleanly."""
    x, y = np.ones((1, 8), np.float32), np.ones((4, 8), np.float32)
    with pytest.raises(RuntimeCallError, match="broadcast_in_dim input axis 0 is neither 1 nor"):
        entries["broadcast_runtime"](x, y)


def test_empty_slices_of_static_axes(tmp_path: Any) -> None:
    """Slices that read nothing, at or past the end of a static axis (an axis of
    0 entries included), give empty results, and their gradient is zeros."""
    def cut(x: Tensor) -> tuple[Tensor, ...]:
        return x[10:], x[:, 3:3], x[-20:2], x[12:, ::-1]

    def zero_axis(z: Tensor) -> Tensor:
        return z[0:] + 1.0

    x = np.arange(40, dtype=np.float32).reshape(10, 4)
    got = symshape_mlir.jit(cut, inputs=[Tensor[10, 4, f32]], cache_dir=tmp_path)(x)
    for mine, want in zip(got, (x[10:], x[:, 3:3], x[-20:2], x[12:, ::-1]), strict=True):
        np.testing.assert_array_equal(mine, want)
    z = np.zeros((0, 3), np.float32)
    empty = symshape_mlir.jit(zero_axis, inputs=[Tensor[0, 3, f32]], cache_dir=tmp_path)(z)
    assert empty.shape == (0, 3)
    grad = symshape_mlir.jit(symshape_mlir.grad(lambda x: x[10:].sum() + x[2:5, ::-2].sum()),
                             inputs=[Tensor[10, 4, f32]], cache_dir=tmp_path)(x)
    want = np.zeros_like(x)
    want[2:5, ::-2] = 1.0
    np.testing.assert_array_equal(grad, want)
