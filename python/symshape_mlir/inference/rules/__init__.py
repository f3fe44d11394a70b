"""Shape rules, one module per op family; importing this package registers them.

* :mod:`~symshape_mlir.inference.rules.symshape` — the symshape dialect;
* :mod:`~symshape_mlir.inference.rules.tensor` — ``tensor`` ops and ``shape.shape_of``;
* :mod:`~symshape_mlir.inference.rules.linalg` — destination-passing ``linalg`` ops;
* :mod:`~symshape_mlir.inference.rules.arith` — ``arith``/``index`` on integers;
* :mod:`~symshape_mlir.inference.rules.elementwise` — ``arith``/``math`` on tensors;
* :mod:`~symshape_mlir.inference.rules.scf` — ``scf.if``/``scf.for``;
* :mod:`~symshape_mlir.inference.rules.func` — ``func.call``/``func.return``.
"""

from symshape_mlir.inference.rules import arith, elementwise, func, linalg, scf, symshape, tensor

__all__ = ["arith", "elementwise", "func", "linalg", "scf", "symshape", "tensor"]
