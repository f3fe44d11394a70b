"""Folding integer ops on data known at import time (partial data propagation).

``Shape -> Gather -> Mul -> Concat -> Reshape`` chains are evaluated as
extent expressions while importing, so the reshape gets a symbolic target.
Arithmetic keeps ONNX integer semantics: ``Div`` truncates and ``Mod``
takes the divisor's sign. A division is folded only where truncation and
flooring agree (a non-negative numerator and a positive divisor, extents
being non-negative); any other case is left to run time.

Example:
    >>> # Div(Mul(Shape(x)[0], Shape(x)[1]), 8) with x: [batch, seq, 64]
    >>> Known.vector([Sym("batch") * Sym("seq") // 8])     # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from symshape_mlir.extent import canon
from symshape_mlir.extent.expr import Const, Expr
from symshape_mlir.frontend.dtypes import DType
from symshape_mlir.onnx.context import NodeContext
from symshape_mlir.onnx.values import Known, Literal, Value

__all__ = ["fold_binary", "fold_cast", "from_array", "known_array"]


def known_array(known: Known) -> np.ndarray:
    """The elements as a numpy object array of :class:`Expr` in ``known``'s shape."""
    array = np.empty(len(known.elements), dtype=object)
    array[:] = list(known.elements)
    return array.reshape(known.shape)


def from_array(array: np.ndarray | Expr, dtype: np.dtype) -> Known:
    """A :class:`Known` holding an object array of :class:`Expr` (or one, 0-d)."""
    if not isinstance(array, np.ndarray):
        scalar = np.empty((), dtype=object)
        scalar[()] = array
        array = scalar
    return Known(tuple(int(n) for n in array.shape), tuple(array.reshape(-1)), np.dtype(dtype))


def _nonnegative(e: Expr) -> bool:
    return not isinstance(e, Const) or e.value >= 0


def _divide(a: Expr, b: Expr) -> Expr | None:
    if isinstance(a, Const) and isinstance(b, Const):
        if b.value == 0:
            return None
        quotient = abs(a.value) // abs(b.value)
        return Const(quotient if (a.value >= 0) == (b.value > 0) else -quotient)
    if _nonnegative(a) and (not isinstance(b, Const) or b.value > 0):
        return canon.floordiv(a, b)
    return None


def _remainder(a: Expr, b: Expr) -> Expr | None:
    if isinstance(b, Const) and b.value == 0:
        return None
    return canon.mod(a, b)


_FOLDS: dict[str, Callable[[Expr, Expr], Expr | None]] = {
    "Add": lambda a, b: canon.add(a, b),
    "Sub": lambda a, b: canon.sub(a, b),
    "Mul": lambda a, b: canon.mul(a, b),
    "Div": _divide,
    "Mod": _remainder,
    "Max": lambda a, b: canon.maximum(a, b),
    "Min": lambda a, b: canon.minimum(a, b),
}


def fold_binary(node: NodeContext, op: str) -> Known | None:
    """``op`` of the node's two inputs, when both are integer data known at import time."""
    if node.input_count != 2:
        return None
    a, b = (Known.of(node.value(i)) for i in (0, 1))
    if a is None or b is None or a.dtype != b.dtype:
        return None
    try:
        left, right = np.broadcast_arrays(known_array(a), known_array(b))
    except ValueError:
        node.error(f"cannot broadcast shapes {list(a.shape)} and {list(b.shape)}")
    fold = _FOLDS[op]
    results = [fold(x, y) for x, y in zip(left.reshape(-1), right.reshape(-1), strict=True)]
    if any(r is None for r in results):
        return None
    out = np.empty(len(results), dtype=object)
    out[:] = results
    return from_array(out.reshape(left.shape), a.dtype)


def fold_cast(node: NodeContext, dtype: DType) -> Value | None:
    """A cast of known integer data: still known for an integer target."""
    known = Known.of(node.value(0))
    if known is None or dtype.is_bool:
        return None
    if not dtype.is_float:
        return Known(known.shape, known.elements, dtype.numpy)
    const = known.constant
    return Literal(const.astype(dtype.numpy)) if const is not None else None
