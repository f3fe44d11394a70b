"""Compiled size closures agree with `Expr.evaluate`, and generated planners with
`make_plan`, errors included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symshape_mlir.extent import EvaluationError, parse_expr
from symshape_mlir.runtime.capture import BufferSizes, ResultSizes
from symshape_mlir.runtime.errors import PlanError
from symshape_mlir.runtime.plan import Planner, make_plan
from symshape_mlir.runtime.sizefn import SizeCode, compile_size

EXPRESSIONS = [
    "batch * 10 + 2",
    "min(a, b) floordiv 3",
    "a ceildiv b",
    "a mod b",
    "a * b * c",
    "max(a - b, 0) + 7",
    "(a * b) floordiv (c + 1)",
    "a - 2 * b",
]


def _outcome(fn: object, bindings: dict[str, int]) -> object:
    try:
        return fn(bindings)  # type: ignore[operator]
    except EvaluationError as err:
        return type(err)


@settings(max_examples=200, deadline=None)
@given(
    text=st.sampled_from(EXPRESSIONS),
    values=st.fixed_dictionaries(
        {
            name: st.one_of(st.integers(0, 50), st.integers(-3, 2**62), st.just(2**63 - 1))
            for name in ("a", "b", "c", "batch")
        }
    ),
)
def test_compiled_size_matches_evaluate(text: str, values: dict[str, int]) -> None:
    """On random bindings the closure gives evaluate's value or raises its error class."""
    expr = parse_expr(text)
    assert _outcome(compile_size(expr), values) == _outcome(expr.evaluate, values)


@pytest.mark.parametrize(
    ("text", "bindings", "error"),
    [
        ("a floordiv b", {"a": 3, "b": 0}, "division by zero in 'a floordiv b'"),
        ("a * b", {"a": 2**40, "b": 2**40}, "outside the int64 range"),
        ("a + 1", {"a": -1}, "outside its range"),
        ("a + b", {"a": 1}, "no binding for 'b'"),
    ],
    ids=["zero-divisor", "overflow", "negative-symbol", "missing"],
)
def test_compiled_size_errors(text: str, bindings: dict[str, int], error: str) -> None:
    """Errors name the expression or the symbol."""
    with pytest.raises(EvaluationError, match=error):
        compile_size(parse_expr(text))(bindings)


def _plan_outcome(plan: object, bindings: dict[str, int]) -> object:
    try:
        return plan(bindings)  # type: ignore[operator]
    except PlanError as err:
        return str(err)


_RESULTS = (
    ResultSizes(tuple(parse_expr(t) for t in ("batch", "a * b * c", "max(a - b, 0) + 7"))),
    ResultSizes(None),
    ResultSizes(tuple(parse_expr(t) for t in ("(a * b) floordiv (c + 1)", "a - 2 * b"))),
    ResultSizes((parse_expr("a ceildiv b"), parse_expr("-3"))),
)
_BUFFERS = tuple(
    BufferSizes("tensor.empty", "loc", 4, tuple(parse_expr(t) for t in sizes))
    for sizes in (("a mod b", "batch"), ("min(a, b) floordiv 3",), ("a * b", "c * c"))
)


@settings(max_examples=300, deadline=None)
@given(
    values=st.fixed_dictionaries(
        {
            name: st.one_of(st.integers(0, 50), st.integers(-3, 2**62), st.just(2**63 - 1))
            for name in ("a", "b", "c", "batch")
        }
    ),
    results=st.integers(1, len(_RESULTS)),
)
def test_planner_matches_make_plan(values: dict[str, int], results: int) -> None:
    """On random bindings the generated planner gives make_plan's plan, or its
    exact error (negative symbols, zero divisors, overflows, negative sizes)."""
    dtypes = [np.dtype(np.float32), None, np.dtype(np.int8), np.dtype(np.float64)][:results]
    chosen = _RESULTS[:results]
    planner = Planner("f", chosen, dtypes, _BUFFERS)
    assert planner._generated is not None
    expected = _plan_outcome(lambda b: make_plan("f", chosen, dtypes, b, _BUFFERS), values)
    assert _plan_outcome(planner, values) == expected


def test_planner_source_computes_shared_nodes_once() -> None:
    """A subexpression several sizes share is one statement of the generated code."""
    code = SizeCode()
    first = code.value(parse_expr("a * b + 1"))
    second = code.value(parse_expr("(a * b) floordiv 2"))
    assert first != second
    assert sum(line.startswith("t") and "s0 ** 1 * s1 ** 1" in line for line in code.lines) == 1
