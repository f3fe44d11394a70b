"""Values of an imported graph: traced tensors, and data known at import time.

ONNX exporters compute shapes with small integer graphs (``Shape -> Gather
-> Unsqueeze -> Concat -> Reshape``). The importer evaluates them while it
imports (partial data propagation): a :class:`Known` value is a small
integer tensor whose elements are extent expressions (``batch``,
``seq * 64``, ``-1``), so a ``Reshape`` fed by it gets a symbolic target,
not a run-time shape tensor. A :class:`Literal` is a constant (an
initializer or a ``Constant`` node). Either becomes a traced tensor only when
an op needs its data at run time.

Example:
    >>> shape = Known.vector([Sym("batch"), Const(64)])
    >>> shape.elements[0] * shape.elements[1]
    batch * 64
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from symshape_mlir.extent.expr import Const, Expr
from symshape_mlir.extent.guarantee import Exact
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.shapes.shape import Shape

__all__ = [
    "KNOWN_LIMIT", "Abstract", "Known", "Literal", "Undecided", "Value", "const_values",
    "dtype_of", "shape_of",
]

#: Integer literals with at most this many elements are also propagated as data.
KNOWN_LIMIT = 64


def const_values(exprs: Iterable[Expr]) -> list[int] | None:
    """The values of ``exprs`` when every one is a constant, else ``None``."""
    values: list[int] = []
    for e in exprs:
        if not isinstance(e, Const):
            return None
        values.append(e.value)
    return values


@dataclass(frozen=True)
class Literal:
    """A constant tensor (an initializer, a ``Constant`` node, a folded result)."""

    array: np.ndarray

    @functools.cached_property
    def known(self) -> Known | None:
        """The constant as known data: small integer and boolean arrays."""
        array = self.array
        if array.dtype.kind in "iub" and array.size <= KNOWN_LIMIT:
            items = tuple(Const(int(v)) for v in array.reshape(-1).tolist())
            return Known(tuple(int(n) for n in array.shape), items, array.dtype)
        return None


@dataclass(frozen=True)
class Known:
    """An integer tensor whose elements are known as extent expressions.

    Attributes:
        shape: the static shape (elements in row-major order).
        elements: one expression per element; integer semantics, may be negative.
        dtype: the numpy integer type the graph declares.
    """

    shape: tuple[int, ...]
    elements: tuple[Expr, ...]
    dtype: np.dtype

    @staticmethod
    def vector(elements: list[Expr], dtype: np.dtype | None = None) -> Known:
        """A 1-D value."""
        return Known((len(elements),), tuple(elements), np.dtype(dtype or np.int64))

    @staticmethod
    def of(value: Value) -> Known | None:
        """``value`` as data known at import time, if it is (integers and booleans)."""
        if isinstance(value, Known):
            return value
        if isinstance(value, Literal):
            return value.known
        return None

    @property
    def constant(self) -> np.ndarray | None:
        """The elements as an array, when every element is a constant."""
        values = const_values(self.elements)
        if values is None:
            return None
        return np.array(values, dtype=self.dtype).reshape(self.shape)


@dataclass(frozen=True)
class Abstract:
    """A tensor computed at run time, seen only by its shape and element type.

    What shape inference without building (``infer_shapes(build=False)``)
    knows of a value that an import would trace as a
    :class:`~symshape_mlir.frontend.tensor.Tensor`.
    """

    shape: Shape
    dtype: np.dtype


class Undecided(Exception):
    """An element of known data that depends on how the axes are bound.

    ``Equal(batch, 1)`` is true for some bindings and false for others, so
    it has no value at import time; the node is then imported as a run-time
    computation, and a consumer that needs the data names this element.
    """

    def __init__(self, index: tuple[int, ...], question: str) -> None:
        self.index = index
        self.question = question
        super().__init__(f"element {list(index)} ({question})")


#: What a graph value name stands for while importing.
Value = Literal | Known | Tensor | Abstract


def shape_of(value: Value) -> Shape:
    """The shape of ``value`` (static for data known at import time)."""
    if isinstance(value, Tensor):
        return value.symbolic_shape
    if isinstance(value, Abstract):
        return value.shape
    dims = value.array.shape if isinstance(value, Literal) else value.shape
    return Shape([Exact(Const(int(n))) for n in dims])


def dtype_of(value: Value) -> np.dtype:
    """The numpy element type of ``value``."""
    if isinstance(value, Tensor):
        return value.dtype.numpy
    if isinstance(value, Literal):
        return value.array.dtype
    return value.dtype
