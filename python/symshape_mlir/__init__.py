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


def __getattr__(name: str) -> Any:
    """Imports the frontend's ``jit`` on first use (it pulls in the runtime)."""
    if name == "jit":
        from symshape_mlir.frontend.jit import jit

        return jit
    raise AttributeError(f"module 'symshape_mlir' has no attribute {name!r}")
