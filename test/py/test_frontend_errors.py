"""Trace-time errors of the frontend: exact messages, naming the op and the Python line.

Also checks that traced ops carry the user's source lines as MLIR locations.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from mlir import ir

import symshape_mlir.frontend as fe
from symshape_mlir.frontend import (
    AxisConflictError,
    BroadcastError,
    ContractError,
    FrontendError,
    ShapeError,
    Tensor,
    f32,
    i64,
    trace,
)

HERE = os.path.basename(__file__)


def _at(fn: Callable[..., Any], offset: int, text: str) -> str:
    """``file:line (text)`` for the line ``offset`` lines below ``fn``'s ``def``."""
    return f"{HERE}:{fn.__code__.co_firstlineno + offset} ({text})"


def _truncated_reshape(x: Tensor, n: Tensor) -> Tensor:
    kept = fe.dynamic_truncate(x, n)
    return kept.reshape(-1)


def _truncated_target(x: Tensor, n: Tensor) -> Tensor:
    kept = fe.dynamic_truncate(x, n)
    return x.reshape(kept.shape[0] * 8)


def _truncated_broadcast(x: Tensor, n: Tensor) -> Tensor:
    kept = fe.dynamic_truncate(x, n)
    return fe.broadcast_to(x, (kept.shape[0], x.shape[0], 8))


def _truncated_add(x: Tensor, y: Tensor, n: Tensor) -> Tensor:
    kept = fe.dynamic_truncate(x, n)
    return kept + y


def _bound(fn: Callable[..., Any]) -> str:
    origin = _at(fn, 1, "kept = fe.dynamic_truncate(x, n)")
    return (
        f"the bound comes from dynamic_truncate at {origin}: axis 0 keeps at most batch "
        "entries (stage upper_bound)"
    )


X = Tensor["batch", 8, f32]
N = Tensor[i64]


def test_reshape_inferring_from_upper_bound() -> None:
    """A -1 inferred from an upper-bound input extent names the op, the line and the bound."""
    with pytest.raises(ContractError) as info:
        trace(_truncated_reshape, X, N)
    f = _truncated_reshape
    assert str(info.value) == (
        f"reshape at {_at(f, 2, 'return kept.reshape(-1)')}: input extent 0 is ub(batch), only "
        "an upper bound, and target extent 0 (-1) would be inferred from it; reshape needs an "
        f"exact extent ({_bound(f)})"
    )
    assert info.value.op == "reshape"


def test_reshape_to_upper_bound() -> None:
    """An upper bound (with extent arithmetic on it) as a reshape target is rejected."""
    with pytest.raises(ContractError) as info:
        trace(_truncated_target, X, N)
    f = _truncated_target
    assert str(info.value) == (
        f"reshape at {_at(f, 2, 'return x.reshape(kept.shape[0] * 8)')}: target extent 0 is "
        f"ub(8 * batch), only an upper bound; reshape needs an exact extent ({_bound(f)})"
    )


def test_broadcast_to_upper_bound() -> None:
    """An upper bound as a broadcast_to target is rejected."""
    with pytest.raises(ContractError) as info:
        trace(_truncated_broadcast, X, N)
    f = _truncated_broadcast
    line = _at(f, 2, "return fe.broadcast_to(x, (kept.shape[0], x.shape[0], 8))")
    assert str(info.value) == (
        f"broadcast_to at {line}: broadcast target extent 0 is ub(batch), only an upper bound; "
        f"broadcast_to needs an exact extent ({_bound(f)})"
    )


def test_runtime_broadcast_to_upper_bound() -> None:
    """An elementwise op that would broadcast to an upper bound at run time is rejected."""
    with pytest.raises(ContractError) as info:
        trace(_truncated_add, X, Tensor["seq", 8, f32], N)
    f = _truncated_add
    assert str(info.value) == (
        f"add at {_at(f, 2, 'return kept + y')}: broadcast target extent 0 is "
        f"ub(max(batch, seq)), only an upper bound; add needs an exact extent ({_bound(f)})"
    )


def _add(x: Tensor, y: Tensor) -> Tensor:
    return x + y


def _matmul(x: Tensor, w: Tensor) -> Tensor:
    return x @ w


def _concat(a: Tensor, b: Tensor) -> Tensor:
    return fe.concatenate([a, b])


@pytest.mark.parametrize(
    ("fn", "specs", "error", "message"),
    [
        (
            _add,
            (Tensor["batch", 3, f32], Tensor["batch", 4, f32]),
            BroadcastError,
            "add at {}: cannot broadcast dimension 1: 3 (input 0 axis 1) vs 4 (input 1 axis 1)",
        ),
        (
            _add,
            (Tensor[2, "n", f32], Tensor[3, 1, f32]),
            BroadcastError,
            "add at {}: cannot broadcast dimension 0: 2 (input 0 axis 0) vs 3 (input 1 axis 0)",
        ),
        (
            _matmul,
            (Tensor["batch", "k", f32], Tensor["n", 4, f32]),
            AxisConflictError,
            "matmul at {}: contraction axes 'k' (input 0 axis 1) and 'n' (input 1 axis 0) are "
            "different axes unless proven equal",
        ),
        (
            _matmul,
            (Tensor["batch", 3, f32], Tensor[4, 4, f32]),
            ShapeError,
            "matmul at {}: matmul contraction extents differ: input 0 axis 1 has 3, input 1 "
            "axis 0 has 4",
        ),
        (
            _concat,
            (Tensor["n", "k", f32], Tensor["m", "j", f32]),
            AxisConflictError,
            "concatenate at {}: axis 1 of input 0 (k) and of input 1 (j) must be the same: k and "
            "j are different axes unless proven equal",
        ),
        (
            _concat,
            (Tensor["n", 4, f32], Tensor["m", 5, f32]),
            AxisConflictError,
            "concatenate at {}: axis 1 of input 0 (4) and of input 1 (5) must be the same: 4 and "
            "5 are provably different",
        ),
    ],
    ids=[
        "add-static",
        "add-rank",
        "matmul-names",
        "matmul-static",
        "concat-names",
        "concat-static",
    ],
)
def test_shape_errors(
    fn: Callable[..., Any], specs: tuple[Any, ...], error: type[Exception], message: str
) -> None:
    """Shape-rule errors name the op, the source line, both extents and the axes (or names)."""
    with pytest.raises(error) as info:
        trace(fn, *specs)
    import inspect

    text = inspect.getsource(fn).splitlines()[1].strip()
    assert str(info.value) == message.format(_at(fn, 1, text))


def _squeeze(x: Tensor) -> Tensor:
    return fe.squeeze(x, 0)


def _unknown_name(x: Tensor) -> Tensor:
    return x.reshape("seq", 4)


def _element_count(x: Tensor) -> Tensor:
    return x.reshape(3, 5)


@pytest.mark.parametrize(
    ("fn", "spec", "error", "message"),
    [
        (
            _squeeze,
            Tensor["batch", 4, f32],
            ShapeError,
            "squeeze at {}: axis 0 has extent batch, not 1",
        ),
        (
            _unknown_name,
            Tensor["batch", 4, f32],
            FrontendError,
            "reshape at {}: unknown axis name 'seq' (the inputs name ['batch'])",
        ),
        (
            _element_count,
            Tensor[4, 4, f32],
            ShapeError,
            "reshape at {}: cannot reshape [4, 4] (16 elements) into [3, 5] (15 elements)",
        ),
    ],
    ids=["squeeze", "unknown-name", "element-count"],
)
def test_usage_errors(
    fn: Callable[..., Any], spec: Any, error: type[Exception], message: str
) -> None:
    """Misuse of an op names the op and the source line."""
    import inspect

    with pytest.raises(error) as info:
        trace(fn, spec)
    text = inspect.getsource(fn).splitlines()[1].strip()
    assert str(info.value) == message.format(_at(fn, 1, text))


def _located(x: Tensor, w: Tensor) -> Tensor:
    h = fe.relu(x @ w)
    return h.sum(axis=1)


def test_ops_carry_python_locations() -> None:
    """Emitted ops are located at the user's Python line (file, line, column)."""
    module = trace(_located, Tensor["batch", 8, f32], Tensor[8, 4, f32]).module
    first = _located.__code__.co_firstlineno
    lines: dict[str, set[str]] = {}

    def visit(op: ir.Operation) -> ir.WalkResult:
        lines.setdefault(op.name, set()).add(str(op.location))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    assert lines["linalg.matmul"] == {f'loc("{__file__}":{first + 1}:17)'}
    assert lines["linalg.generic"] == {
        f'loc("{__file__}":{first + 1}:9)',
        f'loc("{__file__}":{first + 2}:12)',
    }
    assert lines["func.return"] == {f'loc("{__file__}":{first}:1)'}
