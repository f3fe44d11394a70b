"""The ``symshape-to-iree`` pipeline alias."""

from __future__ import annotations

from symshape_mlir.pipeline import ModulePass

__all__ = ["ToIree"]


class ToIree(ModulePass):
    """Infers, checks and resolves a symbolic module into MLIR that IREE compiles.

    Expands to ``symshape-infer-shapes``, ``symshape-verify-contract``,
    ``symshape-resolve``, upstream ``canonicalize`` and ``cse``, then
    ``symshape-relayout-convolutions``.

    Before: a module with ``symshape`` ops and named axes.
    After: plain ``func``/``arith``/``tensor``/``linalg``/``cf`` for
    ``iree-compile``.
    """

    name = "symshape-to-iree"
    summary = ("Pipeline: infer shapes, verify the contract, resolve, canonicalize, cse, "
               "relayout convolutions")
    pipeline = (
        "symshape-infer-shapes",
        "symshape-verify-contract",
        "symshape-resolve{target=iree}",
        "canonicalize",
        "cse",
        "symshape-relayout-convolutions",
    )
