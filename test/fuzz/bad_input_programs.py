"""The runtime seed program of the bad-input fuzzer and its numpy oracles.

One MLIR module (:data:`RUNTIME_SOURCE`) holds small functions that take the
kinds of arguments users get wrong: tensors sharing a named axis, scalar
tensors of ``i8``/``i32``/``i64`` used as sizes (with ``truncate_size``,
``clamp_nonneg`` and ``index`` semantics), a scalar divisor, a reshape. Each
function has an oracle in :data:`ORACLES` that, given the numpy arguments the
child actually passed, says what a correct backend must do: return a given
array (or integer), or raise a structured error.

This module is imported by the child process only (it needs numpy, not mlir).
"""

# The MLIR seed program keeps its natural (long) lines.
# ruff: noqa: E501

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["INT64_MAX", "INT64_MIN", "ORACLES", "RUNTIME_PASSES", "RUNTIME_SOURCE", "Expectation"]

logger = logging.getLogger(__name__)

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

# The passes that resolve RUNTIME_SOURCE for IREE (contract deferred to runtime checks).
RUNTIME_PASSES: tuple[str, ...] = (
    "--symshape-infer-shapes",
    "--symshape-verify-contract=mode=defer",
    "--symshape-resolve=target=iree",
    "--canonicalize",
    "--cse",
)

RUNTIME_SOURCE = """\
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @add(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
               %y: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> tensor<?x4xf32> {
  %n = symshape.dim %x, 0 : tensor<?x4xf32>
  %ni = symshape.to_index %n
  %init = tensor.empty(%ni) : tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<?x4xf32>, tensor<?x4xf32>) outs(%init : tensor<?x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
func.func @trunc8(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i8>) -> tensor<?xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 stage exact : (tensor<?xf32>, tensor<i8>) -> tensor<?xf32>
  return %t : tensor<?xf32>
}
func.func @trunc32(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i32>) -> tensor<?xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 stage exact : (tensor<?xf32>, tensor<i32>) -> tensor<?xf32>
  return %t : tensor<?xf32>
}
func.func @trunc64(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 stage exact : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  return %t : tensor<?xf32>
}
func.func @divk(%a: tensor<i64>, %b: tensor<i64>) -> index {
  %sa = symshape.runtime_scalar %a index : tensor<i64>
  %sb = symshape.runtime_scalar %b index : tensor<i64>
  %one = symshape.const 1
  %den = symshape.add %sb, %one
  %q = symshape.floordiv %sa, %den
  %i = symshape.to_index %q
  return %i : index
}
func.func @fill(%k: tensor<i64>) -> tensor<?xf32> {
  %s = symshape.runtime_scalar %k index : tensor<i64>
  %i = symshape.to_index %s
  %e = tensor.empty(%i) : tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %f : tensor<?xf32>
}
func.func @split_by(%x: tensor<?x12xf32> {symshape.axes = #symshape.shape<[batch, 12]>},
                    %k: tensor<i64>) -> tensor<?x?xf32> {
  %width = symshape.dim %x, 1 : tensor<?x12xf32>
  %parts = symshape.runtime_scalar %k clamp_nonneg : tensor<i64>
  %cols = symshape.floordiv %width, %parts
  %ci = symshape.to_index %cols
  %n = symshape.dim %x, 0 : tensor<?x12xf32>
  %ni = symshape.to_index %n
  %r = tensor.extract_slice %x[0, 0] [%ni, %ci] [1, 1] : tensor<?x12xf32> to tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @flat(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rows, cols]>}) -> tensor<?xf32> {
  %r = symshape.reshape %x to [rows * cols] : (tensor<?x?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


@dataclasses.dataclass(frozen=True)
class Expectation:
    """What a correct call must do.

    Attributes:
        value: The expected result (an array or an int) when the call must succeed.
        must_raise: The call must raise a structured error (why, in words).
        may_raise: A structured error is acceptable instead of ``value``
            (e.g. a negative extent returned as an index).
        located: A runtime failure (not a signature error) must name a
            source location.
    """

    value: Any = None
    must_raise: str | None = None
    may_raise: bool = False
    located: bool = True


_INT_KIND = {"i8": np.int8, "i32": np.int32, "i64": np.int64}


def _scalar(arg: Any, dtype: str) -> tuple[int | None, str | None]:
    """The integer a scalar argument denotes for an ``tensor<dtype>`` parameter.

    Returns (value, None) when the argument is an acceptable value of that
    type, or (None, reason) when a correct backend must reject it.
    """
    kind = _INT_KIND[dtype]
    info = np.iinfo(kind)
    if isinstance(arg, np.ndarray):
        if arg.ndim != 0:
            return None, f"rank {arg.ndim} array for a 0-d {dtype} tensor"
        # A signless integer takes the signed or the unsigned dtype of its
        # width; the bits are read as signed.
        unsigned = np.dtype(f"uint{np.dtype(kind).itemsize * 8}")
        if arg.dtype not in (np.dtype(kind), unsigned):
            return None, f"{arg.dtype} array for a {dtype} tensor"
        return int(arg.astype(kind)), None
    if isinstance(arg, (bool, np.bool_)):
        return None, "bool for an integer tensor"
    if isinstance(arg, (int, np.integer)):
        value = int(arg)
        if not info.min <= value <= info.max:
            return None, f"{value} out of range for {dtype}"
        return value, None
    return None, f"{type(arg).__name__} for an integer tensor"


def _f32_array(arg: Any, rank: int, fixed: Sequence[int | None]) -> str | None:
    if not isinstance(arg, np.ndarray):
        return f"{type(arg).__name__} for a tensor"
    if arg.dtype != np.float32:
        return f"{arg.dtype} array for an f32 tensor"
    if arg.ndim != rank:
        return f"rank {arg.ndim} for a rank-{rank} tensor"
    for got, want in zip(arg.shape, fixed):
        if want is not None and got != want:
            return f"shape {arg.shape}"
    return None


def _add(args: Sequence[Any]) -> Expectation:
    if len(args) != 2:
        return Expectation(must_raise=f"{len(args)} arguments for 2")
    for a in args:
        bad = _f32_array(a, 2, (None, 4))
        if bad:
            return Expectation(must_raise=bad)
    if args[0].shape[0] != args[1].shape[0]:
        return Expectation(must_raise=f"axis 'batch': {args[0].shape[0]} vs {args[1].shape[0]}")
    return Expectation(value=args[0] + args[1])


def _trunc(dtype: str) -> Callable[[Sequence[Any]], Expectation]:
    def oracle(args: Sequence[Any]) -> Expectation:
        if len(args) != 2:
            return Expectation(must_raise=f"{len(args)} arguments for 2")
        bad = _f32_array(args[0], 1, (None,))
        if bad:
            return Expectation(must_raise=bad)
        k, why = _scalar(args[1], dtype)
        if why:
            return Expectation(must_raise=why)
        assert k is not None
        return Expectation(value=args[0][: max(k, 0)])

    return oracle


def _divk(args: Sequence[Any]) -> Expectation:
    if len(args) != 2:
        return Expectation(must_raise=f"{len(args)} arguments for 2")
    a, why_a = _scalar(args[0], "i64")
    b, why_b = _scalar(args[1], "i64")
    if why_a or why_b:
        return Expectation(must_raise=why_a or why_b)
    assert a is not None and b is not None
    den = b + 1
    if den > INT64_MAX:
        return Expectation(must_raise="b + 1 overflows int64")
    if den == 0:
        return Expectation(must_raise="division by zero")
    q = a // den
    if not INT64_MIN <= q <= INT64_MAX:
        return Expectation(must_raise="quotient overflows int64")
    # A negative extent is not a size; an error is acceptable, a wrong value is not.
    return Expectation(value=q, may_raise=q < 0)


def _fill(args: Sequence[Any]) -> Expectation:
    if len(args) != 1:
        return Expectation(must_raise=f"{len(args)} arguments for 1")
    k, why = _scalar(args[0], "i64")
    if why:
        return Expectation(must_raise=why)
    assert k is not None
    if k < 0:
        return Expectation(must_raise=f"negative size {k} from scalar(0, index)")
    return Expectation(value=np.ones((k,), np.float32))


def _split_by(args: Sequence[Any]) -> Expectation:
    if len(args) != 2:
        return Expectation(must_raise=f"{len(args)} arguments for 2")
    bad = _f32_array(args[0], 2, (None, 12))
    if bad:
        return Expectation(must_raise=bad)
    k, why = _scalar(args[1], "i64")
    if why:
        return Expectation(must_raise=why)
    assert k is not None
    parts = max(k, 0)
    if parts == 0:
        return Expectation(must_raise="division by zero (clamp_nonneg)")
    return Expectation(value=args[0][:, : 12 // parts])


def _flat(args: Sequence[Any]) -> Expectation:
    if len(args) != 1:
        return Expectation(must_raise=f"{len(args)} arguments for 1")
    bad = _f32_array(args[0], 2, (None, None))
    if bad:
        return Expectation(must_raise=bad)
    return Expectation(value=args[0].reshape(-1))


ORACLES: dict[str, Callable[[Sequence[Any]], Expectation]] = {
    "add": _add,
    "trunc8": _trunc("i8"),
    "trunc32": _trunc("i32"),
    "trunc64": _trunc("i64"),
    "divk": _divk,
    "fill": _fill,
    "split_by": _split_by,
    "flat": _flat,
}
