"""Lowering extent expressions to ``index`` values.

Leaves resolve against an op's operands (``dim(i, a)``, ``scalar(i, s)``)
and against the function's named axes (``batch`` is the size of the first
argument axis declared ``batch`` in ``symshape.axes``). Runtime scalars are
converted with exactly their semantics:

============== ==============================================================
semantics      extent
============== ==============================================================
index          the value itself (a negative value used as a size fails the
               size check at run time)
clamp_nonneg   ``max(value, 0)``
truncate_size  ``max(value, 0)`` (``dynamic_truncate`` takes the min with
               the axis)
============== ==============================================================
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith

from symshape_mlir.attributes import ExprTree, expr_from_tree, format_tree, shape_from_attr
from symshape_mlir.extent import (
    UNKNOWN,
    Exact,
    ShapeExtent,
    instantiate,
    prove_ne,
    prove_nonnegative,
)
from symshape_mlir.extent.expr import Expr, Sum, Sym
from symshape_mlir.inference.rules.common import raw_scalar
from symshape_mlir.inference.state import InferenceState
from symshape_mlir.locations import location_text
from symshape_mlir.lowering.errors import LoweringError
from symshape_mlir.lowering.index_builder import IndexBuilder

__all__ = ["AxisBindings", "ExprLowering"]

AXES_ATTR = "symshape.axes"


class AxisBindings:
    """Named axes of a function: what each symbol is at run time.

    The first argument axis declared as a plain symbol binds it
    (``batch`` is ``dim(%x, 0)``). A symbol that only appears in a linear
    declaration ``c * s + k`` (``2 * batch``) is derived from the first such
    axis: ``s = (dim - k) floordiv c`` (the entry checks of
    :mod:`symshape_mlir.lowering.entry` make sure the division is exact and
    ``s >= 0``).

    Attributes:
        bindings: symbol -> (argument, axis) of its plain declaration.
        derived: symbol -> (argument, axis, c, k) of its linear declaration.
        declared: every declared argument axis: (argument number, argument,
            axis, expression).
    """

    def __init__(self, func: ir.Operation) -> None:
        self.bindings: dict[str, tuple[ir.Value, int]] = {}
        self.derived: dict[str, tuple[ir.Value, int, int, int]] = {}
        self.declared: list[tuple[int, ir.Value, int, Expr]] = []
        if "arg_attrs" not in func.attributes:
            return
        arguments = func.regions[0].blocks[0].arguments
        for index, (arg, attrs) in enumerate(
                zip(arguments, ir.ArrayAttr(func.attributes["arg_attrs"]))):
            attrs = ir.DictAttr(attrs)
            if AXES_ATTR not in attrs:
                continue
            for axis, extent in enumerate(shape_from_attr(attrs[AXES_ATTR])):
                if extent.expr is None:
                    continue
                self.declared.append((index, arg, axis, extent.expr))
                if isinstance(extent.expr, Sym):
                    self.bindings.setdefault(extent.expr.name, (arg, axis))
        for _, arg, axis, expr in self.declared:
            linear = _linear(expr)
            if linear is not None and linear[0] not in self.bindings:
                self.derived.setdefault(linear[0], (arg, axis, linear[1], linear[2]))

    def lookup(self, name: str) -> tuple[ir.Value, int] | None:
        """The argument axis that binds ``name`` by a plain declaration."""
        return self.bindings.get(name)

    def lower(self, b: IndexBuilder, name: str) -> ir.Value | None:
        """The run-time value of ``name`` (``None`` when no argument declares it)."""
        bound = self.bindings.get(name)
        if bound is not None:
            return b.dim(*bound)
        derived = self.derived.get(name)
        if derived is None:
            return None
        arg, axis, coef, const = derived
        shifted = b.sub(b.dim(arg, axis), b.const(const))
        return b.floordiv(shifted, b.const(coef), "", guard=False)


def _linear(expr: Expr) -> tuple[str, int, int] | None:
    """``(s, c, k)`` when ``expr`` is ``c * s + k`` with ``c >= 1``."""
    if isinstance(expr, Sum) and len(expr.terms) == 1:
        term, coef = expr.terms[0]
        if isinstance(term, Sym) and coef >= 1:
            return term.name, coef, expr.const
    return None


class ExprLowering:
    """Lowers the op-local expressions of one op.

    Args:
        builder: emits the index arithmetic.
        op: the op whose operands ``dim``/``scalar`` leaves refer to.
        axes: the enclosing function's named axes.
    """

    def __init__(
        self,
        builder: IndexBuilder,
        op: ir.Operation,
        axes: AxisBindings,
        facts: InferenceState | None = None,
    ) -> None:
        self.b = builder
        self.op = op
        self.axes = axes
        self.facts = facts

    def extent(self, tree: ExprTree) -> ShapeExtent:
        """What inference knows of an op-local expression (unknown without facts)."""
        if self.facts is None:
            return UNKNOWN
        state, operands = self.facts, self.op.operands

        # As known where the op is: later unifications are checked later.
        return instantiate(expr_from_tree(tree),
                           dims=lambda i, a: (state.defined_facts(operands[i]).shape or ())[a],
                           scalars=lambda i: raw_scalar(state, operands[i]),
                           ctx=state.extents)

    def proves_nonzero(self, tree: ExprTree) -> bool:
        """Whether the value of ``tree`` is provably non-zero."""
        if self.facts is None:
            return False
        extent = self.extent(tree)
        return isinstance(extent, Exact) and prove_ne(extent.expr, 0, self.facts.extents) is True

    def where(self) -> str:
        """The op name and location, for runtime check messages."""
        return f"{self.op.name} at {location_text(self.op.location)}"

    def text(self, tree: ExprTree) -> str:
        """``tree`` as the dialect prints it, for runtime check messages."""
        return format_tree(tree, self.op.context)

    def lower(self, tree: ExprTree) -> ir.Value:
        kind = tree[0]
        b = self.b
        if kind == "const":
            return b.const(tree[1])
        if kind == "sym":
            value = self.axes.lower(b, tree[1])
            if value is None:
                raise LoweringError(
                    self.op.location,
                    f"symbol '{tree[1]}' is not bound by any function argument's "
                    f"'{AXES_ATTR}'",
                )
            return value
        operands: Sequence[ir.Value] = self.op.operands
        if kind == "dim":
            return b.dim(operands[tree[1]], tree[2])
        if kind == "scalar":
            return lower_scalar(b, operands[tree[1]], tree[2], self.where())
        lhs, rhs = self.lower(tree[1]), self.lower(tree[2])
        if kind in ("floordiv", "ceildiv", "mod"):
            message = f"symshape: division by zero in '{self.text(tree)}' ({self.where()})"
            guard = not self.proves_nonzero(tree[2])
            return getattr(b, kind)(lhs, rhs, message, guard=guard)
        return getattr(b, kind)(lhs, rhs)

    def lower_size(self, tree: ExprTree, field: str) -> ir.Value:
        """Lowers an extent used as a size, checking it is >= 0 at run time."""
        value = self.lower(tree)
        extent = self.extent(tree)
        if isinstance(extent, Exact) and self.facts is not None and \
                prove_nonnegative(extent.expr, self.facts.extents) is True:
            self.b.mark_nonneg(value)
        if not self.b.is_nonneg(value):
            self.b.check(
                self.b.cmp("sge", value, self.b.const(0)),
                f"symshape: {field} '{self.text(tree)}' is negative ({self.where()})",
            )
            self.b.mark_nonneg(value)
        return value


def lower_scalar(b: IndexBuilder, source: ir.Value | tuple[ir.Value, int], semantics: str,
                 where: str) -> ir.Value:
    """The integer value of ``source`` (a 0-d integer tensor, ``(tensor, k)`` for
    element ``k`` of a 1-D one, or an ``index``/integer value) converted to
    an extent with ``semantics`` (clamped in the source's width, before any
    cast to ``index``)."""
    clamp = semantics != "index"
    if isinstance(source, tuple):
        value, position = source
        lowered = b.scalar_at(value, [b.const(position)], clamp_nonneg=clamp, where=where)
    elif isinstance(source.type, ir.RankedTensorType):
        lowered = b.scalar_at(source, clamp_nonneg=clamp, where=where)
    else:
        lowered = source if isinstance(source.type, ir.IndexType) else \
            arith.IndexCastOp(b.index, source).result
        b.mark_wide(lowered)
        if clamp:
            lowered = b.max(lowered, b.const(0))
    return b.mark_nonneg(lowered) if clamp else lowered
