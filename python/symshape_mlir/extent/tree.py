"""Expression trees: the plain-tuple form of the dialect's attributes, read
into the algebra.

The C++ dialect's parser and its C API hand expressions over as nested
tuples, ``("mul", ("sym", "batch"), ("const", 2))`` for ``batch * 2``, whose
leaves are ``("const", v)``, ``("sym", name)``, ``("dim", operand, axis)``
and ``("scalar", operand, semantics)``; an extent is a ``(guarantee, tree)``
pair with guarantee ``"exact"``, ``"ub"`` or ``"unknown"`` (tree ``None``).

Example:
    >>> str(expr_from_tree(("mul", ("sym", "batch"), ("const", 2))))
    '2 * batch'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symshape_mlir.extent import canon
from symshape_mlir.extent.expr import Const, Expr, InputAxis, RuntimeScalar, Sym
from symshape_mlir.extent.guarantee import UNKNOWN, Exact, ShapeExtent, UpperBound

__all__ = [
    "DecodedExtent",
    "ExprTree",
    "expr_from_tree",
    "extent_from_decoded",
    "multiply_balanced",
]

ExprTree = tuple[Any, ...]
DecodedExtent = tuple[str, ExprTree | None]


def multiply_balanced(factors: list[Expr]) -> Expr:
    """The product of ``factors`` (at least one), multiplied as a balanced tree.

    A left fold rebuilds an ever larger monomial at every step (quadratic in
    the number of factors); the balanced tree does n log n work.
    """
    while len(factors) > 1:
        factors = [canon.mul(*factors[i : i + 2]) for i in range(0, len(factors), 2)]
    return factors[0]


_BUILDERS: dict[str, Callable[[Expr, Expr], Expr]] = {
    "add": canon.add, "sub": canon.sub, "mul": canon.mul, "floordiv": canon.floordiv,
    "ceildiv": canon.ceildiv, "mod": canon.mod, "min": canon.minimum, "max": canon.maximum,
}


_SUMS = frozenset({"add", "sub"})


def expr_from_tree(tree: ExprTree) -> Expr:
    """The canonical algebra expression of a decoded tree.

    Iterative, and linear in the size of the tree: the C++ parser builds
    ``a + b + ...`` as a left-deep chain, so a long sum or product is a deep
    tree. Each chain of one operator (``+``/``-`` together) is combined in
    one step.
    """
    results: list[Expr] = []
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


def _leaf(tree: ExprTree) -> Expr:
    kind = tree[0]
    if kind == "const":
        return Const(tree[1])
    if kind == "sym":
        return Sym(tree[1])
    if kind == "dim":
        return InputAxis(tree[1], tree[2])
    return RuntimeScalar(tree[1], tree[2])


def _combine(kind: str, operands: list[Expr], signs: list[bool]) -> Expr:
    """Combines the operands of a chain of ``kind`` (``signs`` marks subtracted terms)."""
    if kind in _SUMS:
        return canon.add(*(canon.neg(o) if s else o for o, s in zip(operands, signs, strict=True)))
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
