"""Reading the text syntax of expressions, extents and shapes.

The syntax is the dialect's (``#symshape.expr<...>``, ``#symshape.extent<...>``,
``#symshape.shape<...>``), and this reader accepts exactly the language the
C++ attribute parser accepts::

    expr   := term (('+' | '-') term)*
    term   := factor (('*' | 'floordiv' | 'ceildiv' | 'mod') factor)*
    factor := INT | '-' factor | IDENT
            | 'min' '(' expr ',' expr ')' | 'max' '(' expr ',' expr ')'
            | 'dim' '(' INT ',' INT ')'
            | 'scalar' '(' INT ',' ('index' | 'clamp_nonneg' | 'truncate_size') ')'
            | '(' expr ')'
    extent := expr | 'ub' '(' expr ')' | '?'
    shape  := '[' (extent (',' extent)*)? ']'

``INT`` is ASCII decimal digits within int64 (``-9223372036854775808`` reads
because its literal follows a unary minus); ``IDENT`` is an ASCII identifier
other than a reserved word; whitespace is space, tab, CR and LF. ``//``
(an MLIR comment) and ``%`` are not operators. Both binary levels are
left-associative. Parentheses, ``min(``/``max(`` and unary minus nest at most
:data:`MAX_NESTING` levels deep, and one expression has at most
:data:`MAX_OPERATORS` infix operators.

The reader is iterative and linear in the length of the text (products of
many factors are multiplied as a balanced tree), so no input exhausts the
Python stack.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from symshape_mlir.extent.canon import add, ceildiv, floordiv, maximum, minimum, mod, mul, neg
from symshape_mlir.extent.errors import ExtentSyntaxError
from symshape_mlir.extent.expr import (
    INT64_MAX,
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

__all__ = [
    "MAX_NESTING",
    "MAX_OPERATORS",
    "format_shape",
    "multiply_balanced",
    "parse_expr",
    "parse_extent",
    "parse_shape",
]

MAX_NESTING: Final = 256
"""How deeply parentheses, ``min(``/``max(`` and unary minus may nest (as in C++)."""

MAX_OPERATORS: Final = 10000
"""How many infix operators one expression may have (as in C++, whose trees they deepen)."""

_TOKEN: Final = re.compile(
    r"[ \t\r\n]*(?:(0x[0-9a-fA-F]+|//)|([0-9]+)|([A-Za-z_][A-Za-z0-9_]*)|([-+*(),?\[\]]))"
)
_KINDS: Final = (None, "bad", "int", "ident", "punct")

_MUL_OPS: Final[dict[str | None, Callable[[ExprLike, ExprLike], Expr]]] = {
    "*": mul,
    "floordiv": floordiv,
    "ceildiv": ceildiv,
    "mod": mod,
}


def multiply_balanced(factors: list[Expr]) -> Expr:
    """The product of ``factors`` (at least one), multiplied as a balanced tree.

    A left fold rebuilds an ever larger monomial at every step (quadratic in
    the number of factors); the balanced tree does n log n work.
    """
    while len(factors) > 1:
        factors = [mul(*factors[i : i + 2]) for i in range(0, len(factors), 2)]
    return factors[0]


class _Frame:
    """An expression being read: the whole text, or the inside of ``(``, ``min(``, ``max(``."""

    __slots__ = ("first", "negations", "opener", "pending", "run", "subtract", "terms")

    def __init__(self, opener: str) -> None:
        self.opener = opener
        self.first: Expr | None = None  # the first argument of min/max, once read
        self.terms: list[Expr] = []  # the terms read so far, signs applied
        self.subtract = False  # whether the term being read is subtracted
        self.run: list[Expr] = []  # the factors of the term's current `*` run
        self.pending: str | None = None  # the operator before the next factor
        self.negations = 0  # unary minuses before the next factor

    def add_factor(self, factor: Expr) -> None:
        if self.pending is None or self.pending == "*":
            self.run.append(factor)
        else:
            self.run = [_MUL_OPS[self.pending](multiply_balanced(self.run), factor)]
        self.pending = None

    def end_term(self) -> None:
        term = multiply_balanced(self.run)
        self.terms.append(neg(term) if self.subtract else term)
        self.run = []

    def value(self) -> Expr:
        value = self.terms[0] if len(self.terms) == 1 else add(*self.terms)
        self.terms = []
        self.subtract = False
        return value


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []  # (kind, value, offset)
        pos = 0
        while True:
            match = _TOKEN.match(text, pos)
            if match is None:
                rest = len(text) - len(text[pos:].lstrip(" \t\r\n"))
                if rest == len(text):
                    break
                raise ExtentSyntaxError(f"unexpected character {text[rest]!r}", text, rest)
            group = match.lastindex or 0
            start = match.start(group)
            if _KINDS[group] == "bad":
                raise ExtentSyntaxError(
                    "'//' is not an operator (it starts a comment); write 'floordiv'"
                    if match.group(group) == "//"
                    else "expected a decimal integer, not a hexadecimal one",
                    text,
                    start,
                )
            self.tokens.append((str(_KINDS[group]), match.group(group), start))
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

    def literal(self, value: str, offset: int, limit: int = INT64_MAX) -> int:
        if int(value) > limit:
            raise ExtentSyntaxError("integer literal is out of the int64 range", self.text, offset)
        return int(value)

    def integer(self) -> int:
        if self.index >= len(self.tokens) or self.tokens[self.index][0] != "int":
            raise self.fail("expected a non-negative integer")
        _, value, offset = self.take()
        return self.literal(value, offset)

    def nest(self, depth: int) -> None:
        if depth > MAX_NESTING:
            raise ExtentSyntaxError(
                f"expression nests deeper than {MAX_NESTING} levels", self.text, self.offset()
            )

    def count_operator(self, operators: int) -> int:
        """Takes the infix operator that comes next; returns the new count."""
        if operators >= MAX_OPERATORS:
            raise ExtentSyntaxError(
                f"expression has more than {MAX_OPERATORS} operators", self.text, self.offset()
            )
        self.index += 1
        return operators + 1

    def finish(self) -> None:
        if self.index != len(self.tokens):
            raise self.fail("unexpected trailing input")

    # -- grammar ----------------------------------------------------------------------------

    def expr(self) -> Expr:
        """Reads an expression with an explicit stack of open constructs."""
        stack = [_Frame("")]
        depth = 0  # nesting of the next factor: open constructs and pending minuses
        operators = 0
        while True:
            frame = stack[-1]
            while self.peek() == "-":
                self.index += 1
                frame.negations += 1
                depth += 1
                self.nest(depth)
            kind, value, offset = self.take()
            if value == "(" or value in ("min", "max"):
                if value != "(":
                    self.expect("(")
                depth += 1
                self.nest(depth)
                stack.append(_Frame(value))
                continue
            factor = self.leaf(kind, value, offset, negated=frame.negations > 0)
            while True:  # close every construct that this factor completes
                frame = stack[-1]
                depth -= frame.negations
                for _ in range(frame.negations):
                    factor = neg(factor)
                frame.negations = 0
                frame.add_factor(factor)
                op = self.peek()
                if op in _MUL_OPS:
                    frame.pending = op
                    operators = self.count_operator(operators)
                    break
                frame.end_term()
                if op in ("+", "-"):
                    frame.subtract = op == "-"
                    operators = self.count_operator(operators)
                    break
                result = frame.value()
                if not frame.opener:
                    return result
                if frame.opener != "(" and frame.first is None:
                    self.expect(",")
                    frame.first = result
                    break
                self.expect(")")
                stack.pop()
                depth -= 1
                if frame.first is None:
                    factor = result
                elif frame.opener == "min":
                    factor = minimum(frame.first, result)
                else:
                    factor = maximum(frame.first, result)

    def leaf(self, kind: str, value: str, offset: int, negated: bool) -> Expr:
        """A factor that opens no nested expression (a negated literal may be 2**63)."""
        if kind == "int":
            return Const(self.literal(value, offset, INT64_MAX + negated))
        if kind != "ident":
            self.index -= 1
            raise self.fail("expected an expression")
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
    """Reads an expression (``min(n, batch) * 2 + seq floordiv 4 - 1``).

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
