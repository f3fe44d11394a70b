"""Every VJP rule against central finite differences of a float64 numpy reference.

Each case differentiates one op (or a few of one family) through the loss of
``autodiff_support``; all cases are compiled once, in as few modules as is
safe, and run at several bindings of their named axes (0 and 1 among them
where the op allows), so one compiled module serves every binding. Run-time
broadcasting runs the same module with the unnamed operand's extent 1 and
equal to the other's. Ties of ``max``/``min`` are checked against the
documented semantics (the cotangent shared evenly among tied entries).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

import symshape_mlir.frontend as fe
from autodiff_support import GradCase, check_case, default_inputs, trace_case
from symshape_mlir.frontend import Tensor, f32, f64, i64
from symshape_mlir.frontend.ops.conv import conv_transpose
from symshape_mlir.frontend.ops.gather import gather_nd, take_along_axis
from symshape_mlir.frontend.ops.scatter import put_along_axis, scatter_nd
from symshape_mlir.frontend.ops.triangles import tril, triu

from frontend_support import compile_functions

F = f64
N3 = Tensor["n", 3, F]
N4 = Tensor["n", 4, F]
K = Tensor[i64]
BINDINGS = ({"n": 0}, {"n": 1}, {"n": 3})
POSITIVE_BINDINGS = ({"n": 1}, {"n": 3})


def positive(specs: Sequence[Any]) -> Any:
    """Inputs with floats in [0.5, 2)."""

    def make(rng: np.random.Generator, binding: Mapping[str, int]) -> list[np.ndarray]:
        return [np.abs(a) + 0.5 if a.dtype.kind == "f" else a
                for a in default_inputs(specs, rng, binding)]

    return make


def with_ints(specs: Sequence[Any], ints: Mapping[int, Any]) -> Any:
    """Default inputs, and at each position of ``ints`` the array it makes."""

    def make(rng: np.random.Generator, binding: Mapping[str, int]) -> list[np.ndarray]:
        args = default_inputs(specs, rng, binding)
        for position, build in ints.items():
            args[position] = np.asarray(build(rng, binding))
        return args

    return make


def two_row_counts(rows: Sequence[str]) -> Any:
    """Inputs of ``[rows[i], 3]`` shapes, the row counts from the binding."""

    def make(rng: np.random.Generator, binding: Mapping[str, int]) -> list[np.ndarray]:
        return [rng.normal(size=(binding[r], 3)) for r in rows]

    return make


# -- numpy references ------------------------------------------------------------------


def np_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=axis, keepdims=True, initial=-np.inf))
    return e / np.sum(e, axis=axis, keepdims=True)


def np_erf(x: np.ndarray) -> np.ndarray:
    from math import erf
    return np.vectorize(erf, otypes=[np.float64])(x)


def np_gelu(x: np.ndarray, approximate: bool) -> np.ndarray:
    if approximate:
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + np_erf(x / np.sqrt(2)))


def np_layer_norm(x: np.ndarray, axis: int = -1, eps: float = 1e-5) -> np.ndarray:
    centered = x - x.mean(axis, keepdims=True)
    return centered / np.sqrt((centered**2).mean(axis, keepdims=True) + eps)


def np_conv(x: np.ndarray, w: np.ndarray, bias: np.ndarray | None = None,
            strides: Sequence[int] = (1, 1), dilations: Sequence[int] = (1, 1),
            pads: Sequence[tuple[int, int]] = ((0, 0), (0, 0)), groups: int = 1) -> np.ndarray:
    """ONNX Conv in float64."""
    spatial = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0), *pads])
    kernel = w.shape[2:]
    outs = [(xp.shape[2 + i] - dilations[i] * (kernel[i] - 1) - 1) // strides[i] + 1
            for i in range(spatial)]
    filters, per_group = w.shape[0], w.shape[1]
    out = np.zeros((x.shape[0], filters, *outs))
    fg = filters // groups
    for g in range(groups):
        for tap in itertools.product(*(range(k) for k in kernel)):
            window = tuple(slice(t * d, t * d + s * (o - 1) + 1, s)
                           for t, d, s, o in zip(tap, dilations, strides, outs, strict=True))
            xs = xp[(slice(None), slice(g * per_group, (g + 1) * per_group), *window)]
            ws = w[(slice(g * fg, (g + 1) * fg), slice(None), *tap)]
            out[:, g * fg:(g + 1) * fg] += np.einsum("nc...,fc->nf...", xs, ws)
    if bias is not None:
        out += bias.reshape(-1, *([1] * spatial))
    return out


def np_conv_transpose(x: np.ndarray, w: np.ndarray, stride: int) -> np.ndarray:
    """ONNX ConvTranspose (2-D, one group, no padding) in float64."""
    k = w.shape[2:]
    size = [stride * (x.shape[2 + i] - 1) + k[i] for i in range(2)]
    out = np.zeros((x.shape[0], w.shape[1], *size))
    for tap in itertools.product(*(range(n) for n in k)):
        window = tuple(slice(t, t + stride * (x.shape[2 + i] - 1) + 1, stride)
                       for i, t in enumerate(tap))
        out[(slice(None), slice(None), *window)] += np.einsum("nc...,cf->nf...", x,
                                                              w[(slice(None), slice(None), *tap)])
    return out


def np_pool(x: np.ndarray, kind: str, kernel: Sequence[int], strides: Sequence[int],
            pads: Sequence[tuple[int, int]]) -> np.ndarray:
    """Max, or average over the input elements of each window, in float64."""
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, [(0, 0), (0, 0), *pads], constant_values=fill)
    ones = np.pad(np.ones(x.shape[2:]), pads)
    outs = [(xp.shape[2 + i] - kernel[i]) // strides[i] + 1 for i in range(2)]
    taps, counts = [], []
    for tap in itertools.product(*(range(k) for k in kernel)):
        window = tuple(slice(t, t + s * (o - 1) + 1, s)
                       for t, s, o in zip(tap, strides, outs, strict=True))
        taps.append(xp[(slice(None), slice(None), *window)])
        counts.append(ones[window])
    if kind == "max":
        return np.max(taps, axis=0)
    return np.sum(taps, axis=0) / np.sum(counts, axis=0)


def np_take_clip(a: np.ndarray, ids: np.ndarray, axis: int) -> np.ndarray:
    return np.take(a, ids, axis=axis, mode="clip")


def np_scatter_add(data: np.ndarray, rows: np.ndarray, updates: np.ndarray) -> np.ndarray:
    out = data.copy()
    np.add.at(out, rows, updates)
    return out


# -- cases -----------------------------------------------------------------------------


def _tie_inputs(rng: np.random.Generator, binding: Mapping[str, int]) -> list[np.ndarray]:
    x = rng.integers(0, 3, size=(binding["n"], 4)).astype(np.float64)
    return [x, rng.integers(0, 3, size=(binding["n"], 4)).astype(np.float64)]


def _share(a: np.ndarray, b: np.ndarray, better: Any) -> np.ndarray:
    return np.where(better(a, b), 1.0, np.where(a == b, 0.5, 0.0))


def _maximum_ties_expected(x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    out = np.maximum(x, y)
    ct = 1 + out / 2
    return [ct * _share(x, y, np.greater), ct * _share(y, x, np.greater)]


def _max_ties_expected(x: np.ndarray) -> list[np.ndarray]:
    top = x.max(axis=1, keepdims=True)
    hit = (x == top).astype(np.float64)
    return [hit * (1 + top / 2) / hit.sum(axis=1, keepdims=True)]


def _prod_inputs(rng: np.random.Generator, binding: Mapping[str, int]) -> list[np.ndarray]:
    x = rng.normal(size=(binding["n"], 4))
    if binding["n"]:
        x[0, 1] = 0.0  # one zero: the other entries of its row get the gradient
    if binding["n"] > 1:
        x[1, :2] = 0.0  # two zeros: nothing gets one
    return [x]


def _ids(values: Sequence[int]) -> Any:
    return lambda rng, binding: np.array(values, np.int64)


def _runtime_k(value_of: Any) -> Any:
    return lambda rng, binding: np.array(value_of(binding), np.int64)


def _mask_gradient_inputs(rng: np.random.Generator,
                          binding: Mapping[str, int]) -> list[np.ndarray]:
    x = rng.normal(size=(binding["n"], 3))
    x[np.abs(x) < 0.05] = 0.5  # away from the mask's edge
    return [x]


def _conv_same_pads(size: int, k: int, s: int) -> tuple[int, int]:
    total = max((-(-size // s) - 1) * s + k - size, 0)
    return total // 2, total - total // 2


CASES: list[GradCase] = [
    # elementwise, with broadcasting
    GradCase("add_bias", lambda x, b: x + b, (N3, Tensor[3, F]), lambda x, b: x + b, (0, 1)),
    GradCase("add_runtime_broadcast", lambda x, y: x + y, (N3, Tensor["?", 3, F]),
             lambda x, y: x + y, (0, 1),
             bindings=({"n": 3, "?": 1}, {"n": 3, "?": 3}, {"n": 1, "?": 1},
                       {"n": 0, "?": 1}, {"n": 0, "?": 0})),
    GradCase("multiply_runtime_both", lambda x, y: x * y,
             (Tensor["?", 3, F], Tensor["?", 3, F]), lambda x, y: x * y, (0, 1),
             bindings=({"a": 1, "b": 4}, {"a": 4, "b": 1}, {"a": 4, "b": 4},
                       {"a": 1, "b": 1}, {"a": 0, "b": 1}),
             inputs=two_row_counts(["a", "b"])),
    GradCase("subtract", lambda x, y: x - y, (N3, N3), lambda x, y: x - y, (0, 1)),
    GradCase("multiply_columns", lambda x, y: x * y, (N3, Tensor["n", 1, F]),
             lambda x, y: x * y, (0, 1)),
    GradCase("divide", lambda x, y: x / y, (N3, Tensor[3, F]), lambda x, y: x / y, (0, 1),
             inputs=positive((N3, Tensor[3, F]))),
    GradCase("power", lambda x, y: x**y, (N3, N3), lambda x, y: x**y, (0, 1),
             inputs=positive((N3, N3))),
    GradCase("power_constant", lambda x: x**3.0 + 2.0**x, (N3,), lambda x: x**3.0 + 2.0**x),
    GradCase("maximum", fe.maximum, (N3, Tensor[3, F]), np.maximum, (0, 1)),
    GradCase("minimum", fe.minimum, (N3, Tensor[3, F]), np.minimum, (0, 1)),
    GradCase("maximum_ties", fe.maximum, (N4, N4), np.maximum, (0, 1), inputs=_tie_inputs,
             expected=_maximum_ties_expected),
    GradCase("clip_tensors", lambda x, lo, hi: fe.clip(x, lo, hi),
             (N3, Tensor[3, F], Tensor[3, F]), lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi),
             (0, 1, 2),
             inputs=lambda rng, b: [rng.normal(size=(b["n"], 3)), np.array([-2.0, 0.3, -0.2]),
                                    np.array([2.0, 1.5, 0.1])]),
    GradCase("clip_numbers", lambda x: fe.clip(x, -0.5, 0.5), (N3,),
             lambda x: np.clip(x, -0.5, 0.5)),
    GradCase("where", lambda c, x, y: fe.where(c > 0.0, x, y), (N3, N3, Tensor[3, F]),
             lambda c, x, y: np.where(c > 0, x, y), (1, 2)),
    GradCase("remainder", lambda x, y: x % y, (N3, Tensor[3, F]), np.remainder, (0, 1),
             inputs=lambda rng, b: [rng.normal(size=(b["n"], 3)) * 3,
                                    np.array([0.7, 1.3, 2.1])]),
    GradCase("piecewise_constant",
             lambda x: (fe.floor(x), fe.ceil(x), fe.round(x), fe.sign(x), x // 0.7),
             (N3,), lambda x: (np.floor(x), np.ceil(x), np.round(x), np.sign(x), x // 0.7)),
    GradCase("astype_f32", lambda x: fe.astype(x, f64) * 2.0, (Tensor["n", 3, f32],),
             lambda x: x * 2.0, tolerance=1e-4),
    # elementwise functions
    GradCase("exp", fe.exp, (N3,), np.exp),
    GradCase("log", fe.log, (N3,), np.log, inputs=positive((N3,))),
    GradCase("sqrt", fe.sqrt, (N3,), np.sqrt, inputs=positive((N3,))),
    GradCase("rsqrt", fe.rsqrt, (N3,), lambda x: 1 / np.sqrt(x), inputs=positive((N3,))),
    # sin, cos, tanh and erf of f64 are computed in f32 (IREE 3.13's CPU backend)
    GradCase("tanh", fe.tanh, (N3,), np.tanh, tolerance=1e-5),
    GradCase("sin", fe.sin, (N3,), np.sin, tolerance=1e-5),
    GradCase("cos", fe.cos, (N3,), np.cos, tolerance=1e-5),
    GradCase("erf", fe.erf, (N3,), np_erf, tolerance=1e-5),
    GradCase("negative_abs", lambda x: fe.abs(-x), (N3,), lambda x: np.abs(-x)),
    GradCase("relu", fe.relu, (N3,), lambda x: np.maximum(x, 0)),
    GradCase("sigmoid", fe.sigmoid, (N3,), lambda x: 1 / (1 + np.exp(-x))),
    GradCase("gelu_tanh", fe.gelu, (N3,), lambda x: np_gelu(x, True), tolerance=1e-5),
    GradCase("gelu_erf", lambda x: fe.gelu(x, approximate=False), (N3,),
             lambda x: np_gelu(x, False), tolerance=1e-5),
    # reductions
    GradCase("sum_axis", lambda x: fe.sum(x, axis=1), (N4,), lambda x: x.sum(axis=1)),
    GradCase("sum_keepdims", lambda x: fe.sum(x, axis=(0, 2), keepdims=True),
             (Tensor["n", 3, 2, F],), lambda x: x.sum(axis=(0, 2), keepdims=True)),
    GradCase("mean", lambda x: fe.mean(x, axis=1) + fe.mean(x), (N4,),
             lambda x: x.mean(axis=1) + x.mean(), bindings=POSITIVE_BINDINGS),
    GradCase("max_axis", lambda x: fe.max(x, axis=1), (N4,), lambda x: x.max(axis=1)),
    GradCase("min_all", fe.min, (N4,), lambda x: np.min(x, initial=np.inf)),
    GradCase("max_ties", lambda x: fe.max(x, axis=1), (N4,),
             lambda x: x.max(axis=1, initial=-np.inf),
             inputs=lambda rng, b: _tie_inputs(rng, b)[:1], expected=_max_ties_expected),
    GradCase("prod_zeros", lambda x: fe.prod(x, axis=1), (N4,), lambda x: x.prod(axis=1),
             inputs=_prod_inputs),
    GradCase("prod_axes", lambda x: fe.prod(x, axis=(0, 2), keepdims=True),
             (Tensor[2, "n", 3, F],), lambda x: x.prod(axis=(0, 2), keepdims=True)),
    GradCase("var_std", lambda x: fe.var(x, axis=1, ddof=1) + fe.std(x, axis=1), (N4,),
             lambda x: x.var(axis=1, ddof=1) + x.std(axis=1)),
    GradCase("logsumexp", lambda x: fe.logsumexp(x, axis=-1, keepdims=True), (N4,),
             lambda x: np.log(np.exp(x).sum(-1, keepdims=True))),
    # neural-network blocks
    GradCase("softmax", lambda x: fe.softmax(x, axis=-1), (Tensor["n", 5, F],), np_softmax),
    GradCase("log_softmax", lambda x: fe.log_softmax(x, axis=0), (N4,),
             lambda x: np.log(np_softmax(x, axis=0))),
    GradCase("layer_norm", fe.layer_norm, (Tensor["n", 6, F],), np_layer_norm),
    # shapes
    GradCase("reshape_minus_one", lambda x: x.reshape(-1, 3), (Tensor["n", 6, F],),
             lambda x: x.reshape(-1, 3)),
    GradCase("reshape_flatten", lambda x: x.flatten() * x.reshape(x.shape[0] * 6),
             (Tensor["n", 2, 3, F],), lambda x: x.flatten() ** 2),
    GradCase("transpose", lambda x: x.transpose((2, 0, 1)), (Tensor["n", 2, 3, F],),
             lambda x: x.transpose((2, 0, 1))),
    GradCase("swapaxes_T", lambda x: fe.swapaxes(x, 0, 1) * 2.0 + x.T, (Tensor[3, 3, F],),
             lambda x: np.swapaxes(x, 0, 1) * 2.0 + x.T, bindings=({},)),
    GradCase("broadcast_to", lambda x, y: fe.broadcast_to(x, y.shape) * y, (Tensor[3, F], N3),
             lambda x, y: np.broadcast_to(x, y.shape) * y, (0, 1)),
    GradCase("broadcast_to_runtime", lambda x, y: fe.broadcast_to(x, y.shape) * y,
             (Tensor["?", 3, F], N3), lambda x, y: np.broadcast_to(x, y.shape) * y, (0, 1),
             bindings=({"n": 3, "?": 1}, {"n": 3, "?": 3}, {"n": 0, "?": 1}, {"n": 1, "?": 1})),
    GradCase("expand_squeeze", lambda x: fe.squeeze(fe.expand_dims(x, (0, 2)), 0), (N3,),
             lambda x: x[:, None, :]),
    GradCase("concatenate", lambda x, y: fe.concatenate([x, y, x], axis=0),
             (N3, Tensor[2, 3, F]), lambda x, y: np.concatenate([x, y, x], axis=0), (0, 1)),
    GradCase("concatenate_columns", lambda x, y: fe.concatenate([y, x], axis=1),
             (N3, Tensor["n", 2, F]), lambda x, y: np.concatenate([y, x], axis=1), (0, 1)),
    GradCase("stack", lambda x, y: fe.stack([x, y], axis=1), (N3, N3),
             lambda x, y: np.stack([x, y], axis=1), (0, 1)),
    GradCase("split", lambda x: fe.split(x, [1, 3], axis=1) + fe.split(x, 2, axis=1),
             (N4,), lambda x: np.split(x, [1, 3], axis=1) + np.split(x, 2, axis=1)),
    GradCase("tile_repeat", lambda x: (fe.tile(x, (2, 1)), fe.repeat(x, 2, axis=1)), (N3,),
             lambda x: (np.tile(x, (2, 1)), np.repeat(x, 2, axis=1))),
    GradCase("flip_roll", lambda x, k: (fe.flip(x, 1), fe.roll(x, 2, axis=1),
                                        fe.roll(x, k, axis=0)), (N4, K),
             lambda x, k: (np.flip(x, 1), np.roll(x, 2, axis=1), np.roll(x, int(k), axis=0)),
             inputs=with_ints((N4, K), {1: _runtime_k(lambda b: 2)})),
    GradCase("pad", lambda x, k: (fe.pad(x, [(1, 2), (0, 1)]), fe.pad(x, [(k, 0), (0, 1)])),
             (N3, K), lambda x, k: (np.pad(x, [(1, 2), (0, 1)]), np.pad(x, [(int(k), 0), (0, 1)])),
             inputs=with_ints((N3, K), {1: _runtime_k(lambda b: 2)})),
    GradCase("slices", lambda x: (x[:, ::2], x[::-1, 1:4], x[..., None, 2]),
             (Tensor["n", 5, F],), lambda x: (x[:, ::2], x[::-1, 1:4], x[..., None, 2])),
    GradCase("slice_runtime", lambda x, k: x[:k], (N3, K), lambda x, k: x[:int(k)],
             inputs=with_ints((N3, K), {1: _runtime_k(lambda b: 2)})),
    GradCase("index_array", lambda x: x[np.array([0, 2, 0, 3])], (Tensor[4, "n", F],),
             lambda x: x[np.array([0, 2, 0, 3])]),
    GradCase("boolean_mask", lambda x: x[x > 0.0], (N3,), lambda x: x[x > 0],
             inputs=_mask_gradient_inputs),
    GradCase("truncate_exact", lambda x, k: fe.dynamic_truncate(x, k, stage="exact"),
             (N3, K), lambda x, k: x[:max(int(k), 0)],
             inputs=with_ints((N3, K), {1: _runtime_k(lambda b: min(b["n"], 2))})),
    GradCase("truncate_upper_bound", lambda x, k: fe.dynamic_truncate(x, k) * 3.0,
             (N3, K), lambda x, k: x[:max(int(k), 0)] * 3.0,
             inputs=with_ints((N3, K), {1: _runtime_k(lambda b: b["n"] - 1)})),
    # contractions
    GradCase("matmul", lambda x, w: x @ w, (N4, Tensor[4, 3, F]), lambda x, w: x @ w, (0, 1)),
    GradCase("matmul_batch_broadcast", lambda x, w, v: (x @ w, v @ x[0]),
             (Tensor[2, "n", 4, F], Tensor[4, 3, F], Tensor[2, 5, "n", F]),
             lambda x, w, v: (x @ w, v @ x[0]), (0, 1, 2)),
    GradCase("matmul_vectors", lambda v, m: (v @ m, (m @ fe.ones(m.shape[1])) @ v),
             (Tensor[4, F], Tensor[4, "n", F]),
             lambda v, m: (v @ m, (m @ np.ones(m.shape[1])) @ v), (0, 1),
             inputs=lambda rng, b: [rng.normal(size=4), rng.normal(size=(4, b["n"]))]),
    GradCase("einsum", lambda x, w: (fe.einsum("nij,jk->nik", x, w), fe.einsum("nij->i", x),
                                     fe.einsum("i,i->", w[:, 0], w[:, 1])),
             (Tensor["n", 2, 3, F], Tensor[3, 2, F]),
             lambda x, w: (np.einsum("nij,jk->nik", x, w), np.einsum("nij->i", x),
                           np.einsum("i,i->", w[:, 0], w[:, 1])), (0, 1)),
    # gathers and scatters
    GradCase("take_repeated", lambda t: fe.take(t, np.array([1, 3, 1, 1]), axis=0),
             (Tensor[5, "n", F],), lambda t: np_take_clip(t, np.array([1, 3, 1, 1]), 0)),
    GradCase("take_axis_clipped", lambda x, ids: fe.take(x, ids, axis=1),
             (Tensor["n", 5, F], Tensor[2, 3, i64]), lambda x, ids: np_take_clip(x, ids, 1),
             inputs=with_ints((Tensor["n", 5, F], Tensor[2, 3, i64]),
                              {1: _ids([[0, 7, -1], [2, 2, 4]])})),
    GradCase("take_along_axis", lambda x, ids: take_along_axis(x, ids, 1),
             (N4, Tensor["n", 3, i64]), lambda x, ids: np.take_along_axis(x, ids, 1),
             inputs=with_ints((N4, Tensor["n", 3, i64]),
                              {1: lambda rng, b: rng.integers(-4, 4, size=(b["n"], 3))})),
    GradCase("take_along_axis_shorter", lambda x, ids: take_along_axis(x, ids, 0),
             (N4, Tensor[2, 3, i64]), lambda x, ids: np.take_along_axis(x[:, :3], ids, 0),
             bindings=({"n": 1}, {"n": 3}),
             inputs=with_ints((N4, Tensor[2, 3, i64]),
                              {1: lambda rng, b: rng.integers(0, b["n"], size=(2, 3))})),
    GradCase("gather_nd", lambda x, ids: gather_nd(x, ids), (Tensor[4, 3, F], Tensor["n", 1, i64]),
             lambda x, ids: x[ids[:, 0]],
             inputs=with_ints((Tensor[4, 3, F], Tensor["n", 1, i64]),
                              {1: lambda rng, b: rng.integers(0, 4, size=(b["n"], 1))})),
    GradCase("put_along_axis_add",
             lambda d, ids, u: put_along_axis(d, ids, u, 1, "add"),
             (N4, Tensor["n", 2, i64], Tensor["n", 2, F]),
             lambda d, ids, u: np_scatter_add(
                 d, (np.arange(d.shape[0])[:, None].repeat(2, 1), ids), u), (0, 2),
             inputs=with_ints((N4, Tensor["n", 2, i64], Tensor["n", 2, F]),
                              {1: lambda rng, b: rng.integers(0, 4, size=(b["n"], 2))})),
    GradCase("scatter_nd_add", lambda d, ids, u: scatter_nd(d, ids, u, "add"),
             (Tensor[5, 3, F], Tensor["n", 1, i64], N3),
             lambda d, ids, u: np_scatter_add(d, ids[:, 0], u), (0, 2),
             inputs=with_ints((Tensor[5, 3, F], Tensor["n", 1, i64], N3),
                              {1: lambda rng, b: rng.integers(0, 5, size=(b["n"], 1))})),
    GradCase("scatter_nd_none", lambda d, u: scatter_nd(d, fe.array(np.array([[3], [0]])), u),
             (Tensor[5, "n", F], Tensor[2, "n", F]),
             lambda d, u: np.concatenate([u[1:2], d[1:3], u[0:1], d[4:]]), (0, 1)),
    # windows
    GradCase("conv", lambda x, w: fe.conv(x, w, strides=2, pads=1),
             (Tensor["n", 2, 5, 5, F], Tensor[3, 2, 3, 3, F]),
             lambda x, w: np_conv(x, w, strides=(2, 2), pads=((1, 1), (1, 1))), (0, 1),
             bindings=({"n": 0}, {"n": 1}, {"n": 2})),
    GradCase("conv_grouped", lambda x, w, b: fe.conv(x, w, b, dilations=2, groups=2),
             (Tensor["n", 4, 6, 5, F], Tensor[4, 2, 2, 2, F], Tensor[4, F]),
             lambda x, w, b: np_conv(x, w, b, dilations=(2, 2), groups=2), (0, 1, 2),
             bindings=({"n": 1}, {"n": 2})),
    GradCase("conv_same_1d", lambda x, w: fe.conv(x, w, strides=2, pads="same_upper"),
             (Tensor[1, 2, "n", F], Tensor[3, 2, 3, F]),
             lambda x, w: np_conv(x, w, strides=(2,), dilations=(1,),
                                  pads=(_conv_same_pads(x.shape[2], 3, 2),)), (0, 1),
             bindings=({"n": 1}, {"n": 4}, {"n": 7})),
    GradCase("conv_transpose", lambda x, w: conv_transpose(x, w, strides=2),
             (Tensor["n", 2, 3, 3, F], Tensor[2, 3, 2, 2, F]),
             lambda x, w: np_conv_transpose(x, w, 2), (0, 1),
             bindings=({"n": 0}, {"n": 1}, {"n": 2})),
    GradCase("max_pool", lambda x: fe.pool(x, "max", (2, 2), strides=2, pads=1),
             (Tensor["n", 2, 4, 5, F],),
             lambda x: np_pool(x, "max", (2, 2), (2, 2), ((1, 1), (1, 1))),
             bindings=({"n": 0}, {"n": 1}, {"n": 2})),
    GradCase("avg_pool", lambda x: fe.pool(x, "avg", (3, 2), strides=(1, 2), pads=1),
             (Tensor["n", 2, 4, 5, F],),
             lambda x: np_pool(x, "avg", (3, 2), (1, 2), ((1, 1), (1, 1))),
             bindings=({"n": 0}, {"n": 1}, {"n": 2})),
    # orders, scans, triangles
    GradCase("sort_topk", lambda x: (fe.sort(x, axis=1), fe.topk(x, 2)[0]), (N4,),
             lambda x: (np.sort(x, axis=1), -np.sort(-x, axis=1)[:, :2])),
    GradCase("cumsum", lambda x: fe.cumsum(x, axis=1) + fe.cumsum(x, axis=0), (N4,),
             lambda x: np.cumsum(x, axis=1) + np.cumsum(x, axis=0)),
    GradCase("triangles", lambda x: triu(x, 1) + tril(x), (Tensor["n", 4, F],),
             lambda x: np.triu(x, 1) + np.tril(x)),
]


@pytest.fixture(scope="module")
def entries(cache_dir: Any) -> dict[str, Any]:
    """Every case's loss and gradients, compiled once."""
    return compile_functions([trace_case(case) for case in CASES], cache_dir)


def _case_bindings() -> list[tuple[GradCase, Mapping[str, int]]]:
    return [(case, binding) for case in CASES for binding in case.bindings]


@pytest.mark.parametrize(
    ("case", "binding"), _case_bindings(),
    ids=[f"{c.name}-{'-'.join(f'{k}{v}' for k, v in b.items()) or 'static'}"
         for c, b in _case_bindings()])
def test_gradient_matches_finite_differences(case: GradCase, binding: Mapping[str, int],
                                             entries: dict[str, Any]) -> None:
    """The compiled gradient equals the finite differences of the numpy reference."""
    check_case(case, entries[case.name], binding)


def test_cases_have_distinct_names() -> None:
    """Case names are the compiled functions' names."""
    names = [case.name for case in CASES]
    assert len(set(names)) == len(names)
