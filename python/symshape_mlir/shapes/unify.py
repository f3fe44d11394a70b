"""Unifying two extents (or shapes) that must describe the same axes.

Rules, per axis:

* an unnamed placeholder (unknown, or exactly a fresh symbol ``_dN``) adopts
  the other side; a fresh symbol that adopts an expression is reported as a
  rename ``{"_d0": batch}`` so callers can propagate it;
* two exact extents that are provably equal unify to the simpler one;
  provably different ones conflict; two named (non-placeholder) extents over
  different named axes that are not provably equal conflict too (``batch``
  vs ``time``); two over the same axes that the provers cannot decide
  (``(h - 1) floordiv 2 + 1`` vs ``(h + 1) floordiv 2``, equal unless
  ``h = 0``) unify to the simpler one, and the op that joins them checks the
  equation at run time;
* an exact extent and an upper bound unify to the exact one, unless it
  provably exceeds the bound;
* two upper bounds unify to their minimum.
"""

from __future__ import annotations

from symshape_mlir.extent.canon import minimum
from symshape_mlir.extent.context import ExtentContext, is_fresh_name
from symshape_mlir.extent.expr import Expr, Sym
from symshape_mlir.extent.guarantee import Exact, ShapeExtent, UpperBound, preferred
from symshape_mlir.shapes.compare import Verdict, equality
from symshape_mlir.shapes.errors import AxisConflictError, ShapeError
from symshape_mlir.shapes.shape import Shape, ShapeLike, as_shape

__all__ = ["unify_extents", "unify_shapes"]


def _fresh(extent: ShapeExtent) -> str | None:
    if extent.is_exact and isinstance(extent.expr, Sym) and is_fresh_name(extent.expr.name):
        return extent.expr.name
    return None


def unify_extents(
    a: ShapeExtent, b: ShapeExtent, ctx: ExtentContext | None = None
) -> tuple[ShapeExtent, dict[str, Expr]]:
    """Unifies two extents of the same axis.

    Returns:
        The unified extent and the fresh symbols it renamed.

    Raises:
        AxisConflictError: the extents cannot describe the same axis.
    """
    if a == b:
        return a, {}
    x, y = a.expr, b.expr
    if x is None or y is None:
        return (b if x is None else a), {}
    verdict = equality(a, b, ctx)
    if verdict is Verdict.REFUTED:
        if isinstance(a, Exact) and isinstance(b, Exact):
            raise AxisConflictError(f"{x} and {y} are provably different", (a, b))
        exact, bound = (a, b) if isinstance(a, Exact) else (b, a)
        raise AxisConflictError(f"{exact} exceeds its bound {bound}", (a, b))
    if isinstance(a, Exact) and isinstance(b, Exact):
        fresh_a, fresh_b = _fresh(a), _fresh(b)
        if fresh_a and fresh_b:
            kept = preferred(x, y)
            return Exact(kept), {(fresh_b if kept is x else fresh_a): kept}
        if fresh_a:
            return Exact(y), {fresh_a: y}
        if fresh_b:
            return Exact(x), {fresh_b: x}
        if verdict is Verdict.PROVEN or x.free_symbols == y.free_symbols:
            return Exact(preferred(x, y)), {}
        raise AxisConflictError(f"{x} and {y} are different axes unless proven equal", (a, b))
    if isinstance(a, Exact) or isinstance(b, Exact):
        return (a if isinstance(a, Exact) else b), {}
    return UpperBound(minimum(x, y)), {}


def unify_shapes(
    a: ShapeLike, b: ShapeLike, ctx: ExtentContext | None = None
) -> tuple[Shape, dict[str, Expr]]:
    """Unifies two shapes axis by axis (renames found on one axis apply to the next).

    Returns:
        The unified shape and every fresh symbol renamed.

    Raises:
        ShapeError: the ranks differ.
        AxisConflictError: an axis cannot unify (names the axis index).
    """
    left, right = as_shape(a), as_shape(b)
    if left.rank != right.rank:
        raise ShapeError(
            f"cannot unify shapes of rank {left.rank} and {right.rank}: {left} vs {right}"
        )
    renames: dict[str, Expr] = {}
    dims: list[ShapeExtent] = []
    for axis, (x, y) in enumerate(zip(left, right, strict=True)):
        if renames:
            x, y = x.substitute(renames), y.substitute(renames)
        try:
            unified, found = unify_extents(x, y, ctx)
        except AxisConflictError as err:
            raise AxisConflictError(err.reason, err.extents, axis) from None
        for name, value in found.items():
            renames = {k: v.substitute({name: value}) for k, v in renames.items()}
            renames[name] = value
        dims.append(unified)
    return Shape(dims), renames
