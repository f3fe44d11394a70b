"""Reading the text syntax of expressions, extents and shapes, with the dialect's parser.

The syntax is the dialect's (``#symshape.expr<...>``, ``#symshape.extent<...>``,
``#symshape.shape<...>``), and it has one reader, the C++ attribute parser:
the text is parsed as an attribute's body in a context of the native
module's own, decoded as a tree (:mod:`~symshape_mlir.extent.tree`) and
built into the algebra::

    expr   := term (('+' | '-') term)*
    term   := factor (('*' | 'floordiv' | 'ceildiv' | 'mod') factor)*
    factor := INT | '-' factor | IDENT
            | 'min' '(' expr ',' expr ')' | 'max' '(' expr ',' expr ')'
            | 'dim' '(' INT ',' INT ')'
            | 'scalar' '(' INT ',' ('index' | 'clamp_nonneg' | 'truncate_size') ')'
            | '(' expr ')'
    extent := expr | 'ub' '(' expr ')' | '?'
    shape  := '[' (extent (',' extent)*)? ']'

``INT`` is decimal digits within int64; ``//`` (an MLIR comment) and ``%``
are not operators. Both binary levels are left-associative. Parentheses,
``min(``/``max(`` and unary minus nest at most 256 levels deep, and one
expression has at most 10,000 infix operators.

Example:
    >>> str(parse_expr("(batch + 1) * 2"))
    '2 * batch + 2'
"""

from __future__ import annotations

from typing import Any, Literal

from symshape_mlir import _symshape
from symshape_mlir.extent.errors import ExtentSyntaxError
from symshape_mlir.extent.expr import Expr
from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.extent.tree import expr_from_tree, extent_from_decoded

__all__ = ["format_shape", "parse_expr", "parse_extent", "parse_shape"]


def _read(kind: Literal["expr", "extent", "shape"], text: str) -> Any:
    """The decoded tree(s) of ``text``; raises :class:`ExtentSyntaxError` at
    the parser's first error (its byte offset turned into a character one)."""
    if not isinstance(text, str):
        raise TypeError(f"expected a str, got {type(text).__name__}")
    decoded, message, offset = _symshape.parse_body(kind, text)
    if message is not None:
        position = len(text.encode()[:offset].decode(errors="ignore"))
        if message == "unexpected character" and position < len(text):
            message = f"unexpected character {text[position]!r}"
        raise ExtentSyntaxError(message, text, position)
    return decoded


def parse_expr(text: str) -> Expr:
    """Reads an expression (``min(n, batch) * 2 + seq floordiv 4 - 1``).

    Raises:
        ExtentSyntaxError: the text is not an expression (names the offset).
    """
    return expr_from_tree(_read("expr", text))


def parse_extent(text: str) -> ShapeExtent:
    """Reads an extent: ``expr`` (exact), ``ub(expr)`` (upper bound) or ``?``.

    Raises:
        ExtentSyntaxError: the text is not an extent.
    """
    return extent_from_decoded(_read("extent", text))


def parse_shape(text: str) -> tuple[ShapeExtent, ...]:
    """Reads a shape: ``[extent, ...]`` (``[]`` is rank 0).

    Raises:
        ExtentSyntaxError: the text is not a shape.
    """
    return tuple(extent_from_decoded(d) for d in _read("shape", text))


def format_shape(extents: tuple[ShapeExtent, ...] | list[ShapeExtent]) -> str:
    """Prints extents in the shape syntax that :func:`parse_shape` reads."""
    return "[" + ", ".join(str(e) for e in extents) + "]"
