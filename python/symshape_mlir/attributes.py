"""Reading and building symshape attributes without going through text.

The C++ dialect exposes its attributes through the C API; :func:`decode`
turns them into plain Python trees, and :func:`shape_attr` /
:func:`extent_attr` build them from the algebra's extents through the same
tree form (:func:`tree_from_expr`):

* an expression (``#symshape.expr<batch * 2>``) becomes nested tuples,
  ``("mul", ("sym", "batch"), ("const", 2))``, whose leaves are
  ``("const", v)``, ``("sym", name)``, ``("dim", operand, axis)`` and
  ``("scalar", operand, semantics)``;
* an extent (``#symshape.extent<ub(n)>``) becomes ``(guarantee, tree)`` with
  guarantee ``"exact"``, ``"ub"`` or ``"unknown"`` (tree ``None``);
* a shape (``#symshape.shape<[batch, ?]>``) becomes a list of extents.

:func:`format_tree` prints a tree with the dialect's own printer, for
diagnostics and runtime check messages.

.. code-block:: python

    shape_attr([Exact(Sym("batch") * 2), UNKNOWN], context)
    # #symshape.shape<[batch * 2, ?]>, the attribute its text parses to
"""

from __future__ import annotations

from typing import Any

from mlir import ir

from symshape_mlir import _symshape
from symshape_mlir import extent as ex
from symshape_mlir.extent.expr import INT64_MAX, INT64_MIN, prints_as_atom
from symshape_mlir.extent.guarantee import Exact, ShapeExtent, UpperBound
from symshape_mlir.extent.tree import (
    DecodedExtent,
    ExprTree,
    expr_from_tree,
    extent_from_decoded,
)

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
    "kind_of",
    "mentions_symshape",
    "reassociation",
    "shape_attr",
    "shape_from_attr",
    "tree_from_expr",
]

BINARY_KINDS = frozenset(
    {"add", "sub", "mul", "floordiv", "ceildiv", "mod", "min", "max"}
)


def reassociation(groups: list[list[int]]) -> ir.ArrayAttr:
    """The ``reassociation`` attribute of a ``tensor.expand_shape`` or
    ``tensor.collapse_shape`` grouping axes as ``groups`` (``[[0, 1], [2]]``)."""
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, a) for a in group])
                             for group in groups])


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


def kind_of(attr: ir.Attribute) -> str | None:
    """Which symshape attribute ``attr`` is, read through the C API: ``"expr"``,
    ``"extent"``, ``"shape"`` (``#symshape.shape<[batch, ?]>``), ``"semantics"``
    or ``"stage"`` (``#symshape<stage exact>``); ``None`` for any other."""
    return _symshape.kind_of(attr)


def mentions_symshape(attr: ir.Attribute) -> bool:
    """Whether ``attr`` or an attribute nested in it (``[#symshape.extent<?>]``,
    a dictionary value) belongs to the symshape dialect."""
    return _symshape.mentions_symshape(attr)


def enum_name(attr: ir.Attribute) -> str:
    """The case of a symshape enum attribute (``#symshape<semantics index>`` -> ``index``).

    Raises:
        TypeError: for any other attribute.
    """
    return _symshape.enum_name(attr)


def format_tree(tree: ExprTree, context: ir.Context) -> str:
    """Prints an expression tree in the dialect's syntax, with the dialect's printer.

    >>> format_tree(("sub", ("sym", "a"), ("sub", ("sym", "b"), ("const", 1))), context)
    'a - (b - 1)'
    """
    return _symshape.print_body(_symshape.build_expr(tree, context))


_DIVISIONS: dict[type[ex.Expr], str] = {
    ex.FloorDiv: "floordiv", ex.CeilDiv: "ceildiv", ex.Mod: "mod",
}
_EXTREMA: dict[type[ex.Expr], str] = {ex.Min: "min", ex.Max: "max"}


def tree_from_expr(expr: ex.Expr) -> ExprTree:
    """The tree the dialect's parser builds from ``str(expr)``, without the text.

    The attribute :func:`symshape_mlir._symshape.build_expr` makes of it is
    the one ``#symshape.expr<...>`` of the printed expression parses to
    (the same uniqued attribute), so the tree follows the printer: a sum in
    printing order as a left-deep chain of ``add``/``sub``, a coefficient as
    the leading factor of a product chain (``3 * a * b`` is
    ``(3 * a) * b``), a leading ``-1`` as unary minus, which the parser reads
    as ``0 - x`` (or folds into a constant), and a subtracted constant as
    ``sub`` of its magnitude.

    >>> from symshape_mlir.extent import Sym
    >>> tree_from_expr(2 - Sym("a"))
    ('add', ('sub', ('const', 0), ('sym', 'a')), ('const', 2))

    Integers are not range-checked here (:func:`extent_attr` does it).
    """
    return _tree(expr, {})


def _tree(node: ex.Expr, memo: dict[ex.Expr, ExprTree]) -> ExprTree:
    tree = memo.get(node)
    if tree is None:
        tree = memo[node] = _node_tree(node, memo)
    return tree


def _node_tree(node: ex.Expr, memo: dict[ex.Expr, ExprTree]) -> ExprTree:
    if isinstance(node, ex.Const):
        return ("const", node.value)
    if isinstance(node, ex.Sym):
        return ("sym", node.name)
    if isinstance(node, ex.InputAxis):
        return ("dim", node.operand, node.axis)
    if isinstance(node, ex.RuntimeScalar):
        return ("scalar", node.operand, node.semantics)
    if isinstance(node, ex.Sum):
        return _sum_tree(node, memo)
    if isinstance(node, ex.Prod):
        return _product(_factor_trees(node, memo))
    division = _DIVISIONS.get(type(node))
    if division is not None:
        num, den = node.children
        return (division, _tree(num, memo), _tree(den, memo))
    word = _EXTREMA[type(node)]
    args = node.children
    tree = _tree(args[0], memo)
    for arg in args[1:]:
        tree = (word, tree, _tree(arg, memo))
    return tree


def _sum_tree(node: ex.Sum, memo: dict[ex.Expr, ExprTree]) -> ExprTree:
    terms = node.printed_terms()
    term, coef = terms[0]
    if coef == 1:
        tree = _tree(term, memo)
    elif coef == -1:
        factors = _atom_led_factors(term, memo)
        tree = (_negated(_tree(term, memo)) if factors is None
                else _product([_negated(factors[0]), *factors[1:]]))
    else:
        tree = _scaled(coef, term, memo)
    for term, coef in terms[1:]:
        body = _tree(term, memo) if abs(coef) == 1 else _scaled(abs(coef), term, memo)
        tree = ("add" if coef > 0 else "sub", tree, body)
    if node.const > 0:
        tree = ("add", tree, ("const", node.const))
    elif node.const < 0:
        tree = ("sub", tree, ("const", -node.const))
    return tree


def _factor_trees(node: ex.Prod, memo: dict[ex.Expr, ExprTree]) -> list[ExprTree]:
    return [_tree(f, memo) for f, e in node.factors for _ in range(e)]


def _atom_led_factors(term: ex.Expr, memo: dict[ex.Expr, ExprTree]) -> list[ExprTree] | None:
    """The factors of a product printed unparenthesized after ``k *`` or a unary
    minus (its first factor is an atom), else ``None`` (one operand)."""
    if isinstance(term, ex.Prod) and prints_as_atom(term.factors[0][0]):
        return _factor_trees(term, memo)
    return None


def _scaled(coef: int, term: ex.Expr, memo: dict[ex.Expr, ExprTree]) -> ExprTree:
    """``coef * term`` as printed: the coefficient leads the product chain."""
    factors = _atom_led_factors(term, memo)
    if factors is None:
        return ("mul", ("const", coef), _tree(term, memo))
    return _product([("const", coef), *factors])


def _product(factors: list[ExprTree]) -> ExprTree:
    tree = factors[0]
    for factor in factors[1:]:
        tree = ("mul", tree, factor)
    return tree


def _negated(tree: ExprTree) -> ExprTree:
    """Unary minus as the parser reads it: a folded constant, else ``0 - x``."""
    if tree[0] == "const" and tree[1] != INT64_MIN:
        return ("const", -tree[1])
    return ("sub", ("const", 0), tree)


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
    """An extent the dialect cannot represent: an integer beyond int64, or an
    expression beyond its syntax's size limits."""


def shape_attr(
    extents: tuple[ShapeExtent, ...] | list[ShapeExtent], context: ir.Context
) -> ir.Attribute:
    """``#symshape.shape<[...]>`` in ``context``, built through the C API.

    It is the attribute that parsing the extents' text gives:
    ``[Exact(batch * 2), UNKNOWN]`` builds ``#symshape.shape<[batch * 2, ?]>``.

    Raises:
        ExtentRangeError: an extent holds an integer beyond int64, or is too
            large for the dialect's syntax (more than 10,000 infix operators,
            or nesting deeper than 256).
    """
    decoded = [_decoded(e) for e in extents]
    try:
        return _symshape.build_shape(decoded, context)
    except _symshape.ExprLimitError as error:
        raise ExtentRangeError(f"a shape is too large for an attribute: {error}") from None


def extent_attr(extent: ShapeExtent, context: ir.Context) -> ir.Attribute:
    """``#symshape.extent<...>`` in ``context``, built through the C API.

    ``UpperBound(seq floordiv 4)`` builds ``#symshape.extent<ub(seq floordiv 4)>``.

    Raises:
        ExtentRangeError: the extent holds an integer beyond int64, or is too
            large for the dialect's syntax.
    """
    decoded = _decoded(extent)
    try:
        return _symshape.build_extent(decoded, context)
    except _symshape.ExprLimitError as error:
        raise ExtentRangeError(f"an extent is too large for an attribute: {error}") from None


def _decoded(extent: ShapeExtent) -> DecodedExtent:
    """The ``(guarantee, tree)`` pair of ``extent``, its integers checked against int64."""
    if isinstance(extent, Exact):
        guarantee = "exact"
    elif isinstance(extent, UpperBound):
        guarantee = "ub"
    else:
        return ("unknown", None)
    tree = tree_from_expr(extent.expr)
    _check_range(tree, extent)
    return (guarantee, tree)


def _check_range(tree: ExprTree, extent: ShapeExtent) -> None:
    """Raises :class:`ExtentRangeError` naming the first integer of ``tree`` (in
    text order) beyond int64."""
    stack = [tree]
    while stack:
        node = stack.pop()
        kind = node[0]
        if kind in BINARY_KINDS:
            stack += (node[2], node[1])
        elif kind != "sym":
            for value in node[1:3]:
                if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
                    raise ExtentRangeError(
                        f"the extent '{extent}' holds {value}, beyond the int64 range")
