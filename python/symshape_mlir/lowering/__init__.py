"""Lowering symshape IR to upstream ``arith``/``tensor``/``linalg``/``cf``.

Every transformation of the IR lives here; the passes are thin adapters.
In the order ``symshape-resolve`` runs them:

* :mod:`~symshape_mlir.lowering.checks`: the run-time check of an
  obligation (deferred violations, unproven equations) as a ``cf.assert``;
* :mod:`~symshape_mlir.lowering.entry`: entry checks of the named axes;
* :mod:`~symshape_mlir.lowering.iree`: IREE upper-bound hints and shields;
* :mod:`~symshape_mlir.lowering.ops`: one rule per symshape op, over
  :mod:`~symshape_mlir.lowering.exprs` (extents as ``index`` arithmetic),
  :mod:`~symshape_mlir.lowering.index_builder` and
  :mod:`~symshape_mlir.lowering.generics`;
* :mod:`~symshape_mlir.lowering.resolve`: the driver.

:mod:`~symshape_mlir.lowering.specialize` makes exact extents static under
axis bindings (``symshape-specialize``).
"""

from symshape_mlir.lowering.errors import LoweringError
from symshape_mlir.lowering.resolve import resolve_module

__all__ = ["LoweringError", "resolve_module"]
