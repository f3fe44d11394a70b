"""Reshape targets: element counts and the ``-1`` extent, for every producer of reshapes.

``numel`` multiplies extents (with their guarantees); ``reshape_hole`` is the
extent a ``-1`` stands for, ``prod(source) / prod(known)``: cancelled factor
by factor when the known extents' factors are among the source's
(``[batch, seq, 4]`` by ``[seq, 4]`` is ``batch``), else a ``floordiv``
(a division that ran did not divide by zero, which the provers use).

Example:
    >>> str(reshape_hole(Shape(["batch", "seq", 64]).dims, Shape(["batch", 8]).dims))
    '8 * seq'
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence

from symshape_mlir.extent.expr import Const, Expr, Prod, Sum
from symshape_mlir.extent.guarantee import Exact, ShapeExtent

__all__ = ["factors", "never_divides", "numel", "reshape_hole"]


def numel(dims: Sequence[ShapeExtent]) -> ShapeExtent:
    """The product of ``dims`` (1 for none)."""
    return functools.reduce(operator.mul, dims, Exact(Const(1)))


def factors(dims: Sequence[ShapeExtent]) -> tuple[int, list[Expr]]:
    """The constant and the symbolic factors (with repeats) of a product of exact extents."""
    constant, found = 1, []
    for extent in dims:
        expr = extent.expr
        assert expr is not None
        if isinstance(expr, Const):
            constant *= expr.value
        elif isinstance(expr, Sum) and expr.const == 0 and len(expr.terms) == 1:
            term, coef = expr.terms[0]
            constant *= coef
            sub_constant, sub_factors = factors([Exact(term)])
            constant *= sub_constant
            found.extend(sub_factors)
        elif isinstance(expr, Prod):
            found.extend(f for f, power in expr.factors for _ in range(power))
        else:
            found.append(expr)
    return constant, found


def reshape_hole(source: Sequence[ShapeExtent], known: Sequence[ShapeExtent]) -> ShapeExtent:
    """The extent of a reshape target's ``-1``: ``prod(source) / prod(known)``."""
    total, have = factors(source)
    part, want = factors(known)
    remaining = list(have)
    for factor in want:
        if factor not in remaining:
            break
        remaining.remove(factor)
    else:
        if part and total % part == 0:
            return numel([Exact(Const(total // part)), *(Exact(f) for f in remaining)])
    return numel(source) // numel(known)


def never_divides(source: Sequence[ShapeExtent], known: Sequence[ShapeExtent]) -> bool:
    """Whether ``prod(source)`` is provably never a non-empty multiple of ``prod(known)``:
    the symbolic factors of ``known`` are all among ``source``'s and leave none over, and
    the constants do not divide (``[batch, 6]`` by ``[batch, 4]``)."""
    if not all(d.is_exact for d in [*source, *known]):
        return False
    total, have = factors(source)
    part, want = factors(known)
    remaining = list(have)
    for factor in want:
        if factor not in remaining:
            return False
        remaining.remove(factor)
    return not remaining and part > 0 and total % part != 0
