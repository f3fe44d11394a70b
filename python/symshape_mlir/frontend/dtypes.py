"""Element types of traced tensors: their MLIR spelling, numpy type and constants.

``f16 bf16 f32 f64`` (floating point), ``i8 i16 i32 i64`` (signed), ``u8``
and ``u64`` (unsigned: the type of a ``u8`` sum) and ``i1`` (``bool``).
Inside a function every integer is signless MLIR (``u8`` is ``i8`` there,
with unsigned ops: ``divui``, ``cmpi ult``, ``extui``, ``uitofp``); at the
function's boundary ``u8`` is ``ui8``, so arrays come and go as
``numpy.uint8`` (IREE 3.13 compiles no 0-d unsigned input or result: such
an input is refused, such a result is returned as a wider signed type). numpy has no ``bf16``:
it is ``ml_dtypes.bfloat16`` (the type IREE's runtime reads and returns).

Example:
    >>> from symshape_mlir.frontend.dtypes import f32, u8, as_dtype
    >>> f32.mlir, as_dtype("i64").numpy, u8.mlir, u8.abi
    ('f32', dtype('int64'), 'i8', 'ui8')
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import ml_dtypes
import numpy as np

__all__ = [
    "DType",
    "as_dtype",
    "bf16",
    "bool_",
    "f16",
    "f32",
    "f64",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "promote",
    "u8",
    "u64",
]


@dataclass(frozen=True)
class DType:
    """An element type.

    Attributes:
        name: the short name (``"f32"``, ``"u8"``).
        numpy: the matching numpy dtype.
    """

    name: str
    numpy: np.dtype

    @property
    def mlir(self) -> str:
        """The MLIR element type inside a function (integers are signless)."""
        return "i" + self.name[1:] if self.is_unsigned else self.name

    @property
    def abi(self) -> str:
        """The MLIR element type of a function argument or result (``ui8`` for ``u8``)."""
        return "u" + self.mlir if self.is_unsigned else self.mlir

    @property
    def is_float(self) -> bool:
        """Whether the type is a floating-point type."""
        return self.name.startswith(("f", "bf"))

    @property
    def is_bool(self) -> bool:
        """Whether the type is ``i1``."""
        return self.name == "i1"

    @property
    def is_unsigned(self) -> bool:
        """Whether the type is an unsigned integer (``u8``)."""
        return self.name.startswith("u")

    @property
    def is_integer(self) -> bool:
        """Whether the type is an integer type other than ``i1``."""
        return not self.is_float and not self.is_bool

    @property
    def bits(self) -> int:
        """The width in bits."""
        return 1 if self.is_bool else 8 * self.numpy.itemsize

    @property
    def int_range(self) -> tuple[int, int]:
        """The values of an integer type (``i1``: 0 and 1)."""
        if self.is_bool:
            return 0, 1
        info = np.iinfo(self.numpy)
        return int(info.min), int(info.max)

    def literal(self, value: float | int) -> str:
        """``value`` as an ``arith.constant`` literal of this type.

        Integers are written as the signless value of their bits (``u8``
        ``200`` is ``-56``). Infinities and NaN are written as their bit
        patterns, which is the only way MLIR's parser accepts them.

        Raises:
            OverflowError: an integer the type cannot hold.
        """
        if not self.is_float:
            number = int(value)
            low, high = self.int_range
            if not low <= number <= high:
                raise OverflowError(f"{number} is out of the range of {self.name}")
            return str(number - (1 << self.bits) if number >= 1 << (self.bits - 1) else number)
        value = float(value)
        if math.isfinite(value) and self.name in ("f32", "f64"):
            mantissa, _, exponent = repr(value).partition("e")
            if "." not in mantissa:
                mantissa += ".0"
            return f"{mantissa}e{exponent}" if exponent else mantissa
        bits = np.array([value], dtype=self.numpy).view(f"u{self.numpy.itemsize}")[0]
        return f"0x{int(bits):0{2 * self.numpy.itemsize}X}"

    def __str__(self) -> str:
        return self.name


f16 = DType("f16", np.dtype(np.float16))
bf16 = DType("bf16", np.dtype(ml_dtypes.bfloat16))
f32 = DType("f32", np.dtype(np.float32))
f64 = DType("f64", np.dtype(np.float64))
i1 = DType("i1", np.dtype(np.bool_))
bool_ = i1
i8 = DType("i8", np.dtype(np.int8))
i16 = DType("i16", np.dtype(np.int16))
i32 = DType("i32", np.dtype(np.int32))
i64 = DType("i64", np.dtype(np.int64))
u8 = DType("u8", np.dtype(np.uint8))
u64 = DType("u64", np.dtype(np.uint64))

_ALL = (f16, bf16, f32, f64, i1, i8, i16, i32, i64, u8, u64)
_BY_NAME = {d.name: d for d in _ALL} | {"bool": i1, "float32": f32, "float64": f64,
                                         "float16": f16, "bfloat16": bf16, "int8": i8,
                                         "int16": i16, "int32": i32, "int64": i64,
                                         "uint8": u8, "uint64": u64}


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
    for dtype in _ALL:
        if dtype.numpy == np_type:
            return dtype
    names = ", ".join(d.name for d in _ALL)
    raise TypeError(f"unsupported element type {value!r} (supported: {names})")


def promote(a: DType, b: DType) -> DType:
    """numpy's result type of two element types (``i32`` and ``f32`` give ``f64``).

    ``bf16`` with another float is the wider of the two (``f16`` and
    ``bf16``: ``f32``), as in JAX; with an integer it stays ``bf16``.

    Raises:
        TypeError: a combination whose numpy result the frontend has no type
            for (``u8`` with ``i64`` and wider unsigned types are fine, but
            numpy gives ``float64`` for ``u64`` with ``i64``).
    """
    if a == b:
        return a
    if bf16 in (a, b):
        other = b if a == bf16 else a
        if other.is_float:
            return f32 if other == f16 else other
        return bf16
    return as_dtype(np.result_type(a.numpy, b.numpy))
