"""Function signatures read from the ABI declaration IREE stores in a module.

IREE reflects every exported function as ``iree.abi.declaration``, e.g.::

    sync func @add(%input0: tensor<?x4xf32>, %n: i32) -> (%output0: tensor<?x4xf32>)
"""

from __future__ import annotations

import dataclasses
import logging
import re

import ml_dtypes
import numpy as np

__all__ = ["OpaqueType", "ScalarType", "Signature", "TensorType", "parse_declaration"]

logger = logging.getLogger(__name__)

# ABI element types -> numpy dtypes. Signless integers are read as signed.
_DTYPES: dict[str, np.dtype] = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "si8": np.dtype(np.int8),
    "si16": np.dtype(np.int16),
    "si32": np.dtype(np.int32),
    "si64": np.dtype(np.int64),
    "ui8": np.dtype(np.uint8),
    "ui16": np.dtype(np.uint16),
    "ui32": np.dtype(np.uint32),
    "ui64": np.dtype(np.uint64),
    "index": np.dtype(np.int64),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "complex<f32>": np.dtype(np.complex64),
    "complex<f64>": np.dtype(np.complex128),
}
_SIGNLESS_INTEGERS = frozenset({"i8", "i16", "i32", "i64"})
_DECLARATION = re.compile(
    r"^(?P<mode>sync|async) func @(?P<name>[^(]+)\((?P<args>.*)\)"
    r" -> \((?P<results>.*)\)$"
)
_TENSOR = re.compile(r"^tensor<(?P<dims>(?:(?:\d+|\?)x)*)(?P<element>[^,]+)>$")


@dataclasses.dataclass(frozen=True)
class TensorType:
    """A tensor in a function signature.

    Attributes:
        dims: The extents, None where dynamic.
        element: The MLIR element type (``"f32"``, ``"i1"``, ...).
        dtype: The numpy dtype of the element type.
        accepted: The numpy dtypes accepted as arguments (for a signless
            integer both the signed and the unsigned dtype of its width).
    """

    dims: tuple[int | None, ...]
    element: str
    dtype: np.dtype
    accepted: frozenset[np.dtype]
    _static: tuple[tuple[int, int], ...] = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Records the static extents for `fits`."""
        static = tuple((axis, d) for axis, d in enumerate(self.dims) if d is not None)
        object.__setattr__(self, "_static", static)

    @property
    def rank(self) -> int:
        """The number of dimensions."""
        return len(self.dims)

    def fits(self, shape: tuple[int, ...]) -> bool:
        """Whether a shape has this type's rank and static extents."""
        return len(shape) == len(self.dims) and all(shape[axis] == d for axis, d in self._static)

    def __str__(self) -> str:
        """Formats the type as MLIR does."""
        dims = "".join(("?" if d is None else str(d)) + "x" for d in self.dims)
        return f"tensor<{dims}{self.element}>"


@dataclasses.dataclass(frozen=True)
class ScalarType:
    """An integer, index or float scalar in a function signature.

    Attributes:
        element: The MLIR type (``"i32"``, ``"index"``, ``"f32"``, ...).
        dtype: The numpy dtype of the type.
    """

    element: str
    dtype: np.dtype

    @property
    def is_float(self) -> bool:
        """Whether the scalar is a floating-point value."""
        return self.dtype.kind == "f"

    @property
    def int_range(self) -> tuple[int, int]:
        """The integers an argument of this type accepts, bounds included.

        A signed or unsigned type accepts its own range; a signless integer
        (``i32``) accepts the signed range of its width, which is how the
        module reads it (``2**31`` would arrive as ``-2**31``); ``index``
        is 64-bit signed.

        Raises:
            TypeError: If the scalar is a float.
        """
        if self.is_float:
            raise TypeError(f"{self.element} is not an integer type")
        info = np.iinfo(self.dtype)
        return int(info.min), int(info.max)

    def __str__(self) -> str:
        """Formats the type as MLIR does."""
        return self.element


@dataclasses.dataclass(frozen=True)
class OpaqueType:
    """A type the backend does not convert (``!hal.fence``, lists, ...).

    Attributes:
        text: The type as declared.
    """

    text: str

    def __str__(self) -> str:
        """Returns the declared type."""
        return self.text


ValueType = TensorType | ScalarType | OpaqueType


@dataclasses.dataclass(frozen=True)
class Signature:
    """The signature of an exported function.

    Attributes:
        name: The function's name.
        inputs: The argument types.
        results: The result types.
        is_async: Whether the function uses IREE's async (fence) ABI.
    """

    name: str
    inputs: tuple[ValueType, ...]
    results: tuple[ValueType, ...]
    is_async: bool

    def __str__(self) -> str:
        """Formats the signature like an MLIR function type."""
        inputs = ", ".join(map(str, self.inputs))
        results = ", ".join(map(str, self.results))
        return f"@{self.name}({inputs}) -> ({results})"


def _split_top_level(text: str) -> list[str]:
    """Splits at commas outside ``<>``, ``()``, ``[]`` and ``{}``."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, char in enumerate(text):
        if char in "<([{":
            depth += 1
        elif char in ">)]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    tail = text[start:]
    if tail.strip():
        parts.append(tail)
    return [part.strip() for part in parts]


def _parse_type(text: str) -> ValueType:
    tensor = _TENSOR.match(text)
    if tensor is not None:
        element = tensor["element"]
        dtype = _DTYPES.get(element)
        if dtype is None:
            return OpaqueType(text)
        dims = tuple(None if d == "?" else int(d) for d in tensor["dims"].split("x")[:-1])
        accepted = {dtype}
        if element in _SIGNLESS_INTEGERS:
            accepted.add(np.dtype(f"uint{dtype.itemsize * 8}"))
        return TensorType(dims, element, dtype, frozenset(accepted))
    dtype = _DTYPES.get(text)
    if dtype is not None and dtype.kind in "iuf":
        return ScalarType(text, dtype)
    return OpaqueType(text)


def _parse_values(text: str) -> tuple[ValueType, ...]:
    # Each entry is `%name: type`.
    return tuple(_parse_type(entry.split(":", 1)[1].strip()) for entry in _split_top_level(text))


def parse_declaration(declaration: str) -> Signature:
    """Parses an ``iree.abi.declaration`` string.

    Args:
        declaration: The declaration text.

    Returns:
        The function's signature.

    Raises:
        ValueError: If the text is not a function declaration.
    """
    match = _DECLARATION.match(declaration.strip())
    if match is None:
        raise ValueError(f"not an IREE ABI declaration: {declaration!r}")
    return Signature(
        name=match["name"],
        inputs=_parse_values(match["args"]),
        results=_parse_values(match["results"]),
        is_async=match["mode"] == "async",
    )
