"""Errors raised by the extent algebra.

Every error is a ``ValueError`` (some also derive from the matching builtin
arithmetic error), so callers can catch the whole family with
:class:`ExtentError` or one precise failure with its own class.
"""

from __future__ import annotations

__all__ = [
    "DivisionByZeroError",
    "EvaluationError",
    "ExpressionTooLargeError",
    "ExtentError",
    "ExtentOverflowError",
    "ExtentSyntaxError",
    "MissingBindingError",
    "NegativeExtentError",
    "RangeViolationError",
    "SerializationError",
]


class ExtentError(ValueError):
    """Base class of every error raised by :mod:`symshape_mlir.extent`."""


class ExtentSyntaxError(ExtentError):
    """Text that is not a valid expression, extent or shape.

    Attributes:
        text: the whole input text.
        position: 0-based character offset of the offending token.
    """

    def __init__(self, message: str, text: str, position: int) -> None:
        super().__init__(f"{message} at offset {position} in {text!r}")
        self.text = text
        self.position = position


class ExpressionTooLargeError(ExtentError):
    """An operation would build an expression beyond the growth limit."""


class SerializationError(ExtentError):
    """A serialized expression that cannot be decoded."""


class EvaluationError(ExtentError):
    """Base class of errors raised while evaluating an expression."""


class MissingBindingError(EvaluationError):
    """A leaf of the expression has no value in the bindings.

    Attributes:
        leaf: the leaf as printed in the text syntax (``batch``, ``dim(0, 1)``).
    """

    def __init__(self, leaf: str, expr: str) -> None:
        super().__init__(f"no binding for '{leaf}' while evaluating '{expr}'")
        self.leaf = leaf


class DivisionByZeroError(EvaluationError, ZeroDivisionError):
    """A division or remainder whose divisor evaluated to zero.

    Attributes:
        expr: the division, printed in the text syntax.
    """

    def __init__(self, expr: str) -> None:
        super().__init__(f"division by zero in '{expr}'")
        self.expr = expr


class ExtentOverflowError(EvaluationError, OverflowError):
    """A value outside the signed 64-bit range (evaluation never wraps).

    Attributes:
        expr: the subexpression whose value left the range.
        value: the exact (unbounded) value.
    """

    def __init__(self, expr: str, value: int) -> None:
        super().__init__(f"'{expr}' evaluates to {value}, outside the int64 range")
        self.expr = expr
        self.value = value


class NegativeExtentError(EvaluationError):
    """A negative value where a size is required.

    Attributes:
        expr: the expression used as a size.
        value: its negative value.
    """

    def __init__(self, expr: str, value: int) -> None:
        super().__init__(f"'{expr}' is used as a size but evaluates to {value}")
        self.expr = expr
        self.value = value


class RangeViolationError(EvaluationError):
    """A binding outside the range its symbol may take.

    Attributes:
        symbol: the symbol's name.
        value: the offending value.
        lo: the smallest allowed value.
        hi: the largest allowed value, or ``None`` when unbounded.
    """

    def __init__(self, symbol: str, value: int, lo: int, hi: int | None) -> None:
        allowed = f"{lo} <= {symbol}" + ("" if hi is None else f" <= {hi}")
        super().__init__(f"'{symbol}' = {value} is outside its range {allowed}")
        self.symbol = symbol
        self.value = value
        self.lo = lo
        self.hi = hi
