"""Frontend ops that exported models use: element gathers, scans, transposed convolution.

Each case is traced with named axes, compiled for llvm-cpu once (all cases
share one or two modules) and run against numpy at several bindings,
including 0 and 1 where the op allows them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from symshape_mlir import runtime
from symshape_mlir.frontend import Tensor, TensorSpec, f32, i64
from symshape_mlir.frontend.errors import FrontendError, ShapeError
from symshape_mlir.frontend.ops.conv import conv_transpose
from symshape_mlir.frontend.ops.gather import gather_nd, take_along_axis
from symshape_mlir.frontend.ops.scan import cumprod, cumsum, scan
from symshape_mlir.frontend.ops.scatter import put_along_axis, scatter_nd
from symshape_mlir.frontend.ops.triangles import tril, triu
from symshape_mlir.frontend.tracing import TracedFunction, trace

from frontend_support import compile_functions
from roundtrip_support import check_round_trip


@dataclass(frozen=True)
class Case:
    """A traced function, its numpy reference, its inputs per binding."""

    name: str
    fn: Callable[..., Any]
    specs: tuple[TensorSpec, ...]
    reference: Callable[..., Any]
    bindings: tuple[Mapping[str, int], ...]
    #: Per integer input (by position), the exclusive upper bound of its values
    #: as a function of the binding (indices in range, negative ones included).
    index_range: Mapping[int, Callable[[Mapping[str, int]], int]] | None = None


def _along(x: Tensor, ids: Tensor) -> tuple[Tensor, ...]:
    return take_along_axis(x, ids, 1), take_along_axis(x, ids, -1)


def _along_ref(x: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, ...]:
    return (np.take_along_axis(x, ids, 1),) * 2


def _nd(x: Tensor, pairs: Tensor, rows: Tensor) -> tuple[Tensor, ...]:
    return gather_nd(x, pairs), gather_nd(x, rows), gather_nd(x, rows, batch_dims=0)


def _nd_ref(x: np.ndarray, pairs: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, ...]:
    picked = x[pairs[..., 0], pairs[..., 1]]
    return picked, x[rows[..., 0]], x[rows[..., 0]]


def _batched_nd(x: Tensor, ids: Tensor) -> Tensor:
    return gather_nd(x, ids, batch_dims=1)


def _batched_nd_ref(x: np.ndarray, ids: np.ndarray) -> np.ndarray:
    rows = np.arange(x.shape[0])[:, None]
    return x[rows, ids[:, :, 0]]


def _scans(x: Tensor, m: Tensor) -> tuple[Tensor, ...]:
    return (
        cumsum(x, axis=1), cumsum(x), cumprod(x, axis=0), cumsum(m, axis=-1),
        scan("sum", x, 1, exclusive=True), scan("sum", x, 1, reverse=True),
        scan("sum", x, 1, exclusive=True, reverse=True),
    )


def _scans_ref(x: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, ...]:
    reverse = np.flip(np.cumsum(np.flip(x, 1), 1), 1)
    return (
        np.cumsum(x, 1), np.cumsum(x), np.cumprod(x, 0), np.cumsum(m, -1),
        np.cumsum(x, 1) - x, reverse, reverse - x,
    )


def _deconv(x: Tensor, w: Tensor, wg: Tensor) -> tuple[Tensor, ...]:
    return (
        conv_transpose(x, w, strides=2, pads=[(1, 1), (1, 1)]),
        conv_transpose(x, w, strides=[2, 1], pads="same_upper", output_padding=[1, 0]),
        conv_transpose(x, w, dilations=2, pads=[(3, 0), (0, 4)]),
        conv_transpose(x, wg, groups=2, strides=3),
    )


def _deconv_ref(x: np.ndarray, w: np.ndarray, wg: np.ndarray) -> tuple[np.ndarray, ...]:
    def two_d(w_: np.ndarray, strides: tuple[int, int], dilations: tuple[int, int],
              pads: tuple[tuple[int, int], tuple[int, int]], extra: tuple[int, int],
              groups: int) -> np.ndarray:
        n, c, h, wd = x.shape
        per_group_out, kh, kw = w_.shape[1], w_.shape[2], w_.shape[3]
        full = [(s - 1) * st + d * (k - 1) + 1 + e for s, st, d, k, e in
                zip((h, wd), strides, dilations, (kh, kw), extra, strict=True)]
        out = np.zeros((n, per_group_out * groups, *full), np.float64)
        per_group_in = c // groups
        for g in range(groups):
            for ci in range(per_group_in):
                ch = g * per_group_in + ci
                for i in range(h):
                    for j in range(wd):
                        for a in range(kh):
                            for b in range(kw):
                                out[:, g * per_group_out:(g + 1) * per_group_out,
                                    i * strides[0] + a * dilations[0],
                                    j * strides[1] + b * dilations[1]] += \
                                    x[:, ch, i, j, None] * w_[ch, :, a, b]
        (t, bo), (left, right) = pads
        return out[:, :, t: full[0] - bo, left: full[1] - right]

    # "same_upper": out = in * stride, padding output_padding + k - stride split evenly.
    return (
        two_d(w, (2, 2), (1, 1), ((1, 1), (1, 1)), (0, 0), 1),
        two_d(w, (2, 1), (1, 1), ((1, 1), (1, 1)), (1, 0), 1),
        two_d(w, (1, 1), (2, 2), ((3, 0), (0, 4)), (0, 0), 1),
        two_d(wg, (3, 3), (1, 1), ((0, 0), (0, 0)), (0, 0), 2),
    )


def _scatters(x: Tensor, rows: Tensor, values: Tensor, cells: Tensor, points: Tensor,
              ids: Tensor, updates: Tensor) -> tuple[Tensor, ...]:
    return (
        scatter_nd(x, rows, values, "add"),
        scatter_nd(x, rows, values, "max"),
        scatter_nd(x, cells, points, "mul"),
        put_along_axis(x, ids, updates, 1, "add"),
        put_along_axis(x, ids, updates, -1, "min"),
    )


def _wrapped(ids: np.ndarray, extent: int) -> np.ndarray:
    return np.clip(np.where(ids < 0, ids + extent, ids), 0, max(extent - 1, 0))


def _scatters_ref(x: np.ndarray, rows: np.ndarray, values: np.ndarray, cells: np.ndarray,
                  points: np.ndarray, ids: np.ndarray, updates: np.ndarray
                  ) -> tuple[np.ndarray, ...]:
    n, m = x.shape
    results = []
    for ufunc, index, data in ((np.add, rows, values), (np.maximum, rows, values),
                               (np.multiply, cells, points)):
        out = x.copy()
        coords = tuple(_wrapped(index[..., j], x.shape[j]) for j in range(index.shape[-1]))
        if out.size:  # nothing is written into no elements
            ufunc.at(out, coords, data)
        results.append(out)
    for ufunc in (np.add, np.minimum):
        out = x.copy()
        if out.size:
            ufunc.at(out, (np.arange(n)[:, None].repeat(ids.shape[1], 1), _wrapped(ids, m)),
                     updates)
        results.append(out)
    return tuple(results)


def _triangles(x: Tensor, k: Tensor) -> tuple[Tensor, ...]:
    return triu(x), tril(x), triu(x, 1), tril(x, -2), triu(x, k), tril(x, k)


def _triangles_ref(x: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, ...]:
    return (np.triu(x), np.tril(x), np.triu(x, 1), np.tril(x, -2), np.triu(x, int(k)),
            np.tril(x, int(k)))


CASES = [
    Case("take_along_axis", _along, (Tensor["batch", "n", f32], Tensor["batch", "k", i64]),
         _along_ref,
         ({"batch": 3, "n": 5, "k": 4}, {"batch": 1, "n": 1, "k": 1},
          {"batch": 0, "n": 2, "k": 3}, {"batch": 2, "n": 3, "k": 0}),
         {1: lambda b: b["n"]}),
    Case("gather_nd", _nd,
         (Tensor["rows", "cols", f32], Tensor["m", 2, i64], Tensor["p", "q", 1, i64]), _nd_ref,
         ({"rows": 4, "cols": 3, "m": 5, "p": 2, "q": 3},
          {"rows": 1, "cols": 1, "m": 1, "p": 1, "q": 1},
          {"rows": 3, "cols": 2, "m": 0, "p": 0, "q": 2}),
         {1: lambda b: min(b["rows"], b["cols"]), 2: lambda b: b["rows"]}),
    Case("gather_nd_batched", _batched_nd, (Tensor["batch", "n", 3, f32],
                                            Tensor["batch", "k", 1, i64]),
         _batched_nd_ref,
         ({"batch": 2, "n": 4, "k": 3}, {"batch": 1, "n": 1, "k": 1},
          {"batch": 0, "n": 2, "k": 2}),
         {1: lambda b: b["n"]}),
    Case("scans", _scans, (Tensor["batch", "seq", f32], Tensor["batch", "seq", i64]),
         _scans_ref,
         ({"batch": 3, "seq": 5}, {"batch": 1, "seq": 1}, {"batch": 2, "seq": 0},
          {"batch": 0, "seq": 4})),
    Case("scatters", _scatters,
         (Tensor["n", "m", f32], Tensor["r", 1, i64], Tensor["r", "m", f32], Tensor["c", 2, i64],
          Tensor["c", f32], Tensor["n", "k", i64], Tensor["n", "k", f32]),
         _scatters_ref,
         ({"n": 4, "m": 3, "r": 6, "c": 5, "k": 4}, {"n": 1, "m": 1, "r": 1, "c": 1, "k": 1},
          {"n": 3, "m": 2, "r": 0, "c": 0, "k": 0}, {"n": 0, "m": 2, "r": 2, "c": 1, "k": 3}),
         {1: lambda b: b["n"], 3: lambda b: min(b["n"], b["m"]), 5: lambda b: b["m"]}),
    Case("triangles", _triangles, (Tensor["batch", "rows", "cols", f32], Tensor[i64]),
         _triangles_ref,
         ({"batch": 2, "rows": 3, "cols": 5}, {"batch": 1, "rows": 1, "cols": 1},
          {"batch": 2, "rows": 4, "cols": 0}, {"batch": 0, "rows": 2, "cols": 2}),
         {1: lambda b: 3}),
    Case("conv_transpose", _deconv,
         (Tensor["batch", 4, "h", "w", f32], Tensor[4, 3, 3, 3, f32], Tensor[4, 2, 2, 3, f32]),
         _deconv_ref,
         ({"batch": 2, "h": 3, "w": 4}, {"batch": 1, "h": 1, "w": 1},
          {"batch": 0, "h": 2, "w": 2})),
]


def _inputs(case: Case, function: TracedFunction, binding: Mapping[str, int],
            rng: np.random.Generator) -> list[np.ndarray]:
    arrays: list[np.ndarray] = []
    for position, (spec, shape) in enumerate(
            zip(case.specs, function.input_shapes, strict=True)):
        dims = shape.evaluate(binding)
        if spec.dtype.is_float:
            arrays.append(rng.standard_normal(dims).astype(spec.dtype.numpy))
            continue
        limit = (case.index_range or {}).get(position)
        high = max(limit(binding), 1) if limit else 5
        # Indices from -high to high - 1: negative ones count from the end.
        arrays.append(rng.integers(-high, high, dims).astype(spec.dtype.numpy))
    return arrays


@pytest.fixture(scope="module")
def traced() -> dict[str, TracedFunction]:
    """Every case traced."""
    return {case.name: trace(case.fn, *case.specs, name=case.name) for case in CASES}


@pytest.fixture(scope="module")
def entries(traced: dict[str, TracedFunction],
            tmp_path_factory: pytest.TempPathFactory) -> dict[str, runtime.EntryPoint]:
    """Every case compiled for llvm-cpu."""
    return compile_functions(list(traced.values()), tmp_path_factory.mktemp("model-ops"))


def test_round_trip(traced: dict[str, TracedFunction]) -> None:
    """Every case passes infer/verify/check-guarantees; inference reproduces its shapes."""
    check_round_trip(list(traced.values()))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_numpy(case: Case, traced: dict[str, TracedFunction],
                       entries: dict[str, runtime.EntryPoint]) -> None:
    """The compiled case matches numpy at each binding, and so do its traced shapes."""
    rng = np.random.default_rng(0)
    function = traced[case.name]
    for binding in case.bindings:
        inputs = _inputs(case, function, binding, rng)
        expected = case.reference(*inputs)
        expected = expected if isinstance(expected, tuple) else (expected,)
        got = entries[case.name](*inputs)
        got = got if isinstance(got, tuple) else (got,)
        for index, (g, e, shape) in enumerate(
                zip(got, expected, function.result_shapes, strict=True)):
            assert g.shape == e.shape == shape.evaluate(binding), (binding, index)
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, err_msg=f"{binding} #{index}")


@pytest.mark.parametrize(
    ("fn", "specs", "message"),
    [
        (lambda x, i: take_along_axis(x, i, 0), (Tensor[3, 4, f32], Tensor[3, f32]),
         "take_along_axis at {where}: indices must be integers, not f32"),
        (lambda x, i: take_along_axis(x, i, 0), (Tensor[3, 4, f32], Tensor[3, i64]),
         "take_along_axis at {where}: indices have rank 1, not 2"),
        (lambda x, i: take_along_axis(x, i, 0), (Tensor[3, 4, f32], Tensor[2, 5, i64]),
         "take_along_axis at {where}: indices extent 5 along axis 1 exceeds 4"),
        (lambda x, i: gather_nd(x, i), (Tensor[3, 4, f32], Tensor[2, "k", i64]),
         "gather_nd at {where}: the last axis of the indices must have a constant extent"),
        (lambda x, i: gather_nd(x, i), (Tensor[3, 4, f32], Tensor[2, 3, i64]),
         "gather_nd at {where}: 3 indices after 0 batch axes do not fit rank 2"),
        (lambda x: cumsum(x, axis=2), (Tensor[3, 4, f32],),
         "cumsum at {where}: axis 2 is out of range for rank 2"),
        (lambda x, w: conv_transpose(x, w, output_padding=1),
         (Tensor[1, 2, 5, f32], Tensor[2, 2, 3, f32]),
         "conv_transpose at {where}: output_padding 1 must give one value per spatial axis "
         "below its stride or dilation"),
        (lambda x, w: conv_transpose(x, w), (Tensor[1, 2, 5, f32], Tensor[3, 2, 3, f32]),
         "conv_transpose at {where}: the input has 2 channels, the weights 3"),
        (lambda x: triu(x), (Tensor[3, f32],),
         "triu at {where}: the input must have rank 2 or more, not 1"),
        (lambda x, k: tril(x, k), (Tensor[3, 3, f32], Tensor[2, i64]),
         "tril at {where}: k must be an int or a 0-d integer tensor, not tensor<2xi64>"),
        (lambda x, i, u: scatter_nd(x, i, u, "sum"), (Tensor[3, f32], Tensor[2, 1, i64],
                                                      Tensor[2, f32]),
         "scatter_nd at {where}: reduction 'sum' is not one of none, add, mul, max, min"),
        (lambda x, i, u: scatter_nd(x, i, u), (Tensor[3, f32], Tensor[2, 2, i64], Tensor[2, f32]),
         "scatter_nd at {where}: the last axis of the indices must have a constant extent from "
         "1 to 1"),
        (lambda x, i, u: scatter_nd(x, i, u), (Tensor[3, 4, f32], Tensor[2, 1, i64],
                                               Tensor[2, f32]),
         "scatter_nd at {where}: updates have rank 1, not 2 (indices rank - 1 + data rank - 1)"),
        (lambda x, i, u: put_along_axis(x, i, u, 0), (Tensor[3, f32], Tensor[2, i64],
                                                      Tensor[2, i64]),
         "put_along_axis at {where}: updates are i64, data f32"),
        (lambda x, i, u: put_along_axis(x, i, u, 0), (Tensor[3, f32], Tensor[2, 1, i64],
                                                      Tensor[2, 1, f32]),
         "put_along_axis at {where}: data, indices and updates have ranks 1, 2 and 2, not one "
         "rank"),
    ],
    ids=["float-indices", "rank", "extent", "symbolic-depth", "depth", "axis", "output-padding",
         "channels", "triangle-rank", "triangle-k", "scatter-reduction", "scatter-depth",
         "scatter-rank", "put-dtype", "put-rank"],
)
def test_errors(fn: Callable[..., Any], specs: tuple[TensorSpec, ...], message: str) -> None:
    """Bad arguments are errors at trace time naming the op and the line."""
    with pytest.raises((FrontendError, ShapeError)) as raised:
        trace(fn, *specs)
    head, tail = message.split("{where}")
    text = str(raised.value)
    assert text.startswith(head) and text.endswith(tail), text
    assert "test_frontend_model_ops.py:" in text[len(head):]
