"""Entry checks: the arguments of a call agree with their named axes.

``symshape.axes`` names argument axes; inference takes the names at their
word (two arguments declaring ``batch`` have the same extent). At run time
nothing guarantees it, so ``symshape-resolve`` checks every declared axis on
entry against the axis that binds its symbols
(:class:`~symshape_mlir.lowering.exprs.AxisBindings`), and a symbol derived
from a linear declaration (``2 * batch``) must come out whole and
non-negative:

.. code-block:: mlir

    func.func @f(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>},
                 %y: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>}) {
      %0 = tensor.dim %x, %c0 : tensor<?xf32>
      %1 = tensor.dim %y, %c0 : tensor<?xf32>
      %2 = arith.cmpi eq, %1, %0 : index
      cf.assert %2, "symshape: argument #1 axis 0 is not 'batch' (bound by
          argument #0 axis 0) in @f"
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.extent.expr import Sym
from symshape_mlir.inference.obligations import Quantity
from symshape_mlir.locations import location_text
from symshape_mlir.lowering.checks import lower_quantity
from symshape_mlir.lowering.exprs import AxisBindings
from symshape_mlir.lowering.index_builder import IndexBuilder

__all__ = ["emit_entry_checks"]


def emit_entry_checks(func: ir.Operation, axes: AxisBindings) -> None:
    """Inserts the checks of ``func``'s declared axes at the start of its body."""
    if not axes.declared:
        return
    name = ir.StringAttr(func.attributes["sym_name"]).value
    entry = func.regions[0].blocks[0]
    where = f"@{name} at {location_text(func.location)}"
    positions = {arg: index for index, arg, _, _ in axes.declared}
    b = IndexBuilder()
    with ir.InsertionPoint.at_block_begin(entry), func.location:
        for symbol, (arg, axis, _, _) in axes.derived.items():
            value = axes.lower(b, symbol)
            assert value is not None
            b.check(b.cmp("sge", value, b.const(0)),
                    f"symshape: argument #{positions[arg]} axis {axis} gives a negative "
                    f"'{symbol}' in {where}")
        for index, arg, axis, expr in axes.declared:
            if isinstance(expr, Sym) and axes.lookup(expr.name) == (arg, axis):
                continue
            static = ir.RankedTensorType(arg.type).shape[axis]
            if expr.const_value is not None and expr.const_value == static:
                continue
            want = lower_quantity(b, Quantity(expr), axes, func, where)
            sources = ", ".join(_source(axes, positions, s) for s in sorted(expr.free_symbols))
            b.check(b.cmp("eq", b.dim(arg, axis), want),
                    f"symshape: argument #{index} axis {axis} is not '{expr}'"
                    f"{f' ({sources})' if sources else ''} in {where}")


def _source(axes: AxisBindings, positions: dict[ir.Value, int], symbol: str) -> str:
    bound = axes.lookup(symbol)
    if bound is not None:
        return f"'{symbol}' is argument #{positions[bound[0]]} axis {bound[1]}"
    arg, axis, _, _ = axes.derived[symbol]
    return f"'{symbol}' from argument #{positions[arg]} axis {axis}"
