"""The extent algebra: symbolic sizes, their guarantees and their text forms.

Pure Python over no MLIR context (sympy is imported lazily, only by the
fallback prover); text is read by the dialect's own parser through the
native module.

* :mod:`~symshape_mlir.extent.expr` — the expression nodes (``Const``,
  ``Sym``, ``InputAxis``, ``RuntimeScalar`` and the operator nodes), their
  printing, evaluation and substitution;
* :mod:`~symshape_mlir.extent.canon` — the canonicalizing constructors
  (``add``, ``mul``, ``floordiv``, ``minimum``, ...) behind hash-consing;
* :mod:`~symshape_mlir.extent.context` — symbol ranges and fresh symbols;
* :mod:`~symshape_mlir.extent.prove` — ``prove_le``/``prove_eq``/... and
  ``bounds``, with :mod:`~symshape_mlir.extent.sympy_fallback` behind them;
* :mod:`~symshape_mlir.extent.simplify` — range-aware simplification;
* :mod:`~symshape_mlir.extent.guarantee` — ``Exact``/``UpperBound``/``Unknown``,
  their ``Strength`` and their combinators;
* :mod:`~symshape_mlir.extent.parse` — reading the attributes' text syntax
  with the dialect's parser; :mod:`~symshape_mlir.extent.tree` — the
  parser's trees built into the algebra;
* :mod:`~symshape_mlir.extent.serialize` — the post-order serialization.

Example:
    >>> from symshape_mlir.extent import parse_expr, prove_le
    >>> e = parse_expr("(batch * seq) floordiv 4 + min(n, batch) - 1")
    >>> str(e)
    'batch * seq floordiv 4 + min(batch, n) - 1'
    >>> e.evaluate({"batch": 8, "seq": 6, "n": 3})
    14
    >>> prove_le(e, parse_expr("batch * seq + n"))
    True
"""

from symshape_mlir.extent.canon import add, ceildiv, floordiv, maximum, minimum, mod, mul, neg, sub
from symshape_mlir.extent.context import ExtentContext, is_fresh_name
from symshape_mlir.extent.errors import (
    DivisionByZeroError,
    EvaluationError,
    ExpressionTooLargeError,
    ExtentError,
    ExtentOverflowError,
    ExtentSyntaxError,
    MissingBindingError,
    NegativeExtentError,
    RangeViolationError,
    SerializationError,
)
from symshape_mlir.extent.expr import (
    SEMANTICS,
    CeilDiv,
    Const,
    Expr,
    ExprLike,
    FloorDiv,
    InputAxis,
    Max,
    Min,
    Mod,
    Prod,
    RuntimeScalar,
    Sum,
    Sym,
    as_expr,
)
from symshape_mlir.extent.guarantee import (
    UNKNOWN,
    Exact,
    ExtentLike,
    ShapeExtent,
    Strength,
    Unknown,
    UpperBound,
    as_extent,
    instantiate,
    join,
    upgrades,
)
from symshape_mlir.extent.parse import format_shape, parse_expr, parse_extent, parse_shape
from symshape_mlir.extent.prove import (
    bounds,
    prove_eq,
    prove_ge,
    prove_gt,
    prove_le,
    prove_lt,
    prove_ne,
    prove_nonnegative,
)
from symshape_mlir.extent.serialize import dumps, from_postorder, loads, to_postorder
from symshape_mlir.extent.simplify import simplify

__all__ = [
    "SEMANTICS",
    "UNKNOWN",
    "CeilDiv",
    "Const",
    "DivisionByZeroError",
    "EvaluationError",
    "Exact",
    "Expr",
    "ExprLike",
    "ExpressionTooLargeError",
    "ExtentContext",
    "ExtentError",
    "ExtentLike",
    "ExtentOverflowError",
    "ExtentSyntaxError",
    "FloorDiv",
    "InputAxis",
    "Max",
    "Min",
    "MissingBindingError",
    "Mod",
    "NegativeExtentError",
    "Prod",
    "RangeViolationError",
    "RuntimeScalar",
    "SerializationError",
    "ShapeExtent",
    "Strength",
    "Sum",
    "Sym",
    "Unknown",
    "UpperBound",
    "add",
    "as_expr",
    "as_extent",
    "bounds",
    "ceildiv",
    "dumps",
    "floordiv",
    "format_shape",
    "from_postorder",
    "instantiate",
    "is_fresh_name",
    "join",
    "loads",
    "maximum",
    "minimum",
    "mod",
    "mul",
    "neg",
    "parse_expr",
    "parse_extent",
    "parse_shape",
    "prove_eq",
    "prove_ge",
    "prove_gt",
    "prove_le",
    "prove_lt",
    "prove_ne",
    "prove_nonnegative",
    "simplify",
    "sub",
    "to_postorder",
    "upgrades",
]
