"""symshape-mlir: symbolic and runtime-dependent tensor shapes on MLIR.

Importing the package inserts the ``symshape`` dialect into the upstream
``mlir`` Python bindings' global dialect registry, so every
``mlir.ir.Context`` created *after* the import has the dialect loaded. A
context created before the import gets it with :func:`register_dialect`.

Example:
    >>> from mlir import ir
    >>> import symshape_mlir
    >>> with ir.Context():
    ...     attr = ir.Attribute.parse("#symshape.expr<batch * 2>")
"""

from symshape_mlir.context import new_context, register_dialect

__all__ = ["new_context", "register_dialect"]
