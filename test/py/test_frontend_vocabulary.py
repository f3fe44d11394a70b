"""What a numpy or JAX user reaches for: traced, compiled for llvm-cpu, checked against numpy.

Run-time integers as sizes (a 0-d input, an element of a 1-D input),
constructors, operators, indexing, ops and element types. Each case runs at
bindings with an axis of 0, of 1 and larger (run-time integers negative,
zero and past the end where numpy accepts them); results must equal numpy's
in shape, element type and value. The cases share a few modules
(``frontend_support``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import symshape_mlir.frontend as fe
from symshape_mlir import runtime
from symshape_mlir.frontend import Tensor, TensorSpec, bf16, f16, f32, i1, i8, i16, i32, i64, u8
from symshape_mlir.frontend.tracing import TracedFunction

from frontend_support import as_results, compile_functions, trace_cases
from roundtrip_support import check_round_trip

Binding = Mapping[str, int]
Values = Callable[[Binding, np.random.Generator], np.ndarray]


@dataclass(frozen=True)
class Case:
    """A traced function, its numpy reference, its bindings and the inputs whose
    values matter (by position; the others are random)."""

    name: str
    fn: Callable[..., Any]
    specs: tuple[TensorSpec, ...]
    reference: Callable[..., Any]
    bindings: tuple[Binding, ...]
    values: Mapping[int, Values] = field(default_factory=dict)
    tolerance: float = 1e-5
    positive: bool = False


def scalar(key: str, dtype: type = np.int64) -> Values:
    """A 0-d input holding the binding's ``key``."""
    return lambda b, rng: np.array(b[key], dtype)


def ids(size: str, extent: str) -> Values:
    """Indices into an axis of ``extent``: in ``[-extent, extent)``."""
    return lambda b, rng: rng.integers(-b[extent], max(b[extent], 1), b[size]).astype(np.int64) \
        if b[extent] else np.zeros(b[size], np.int64)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x


def _logsumexp(x: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(x, axis=axis, keepdims=True) if x.shape[axis] else np.zeros(1, x.dtype)
    top = np.where(np.isfinite(top), top, 0)
    return (np.log(np.exp(x - top).sum(axis=axis, keepdims=True)) + top).squeeze(axis)


def _topk(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, -1), order.astype(np.int64)


AXES = ({"n": 0}, {"n": 1}, {"n": 5})
SLICE_BINDINGS = tuple({"n": n, "k": k} for n in (0, 1, 5) for k in (-7, -2, 0, 1, 3, 9))

CASES = [
    # -- run-time integers as sizes --------------------------------------------------
    Case(
        "runtime_slices",
        lambda x, k: (x[:k], x[k:], x[-k:], x[1:k], x[k:-1], x[::-1][:k], x[k:, 1:]),
        (Tensor["n", 3, f32], Tensor[i64]),
        lambda x, k: (x[:k], x[k:], x[-k:], x[1:k], x[k:-1], x[::-1][:k], x[k:, 1:]),
        SLICE_BINDINGS,
        {1: scalar("k")},
    ),
    Case(
        "runtime_broadcast",
        lambda x, k, w: (x[:k] + w, fe.broadcast_to(w, x[:k].shape)),
        (Tensor["n", 3, f32], Tensor[i64], Tensor["m", 3, f32]),
        lambda x, k, w: (x[:k] + w, np.broadcast_to(w, x[:k].shape)),
        tuple({"n": n, "k": k, "m": 1} for n in (0, 1, 5) for k in (-1, 2, 9)),
        {1: scalar("k")},
    ),
    Case(
        "runtime_range",
        lambda x, a, b: (x[a:b], x[:, a:b], x[b:a:-1], x[a:b:2]),
        (Tensor["n", 4, f32], Tensor[i64], Tensor[i32]),
        lambda x, a, b: (x[a:b], x[:, a:b], x[b:a:-1], x[a:b:2]),
        tuple({"n": n, "a": a, "b": b} for n in (0, 1, 6) for a, b in ((1, 3), (-3, 5), (2, -1),
                                                                        (4, 2), (0, 9))),
        {1: scalar("a"), 2: scalar("b", np.int32)},
    ),
    Case(
        "runtime_index",
        lambda x, k: (x[k], x[:, k], x[k, -1]),
        (Tensor["n", 3, f32], Tensor[i64]),
        lambda x, k: (x[k], x[:, k], x[k, -1]),
        ({"n": 1, "k": 0}, {"n": 5, "k": -2}, {"n": 5, "k": 2}, {"n": 3, "k": -3}),
        {1: scalar("k")},
    ),
    Case(
        "sizes_from_elements",
        lambda x, sizes: (x[:sizes[0]], x[sizes[2]:], x.reshape(sizes[1], -1),
                          fe.zeros((sizes[0], sizes[2]), f32), fe.arange(sizes[1])),
        (Tensor["n", 6, f32], Tensor[3, i64]),
        lambda x, sizes: (x[:sizes[0]], x[sizes[2]:], x.reshape(sizes[1], -1),
                          np.zeros((sizes[0], sizes[2]), np.float32), np.arange(sizes[1])),
        ({"n": 0, "a": 2, "b": 3, "c": 0}, {"n": 1, "a": 1, "b": 2, "c": 1},
         {"n": 5, "a": 9, "b": 10, "c": 3}),
        {1: lambda b, rng: np.array([b["a"], b["b"], b["c"]], np.int64)},
    ),
    Case(
        "runtime_reshape_pad_arange",
        lambda x, k: (x.reshape(k, -1), x.reshape(-1, k), fe.pad(x, k),
                      fe.pad(x, [(k, 0), (1, k)], 2.5), fe.arange(k), fe.arange(2, k),
                      fe.arange(k, 0, -2), fe.arange(k, dtype=f32)),
        (Tensor["n", 6, f32], Tensor[i64]),
        lambda x, k: (x.reshape(k, -1), x.reshape(-1, k), np.pad(x, k),
                      np.pad(x, [(k, 0), (1, k)], constant_values=2.5), np.arange(k),
                      np.arange(2, k), np.arange(k, 0, -2), np.arange(k, dtype=np.float32)),
        ({"n": 0, "k": 3}, {"n": 1, "k": 1}, {"n": 1, "k": 6}, {"n": 5, "k": 2},
         {"n": 4, "k": 4}),
        {1: scalar("k")},
    ),
    Case(
        "computed_sizes",
        lambda x, k: (x[:k + 1], fe.arange(k * 2), x[: x.shape[0] - k]),
        (Tensor["n", 2, f32], Tensor[i64]),
        lambda x, k: (x[:k + 1], np.arange(k * 2), x[: x.shape[0] - k]),
        ({"n": 0, "k": 1}, {"n": 1, "k": 0}, {"n": 5, "k": 2}, {"n": 4, "k": -1}),
        {1: scalar("k")},
    ),
    # -- constructors ----------------------------------------------------------------
    Case(
        "constructors",
        lambda x, k: (fe.zeros((x.shape[0], 3)), fe.ones(k, i32), fe.full((x.shape[0], 2), 7),
                      fe.full((2,), 2.5, f32), fe.zeros_like(x), fe.ones_like(x, i32),
                      fe.full_like(x, -1.5), fe.eye(x.shape[0]), fe.eye(3, k, 1, f32),
                      fe.arange(5), fe.arange(1.0, 2.0, 0.25), fe.arange(0, x.shape[0], 2),
                      x + fe.array(np.array([1.0, 2.0, 3.0], np.float32)),
                      x * np.array([[2.0, 0.5, 1.0]], np.float32), fe.full((k,), x[0, 0])),
        (Tensor["n", 3, f32], Tensor[i64]),
        lambda x, k: (np.zeros((x.shape[0], 3)), np.ones(k, np.int32), np.full((x.shape[0], 2), 7),
                      np.full((2,), 2.5, np.float32), np.zeros_like(x), np.ones_like(x, np.int32),
                      np.full_like(x, -1.5), np.eye(x.shape[0]), np.eye(3, k, 1, np.float32),
                      np.arange(5), np.arange(1.0, 2.0, 0.25), np.arange(0, x.shape[0], 2),
                      x + np.array([1.0, 2.0, 3.0], np.float32),
                      x * np.array([[2.0, 0.5, 1.0]], np.float32), np.full((k,), x[0, 0])),
        ({"n": 1, "k": 0}, {"n": 4, "k": 2}, {"n": 2, "k": 5}),
        {1: scalar("k")},
    ),
    # -- operators -------------------------------------------------------------------
    Case(
        "float_operators",
        lambda x, y: (x // y, x % y, -x % 2.0, abs(x), x // 2.5, 7.0 // y, 2.0 ** y, 1.0 / y,
                      x ** 2, +x, x != y, x == x, (x > 0.0) & (y < 0.5), ~(x > 0.0),
                      x.reshape(x.size), fe.full((len(y),), 1.5), x.T * x.ndim, x == 0.0),
        (Tensor["n", 4, f32], Tensor[4, f32]),
        lambda x, y: (x // y, x % y, -x % 2.0, abs(x), x // 2.5, 7.0 // y, 2.0 ** y, 1.0 / y,
                      x ** 2, +x, x != y, x == x, (x > 0.0) & (y < 0.5), ~(x > 0.0),
                      x.reshape(x.size), np.full((len(y),), 1.5), x.T * x.ndim, x == 0.0),
        AXES,
    ),
    Case(
        "integer_operators",
        lambda a, b: (a // b, a % b, a & b, a | b, a ^ b, ~a, abs(a), a / b, -a, a ** 2,
                      7 // b, 7 % b, a // 3, a * 2.5, a + True, fe.mod(a, 4), a == 3,
                      (a > 0) ^ (b > 0), 3 - a, 2 * a),
        (Tensor["n", 4, i32], Tensor[4, i32]),
        lambda a, b: (a // b, a % b, a & b, a | b, a ^ b, ~a, abs(a), a / b, -a, a ** 2,
                      7 // b, 7 % b, a // 3, a * 2.5, a + True, np.mod(a, 4), a == 3,
                      (a > 0) ^ (b > 0), 3 - a, 2 * a),
        AXES,
        {1: lambda b, rng: np.array([3, -2, 0, 1], np.int32)},
    ),
    Case(
        "booleans",
        lambda m, n: (m & n, m | n, m ^ n, ~m, m == n, m != n, fe.logical_and(m, n),
                      fe.logical_or(m, 1), fe.logical_xor(m, n), fe.logical_not(m), m + n, m * n,
                      m.sum(), fe.where(m, 1.0, 0.0)),
        (Tensor["n", 3, i1], Tensor[3, i1]),
        lambda m, n: (m & n, m | n, m ^ n, ~m, m == n, m != n, np.logical_and(m, n),
                      np.logical_or(m, 1), np.logical_xor(m, n), np.logical_not(m), m + n,
                      m * n, m.sum(), np.where(m, 1.0, 0.0)),
        AXES,
    ),
    Case(
        "promotion",
        lambda x, a, h: (x + a, a * 0.5, a + h, x * h, a / 2, x + 1, h - 1.5),
        (Tensor["n", 3, f32], Tensor["n", 3, i32], Tensor[3, f16]),
        lambda x, a, h: (x + a, a * 0.5, a + h, x * h, a / 2, x + 1, h - 1.5),
        AXES,
        tolerance=1e-3,
    ),
    Case(
        "numpy_on_traced_tensors",
        lambda x, y: (np.exp(x), np.sum(x, axis=1), np.mean(x, axis=-1, keepdims=True),
                      np.ones(4, np.float32) * x, np.concatenate([x, x]), np.where(x > 0, x, y),
                      np.maximum(x, 0), x / fe.sqrt(x.shape[-1]), np.float32(3) - x,
                      np.reshape(x, (-1,)), np.transpose(x), np.abs(x), np.matmul(x, y),
                      np.array([1, 2, 3, 4], np.float32) + x, x * x.shape[0], x.shape[0] - x,
                      x.transpose((1, 0)), x[None].swapaxes(-1, 0), np.swapaxes(x, 0, 1)),
        (Tensor["n", 4, f32], Tensor[4, f32]),
        lambda x, y: (np.exp(x), np.sum(x, axis=1), np.mean(x, axis=-1, keepdims=True),
                      np.ones(4, np.float32) * x, np.concatenate([x, x]), np.where(x > 0, x, y),
                      np.maximum(x, 0), x / np.sqrt(x.shape[-1]), np.float32(3) - x,
                      np.reshape(x, (-1,)), np.transpose(x), np.abs(x), np.matmul(x, y),
                      np.array([1, 2, 3, 4], np.float32) + x, x * x.shape[0], x.shape[0] - x,
                      x.transpose((1, 0)), x[None].swapaxes(-1, 0), np.swapaxes(x, 0, 1)),
        AXES,
    ),
    # -- indexing --------------------------------------------------------------------
    Case(
        "strided_slices",
        lambda x: (x[::2], x[1::3], x[::-1], x[5:1:-2], x[:, ::-1], x[..., None], x[None, :, 1:],
                   x[-1], x[:, -2], x[-3:-1, ::2], x[..., ::-3], x[:-1:-1]),
        (Tensor["n", 5, f32],),
        lambda x: (x[::2], x[1::3], x[::-1], x[5:1:-2], x[:, ::-1], x[..., None], x[None, :, 1:],
                   x[-1], x[:, -2], x[-3:-1, ::2], x[..., ::-3], x[:-1:-1]),
        ({"n": 1}, {"n": 4}, {"n": 7}),
    ),
    Case(
        "integer_arrays",
        lambda x, i, y: (x[i], x[[0, -1]], x[:, np.array([2, 0, 2])], x[i, 1], y[0, :, [1, 0]],
                         y[:, 0, [0]], x[i[::-1]]),
        (Tensor["n", 3, f32], Tensor["m", i64], Tensor[2, "n", 3, f32]),
        lambda x, i, y: (x[i], x[[0, -1]], x[:, np.array([2, 0, 2])], x[i, 1], y[0, :, [1, 0]],
                         y[:, 0, [0]], x[i[::-1]]),
        ({"n": 1, "m": 0}, {"n": 2, "m": 1}, {"n": 5, "m": 7}),
        {1: ids("m", "n")},
    ),
    Case(
        "masks",
        lambda x, m, z: (x[x > 0.0], x[m], z[z > 0.5], x[x > 100.0], z[m]),
        (Tensor["n", f32], Tensor["n", i1], Tensor["n", 3, f32]),
        lambda x, m, z: (x[x > 0.0], x[m], z[z > 0.5], x[x > 100.0], z[m]),
        AXES,
    ),
    # -- shape ops -------------------------------------------------------------------
    Case(
        "stack_split",
        lambda x, y, k: (fe.stack([x, y], 1), fe.stack([x, y, x]), *fe.split(x, 2, axis=1),
                         *fe.split(x, [1, 3]), *fe.split(y, [k], axis=0)),
        (Tensor["n", 4, f32], Tensor["n", 4, f32], Tensor[i64]),
        lambda x, y, k: (np.stack([x, y], 1), np.stack([x, y, x]), *np.split(x, 2, axis=1),
                         *np.split(x, [1, 3]), *np.split(y, [k], axis=0)),
        ({"n": 0, "k": 1}, {"n": 1, "k": 0}, {"n": 5, "k": 2}, {"n": 4, "k": -1}),
        {2: scalar("k")},
    ),
    Case(
        "split_symbolic_sections",
        lambda x: tuple(fe.split(x, 2)),
        (Tensor["n", 3, f32],),
        lambda x: tuple(np.split(x, 2)),
        ({"n": 0}, {"n": 2}, {"n": 6}),
    ),
    Case(
        "tile_repeat_flip_roll",
        lambda x, k: (fe.tile(x, 2), fe.tile(x, (2, 1)), fe.tile(x, (2, 1, 1)), fe.repeat(x, 3),
                      fe.repeat(x, 2, axis=0), fe.flip(x), fe.flip(x, 1), fe.roll(x, 2),
                      fe.roll(x, -1, axis=0), fe.roll(x, k, axis=1), fe.roll(x, (1, 2), (0, 1))),
        (Tensor["n", 3, f32], Tensor[i64]),
        lambda x, k: (np.tile(x, 2), np.tile(x, (2, 1)), np.tile(x, (2, 1, 1)), np.repeat(x, 3),
                      np.repeat(x, 2, axis=0), np.flip(x), np.flip(x, 1), np.roll(x, 2),
                      np.roll(x, -1, axis=0), np.roll(x, k, axis=1), np.roll(x, (1, 2), (0, 1))),
        ({"n": 0, "k": 1}, {"n": 1, "k": -4}, {"n": 5, "k": 7}),
        {1: scalar("k")},
    ),
    # -- reductions, scans, sorting ----------------------------------------------------
    Case(
        "reductions",
        lambda x, a: (x.prod(axis=1), fe.prod(a), (x > 0.0).all(axis=1), fe.any(x > 1.0),
                      x.var(axis=1), x.std(axis=1, ddof=1), fe.var(a), a.sum(), a.mean(),
                      fe.logsumexp(x, axis=1), x.cumsum(axis=0), fe.cumprod(x, axis=1),
                      a.cumsum(), fe.max(a), x.min(axis=1, keepdims=True)),
        (Tensor["n", 3, f32], Tensor["n", i16]),
        lambda x, a: (x.prod(axis=1), np.prod(a), (x > 0).all(axis=1), np.any(x > 1),
                      x.var(axis=1), x.std(axis=1, ddof=1), np.var(a), a.sum(), a.mean(),
                      _logsumexp(x, 1), x.cumsum(axis=0), np.cumprod(x, axis=1), a.cumsum(),
                      np.max(a) if a.size else np.int16(np.iinfo(np.int16).min),
                      x.min(axis=1, keepdims=True)),
        AXES,
        tolerance=1e-4,
    ),
    Case(
        "arg_reductions",
        lambda x: (x.argmax(axis=1), x.argmin(axis=0), fe.argmax(x),
                   x.argmax(axis=1, keepdims=True)),
        (Tensor["n", 3, f32],),
        lambda x: (x.argmax(axis=1), x.argmin(axis=0), np.argmax(x),
                   x.argmax(axis=1, keepdims=True)),
        ({"n": 1}, {"n": 6}),
    ),
    Case(
        "sorting",
        lambda x, v: (fe.sort(x), fe.sort(x, axis=0), x.argsort(), fe.argsort(x, axis=0),
                      *fe.topk(x, 2), fe.sort(v), fe.sort(x, axis=None)),
        (Tensor["n", 4, f32], Tensor[5, f32]),
        lambda x, v: (np.sort(x), np.sort(x, axis=0), x.argsort(kind="stable"),
                      np.argsort(x, axis=0, kind="stable"), *_topk(x, 2), np.sort(v),
                      np.sort(x, axis=None)),
        AXES,
        {1: lambda b, rng: np.array([2.0, np.nan, -1.0, 2.0, 0.5], np.float32)},
    ),
    # -- elementwise functions, nn ---------------------------------------------------
    Case(
        "functions",
        lambda x, c: (fe.clip(x, -0.5, 0.5), x.clip(0.0), fe.erf(x), fe.gelu(x, approximate=False),
                      fe.sin(x), fe.cos(x), fe.rsqrt(abs(x) + 1.0), fe.floor(x * 3), fe.ceil(x * 3),
                      fe.round(x * 3), fe.sign(x), fe.isnan(x / x), fe.isinf(1.0 / (x - x)),
                      fe.log_softmax(x, axis=1), fe.one_hot(c, 4), fe.one_hot(c, x.shape[0], i32),
                      x.round(1), fe.sqrt(c), fe.exp(c)),
        (Tensor["n", 3, f32], Tensor["m", i64]),
        lambda x, c: (np.clip(x, -0.5, 0.5), x.clip(0.0), _erf(x),
                      0.5 * x * (1 + _erf(x / np.sqrt(np.float32(2)))), np.sin(x), np.cos(x),
                      1 / np.sqrt(np.abs(x) + 1), np.floor(x * 3), np.ceil(x * 3),
                      np.round(x * 3), np.sign(x), np.isnan(x / x), np.isinf(1.0 / (x - x)),
                      x - _logsumexp(x, 1)[:, None],
                      (c[:, None] == np.arange(4)).astype(np.float32),
                      (c[:, None] == np.arange(x.shape[0])).astype(np.int32), x.round(1),
                      np.sqrt(c), np.exp(c)),
        ({"n": 0, "m": 2}, {"n": 1, "m": 0}, {"n": 5, "m": 4}),
        {1: lambda b, rng: rng.integers(-1, 6, b["m"]).astype(np.int64)},
        tolerance=1e-5,
    ),
    Case(
        "einsum_and_vectors",
        lambda a, b, v, w, t: (fe.einsum("ij,jk->ik", a, b), fe.einsum("ij->ji", a),
                               fe.einsum("ij->", a), fe.einsum("i,j->ij", v, w),
                               fe.einsum("i,i", w, w), fe.einsum("...ij,...jk->...ik", t, b),
                               fe.einsum("bij->bj", t), v @ a, a @ w, w @ w, fe.matmul(t, w)),
        (Tensor["n", 3, f32], Tensor[3, 2, f32], Tensor["n", f32], Tensor[3, f32],
         Tensor[2, "n", 3, f32]),
        lambda a, b, v, w, t: (np.einsum("ij,jk->ik", a, b), np.einsum("ij->ji", a),
                               np.einsum("ij->", a), np.einsum("i,j->ij", v, w),
                               np.einsum("i,i", w, w), np.einsum("...ij,...jk->...ik", t, b),
                               np.einsum("bij->bj", t), v @ a, a @ w, w @ w, np.matmul(t, w)),
        AXES,
        tolerance=1e-4,
    ),
]


def _bf16(value: np.ndarray) -> np.ndarray:
    return np.asarray(value, np.float32).astype(ml_dtypes.bfloat16)


DTYPE_CASES = [
    Case(
        "dtype_f16",
        lambda x, y: (x + y, x * 2, x.sum(axis=1), x.max(), x.astype(f32), x > y,
                      fe.where(x > 0, x, y), fe.exp(x), x @ y),
        (Tensor["n", 3, f16], Tensor[3, f16]),
        lambda x, y: (x + y, x * 2, x.sum(axis=1), x.max() if x.size else np.float16(-np.inf),
                      x.astype(np.float32), x > y, np.where(x > 0, x, y), np.exp(x), x @ y),
        AXES,
        tolerance=1e-2,
    ),
    Case(
        "dtype_bf16",
        lambda x, y: (x + y, x * 2.0, x.sum(axis=1), x.astype(f32), x > y, fe.relu(x), x @ y,
                      fe.astype(y, bf16)),
        (Tensor["n", 3, bf16], Tensor[3, f32]),
        lambda x, y: (x.astype(np.float32) + y,
                      _bf16(x.astype(np.float32) * 2), _bf16(x.astype(np.float32).sum(axis=1)),
                      x.astype(np.float32), x.astype(np.float32) > y,
                      _bf16(np.maximum(x.astype(np.float32), 0)),
                      x.astype(np.float32) @ y, _bf16(y)),
        AXES,
        tolerance=2e-2,
    ),
    Case(
        "dtype_i8",
        lambda a, b: (a + b, a * 2, a // b, a.sum(), a.max(axis=1), a.astype(f32), a < b, -a,
                      abs(a), a & b),
        (Tensor["n", 3, i8], Tensor[3, i8]),
        lambda a, b: (a + b, a * 2, a // b, a.sum(), a.max(axis=1), a.astype(np.float32), a < b,
                      -a, abs(a), a & b),
        AXES,
        {1: lambda b, rng: np.array([100, -7, 0], np.int8)},
    ),
    Case(
        "dtype_u8",
        lambda a, b: (a + b, a - b, a // b, a % b, a > b, a.max(axis=1), a.min(axis=1), a.sum(),
                      a.astype(f32), a.astype(i32), fe.maximum(a, b), a * 3, ~a, a.cumsum(),
                      a.argmax(axis=1), fe.sort(a)),
        (Tensor["n", 3, u8], Tensor[3, u8]),
        # A 0-d unsigned result comes back signed and wider (IREE 3.13 compiles no 0-d
        # unsigned result): the u64 sum is an int64.
        lambda a, b: (a + b, a - b, a // b, a % b, a > b, a.max(axis=1), a.min(axis=1),
                      np.int64(a.sum()), a.astype(np.float32), a.astype(np.int32),
                      np.maximum(a, b), a * 3, ~a,
                      a.cumsum(), a.argmax(axis=1), np.sort(a)),
        ({"n": 1}, {"n": 4}),
        {1: lambda b, rng: np.array([200, 7, 0], np.uint8)},
    ),
    Case(
        "dtype_i16_bool",
        lambda a, m: (a + a, a.astype(i1), m.astype(i16), a[m], fe.where(m, a, -a), a.mean(),
                      m.astype(f32) * 1.5, m.any(axis=1)),
        (Tensor["n", 3, i16], Tensor["n", 3, i1]),
        lambda a, m: (a + a, a.astype(bool), m.astype(np.int16), a[m], np.where(m, a, -a),
                      a.mean() if a.size else np.float64(np.nan), m.astype(np.float32) * 1.5,
                      m.any(axis=1)),
        AXES,
    ),
]

ALL = CASES + DTYPE_CASES


def _inputs(case: Case, function: TracedFunction, binding: Binding,
            rng: np.random.Generator) -> list[np.ndarray]:
    """Inputs of the case's declared types at ``binding``."""
    arrays: list[np.ndarray] = []
    for position, (spec, shape) in enumerate(zip(case.specs, function.input_shapes,
                                                 strict=True)):
        if position in case.values:
            arrays.append(case.values[position](binding, rng))
            continue
        dims = shape.evaluate(binding)
        dtype = spec.dtype
        if dtype.is_bool:
            data = rng.integers(0, 2, dims).astype(bool)
        elif dtype.is_float:
            data = rng.standard_normal(dims).astype(np.float32)
            data = np.abs(data) + 0.1 if case.positive else data
        elif dtype.is_unsigned:
            data = rng.integers(0, 256, dims)
        else:
            low, high = dtype.int_range
            data = rng.integers(max(low, -9), min(high, 9), dims)
        arrays.append(np.asarray(data).astype(dtype.numpy))
    return arrays


@pytest.fixture(scope="module")
def traced() -> dict[str, TracedFunction]:
    """Every case traced."""
    return trace_cases(ALL)


@pytest.fixture(scope="module")
def entries(
    traced: dict[str, TracedFunction], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, runtime.EntryPoint]:
    """Every case compiled for llvm-cpu, in as few modules as is safe."""
    return compile_functions(list(traced.values()), tmp_path_factory.mktemp("vocabulary"))


def test_round_trip(traced: dict[str, TracedFunction]) -> None:
    """Every case passes infer/verify/check-guarantees; inference reproduces its shapes
    (run-time integers matched to the same inputs' symbols)."""
    check_round_trip(list(traced.values()))


def _compare(got: np.ndarray, expected: Any, case: Case, what: str) -> None:
    expected = np.asarray(expected)
    assert got.shape == expected.shape, what
    assert got.dtype == expected.dtype, f"{what}: {got.dtype} vs numpy's {expected.dtype}"
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, expected, err_msg=what)
    else:
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64),
                                   rtol=case.tolerance, atol=case.tolerance, equal_nan=True,
                                   err_msg=what)


@pytest.mark.parametrize("case", ALL, ids=[c.name for c in ALL])
def test_matches_numpy(
    case: Case, traced: dict[str, TracedFunction], entries: dict[str, runtime.EntryPoint]
) -> None:
    """The compiled case equals numpy at each binding: shapes, element types, values."""
    rng = np.random.default_rng(0)
    entry = entries[case.name]
    for binding in case.bindings:
        inputs = _inputs(case, traced[case.name], binding, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            # Run-time integers as numpy reads sizes: Python ints.
            scalars = [a.item() if a.ndim == 0 else a for a in inputs]
            expected = as_results(case.reference(*scalars))
        got = as_results(entry(*inputs))
        assert len(got) == len(expected)
        for index, (g, e) in enumerate(zip(got, expected, strict=True)):
            _compare(g, e, case, f"{case.name} at {dict(binding)} result {index}")
