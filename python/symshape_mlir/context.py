"""Making the symshape dialect available in upstream ``mlir.ir`` contexts.

The dialect is C++ (ODS) compiled against the pinned MLIR wheel; the
``_symshape`` extension registers it through the MLIR C API. Registering
twice is harmless, and only genuine ``mlir.ir`` objects reach C++.
"""

from __future__ import annotations

import logging

from mlir import ir
from mlir._mlir_libs import _mlir, get_dialect_registry

from symshape_mlir import _symshape

__all__ = ["DIALECT_NAMESPACE", "new_context", "register_dialect"]

logger = logging.getLogger(__name__)

DIALECT_NAMESPACE = "symshape"


def register_dialect(context: ir.Context) -> None:
    """Registers and loads the symshape dialect into ``context``.

    Args:
        context: an upstream ``mlir.ir.Context``.

    Raises:
        TypeError: if ``context`` is not an ``mlir.ir.Context``.
    """
    if not isinstance(context, ir.Context):
        raise TypeError(f"expected an mlir.ir.Context, got {type(context).__name__}")
    if context.is_registered_operation("symshape.const"):
        return
    _symshape.register_dialect(context, True)


def new_context(*, allow_unregistered_dialects: bool = False) -> ir.Context:
    """Returns a fresh context with every upstream dialect and symshape loaded."""
    context = ir.Context()
    register_dialect(context)
    context.allow_unregistered_dialects = allow_unregistered_dialects
    return context


def _insert_into_global_registry() -> None:
    """Makes contexts created from now on load the dialect on creation."""
    _symshape.insert_into_registry(get_dialect_registry())


_insert_into_global_registry()
# The bindings find op classes by importing `<prefix>.<namespace>`.
_mlir.globals.append_dialect_search_prefix("symshape_mlir.dialects")
