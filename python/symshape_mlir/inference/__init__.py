"""Symbolic shape inference over whole functions.

:func:`infer` runs the rules of :mod:`symshape_mlir.inference.rules` over a
module and returns the :class:`InferenceState` holding the facts of every
value; :func:`annotate` writes them as ``symshape.shape`` /
``symshape.value`` attributes.

* :mod:`~symshape_mlir.inference.engine` — functions, blocks, the merge
  policies and joins;
* :mod:`~symshape_mlir.inference.state` — facts, fresh symbols and the
  unification of fresh symbols with the extents they must equal; a rule gives
  a data-dependent size (a count of true elements, a size chosen at run
  time) a value range with ``state.fresh(key, lo, hi)``, ends being extent
  expressions (``state.fresh(op.result, 0, rows * cols)``);
* :mod:`~symshape_mlir.inference.registry` — rules by op name;
* :mod:`~symshape_mlir.inference.rules` — one module per op family
  (``scf.for``'s fixed-point rule is documented in
  :mod:`~symshape_mlir.inference.rules.scf`).

Example:
    >>> state = infer(module.operation, InferenceOptions(policy="refine"))
    >>> state.shape(value)            # (Exact(batch), Exact(768))
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.extent.context import ExtentContext
from symshape_mlir.inference import rules as _rules  # noqa: F401  (registers the rules)
from symshape_mlir.inference.annotate import annotate
from symshape_mlir.inference.engine import infer_module
from symshape_mlir.inference.errors import InferenceError, OpUsageError, ShapeInferenceError
from symshape_mlir.inference.facts import Origin, ValueFacts
from symshape_mlir.inference.registry import RULES, register
from symshape_mlir.inference.state import POLICIES, STAGES, InferenceOptions, InferenceState

__all__ = [
    "POLICIES",
    "RULES",
    "STAGES",
    "InferenceError",
    "InferenceOptions",
    "InferenceState",
    "OpUsageError",
    "Origin",
    "ShapeInferenceError",
    "ValueFacts",
    "annotate",
    "infer",
    "register",
]


def infer(
    module: ir.Operation,
    options: InferenceOptions | None = None,
    extents: ExtentContext | None = None,
) -> InferenceState:
    """Infers the shapes of every value in ``module``.

    Raises:
        InferenceError: at the first op whose shapes cannot be inferred.
    """
    state = InferenceState(options or InferenceOptions(), extents)
    infer_module(module, state)
    return state
