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

The function transformations (``symshape_mlir.jit``, ``grad``,
``value_and_grad``, ``vjp``), which join the frontend and the runtime, are
in :mod:`symshape_mlir.transforms`, loaded on first use so that ``import
symshape_mlir`` stays light.
"""

from typing import Any

from symshape_mlir.context import new_context, register_dialect

__all__ = ["grad", "jit", "new_context", "register_dialect", "value_and_grad", "vjp"]

_TRANSFORMS = ("grad", "jit", "value_and_grad", "vjp")


def __getattr__(name: str) -> Any:
    if name in _TRANSFORMS:
        from symshape_mlir import transforms

        return getattr(transforms, name)
    raise AttributeError(f"module 'symshape_mlir' has no attribute {name!r}")
