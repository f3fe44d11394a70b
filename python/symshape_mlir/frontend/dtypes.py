"""Element types of traced tensors: their MLIR spelling, numpy type and constants.

Example:
    >>> from symshape_mlir.frontend.dtypes import f32, as_dtype
    >>> f32.mlir, as_dtype("i64").numpy
    ('f32', dtype('int64'))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["DType", "as_dtype", "bf16", "f16", "f32", "f64", "i1", "i32", "i64"]


@dataclass(frozen=True)
class DType:
    """An element type.

    Attributes:
        name: the short name (``"f32"``), also its MLIR spelling.
        numpy: the matching numpy dtype.
    """

    name: str
    numpy: np.dtype

    @property
    def mlir(self) -> str:
        """The MLIR element type."""
        return self.name

    @property
    def is_float(self) -> bool:
        """Whether the type is a floating-point type."""
        return self.name.startswith(("f", "bf"))

    @property
    def is_bool(self) -> bool:
        """Whether the type is ``i1``."""
        return self.name == "i1"

    def literal(self, value: float | int) -> str:
        """``value`` as an ``arith.constant`` literal of this type.

        Infinities and NaN are written as their bit patterns, which is the
        only way MLIR's parser accepts them.
        """
        if not self.is_float:
            return str(int(value))
        value = float(value)
        if math.isfinite(value):
            mantissa, _, exponent = repr(value).partition("e")
            if "." not in mantissa:
                mantissa += ".0"
            return f"{mantissa}e{exponent}" if exponent else mantissa
        bits = np.array([value], dtype=self.numpy).view(f"u{self.numpy.itemsize}")[0]
        return f"0x{int(bits):0{2 * self.numpy.itemsize}X}"

    def __str__(self) -> str:
        return self.name


f16 = DType("f16", np.dtype(np.float16))
f32 = DType("f32", np.dtype(np.float32))
f64 = DType("f64", np.dtype(np.float64))
bf16 = DType("bf16", np.dtype(np.float32))
i1 = DType("i1", np.dtype(np.bool_))
i32 = DType("i32", np.dtype(np.int32))
i64 = DType("i64", np.dtype(np.int64))

_BY_NAME = {d.name: d for d in (f16, f32, f64, i1, i32, i64)}


def as_dtype(value: DType | str | np.dtype | type) -> DType:
    """Returns the :class:`DType` named by ``value`` (a name, numpy dtype or type).

    Raises:
        TypeError: an unsupported element type.
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    try:
        np_type = np.dtype(value)
    except TypeError:
        raise TypeError(f"unsupported element type {value!r}") from None
    for dtype in _BY_NAME.values():
        if dtype.numpy == np_type:
            return dtype
    raise TypeError(f"unsupported element type {value!r}")
