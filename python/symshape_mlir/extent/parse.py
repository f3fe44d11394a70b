"""Reading the text syntax of expressions, extents and shapes.

The syntax is shared with the dialect's attributes (``#symshape.expr<...>``,
``#symshape.extent<...>``, ``#symshape.shape<...>``)::

    expr   := term (('+' | '-') term)*
    term   := factor (('*' | 'floordiv' | 'ceildiv' | 'mod') factor)*
    factor := INT | '-' factor | IDENT
            | 'min' '(' expr ',' expr ')' | 'max' '(' expr ',' expr ')'
            | 'dim' '(' INT ',' INT ')'
            | 'scalar' '(' INT ',' ('index' | 'clamp_nonneg' | 'truncate_size') ')'
            | '(' expr ')'
    extent := expr | 'ub' '(' expr ')' | '?'
    shape  := '[' (extent (',' extent)*)? ']'

``//`` and ``%`` are also read as ``floordiv`` and ``mod`` (``str`` never
prints them: ``//`` starts a comment in MLIR text). Both binary levels are
left-associative.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from symshape_mlir.extent.canon import add, ceildiv, floordiv, maximum, minimum, mod, mul, neg, sub
from symshape_mlir.extent.errors import ExtentSyntaxError
from symshape_mlir.extent.expr import (
    RESERVED_WORDS,
    SEMANTICS,
    Const,
    Expr,
    ExprLike,
    InputAxis,
    RuntimeScalar,
    Sym,
)
from symshape_mlir.extent.guarantee import UNKNOWN, Exact, ShapeExtent, UpperBound

__all__ = ["format_shape", "parse_expr", "parse_extent", "parse_shape"]

_TOKEN: Final = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(//|[-+*%(),?\[\]]))")

_MUL_OPS: Final[dict[str | None, Callable[[ExprLike, ExprLike], Expr]]] = {
    "*": mul,
    "floordiv": floordiv,
    "//": floordiv,
    "ceildiv": ceildiv,
    "mod": mod,
    "%": mod,
}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []  # (kind, value, offset)
        pos = 0
        while True:
            match = _TOKEN.match(text, pos)
            if match is None:
                rest = len(text) - len(text[pos:].lstrip())
                if rest == len(text):
                    break
                raise ExtentSyntaxError(f"unexpected character {text[rest]!r}", text, rest)
            start = match.start(match.lastindex or 0)
            kind = ("int", "ident", "punct")[(match.lastindex or 1) - 1]
            self.tokens.append((kind, match.group(match.lastindex or 0), start))
            pos = match.end()
        self.index = 0

    # -- token helpers ----------------------------------------------------------------------

    def peek(self) -> str | None:
        return self.tokens[self.index][1] if self.index < len(self.tokens) else None

    def offset(self) -> int:
        return self.tokens[self.index][2] if self.index < len(self.tokens) else len(self.text)

    def fail(self, message: str) -> ExtentSyntaxError:
        found = self.peek()
        described = "end of input" if found is None else repr(found)
        return ExtentSyntaxError(f"{message}, found {described}", self.text, self.offset())

    def take(self) -> tuple[str, str, int]:
        if self.index >= len(self.tokens):
            raise self.fail("unexpected end of input")
        token = self.tokens[self.index]
        self.index += 1
        return token

    def expect(self, value: str) -> None:
        if self.peek() != value:
            raise self.fail(f"expected {value!r}")
        self.index += 1

    def integer(self) -> int:
        if self.index >= len(self.tokens) or self.tokens[self.index][0] != "int":
            raise self.fail("expected a non-negative integer")
        return int(self.take()[1])

    def finish(self) -> None:
        if self.index != len(self.tokens):
            raise self.fail("unexpected trailing input")

    # -- grammar ----------------------------------------------------------------------------

    def expr(self) -> Expr:
        result = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()[1]
            rhs = self.term()
            result = add(result, rhs) if op == "+" else sub(result, rhs)
        return result

    def term(self) -> Expr:
        result = self.factor()
        while (op := self.peek()) in _MUL_OPS:
            self.index += 1
            result = _MUL_OPS[op](result, self.factor())
        return result

    def factor(self) -> Expr:
        kind, value, _ = self.take()
        if kind == "int":
            return Const(int(value))
        if value == "-":
            return neg(self.factor())
        if value == "(":
            inner = self.expr()
            self.expect(")")
            return inner
        if kind != "ident":
            self.index -= 1
            raise self.fail("expected an expression")
        if value in ("min", "max"):
            self.expect("(")
            lhs = self.expr()
            self.expect(",")
            rhs = self.expr()
            self.expect(")")
            return minimum(lhs, rhs) if value == "min" else maximum(lhs, rhs)
        if value == "dim":
            self.expect("(")
            operand = self.integer()
            self.expect(",")
            axis = self.integer()
            self.expect(")")
            return InputAxis(operand, axis)
        if value == "scalar":
            self.expect("(")
            operand = self.integer()
            self.expect(",")
            if self.peek() not in SEMANTICS:
                raise self.fail(f"expected a scalar semantics ({', '.join(SEMANTICS)})")
            semantics = self.take()[1]
            self.expect(")")
            return RuntimeScalar(operand, semantics)
        if value in RESERVED_WORDS:
            self.index -= 1
            raise self.fail(f"'{value}' is a reserved word")
        return Sym(value)

    def extent(self) -> ShapeExtent:
        if self.peek() == "?":
            self.index += 1
            return UNKNOWN
        if self.peek() == "ub":
            self.index += 1
            self.expect("(")
            bound = self.expr()
            self.expect(")")
            return UpperBound(bound)
        return Exact(self.expr())

    def shape(self) -> tuple[ShapeExtent, ...]:
        self.expect("[")
        extents: list[ShapeExtent] = []
        if self.peek() != "]":
            extents.append(self.extent())
            while self.peek() == ",":
                self.index += 1
                extents.append(self.extent())
        self.expect("]")
        return tuple(extents)


def parse_expr(text: str) -> Expr:
    """Reads an expression (``min(n, batch) * 2 + seq // 4 - 1``).

    Raises:
        ExtentSyntaxError: the text is not an expression (names the offset).
    """
    parser = _Parser(text)
    result = parser.expr()
    parser.finish()
    return result


def parse_extent(text: str) -> ShapeExtent:
    """Reads an extent: ``expr`` (exact), ``ub(expr)`` (upper bound) or ``?``.

    Raises:
        ExtentSyntaxError: the text is not an extent.
    """
    parser = _Parser(text)
    result = parser.extent()
    parser.finish()
    return result


def parse_shape(text: str) -> tuple[ShapeExtent, ...]:
    """Reads a shape: ``[extent, ...]`` (``[]`` is rank 0).

    Raises:
        ExtentSyntaxError: the text is not a shape.
    """
    parser = _Parser(text)
    result = parser.shape()
    parser.finish()
    return result


def format_shape(extents: tuple[ShapeExtent, ...] | list[ShapeExtent]) -> str:
    """Prints extents in the shape syntax that :func:`parse_shape` reads."""
    return "[" + ", ".join(str(e) for e in extents) + "]"
