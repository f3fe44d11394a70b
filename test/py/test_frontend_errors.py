"""Trace-time errors of the frontend: exact messages, naming the op and the Python line.

Also checks that traced ops carry the user's source lines as MLIR locations.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from mlir import ir

import symshape_mlir
import symshape_mlir.frontend as fe
from symshape_mlir.backend import RuntimeCallError
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
from symshape_mlir.runtime import PlanError

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


def _never_divides(x: Tensor) -> Tensor:
    return x.reshape(x.shape[0], 4, -1)


def _if_tensor(x: Tensor) -> Tensor:
    if x > 0.0:
        return x
    return -x


def _where_python_bool(x: Tensor) -> Tensor:
    return fe.where(x is None, x, 0.0)


def _len_symbolic(x: Tensor) -> Tensor:
    return fe.zeros(len(x))


def _int_of_tensor(x: Tensor) -> Tensor:
    return fe.zeros(int(x.sum()))


def _argmax_empty(x: Tensor) -> Tensor:
    return x.argmax(axis=0)


def _subtract_bools(x: Tensor) -> Tensor:
    return (x > 0.0) - (x < 1.0)


def _bitwise_floats(x: Tensor) -> Tensor:
    return x & x


def _split_uneven(x: Tensor) -> Tensor:
    return fe.split(x, 2)[0]


def _einsum_diagonal(x: Tensor) -> Tensor:
    return fe.einsum("ii->i", x)


def _float_index(x: Tensor) -> Tensor:
    return x[1.5]


def _zero_step(x: Tensor) -> Tensor:
    return x[::0]


def _too_many_indices(x: Tensor) -> Tensor:
    return x[0, 0, 0]


def _two_index_arrays(x: Tensor) -> Tensor:
    return x[[0], [1]]


def _mask_beside_index(x: Tensor) -> Tensor:
    return x[x > 0.0, 0]


def _negative_int_power(x: Tensor) -> Tensor:
    return x.astype("i32") ** -1


def _returns_number(x: Tensor) -> Tensor:
    return 3


@pytest.mark.parametrize(
    ("fn", "spec", "error", "message"),
    [
        (
            _never_divides,
            Tensor["batch", 6, f32],
            ShapeError,
            "reshape at {}: cannot reshape [batch, 6] (6 * batch elements) into (batch, 4, -1): "
            "the element count is never a multiple of 4 * batch",
        ),
        (
            _if_tensor,
            Tensor["batch", f32],
            FrontendError,
            "a traced tensor has no truth value while tracing, at {}: its values exist only "
            "when the function runs. Choose elementwise with fe.where(condition, x, y); compare "
            "shapes with x.shape",
        ),
        (
            _where_python_bool,
            Tensor["batch", f32],
            FrontendError,
            "where at {}: the condition is False, a Python value, not a traced tensor: compare "
            "tensors elementwise (x == 0.0, fe.equal(x, 0.0), x > y)",
        ),
        (
            _len_symbolic,
            Tensor["batch", f32],
            FrontendError,
            "len() at {}: the first axis is batch, not a constant; use x.shape[0] (an extent)",
        ),
        (
            _int_of_tensor,
            Tensor["batch", f32],
            FrontendError,
            "a traced tensor has no int value while tracing, at {}: its values exist only when "
            "the function runs (a 0-d integer tensor can size tensors: x[:k], fe.arange(k), "
            "x.reshape(k, -1))",
        ),
        (
            _argmax_empty,
            Tensor[0, 3, f32],
            FrontendError,
            "argmax at {}: attempt to get argmax of an empty axis (0)",
        ),
        (
            _subtract_bools,
            Tensor["batch", f32],
            FrontendError,
            "subtract at {}: booleans cannot be subtracted (numpy refuses it too); use "
            "logical_xor, or cast first",
        ),
        (
            _bitwise_floats,
            Tensor["batch", f32],
            FrontendError,
            "bitwise_and at {}: not defined on floating-point values (numpy refuses it too); "
            "compare first (x > 0.0) or cast to an integer type",
        ),
        (
            _split_uneven,
            Tensor[5, f32],
            FrontendError,
            "split at {}: array split does not result in an equal division (5 entries in 2 "
            "sections)",
        ),
        (
            _einsum_diagonal,
            Tensor[3, 3, f32],
            FrontendError,
            "einsum at {}: a letter repeated within one operand ('ii') is not supported",
        ),
        (_float_index, Tensor["batch", f32], FrontendError,
         "indexing at {}: unsupported index 1.5"),
        (_zero_step, Tensor["batch", f32], FrontendError,
         "indexing at {}: slice step cannot be zero"),
        (_too_many_indices, Tensor["batch", 2, f32], FrontendError,
         "indexing at {}: too many indices: 3 for rank 2"),
        (_two_index_arrays, Tensor["batch", 2, f32], FrontendError,
         "indexing at {}: one integer-array index at a time"),
        (_mask_beside_index, Tensor["batch", 2, f32], FrontendError,
         "indexing at {}: a boolean mask must be the only index (x[mask] or x[mask, ...])"),
        (_negative_int_power, Tensor["batch", f32], FrontendError,
         "power at {}: integers to negative integer powers are not allowed (numpy)"),
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
    ids=["never-divides", "if-tensor", "where-python-bool", "len-symbolic", "int-of-tensor",
         "argmax-empty", "subtract-bools", "bitwise-floats", "split-uneven", "einsum-diagonal",
         "float-index", "zero-step", "too-many-indices", "two-index-arrays", "mask-beside-index",
         "negative-int-power", "squeeze", "unknown-name", "element-count"],
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


def _numpy_fft(x: Tensor) -> Tensor:
    return np.fft.fft(x)


def test_numpy_without_a_traced_form() -> None:
    """A numpy function the frontend has no op for says so, naming the line."""
    with pytest.raises(FrontendError) as info:
        trace(_numpy_fft, Tensor["batch", f32])
    assert str(info.value) == (
        f"numpy.fft at {_at(_numpy_fft, 1, 'return np.fft.fft(x)')} has no traced form; use "
        "the frontend's ops (symshape_mlir.frontend) on traced tensors")


def test_returning_a_number() -> None:
    """A function must return traced tensors; a Python value is named with the fix."""
    with pytest.raises(FrontendError) as info:
        trace(_returns_number, Tensor["batch", f32])
    assert str(info.value) == (
        "_returns_number returned 3 as result 0; expected traced tensors of this function "
        "(a constant is fe.array(value))")


def test_constructor_outside_a_trace() -> None:
    """A constructor called outside a traced function says where and why."""
    with pytest.raises(FrontendError) as info:
        fe.zeros(3)
    line = test_constructor_outside_a_trace.__code__.co_firstlineno + 3
    assert str(info.value) == (
        f"zeros at {HERE}:{line} (fe.zeros(3)): called outside a traced function (use it "
        "inside a function given to jit or trace)")


def test_zero_d_unsigned_input() -> None:
    """A 0-d unsigned input is refused (IREE 3.13 compiles none), naming the input."""
    with pytest.raises(FrontendError) as info:
        trace(lambda k: k, Tensor["u8"])
    assert str(info.value) == (
        "input 0 (k) is a 0-d u8: IREE 3.13 does not compile 0-d unsigned inputs; declare it "
        "a signed type (i16, i64)")


def _zeros_of(x: Tensor, k: Tensor) -> Tensor:
    return fe.zeros((k,)) + x[0]


def test_plan_error_names_the_line(tmp_path: Any) -> None:
    """A planned size that is negative at run time names the Python line that made it."""
    f = symshape_mlir.jit(_zeros_of, inputs=[Tensor["n", f32], N], cache_dir=tmp_path)
    with pytest.raises(PlanError) as info:
        f(np.ones(2, np.float32), np.array(-1))
    line = _zeros_of.__code__.co_firstlineno + 1
    assert str(info.value) == (
        f"@_zeros_of result 0 (made at {__file__}:{line}:12): axis 0: size '_d0 - _d1' "
        "evaluates to -1 < 0")


def test_run_time_failures_name_the_sizes_and_line(tmp_path: Any) -> None:
    """A broadcast or reshape that fails at run time names the line and the sizes seen."""
    add = symshape_mlir.jit(_add, inputs=[Tensor["batch", 4, f32], Tensor["?", 4, f32]],
                 cache_dir=tmp_path)
    with pytest.raises(RuntimeCallError) as info:
        add(np.ones((3, 4), np.float32), np.ones((5, 4), np.float32))
    line = _add.__code__.co_firstlineno + 1
    assert info.value.message == (
        "symshape: broadcast_in_dim input axis 0 is neither 1 nor the target extent "
        f"(symshape.broadcast_in_dim at {__file__}:{line}:12); the call's inputs: [3, 4], "
        "[5, 4]")

    def rows(x: Tensor, k: Tensor) -> Tensor:
        return x.reshape(k, 4)

    reshape = symshape_mlir.jit(rows, inputs=[Tensor["n", 6, f32], N], cache_dir=tmp_path)
    with pytest.raises(RuntimeCallError) as info:
        reshape(np.ones((2, 6), np.float32), np.array(5))
    line = rows.__code__.co_firstlineno + 1
    assert info.value.message == (
        "symshape: check failed: the element counts of source and result are equal "
        f"(tensor.reshape at {__file__}:{line}:16); the call's inputs: [2, 6], = 5")


def test_size_no_tensor_has() -> None:
    """A size made of a value no traced axis has is refused, naming where."""

    def body(state: Any, x: Tensor) -> Tensor:
        return fe.broadcast_to(x, (state.fresh_symbol() + x.shape[0],))

    with pytest.raises(FrontendError) as info:
        trace(body, Tensor["n", f32], pass_trace=True)
    line = body.__code__.co_firstlineno + 1
    assert str(info.value) == (
        f"broadcast_to at {HERE}:{line} (return fe.broadcast_to(x, (state.fresh_symbol() + "
        "x.shape[0],))): the target extent _d0 + n reads _d0, a value no traced axis has (a "
        "run-time integer combined with sizes); slice or size a tensor by it first")
