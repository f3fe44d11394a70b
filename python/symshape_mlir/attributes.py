"""Reading symshape attributes from IR without going through text.

The C++ dialect exposes its attributes through the C API; :func:`decode`
turns them into plain Python trees:

* an expression (``#symshape.expr<batch * 2>``) becomes nested tuples,
  ``("mul", ("sym", "batch"), ("const", 2))``, whose leaves are
  ``("const", v)``, ``("sym", name)``, ``("dim", operand, axis)`` and
  ``("scalar", operand, semantics)``;
* an extent (``#symshape.extent<ub(n)>``) becomes ``(guarantee, tree)`` with
  guarantee ``"exact"``, ``"ub"`` or ``"unknown"`` (tree ``None``);
* a shape (``#symshape.shape<[batch, ?]>``) becomes a list of extents.

:func:`format_tree` prints a tree in the dialect's syntax (as the C++
printer does), for diagnostics and runtime check messages.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mlir import ir

from symshape_mlir import _symshape
from symshape_mlir import extent as ex
from symshape_mlir.extent.expr import INT64_MAX, INT64_MIN
from symshape_mlir.extent.guarantee import UNKNOWN, Exact, ShapeExtent, UpperBound
from symshape_mlir.extent.parse import multiply_balanced

__all__ = [
    "BINARY_KINDS",
    "DecodedExtent",
    "ExprTree",
    "ExtentRangeError",
    "decode",
    "decode_shape",
    "enum_name",
    "expr_from_tree",
    "extent_attr",
    "extent_from_decoded",
    "format_tree",
    "shape_attr",
    "shape_from_attr",
]

ExprTree = tuple[Any, ...]
DecodedExtent = tuple[str, ExprTree | None]

BINARY_KINDS = frozenset(
    {"add", "sub", "mul", "floordiv", "ceildiv", "mod", "min", "max"}
)

_INFIX = {"add": "+", "sub": "-", "mul": "*", "floordiv": "floordiv",
          "ceildiv": "ceildiv", "mod": "mod"}
_PRECEDENCE = {"add": 1, "sub": 1, "mul": 2, "floordiv": 2, "ceildiv": 2, "mod": 2}


def decode(attr: ir.Attribute) -> Any:
    """Decodes a ``#symshape.expr``, ``.extent`` or ``.shape`` attribute.

    Raises:
        TypeError: for any other attribute.
    """
    return _symshape.decode(attr)


def decode_shape(attr: ir.Attribute) -> list[DecodedExtent]:
    """Decodes a ``#symshape.shape`` attribute into ``(guarantee, tree)`` pairs."""
    decoded = _symshape.decode(attr)
    if not isinstance(decoded, list):
        raise TypeError(f"expected a #symshape.shape attribute, got {attr}")
    return decoded


def enum_name(attr: ir.Attribute) -> str:
    """The case of a symshape enum attribute (``#symshape<semantics index>`` -> ``index``)."""
    return str(attr).split()[-1].rstrip(">")


def format_tree(tree: ExprTree) -> str:
    """Prints an expression tree in the dialect's syntax (iteratively: trees may be deep).

    >>> format_tree(("sub", ("sym", "a"), ("sub", ("sym", "b"), ("const", 1))))
    'a - (b - 1)'
    """
    out: list[str] = []
    # Work items: text to emit, or (tree, parent precedence, is a right operand).
    work: list[str | tuple[ExprTree, int, bool]] = [(tree, 0, False)]
    while work:
        item = work.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        node, parent, right = item
        kind = node[0]
        if kind in ("const", "sym"):
            out.append(str(node[1]))
        elif kind in ("dim", "scalar"):
            out.append(f"{kind}({node[1]}, {node[2]})")
        elif kind in ("min", "max"):
            work += [")", (node[2], 0, False), ", ", (node[1], 0, False), f"{kind}("]
        else:
            prec = _PRECEDENCE[kind]
            parens = prec < parent or (prec == parent and right)
            work += [")" if parens else "", (node[2], prec, True), f" {_INFIX[kind]} ",
                     (node[1], prec, False), "(" if parens else ""]
    return "".join(out)


_BUILDERS: dict[str, Callable[[ex.Expr, ex.Expr], ex.Expr]] = {
    "add": ex.add, "sub": ex.sub, "mul": ex.mul, "floordiv": ex.floordiv,
    "ceildiv": ex.ceildiv, "mod": ex.mod, "min": ex.minimum, "max": ex.maximum,
}


_SUMS = frozenset({"add", "sub"})


def expr_from_tree(tree: ExprTree) -> ex.Expr:
    """The canonical algebra expression of a decoded tree.

    Iterative, and linear in the size of the tree: the C++ parser builds
    ``a + b + ...`` as a left-deep chain, so a long sum or product is a deep
    tree. Each chain of one operator (``+``/``-`` together) is combined in
    one step.
    """
    results: list[ex.Expr] = []
    # Work items: a tree to read, or (None, kind, signs) to combine the last
    # len(signs) results of a chain.
    work: list[tuple[Any, ...]] = [tree]
    while work:
        item = work.pop()
        kind = item[0]
        if kind is None:
            _, kind, subtracted = item
            operands = results[len(results) - len(subtracted) :]
            del results[len(results) - len(subtracted) :]
            results.append(_combine(kind, operands, subtracted))
        elif kind in _BUILDERS:
            family = _SUMS if kind in _SUMS else frozenset({kind})
            rights: list[ExprTree] = []
            signs: list[bool] = []
            node = item
            while node[0] in family:
                rights.append(node[2])
                signs.append(node[0] == "sub")
                node = node[1]
            signs.append(False)
            signs.reverse()
            work.append((None, kind, signs))
            work.extend(rights)  # popped last-first: the leftmost operand is read first
            work.append(node)
        else:
            results.append(_leaf(item))
    return results[0]


def _leaf(tree: ExprTree) -> ex.Expr:
    kind = tree[0]
    if kind == "const":
        return ex.Const(tree[1])
    if kind == "sym":
        return ex.Sym(tree[1])
    if kind == "dim":
        return ex.InputAxis(tree[1], tree[2])
    return ex.RuntimeScalar(tree[1], tree[2])


def _combine(kind: str, operands: list[ex.Expr], signs: list[bool]) -> ex.Expr:
    """Combines the operands of a chain of ``kind`` (``signs`` marks subtracted terms)."""
    if kind in _SUMS:
        return ex.add(*(ex.neg(o) if s else o for o, s in zip(operands, signs, strict=True)))
    if kind == "mul":
        return multiply_balanced(operands)
    result = operands[0]
    for operand in operands[1:]:
        result = _BUILDERS[kind](result, operand)
    return result


def extent_from_decoded(decoded: DecodedExtent) -> ShapeExtent:
    """The :class:`ShapeExtent` of a decoded ``(guarantee, tree)`` pair."""
    guarantee, tree = decoded
    if tree is None:
        return UNKNOWN
    expr = expr_from_tree(tree)
    return Exact(expr) if guarantee == "exact" else UpperBound(expr)


_SHAPE_CACHE: dict[ir.Attribute, tuple[ShapeExtent, ...]] = {}


def shape_from_attr(attr: ir.Attribute) -> tuple[ShapeExtent, ...]:
    """The extents of a ``#symshape.shape`` attribute (cached per attribute)."""
    shape = _SHAPE_CACHE.get(attr)
    if shape is None:
        shape = tuple(extent_from_decoded(d) for d in decode_shape(attr))
        if len(_SHAPE_CACHE) > 65536:
            _SHAPE_CACHE.clear()
        _SHAPE_CACHE[attr] = shape
    return shape


class ExtentRangeError(ValueError):
    """An extent holds an integer the dialect cannot represent (beyond int64)."""


_INTEGER = re.compile(r"(-?)(\d+)")


def _in_range(text: str) -> str:
    """``text`` if every integer in it fits in int64.

    Raises:
        ExtentRangeError: naming the first one that does not.
    """
    for sign, digits in _INTEGER.findall(text):
        value = int(digits)
        if value > INT64_MAX and not (sign and value == -INT64_MIN):
            raise ExtentRangeError(f"the extent '{text}' holds {sign}{digits}, beyond the "
                                   "int64 range")
    return text


def shape_attr(
    extents: tuple[ShapeExtent, ...] | list[ShapeExtent], context: ir.Context
) -> ir.Attribute:
    """``#symshape.shape<[...]>`` in ``context``.

    Raises:
        ExtentRangeError: an extent holds an integer beyond int64.
    """
    text = ", ".join(_in_range(str(e)) for e in extents)
    return _parse_cached("#symshape.shape<[" + text + "]>", context)


def extent_attr(extent: ShapeExtent, context: ir.Context) -> ir.Attribute:
    """``#symshape.extent<...>`` in ``context``.

    Raises:
        ExtentRangeError: the extent holds an integer beyond int64.
    """
    return _parse_cached(f"#symshape.extent<{_in_range(str(extent))}>", context)


def _parse_cached(text: str, context: ir.Context) -> ir.Attribute:
    key = (context, text)
    attr = _TEXT_CACHE.get(key)
    if attr is None:
        attr = ir.Attribute.parse(text, context=context)
        if len(_TEXT_CACHE) > 65536:
            _TEXT_CACHE.clear()
        _TEXT_CACHE[key] = attr
    return attr


_TEXT_CACHE: dict[tuple[ir.Context, str], ir.Attribute] = {}
