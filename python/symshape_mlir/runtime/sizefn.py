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
from typing import Any

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

__all__ = ["FastPathMiss", "SizeCode", "SizeFn", "compile_size"]

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


class FastPathMiss(Exception):
    """Raised by generated size code where the checked closures must decide:
    a negative symbol, a value beyond int64, a negative result size."""


class SizeCode:
    """Straight-line Python source for many size expressions at once.

    A plan evaluates a function's result and buffer sizes on every new
    binding; as closures that is one call per node, and the cost of a
    Level 2 miss. `SizeCode` emits one statement per distinct node
    (expressions are hash-consed, so a subexpression shared by several
    sizes is computed once) with the same int64 checks, into one function
    body. The generated code only decides the common case: anything
    unusual (a missing or negative symbol, an overflow, a zero divisor)
    raises, and the caller reruns the closures of `compile_size`, which
    raise the exact error::

        >>> code = SizeCode()
        >>> code.value(parse_expr("batch * 64 + 2"))
        't1'
        >>> code.lines      # (int64 limits shortened)
        ["s0 = b['batch']", 'if s0 < 0: raise _Miss',
         't1 = 2 + 64 * s0', 'if not -9223... <= t1 <= 9223...: raise _Miss']
    """

    def __init__(self) -> None:
        """Starts an empty body; its bindings argument is named ``b``."""
        self.lines: list[str] = []
        self._names: dict[Expr, str] = {}

    def value(self, expr: Expr) -> str:
        """Emits the statements computing ``expr``; returns its Python text.

        Raises:
            TypeError: ``expr`` has an op-local leaf (``dim``, ``scalar``).
        """
        done = self._names.get(expr)
        if done is not None:
            return done
        if isinstance(expr, Const):
            return repr(expr.value)
        if isinstance(expr, Sym):
            name = f"s{len(self._names)}"
            self.lines += [f"{name} = b[{expr.name!r}]", f"if {name} < 0: raise _Miss"]
        else:
            operation = self._operation(expr)  # names the operands first
            name = f"t{len(self._names)}"
            self.lines.append(f"{name} = {operation}")
            self.lines.append(f"if not {_INT64_MIN} <= {name} <= {_INT64_MAX}: raise _Miss")
        self._names[expr] = name
        return name

    def _operation(self, expr: Expr) -> str:
        if isinstance(expr, Sum):
            return " + ".join(
                [repr(expr.const)] + [f"{coef} * {self.value(t)}" for t, coef in expr.terms]
            )
        if isinstance(expr, Prod):
            return " * ".join(f"{self.value(f)} ** {exp}" for f, exp in expr.factors)
        if isinstance(expr, (FloorDiv, CeilDiv, Mod)):
            num, den = self.value(expr.num), self.value(expr.den)
            if isinstance(expr, FloorDiv):
                return f"{num} // {den}"
            if isinstance(expr, CeilDiv):
                return f"-((-{num}) // {den})"
            return f"{num} % {den}"
        if isinstance(expr, (Min, Max)):
            pick = "min" if isinstance(expr, Min) else "max"
            return f"{pick}({', '.join(self.value(a) for a in expr.args)})"
        raise TypeError(f"no host code for size '{expr}'")

    def function(self, returned: str) -> Callable[[Mapping[str, int]], Any]:
        """Compiles the body into ``f(b)`` returning the Python text ``returned``."""
        source = "\n    ".join(["def generated(b):", *self.lines, f"return {returned}"])
        scope: dict[str, Any] = {"_Miss": FastPathMiss}
        exec(compile(source, "<symshape plan>", "exec"), scope)
        return scope["generated"]  # type: ignore[no-any-return]
