"""Binding named axes from concrete input shapes.

Given the symbolic parameter shapes of a function (``[batch, seq, 512]``,
``[batch, 1024]``) and the concrete shapes of one call's inputs,
:func:`extract_bindings` returns the value of every axis symbol
(``{"batch": 32, "seq": 128}``) or fails with a message that names the axis,
both inputs involved and both values::

    axis 'batch': input 1 has 64, input 0 has 32

An exact extent that is a linear form in one not yet bound symbol
(``2 * n + 1``) binds that symbol when the division is exact; every other
exact extent is checked against its concrete value, upper bounds are checked
when their symbols are bound, unknown extents accept anything.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

from symshape_mlir.extent.context import ExtentContext
from symshape_mlir.extent.errors import EvaluationError, RangeViolationError
from symshape_mlir.extent.expr import Const, Sum, Sym
from symshape_mlir.extent.guarantee import Exact
from symshape_mlir.shapes.errors import AxisBindingError
from symshape_mlir.shapes.shape import Shape, ShapeLike, as_shape

__all__ = ["extract_bindings"]


class _Extraction:
    def __init__(
        self, patterns: list[Shape], values: list[tuple[int, ...]], names: Sequence[str] | None
    ) -> None:
        self.patterns = patterns
        self.values = values
        self.names = names
        self.bindings: dict[str, int] = {}
        self.origin: dict[str, tuple[int, int]] = {}

    def who(self, i: int) -> str:
        return f"input {i}" if self.names is None else f"input {i} ('{self.names[i]}')"

    def where(self, i: int, axis: int) -> str:
        return f"{self.who(i)} axis {axis}"

    def bind(self, name: str, value: int, i: int, axis: int) -> None:
        previous = self.bindings.get(name)
        if previous is None:
            self.bindings[name] = value
            self.origin[name] = (i, axis)
            return
        if previous != value:
            j, other_axis = self.origin[name]
            here, there = (
                (self.where(i, axis), self.where(j, other_axis))
                if i == j
                else (self.who(i), self.who(j))
            )
            raise AxisBindingError(
                f"axis '{name}': {here} has {value}, {there} has {previous}", axis=name
            )

    def exact_axes(self) -> list[tuple[int, int, Exact, int]]:
        return [
            (i, axis, extent, self.values[i][axis])
            for i, pattern in enumerate(self.patterns)
            for axis, extent in enumerate(pattern)
            if isinstance(extent, Exact)
        ]

    def solve_linear(self) -> None:
        """Binds symbols that occur alone and linearly in an exact extent."""
        progress = True
        while progress:
            progress = False
            for i, axis, extent, value in self.exact_axes():
                unbound = extent.free_symbols - self.bindings.keys()
                if len(unbound) != 1:
                    continue
                (name,) = unbound
                reduced = extent.expr.substitute(self.bindings)
                if not isinstance(reduced, Sum) or len(reduced.terms) != 1:
                    continue
                ((term, coef),) = reduced.terms
                if term is not Sym(name):
                    continue
                solution, remainder = divmod(value - reduced.const, coef)
                if remainder or solution < 0:
                    raise AxisBindingError(
                        f"{self.where(i, axis)}: {extent} cannot equal {value} for any '{name}'",
                        axis=name,
                    )
                self.bind(name, solution, i, axis)
                progress = True

    def verify(self) -> None:
        for i, pattern in enumerate(self.patterns):
            for axis, extent in enumerate(pattern):
                if extent.expr is None:
                    continue
                value = self.values[i][axis]
                missing = extent.free_symbols - self.bindings.keys()
                if missing and extent.is_exact:
                    name = min(missing)
                    raise AxisBindingError(
                        f"{self.where(i, axis)}: cannot determine '{name}' from {extent}", axis=name
                    )
                if missing:
                    continue
                try:
                    expected = extent.expr.evaluate(self.bindings)
                except EvaluationError as err:
                    raise AxisBindingError(f"{self.where(i, axis)}: {err}") from err
                if extent.is_exact and value != expected:
                    shown = (
                        str(expected)
                        if isinstance(extent.expr, Const)
                        else f"{extent} = {expected}"
                    )
                    raise AxisBindingError(f"{self.where(i, axis)}: expected {shown}, got {value}")
                if extent.is_upper_bound and value > expected:
                    raise AxisBindingError(
                        f"{self.where(i, axis)}: expected at most {extent.expr} = {expected}, "
                        f"got {value}"
                    )


def extract_bindings(
    patterns: Sequence[ShapeLike],
    shapes: Sequence[Sequence[int]],
    *,
    ctx: ExtentContext | None = None,
    names: Sequence[str] | None = None,
) -> dict[str, int]:
    """Returns the axis bindings under which ``shapes`` match ``patterns``.

    Args:
        patterns: the parameters' symbolic shapes.
        shapes: the inputs' concrete shapes, one per pattern.
        ctx: when given, bound values are checked against its ranges.
        names: parameter names used in messages (``input 1 ('y')``).

    Returns:
        ``{symbol: value}`` for every symbol the patterns mention.

    Raises:
        AxisBindingError: a count or rank mismatch, a negative extent, one
            symbol with two values (names the axis, both inputs and both
            values), a mismatching or unsolvable extent, or a value outside
            its declared range.
    """
    parsed = [as_shape(p) for p in patterns]
    if len(shapes) != len(parsed):
        raise AxisBindingError(f"expected {len(parsed)} inputs, got {len(shapes)}")
    if names is not None and len(names) != len(parsed):
        raise ValueError(f"expected {len(parsed)} parameter names, got {len(names)}")
    values: list[tuple[int, ...]] = []
    extraction = _Extraction(parsed, values, names)
    for i, (pattern, shape) in enumerate(zip(parsed, shapes, strict=True)):
        try:
            concrete = tuple(operator.index(v) for v in shape)
        except TypeError:
            raise AxisBindingError(
                f"{extraction.who(i)}: shape {shape!r} is not a sequence of integers"
            ) from None
        if len(concrete) != pattern.rank:
            raise AxisBindingError(
                f"{extraction.who(i)}: expected rank {pattern.rank} {pattern}, "
                f"got rank {len(concrete)} {list(concrete)}"
            )
        if any(v < 0 for v in concrete):
            raise AxisBindingError(f"{extraction.who(i)}: negative extent in {list(concrete)}")
        values.append(concrete)
    for i, pattern in enumerate(parsed):
        for axis, extent in enumerate(pattern):
            if extent.is_exact and isinstance(extent.expr, Sym):
                extraction.bind(extent.expr.name, values[i][axis], i, axis)
    extraction.solve_linear()
    extraction.verify()
    if ctx is not None:
        try:
            ctx.check_bindings(extraction.bindings)
        except RangeViolationError as err:
            i, axis = extraction.origin[err.symbol]
            raise AxisBindingError(
                f"axis '{err.symbol}' ({extraction.where(i, axis)}): {err}", axis=err.symbol
            ) from err
    return extraction.bindings
