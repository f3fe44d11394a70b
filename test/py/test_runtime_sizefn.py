"""Compiled size closures agree with `Expr.evaluate`, errors included."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symshape_mlir.extent import EvaluationError, parse_expr
from symshape_mlir.runtime.sizefn import compile_size

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
