"""Result size expressions compiled to Python closures, for Level 2 plans.

`Expr.evaluate` is general (op-local leaves, sources given as callables) and
costs tens of microseconds per call; a plan evaluates only function-level
symbols, so each captured expression is compiled once into nested closures
with the same semantics: Python integers, every node checked against the
int64 range, a zero divisor and a negative symbol raise the errors of
`symshape_mlir.extent`::

    >>> size = compile_size(parse_expr("batch * 10 + 2"))
    >>> size({"batch": 3})
    32
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from symshape_mlir.extent.errors import (
    DivisionByZeroError,
    ExtentOverflowError,
    MissingBindingError,
    RangeViolationError,
)
from symshape_mlir.extent.expr import (
    CeilDiv,
    Const,
    Expr,
    FloorDiv,
    Max,
    Min,
    Mod,
    Prod,
    Sum,
    Sym,
)

__all__ = ["SizeFn", "compile_size"]

logger = logging.getLogger(__name__)

SizeFn = Callable[[Mapping[str, int]], int]
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _checked(node: Expr, inner: SizeFn) -> SizeFn:
    def run(bindings: Mapping[str, int]) -> int:
        value = inner(bindings)
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise ExtentOverflowError(str(node), value)
        return value

    return run


def _symbol(node: Sym, root: Expr) -> SizeFn:
    name = node.name

    def run(bindings: Mapping[str, int]) -> int:
        try:
            value = bindings[name]
        except KeyError:
            raise MissingBindingError(name, str(root)) from None
        if value < 0:
            raise RangeViolationError(name, value, 0, None)
        return value

    return run


def _build(node: Expr, root: Expr) -> SizeFn:
    if isinstance(node, Const):
        value = node.value
        return lambda bindings: value
    if isinstance(node, Sym):
        return _checked(node, _symbol(node, root))
    if isinstance(node, Sum):
        const = node.const
        terms = tuple((_build(term, root), coef) for term, coef in node.terms)

        def total(bindings: Mapping[str, int]) -> int:
            value = const
            for term, coef in terms:
                value += coef * term(bindings)
            return value

        return _checked(node, total)
    if isinstance(node, Prod):
        factors = tuple((_build(factor, root), exp) for factor, exp in node.factors)

        def product(bindings: Mapping[str, int]) -> int:
            value = 1
            for factor, exp in factors:
                value *= factor(bindings) ** exp
            return value

        return _checked(node, product)
    if isinstance(node, (FloorDiv, CeilDiv, Mod)):
        num, den = _build(node.num, root), _build(node.den, root)
        text = str(node)
        kind = type(node)

        def divide(bindings: Mapping[str, int]) -> int:
            n, d = num(bindings), den(bindings)
            if d == 0:
                raise DivisionByZeroError(text)
            if kind is FloorDiv:
                return n // d
            if kind is CeilDiv:
                return -((-n) // d)
            return n % d

        return _checked(node, divide)
    if isinstance(node, (Min, Max)):
        args = tuple(_build(arg, root) for arg in node.args)
        pick = min if isinstance(node, Min) else max
        return _checked(node, lambda bindings: pick(arg(bindings) for arg in args))
    # Op-local leaves never reach a captured size; keep the general evaluator.
    return lambda bindings: node.evaluate(bindings)


def compile_size(expr: Expr) -> SizeFn:
    """Compiles ``expr`` (over named and fresh symbols) into a closure of the bindings."""
    return _build(expr, expr)
