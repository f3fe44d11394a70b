"""End to end: symbolic programs through ``symshape-opt --symshape-to-iree``, IREE and numpy.

Each program in ``test/e2e/`` is resolved once by the ``symshape-opt``
console script (a subprocess, as a user runs it), compiled once per target,
and run at three or more bindings of its named axes (one of them with a
zero-size axis) on every driver: ``local-task`` and ``local-sync`` always,
``vulkan`` on lavapipe (which ``scripts/test.sh`` installs with
``scripts/install_lavapipe.sh``; skipped with the reason where it is missing),
``cuda`` where a CUDA device
is present. Results are compared with numpy.

The program table and the session caches here (:func:`resolved`,
:func:`compiled`, :func:`loaded`) are shared by the other ``test_e2e_*``
modules.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from symshape_mlir import backend
from symshape_mlir.backend import CompiledModule, LoadedModule

from driver_support import DRIVER_TARGETS

ROOT = Path(__file__).resolve().parents[2]
E2E_DIR = ROOT / "test" / "e2e"

TO_IREE = ("--symshape-to-iree",)
# The expansion of `symshape-to-iree` with the contract deferred to runtime
# checks, for programs whose shapes are only consistent at run time (a
# broadcast of 1-or-n rows, an ONNX-style `-1` reshape). `symshape-to-iree`
# itself has no option for it.
TO_IREE_DEFERRED = (
    "--symshape-infer-shapes",
    "--symshape-verify-contract=mode=defer",
    "--symshape-resolve=target=iree",
    "--canonicalize",
    "--cse",
)

Arrays = tuple[np.ndarray, ...]
Binding = Mapping[str, int]


@dataclasses.dataclass(frozen=True)
class Program:
    """One function of a ``test/e2e`` file, its inputs per binding and its numpy reference.

    Attributes:
        file: The file name in ``test/e2e``.
        function: The exported function.
        bindings: Values of the named axes (and of scalar inputs) per run;
            at least three, one with a zero-size axis.
        inputs: Builds the arguments for a binding.
        reference: Computes the expected results from the arguments.
        tolerance: ``rtol`` and ``atol`` of the comparison.
        scalars: The binding entries that are scalar inputs, not named axes.
        passes: The ``symshape-opt`` pass flags that resolve the file.
        data_tiling: ``--iree-opt-data-tiling`` for llvm-cpu (None: the
            backend's default).
        unbindable: Bindings whose call makes an empty tensor (a result, or
            one inside the call) that a dispatch binds, which Vulkan cannot
            (``dispatch binding ... resolved to an empty buffer range``):
            strict xfails on vulkan at this level, where
            `symshape_mlir.runtime` runs the call on the host
            (test_runtime_drivers.py).
        cuda_unrunnable: Bindings that IREE 3.13's CUDA driver fails
            (``CUDA_ERROR_INVALID_VALUE``: an empty tensor bound to a
            dispatch). A failed call leaves the CUDA device unusable for the
            rest of the process, so these are xfails that do not run there;
            ``test/gpu/bundle.py`` runs them in processes of their own.
    """

    file: str
    function: str
    bindings: tuple[Binding, ...]
    inputs: Callable[[np.random.Generator, Binding], Arrays]
    reference: Callable[..., Arrays]
    tolerance: float = 1e-5
    scalars: tuple[str, ...] = ()
    passes: tuple[str, ...] = TO_IREE
    data_tiling: bool | None = None
    unbindable: tuple[Binding, ...] = ()
    cuda_unrunnable: tuple[Binding, ...] = ()

    def axes(self, binding: Binding) -> dict[str, int]:
        """The named-axis entries of a binding (scalar inputs left out)."""
        return {k: v for k, v in binding.items() if k not in self.scalars}

    @property
    def path(self) -> Path:
        """The program's source file."""
        return E2E_DIR / self.file


def _normal(rng: np.random.Generator, shape: Sequence[int], scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(tuple(shape), dtype=np.float32) * np.float32(scale)).astype(
        np.float32
    )


def _mlp_inputs(rng: np.random.Generator, b: Binding) -> Arrays:
    return (
        _normal(rng, (b["batch"], 256)),
        _normal(rng, (256, 512), 0.06),
        _normal(rng, (512,)),
        _normal(rng, (512, 128), 0.04),
    )


def _mlp_reference(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray) -> Arrays:
    return ((np.maximum(x @ w1 + b1, 0) @ w2).reshape(-1),)


def _attention_inputs(rng: np.random.Generator, b: Binding) -> Arrays:
    return (
        _normal(rng, (b["batch"], b["seq"], 64)),
        _normal(rng, (64, 64), 0.125),
        _normal(rng, (64, 64), 0.125),
        _normal(rng, (64, 64), 0.125),
    )


def _attention_reference(x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray) -> Arrays:
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ np.swapaxes(k, 1, 2) / np.float32(8)
    if scores.size:
        scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    probs = e / e.sum(axis=-1, keepdims=True) if e.size else e
    return ((probs @ v).astype(np.float32),)


def _attention_onnx_inputs(rng: np.random.Generator, b: Binding) -> Arrays:
    return (
        _normal(rng, (b["batch"], b["seq"], 64)),
        *(_normal(rng, (64, 64), 0.125) for _ in range(4)),
    )


def _attention_onnx_reference(x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray,
                              wo: np.ndarray) -> Arrays:
    batch, seq, _ = x.shape

    def heads(t: np.ndarray) -> np.ndarray:
        return t.reshape(batch, seq, 4, 16).transpose(0, 2, 1, 3)

    q, k, v = heads(x @ wq), heads(x @ wk), heads(x @ wv)
    scores = q @ np.swapaxes(k, -1, -2)
    scores = (scores - scores.max(axis=-1, keepdims=True)) * np.float32(0.25)
    e = np.exp(scores)
    context = (e / e.sum(axis=-1, keepdims=True)) @ v
    merged = context.transpose(0, 2, 1, 3).reshape(batch, seq, 64)
    return ((merged @ wo + x).astype(np.float32),)


def _truncate_inputs(rng: np.random.Generator, b: Binding) -> Arrays:
    return _normal(rng, (b["batch"], 8)), np.array(b["n"], np.int64)


def _truncate_reference(x: np.ndarray, n: np.ndarray) -> Arrays:
    return ((2 * x[: max(int(n), 0)]).reshape(-1),)


def _rows_and_count(rng: np.random.Generator, b: Binding) -> Arrays:
    return _normal(rng, (b["batch"], 4)), np.array(b["k"], np.int64)


def _insert_truncated_rows(x: np.ndarray, k: np.ndarray) -> Arrays:
    out = np.zeros_like(x)
    kept = max(min(int(k), x.shape[0]), 0)
    out[:kept] = x[:kept]
    return (out,)


def _trips(k: np.ndarray) -> int:
    """The trips of ``scf.for %i = 0 to k``: none when ``k`` is negative."""
    return max(int(k), 0)


def _gather_inputs(rng: np.random.Generator, b: Binding) -> Arrays:
    table = _normal(rng, (b["vocab"], b["width"]))
    # Some ids fall outside [0, vocab): the gather clamps them.
    ids = rng.integers(-2, b["vocab"] + 2, size=(b["n"], 1), dtype=np.int64)
    return table, ids


def _gather_reference(table: np.ndarray, ids: np.ndarray) -> Arrays:
    return (table[np.clip(ids[:, 0], 0, table.shape[0] - 1)],)


PROGRAMS: dict[str, Program] = {
    "mlp": Program(
        "mlp.mlir",
        "mlp",
        ({"batch": 0}, {"batch": 1}, {"batch": 37}),
        _mlp_inputs,
        _mlp_reference,
        1e-4,
    ),
    "attention": Program(
        "attention.mlir",
        "attention",
        (
            {"batch": 0, "seq": 5},
            {"batch": 2, "seq": 0},
            {"batch": 1, "seq": 1},
            {"batch": 3, "seq": 17},
        ),
        _attention_inputs,
        _attention_reference,
        1e-4,
        # IREE 3.13 fails to compile it with data tiling (see attention.mlir).
        data_tiling=False,
    ),
    "truncate": Program(
        "truncate.mlir",
        "truncate",
        (
            {"batch": 0, "n": 3},
            {"batch": 5, "n": 3},
            {"batch": 4, "n": 10},
            {"batch": 6, "n": -2},
        ),
        _truncate_inputs,
        _truncate_reference,
        scalars=("n",),
    ),
    "truncate_bound": Program(
        "truncate.mlir",
        "truncate_bound",
        ({"batch": 0, "n": 3}, {"batch": 5, "n": 3}, {"batch": 4, "n": 10}, {"batch": 6, "n": -2}),
        _truncate_inputs,
        lambda x, n: (x[: max(int(n), 0)],),
        scalars=("n",),
    ),
    "insert_truncated_rows": Program(
        "data_dependent.mlir",
        "insert_truncated_rows",
        ({"batch": 0, "k": 2}, {"batch": 5, "k": 3}, {"batch": 4, "k": 9}, {"batch": 3, "k": -1}),
        _rows_and_count,
        _insert_truncated_rows,
        scalars=("k",),
        # Nothing kept: the insertion of an empty slice binds it.
        unbindable=({"batch": 3, "k": -1},),
        cuda_unrunnable=({"batch": 3, "k": -1},),
    ),
    "chosen_rows": Program(
        "data_dependent.mlir",
        "chosen_rows",
        ({"batch": 0, "k": 0}, {"batch": 5, "k": 3}, {"batch": 4, "k": 0}, {"batch": 1, "k": 2}),
        _rows_and_count,
        lambda x, k: (x[: 1 if int(k) > 0 else x.shape[0]].reshape(-1),),
        scalars=("k",),
    ),
    "flatten_rows": Program(
        "reshape_data.mlir",
        "flatten_rows",
        ({"batch": 0}, {"batch": 1}, {"batch": 9}),
        lambda rng, b: (_normal(rng, (b["batch"], 6, 4)),),
        lambda x: ((x.reshape(x.shape[0], 24) * 3),),
    ),
    "split_rows": Program(
        "reshape_data.mlir",
        "split_rows",
        ({"batch": 0}, {"batch": 1}, {"batch": 9}),
        lambda rng, b: (_normal(rng, (b["batch"], 24)),),
        lambda y: (y.reshape(y.shape[0] * 6, 4),),
    ),
    **{
        name: Program(
            "reshape_zero.mlir",
            name,
            ({"rows": 3, "cols": 3}, {"rows": 0, "cols": 4}, {"rows": 0, "cols": 0}),
            lambda rng, b: (_normal(rng, (b["rows"], b["cols"])),),
            lambda x: (x.reshape(x.shape[0], x.shape[0]),),
        )
        for name in ("square", "square_upstream")
    },
    "broadcast": Program(
        "broadcast.mlir",
        "broadcast",
        ({"batch": 0}, {"batch": 1}, {"batch": 7}),
        lambda rng, b: (_normal(rng, (b["batch"], 8)), _normal(rng, (8,)), _normal(rng, (1, 8))),
        lambda x, bias, row: (x + bias + row,),
    ),
    "broadcast_rows": Program(
        "broadcast_rows.mlir",
        "broadcast_rows",
        (
            {"batch": 0, "rows": 1},
            {"batch": 0, "rows": 0},
            {"batch": 1, "rows": 1},
            {"batch": 7, "rows": 1},
            {"batch": 7, "rows": 7},
        ),
        lambda rng, b: (_normal(rng, (b["batch"], 8)), _normal(rng, (b["rows"], 8))),
        lambda x, rows: (x + rows,),
        scalars=("rows",),
        passes=TO_IREE_DEFERRED,
    ),
    "gather": Program(
        "gather.mlir",
        "gather",
        (
            {"vocab": 5, "width": 3, "n": 0},
            {"vocab": 4, "width": 0, "n": 3},
            {"vocab": 7, "width": 4, "n": 1},
            {"vocab": 10, "width": 6, "n": 9},
        ),
        _gather_inputs,
        _gather_reference,
    ),
    "gather_from_offset": Program(
        "gather.mlir",
        "gather_from_offset",
        (
            {"vocab": 6, "width": 2, "n": 4, "k": 1},
            {"vocab": 4, "width": 1, "n": 3, "k": 3},
            {"vocab": 5, "width": 3, "n": 0, "k": 0},
        ),
        lambda rng, b: (*_gather_inputs(rng, b), np.array(b["k"], np.int64)),
        lambda table, ids, k: _gather_reference(table[int(k) :, :1], ids),
        scalars=("k",),
    ),
    "gather_from_column": Program(
        "gather.mlir",
        "gather_from_column",
        (
            {"vocab": 10, "width": 3, "n": 5, "k": 3},
            {"vocab": 4, "width": 1, "n": 3, "k": 4},
            {"vocab": 5, "width": 2, "n": 0, "k": 1},
        ),
        lambda rng, b: (*_gather_inputs(rng, b), np.array(b["k"], np.int64)),
        lambda table, ids, k: _gather_reference(table[: int(k), :1], ids),
        scalars=("k",),
    ),
    "split_by": Program(
        "zero_divisor.mlir",
        "split_by",
        ({"batch": 0, "k": 3}, {"batch": 1, "k": 1}, {"batch": 5, "k": 4}, {"batch": 2, "k": 13}),
        lambda rng, b: (_normal(rng, (b["batch"], 12)), np.array(b["k"], np.int64)),
        lambda x, k: (x[:, : 12 // int(k)],),
        scalars=("k",),
    ),
    "onnx_minus_one": Program(
        "onnx_reshape.mlir",
        "onnx_minus_one",
        ({"batch": 1, "width": 0}, {"batch": 1, "width": 32}, {"batch": 3, "width": 96}),
        lambda rng, b: (_normal(rng, (b["batch"], b["width"])),),
        lambda x: (x.reshape(x.shape[0], -1, 4, 8),),
    ),
    # Every `-1` is a division by a symbolic product: batch 0 and seq 0 divide
    # by zero and fail (test_e2e_zero_divisor.py).
    "attention_onnx": Program(
        "transformer_onnx.mlir",
        "attention_onnx",
        ({"batch": 1, "seq": 1}, {"batch": 2, "seq": 5}, {"batch": 3, "seq": 8}),
        _attention_onnx_inputs,
        _attention_onnx_reference,
        1e-4,
        data_tiling=False,
    ),
    # IREE 3.13 miscompiles these in plain upstream form (choices.mlir).
    **{
        name: Program(
            "choices.mlir",
            name,
            (
                {"n": 2, "m": 4, "k": 1},
                {"n": 2, "m": 4, "k": 0},
                {"n": 0, "m": 3, "k": 0},
                {"n": 5, "m": 0, "k": 1},
            ),
            lambda rng, b: (
                _normal(rng, (b["n"],)),
                _normal(rng, (b["m"],)),
                np.array(b["k"], np.int64),
            ),
            lambda x, y, k: (x if k > 0 else y,),
            scalars=("k",),
        )
        for name in ("choose", "branch")
    },
    "loop_from_slice": Program(
        "choices.mlir",
        "loop_from_slice",
        (
            {"rows": 2, "cols": 5, "k": 0},
            {"rows": 2, "cols": 5, "k": 1},
            {"rows": 3, "cols": 8, "k": 3},
            {"rows": 0, "cols": 4, "k": 2},
        ),
        lambda rng, b: (_normal(rng, (b["rows"], b["cols"])), np.array(b["k"], np.int64)),
        lambda y, k: (y, (_trips(k) + 1) * y[:, : y.shape[1] // 2]),
        scalars=("k",),
    ),
    "insert_beside_loop": Program(
        "choices.mlir",
        "insert_beside_loop",
        (
            {"rows": 2, "cols": 4, "k": 0},
            {"rows": 2, "cols": 4, "k": 2},
            {"rows": 0, "cols": 3, "k": 1},
        ),
        lambda rng, b: (_normal(rng, (b["rows"], b["cols"])), np.array(b["k"], np.int64)),
        lambda x, k: (np.ones_like(x), (_trips(k) + 1) * np.ones_like(x)),
        scalars=("k",),
    ),
    "inserts_into_one_copy": Program(
        "choices.mlir",
        "inserts_into_one_copy",
        (
            {"h": 3, "w": 4, "k": 0},
            {"h": 2, "w": 3, "k": 2},
            {"h": 1, "w": 0, "k": 1},
        ),
        lambda rng, b: (
            _normal(rng, (b["h"], b["w"])),
            _normal(rng, (1, b["w"])),
            _normal(rng, (1, b["w"])),
            np.array(b["k"], np.int64),
        ),
        lambda y, a, b, k: (
            np.concatenate([a, y[1:]]),
            np.concatenate([y[:-1], b]),
            (_trips(k) + 1) * y,
        ),
        scalars=("k",),
    ),
    "sums_beside_their_operand": Program(
        "choices.mlir",
        "sums_beside_their_operand",
        ({"n": 5}, {"n": 1}, {"n": 0}),
        lambda rng, b: (_normal(rng, (b["n"],)),),
        lambda v: (2 * v, v + 2 * v, v + 2 * v),
    ),
    "loop_over_offset_slice": Program(
        "choices.mlir",
        "loop_over_offset_slice",
        (
            {"rows": 6, "at": 0, "k": 1},
            {"rows": 6, "at": 2, "k": 2},
            {"rows": 5, "at": 0, "k": 0},
            {"rows": 0, "at": 0, "k": 1},
        ),
        lambda rng, b: (
            _normal(rng, (b["rows"], 2)),
            np.array(b["at"], np.int64),
            np.array(b["k"], np.int64),
        ),
        lambda y, at, k: ((_trips(k) + 1) * y[int(at) : int(at) + y.shape[0] // 2],),
        scalars=("at", "k"),
    ),
    "choose_into_matmul": Program(
        "choices.mlir",
        "choose_into_matmul",
        (
            {"n": 2, "m": 3, "k": 1},
            {"n": 2, "m": 3, "k": 0},
            {"n": 4, "m": 0, "k": 1},
            {"n": 0, "m": 2, "k": 0},
        ),
        lambda rng, b: (
            _normal(rng, (b["n"], b["m"])),
            _normal(rng, (b["m"], b["m"])),
            np.array(b["k"], np.int64),
        ),
        lambda x, y, k: ((x if k > 0 else 2 * y) @ (2 * y),),
        1e-4,
        scalars=("k",),
    ),
    "view_into_matmul": Program(
        "choices.mlir",
        "view_into_matmul",
        (
            {"m": 3, "k": 1},
            {"m": 3, "k": 0},
            {"m": 0, "k": 1},
            {"m": 1, "k": 0},
        ),
        lambda rng, b: (
            _normal(rng, (b["m"] * b["m"],)),
            _normal(rng, (b["m"], b["m"])),
            np.array(b["k"], np.int64),
        ),
        lambda v, y, k: ((v.reshape(y.shape) if k > 0 else 2 * y) @ (2 * y),),
        1e-4,
        scalars=("k",),
    ),
    "returned_choice_read_again": Program(
        "choices.mlir",
        "returned_choice_read_again",
        (
            {"a": 5, "b": 3, "t": -2, "k": 6},
            {"a": 5, "b": 3, "t": 2, "k": 6},
            {"a": 5, "b": 3, "t": 9, "k": 0},
            {"a": 4, "b": 2, "t": 0, "k": 1},
            {"a": 0, "b": 3, "t": 1, "k": 3},
        ),
        lambda rng, b: (
            _normal(rng, (b["a"], b["b"])),
            np.array(b["t"], np.int32),
            np.array(b["k"], np.int64),
        ),
        lambda x, t, k: (
            x[: max(int(t), 0)],
            x if k > 2 else x[: max(int(t), 0)],
            x if k > 2 else x[: max(int(t), 0)],
        ),
        scalars=("t", "k"),
        unbindable=({"a": 5, "b": 3, "t": -2, "k": 6},),
        cuda_unrunnable=({"a": 5, "b": 3, "t": -2, "k": 6},),
    ),
    "flat_and_head_of_a_choice": Program(
        "reshaped_choices.mlir",
        "flat_and_head_of_a_choice",
        (
            {"fa": 2, "fb": 3, "ga": 4, "gb": 2, "fn": 6, "k": 3},
            {"fa": 2, "fb": 3, "ga": 4, "gb": 2, "fn": 8, "k": 1},
            {"fa": 3, "fb": 1, "ga": 1, "gb": 5, "fn": 3, "k": 7},
            {"fa": 0, "fb": 3, "ga": 0, "gb": 5, "fn": 0, "k": 0},
        ),
        lambda rng, b: (
            _normal(rng, (b["fa"], b["fb"])),
            _normal(rng, (b["ga"], b["gb"])),
            _normal(rng, (b["fn"],)),
            np.array(b["k"], np.int64),
        ),
        lambda x, y, v, k: (
            (x if int(k) > 2 else y).reshape(-1),
            (x if int(k) > 2 else y)[: max(int(k), 0)],
        ),
        scalars=("k",),
        passes=TO_IREE_DEFERRED,
    ),
    "flat_and_double_of_a_cast": Program(
        "reshaped_choices.mlir",
        "flat_and_double_of_a_cast",
        ({"ra": 2, "rb": 3, "rn": 6}, {"ra": 2, "rb": 1, "rn": 2}, {"ra": 2, "rb": 0, "rn": 0}),
        lambda rng, b: (_normal(rng, (b["ra"], b["rb"])), _normal(rng, (b["rn"],))),
        lambda y, v: (y.reshape(-1), 2 * y),
        passes=TO_IREE_DEFERRED,
    ),
    "reshaped_loop_result": Program(
        "choices.mlir",
        "reshaped_loop_result",
        ({"p": 1, "q": 1, "k": 0}, {"p": 1, "q": 1, "k": 3}),
        lambda rng, b: (
            _normal(rng, (b["p"], b["q"])),
            _normal(rng, (b["q"],)),
            np.array(b["k"], np.int64),
        ),
        lambda y, v, k: ((_trips(k) + 1) * y.reshape(-1), (_trips(k) + 1) * y.T),
        1e-5,
        scalars=("k",),
    ),
    "choices_on_one_condition": Program(
        "choices.mlir",
        "choices_on_one_condition",
        ({"r": 1, "c": 3, "k": 2}, {"r": 1, "c": 3, "k": 0}, {"r": 0, "c": 2, "k": 0}),
        lambda rng, b: (
            _normal(rng, (b["r"], b["c"])),
            _normal(rng, (b["r"], b["c"])),
            np.array(b["k"], np.int64),
        ),
        lambda x, y, k: (y, y if k > 0 else x),
        scalars=("k",),
    ),
    "ones_around_a_loop": Program(
        "choices.mlir",
        "ones_around_a_loop",
        (
            {"rows": 2, "cols": 3, "k": 0},
            {"rows": 4, "cols": 2, "k": 2},
            {"rows": 1, "cols": 4, "k": 3},
            {"rows": 0, "cols": 5, "k": 1},
        ),
        lambda rng, b: (_normal(rng, (b["rows"], b["cols"])), np.array(b["k"], np.int64)),
        lambda x, k: (np.full((x.size // 2, 2), _trips(k) + 3, np.float32),),
        scalars=("k",),
    ),
    # Reductions over an axis of extent 0 (empty_reductions.mlir).
    "matmul_over_no_columns": Program(
        "empty_reductions.mlir",
        "matmul_over_no_columns",
        ({"r": 3, "m": 4}, {"r": 1, "m": 2}, {"r": 0, "m": 3}),
        lambda rng, b: (_normal(rng, (b["r"], 0)), _normal(rng, (0, b["m"]))),
        lambda x, w: (x @ w,),
    ),
    "sum_over_half_a_row": Program(
        "empty_reductions.mlir",
        "sum_over_half_a_row",
        ({"r": 3, "n": 4}, {"r": 2, "n": 1}, {"r": 0, "n": 3}),
        lambda rng, b: (_normal(rng, (b["r"], b["n"])), _normal(rng, (1, b["n"]))),
        lambda x, y: (x[:, : y.shape[0] // 2].sum(axis=1),),
    ),
    "sum_over_half_a_bound": Program(
        "empty_reductions.mlir",
        "sum_over_half_a_bound",
        ({"r": 3, "n": 4}, {"r": 2, "n": 1}, {"r": 0, "n": 3}),
        lambda rng, b: (_normal(rng, (b["r"], b["n"])), _normal(rng, (b["n"],))),
        lambda x, v: (np.zeros(x.shape[0], np.float32),),
    ),
    "sums_of_a_call_on_nothing": Program(
        "empty_reductions.mlir",
        "sums_of_a_call_on_nothing",
        ({"rz": 0, "nz": 3}, {"rz": 0, "nz": 1}, {"rz": 0, "nz": 0}),
        lambda rng, b: (_normal(rng, (b["rz"], b["nz"])), _normal(rng, (0, b["nz"]))),
        lambda x, y: (np.zeros(x.shape[1], np.float32),),
        unbindable=({"rz": 0, "nz": 3}, {"rz": 0, "nz": 1}),
    ),
    # A reduction of a returned transpose of a broadcast (transposed_reductions.mlir).
    "row_sums_of_a_transposed_spread": Program(
        "transposed_reductions.mlir",
        "row_sums_of_a_transposed_spread",
        ({"a": 4, "b": 3}, {"a": 1, "b": 5}, {"a": 0, "b": 2}, {"a": 3, "b": 0}),
        lambda rng, b: (_normal(rng, (b["a"], b["b"])), _normal(rng, (b["b"],))),
        lambda x, v: (np.broadcast_to(v, x.shape), np.broadcast_to(v, x.shape).T,
                      np.broadcast_to(v, x.shape).T.sum(axis=1)),
        cuda_unrunnable=({"a": 0, "b": 2},),
    ),
    # One element spread over a 1 x 1 tensor (unit_broadcasts.mlir).
    "spread_one_element": Program(
        "unit_broadcasts.mlir",
        "spread_one_element",
        (
            {"n": 1, "rows": 2, "cols": 3},
            {"n": 1, "rows": 0, "cols": 2},
            {"n": 1, "rows": 4, "cols": 0},
        ),
        lambda rng, b: (_normal(rng, (b["n"],)), _normal(rng, (b["rows"], b["cols"]))),
        lambda v, y: (np.full((1, 1), v[0], np.float32), y),
        passes=TO_IREE_DEFERRED,
    ),
    "spread_a_returned_sum": Program(
        "unit_broadcasts.mlir",
        "spread_a_returned_sum",
        ({"n": 1, "rows": 0}, {"n": 1, "rows": 3}, {"n": 1, "rows": 1}),
        lambda rng, b: (_normal(rng, (b["n"],)), _normal(rng, (b["rows"], 1))),
        lambda v, x: (2 * v, np.full((x.shape[0], 1), 2 * v[0], np.float32)),
        unbindable=({"n": 1, "rows": 0},),
        cuda_unrunnable=({"n": 1, "rows": 0},),
    ),
    # Empty slices that start at the end of a static axis (slices.mlir).
    "past_end": Program(
        "slices.mlir",
        "past_end",
        ({"n": 3}, {"n": 1}, {"n": 0}),
        lambda rng, b: (_normal(rng, (2, b["n"])),),
        lambda x: (x[2:], x),
    ),
    "tail": Program(
        "slices.mlir",
        "tail",
        ({"n": 4, "k": 0}, {"n": 4, "k": 2}, {"n": 2, "k": 3}, {"n": 0, "k": 1}),
        lambda rng, b: (_normal(rng, (3, b["n"])), np.array(b["k"], np.int64)),
        lambda x, k: (x[int(k):],),
        scalars=("k",),
    ),
    "window_of_ones": Program(
        "slices.mlir",
        "window_of_ones",
        ({"rows": 4, "at": 1}, {"rows": 5, "at": 3}, {"rows": 6, "at": 0}, {"rows": 0, "at": 0}),
        lambda rng, b: (_normal(rng, (b["rows"], 2)), np.array(b["at"], np.int64)),
        lambda x, at: (np.ones((x.shape[0] // 2, 1, 2), np.float32),),
        scalars=("at",),
    ),
    "truncate_no_columns": Program(
        "slices.mlir",
        "truncate_no_columns",
        ({"r": 3, "n": 2}, {"r": 2, "n": 5}, {"r": 4, "n": -1}, {"r": 0, "n": 1}),
        lambda rng, b: (_normal(rng, (b["r"], 0)), np.array(b["n"], np.int64)),
        lambda x, n: (x[:, : max(int(n), 0)], x[: max(int(n), 0), : max(int(n), 0)]),
        scalars=("n",),
    ),
    "read_offsets": Program(
        "slices.mlir",
        "read_offsets",
        ({"ro": 4, "co": 5, "k": 1}, {"ro": 3, "co": 3, "k": 3}, {"ro": 2, "co": 6, "k": 0},
         {"ro": 0, "co": 2, "k": 0}),
        lambda rng, b: (_normal(rng, (b["ro"], b["co"])), np.array(b["k"], np.int64)),
        lambda x, k: (x[: x.shape[0] - int(k), int(k):] + x[int(k):, : x.shape[1] - int(k)],),
        scalars=("k",),
    ),
    "slices_of_a_read_width": Program(
        "slices.mlir",
        "slices_of_a_read_width",
        ({"rw": 3, "cw": 2, "dw": 4, "w": 2}, {"rw": 2, "cw": 3, "dw": 3, "w": 3},
         {"rw": 0, "cw": 2, "dw": 5, "w": 2}, {"rw": 4, "cw": 0, "dw": 1, "w": 0}),
        lambda rng, b: (_normal(rng, (b["rw"], b["cw"])), _normal(rng, (b["rw"], b["dw"])),
                        np.array(b["w"], np.int64)),
        lambda x, y, w: (2 * x + y[:, : int(w)],),
        scalars=("w",),
    ),
    "empty_slice_of_a_slice": Program(
        "slices.mlir",
        "empty_slice_of_a_slice",
        ({"n": 1}, {"n": 7}, {"n": 2}),
        lambda rng, b: (_normal(rng, (1,)), np.array(b["n"], np.int64)),
        lambda x, n: (x, x[1:1]),
        scalars=("n",),
    ),
    "spread_nothing": Program(
        "slices.mlir",
        "spread_nothing",
        ({"rz": 3, "cz": 0}, {"rz": 1, "cz": 0}, {"rz": 0, "cz": 0}),
        lambda rng, b: (_normal(rng, (b["rz"], 0)), _normal(rng, (b["rz"], b["cz"]))),
        lambda x, y: (np.zeros(y.shape, np.float32),),
    ),
    "spread_a_slice_of_nothing": Program(
        "slices.mlir",
        "spread_a_slice_of_nothing",
        ({"rs": 3, "cs": 0, "k": 0}, {"rs": 1, "cs": 0, "k": 0}, {"rs": 0, "cs": 0, "k": 0}),
        lambda rng, b: (np.zeros((0,), np.float32), np.array(b["k"], np.int32),
                        _normal(rng, (b["rs"], b["cs"]))),
        lambda v, k, y: (v[int(k):], np.zeros(y.shape, np.float32)),
        scalars=("k",),
    ),
}
"""Every end-to-end program, by test id."""


def binding_id(binding: Binding) -> str:
    """A test id for a binding: ``batch3-seq17``."""
    return "-".join(f"{name}{value}" for name, value in binding.items())


def program_cases() -> list[Any]:
    """``(program name, binding)`` pytest params over every program and binding."""
    return [
        pytest.param(name, binding, id=f"{name}-{binding_id(binding)}")
        for name, program in PROGRAMS.items()
        for binding in program.bindings
    ]


def symshape_opt() -> str:
    """The ``symshape-opt`` console script of this environment."""
    found = shutil.which(
        "symshape-opt",
        path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    )
    if found is None:
        pytest.fail("the symshape-opt console script is not installed")
    return found


def run_opt(path: Path, *pass_flags: str) -> str:
    """Runs ``symshape-opt <pass flags> <path>`` and returns the output module text."""
    proc = subprocess.run(
        [symshape_opt(), *pass_flags, str(path)], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        pytest.fail(f"symshape-opt {' '.join(pass_flags)} {path.name} failed:\n{proc.stderr}")
    return proc.stdout


@functools.cache
def resolved(file: str, passes: tuple[str, ...] = TO_IREE) -> str:
    """``test/e2e/<file>`` after the given ``symshape-opt`` passes, once per session."""
    return run_opt(E2E_DIR / file, *passes)


@functools.cache
def compiled(text: str, target: str, data_tiling: bool | None = None) -> CompiledModule:
    """A module compiled once per session for a target."""
    return backend.compile_module(text, target, data_tiling=data_tiling)


def program_module(program: Program, target: str) -> CompiledModule:
    """The program's resolved file compiled for a target (cached)."""
    data_tiling = program.data_tiling if target == "llvm-cpu" else None
    return compiled(resolved(program.file, program.passes), target, data_tiling)


# Keyed by the compiled module's identity (a Program holds dicts: unhashable).
_LOADED: dict[tuple[int, str], LoadedModule] = {}


def loaded(program: Program, driver: str) -> LoadedModule:
    """The program's module loaded on a driver, once per session."""
    module = program_module(program, DRIVER_TARGETS[driver])
    key = (id(module), driver)
    if key not in _LOADED:
        _LOADED[key] = backend.load(module, driver)
    return _LOADED[key]


def inputs_for(program: Program, binding: Binding) -> Arrays:
    """The program's arguments at a binding (the same for every driver)."""
    seed = sum(abs(v) * 31**i for i, v in enumerate(binding.values()))
    return program.inputs(np.random.default_rng(seed), binding)


def assert_matches(actual: object, expected: Arrays, tolerance: float) -> None:
    """The call's results have numpy's dtypes and shapes and close values."""
    results = actual if isinstance(actual, tuple) else (actual,)
    assert len(results) == len(expected)
    for got, want in zip(results, expected, strict=True):
        assert isinstance(got, np.ndarray)
        assert (got.dtype, got.shape) == (want.dtype, want.shape)
        np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize(("name", "binding"), program_cases())
def test_program_matches_numpy(
    request: pytest.FixtureRequest, driver: str, name: str, binding: Binding
) -> None:
    """The resolved program, run at the binding, gives numpy's results."""
    program = PROGRAMS[name]
    if driver == "vulkan" and binding in program.unbindable:
        request.applymarker(pytest.mark.xfail(
            strict=True, reason="Vulkan cannot bind the empty tensor the call makes"))
    if driver == "cuda" and binding in program.cuda_unrunnable:
        pytest.xfail("IREE's CUDA driver fails a dispatch bound to an empty buffer and "
                     "the device is unusable afterwards (test/gpu/bundle.py)")
    module = loaded(program, driver)
    args = inputs_for(program, binding)
    expected = program.reference(*args)
    result = module.invoke(program.function, *args, out_shapes=[e.shape for e in expected])
    assert_matches(result, expected, program.tolerance)


@pytest.mark.parametrize("file", sorted(p.name for p in E2E_DIR.glob("*.mlir")))
def test_program_has_header_comment(file: str) -> None:
    """Every e2e program starts with a comment saying what it is and its reference."""
    lines = (E2E_DIR / file).read_text().splitlines()
    assert lines[0].startswith("// ")
    assert any(line.startswith("// Reference:") for line in lines)
