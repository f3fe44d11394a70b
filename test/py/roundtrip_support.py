"""Test support, the round trip: traced modules pass the symshape passes, and inference agrees.

:func:`check_round_trip` runs ``symshape-infer-shapes``,
``symshape-verify-contract`` and ``symshape-check-guarantees`` on a traced
module, then compares the result shapes inference derives (over the whole
function, with :func:`symshape_mlir.inference.infer`) with the ones the
frontend computed at trace time. Fresh symbols (``_dN``) are matched up to
a consistent renaming: the frontend's ``_d0`` for an exact truncation is
inference's ``min(...)`` expression.

Example:
    >>> traced = trace(f, Tensor["batch", 64, f32])         # doctest: +SKIP
    >>> check_round_trip([traced])                          # doctest: +SKIP
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from mlir import ir

from symshape_mlir.extent.context import is_fresh_name
from symshape_mlir.extent.expr import Const, Expr, Sym
from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.extent.prove import prove_eq
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.tracing import TracedFunction, trace_module
from symshape_mlir.inference import infer
from symshape_mlir.passes import run_pipeline
from symshape_mlir.shapes.shape import Shape
from symshape_mlir.walk import collect_ops

__all__ = ["PIPELINE", "RoundTripError", "check_round_trip", "inferred_result_shapes"]


logger = logging.getLogger(__name__)

PIPELINE = (
    "builtin.module(symshape-infer-shapes,symshape-verify-contract,symshape-check-guarantees)"
)


class RoundTripError(FrontendError):
    """Inference derives a result shape other than the traced one."""


def inferred_result_shapes(module: ir.Module) -> dict[str, tuple[Shape, ...]]:
    """The result shapes :func:`~symshape_mlir.inference.infer` derives, per function."""
    return {name: shapes for name, (shapes, _) in _inferred(module).items()}


def _inferred(module: ir.Module) -> dict[str, tuple[tuple[Shape, ...], list[Expr | None]]]:
    """Per function, its inferred result shapes and the value inference gives
    each ``symshape.runtime_scalar`` (in order; None where it knows none)."""

    state = infer(module.operation)
    found: dict[str, tuple[tuple[Shape, ...], list[Expr | None]]] = {}
    for op in module.body.operations:
        if op.operation.name != "func.func":
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        block = op.regions[0].blocks[0]
        terminator = list(block.operations)[-1]
        reads = [state.value(read.results[0]).expr for read in collect_ops(op.operation)
                 if read.name == "symshape.runtime_scalar"]
        found[name] = (tuple(Shape(state.shape(v)) for v in terminator.operands), reads)
    return found


def _kind(extent: ShapeExtent) -> str:
    return "exact" if extent.is_exact else "ub" if extent.is_upper_bound else "unknown"


def _matches(traced: ShapeExtent, inferred: ShapeExtent, renames: dict[str, Expr]) -> bool:
    if _kind(traced) != _kind(inferred):
        return False
    if traced.expr is None or inferred.expr is None:
        return True
    expr = traced.expr
    if isinstance(expr, Sym) and is_fresh_name(expr.name):
        known = renames.setdefault(expr.name, inferred.expr)
        return known == inferred.expr or prove_eq(known, inferred.expr) is True
    expr = expr.substitute(renames)
    return expr == inferred.expr or prove_eq(expr, inferred.expr) is True


def check_round_trip(functions: Sequence[TracedFunction]) -> None:
    """Runs :data:`PIPELINE` on a module of ``functions`` and compares the shapes.

    Raises:
        PipelineError: a pass rejects the module.
        RoundTripError: an inferred result shape differs from the traced one.
    """

    run_pipeline(trace_module(functions), PIPELINE)
    inferred = _inferred(trace_module(functions))
    for function in functions:
        shapes, reads = inferred[function.name]
        # A run-time integer is `plus - minus` in the traced shapes; inference
        # reads the same op as its value (the same pair of fresh symbols, up to
        # their names, or the value it knows).
        renames: dict[str, Expr] = {}
        for (plus, minus), value in zip(function.scalar_reads, reads, strict=True):
            if value is not None:
                renames[plus], renames[minus] = value, Const(0)
        pairs = [
            (index, axis, t, i)
            for index, (traced, found) in enumerate(
                zip(function.result_shapes, shapes, strict=True)
            )
            for axis, (t, i) in enumerate(zip(traced, found, strict=True))
        ]
        # Bare fresh symbols first, so expressions over them are compared renamed.
        pairs.sort(key=lambda p: not (isinstance(p[2].expr, Sym)))
        for index, axis, traced_extent, inferred_extent in pairs:
            if not _matches(traced_extent, inferred_extent, renames):
                raise RoundTripError(
                    f"@{function.name} result {index} axis {axis}: traced {traced_extent}, "
                    f"inferred {inferred_extent}"
                )
