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

``symshape_mlir.jit`` is the frontend's decorator
(:func:`symshape_mlir.frontend.jit`), imported on first use.
"""

from typing import Any

from symshape_mlir.context import new_context, register_dialect

__all__ = ["jit", "new_context", "register_dialect"]


def jit(fn: Any = None, /, **options: Any) -> Any:
    """The frontend's decorator, :func:`symshape_mlir.frontend.jit` (imported on first use)."""
    from symshape_mlir.frontend.jit import jit as frontend_jit

    return frontend_jit(fn, **options) if fn is not None else frontend_jit(**options)
