"""Traced tensors and their declarations (``Tensor["batch", 64, f32]``).

``Tensor[...]`` is a :class:`TensorSpec`: axis items (an ``int`` extent, an
axis name, ``"?"`` for a dynamic axis without a name) followed by the
element type (a :class:`~symshape_mlir.frontend.dtypes.DType` or its name);
``Tensor["i64"]`` is a 0-d integer scalar input. Axes that share a name
share a size. An input with no named axis leaves its ``"?"`` axes unnamed
(fresh symbols ``_dN`` at trace time, no ``symshape.axes`` attribute); in an
input that also names axes, a ``"?"`` axis is named ``<parameter>_<axis>``
(the dialect's ``symshape.axes`` holds exact extents only).

Inside a traced function the arguments are :class:`Tensor` values:
``x.shape`` is a tuple of :class:`~symshape_mlir.extent.ShapeExtent`
(expression + guarantee, with extent arithmetic), and the numpy-like
operators and methods emit MLIR.

Example:
    >>> spec = Tensor["batch", "seq", 768, "f32"]
    >>> spec
    Tensor['batch', 'seq', 768, f32]
    >>> def f(x):
    ...     rows = x.shape[0] * x.shape[1]         # Exact(batch * seq)
    ...     return x.reshape(rows, 768)            # [batch * seq, 768]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, overload

from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.frontend.dtypes import DType, as_dtype
from symshape_mlir.frontend.tracer import FunctionTrace, tensor_type
from symshape_mlir.shapes.shape import Shape

if TYPE_CHECKING:
    from symshape_mlir.frontend.ops.shape_ops import ShapeTarget

__all__ = ["Tensor", "TensorSpec"]

AxisItem = int | str


class TensorSpec:
    """The declared type of a traced function's input.

    Attributes:
        axes: per axis, an ``int`` extent, an axis name or ``"?"``.
        dtype: the element type.
    """

    __slots__ = ("axes", "dtype")

    def __init__(self, axes: Sequence[AxisItem], dtype: DType | str) -> None:
        for item in axes:
            if isinstance(item, bool) or not isinstance(item, int | str):
                raise TypeError(f"an axis is an int extent, a name or '?', not {item!r}")
            if isinstance(item, int) and item < 0:
                raise ValueError(f"negative extent {item}")
            if isinstance(item, str) and item != "?" and not item.isidentifier():
                raise ValueError(f"invalid axis name {item!r}")
        self.axes = tuple(axes)
        self.dtype = as_dtype(dtype)

    @property
    def rank(self) -> int:
        """The number of axes."""
        return len(self.axes)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TensorSpec):
            return (self.axes, self.dtype) == (other.axes, other.dtype)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.axes, self.dtype))

    def __repr__(self) -> str:
        items = [repr(a) for a in self.axes] + [str(self.dtype)]
        return f"Tensor[{', '.join(items)}]"


class Tensor:
    """A tensor value of the function being traced.

    Not built directly: arguments come from the declared :class:`TensorSpec`
    inputs, results from the ops. ``Tensor[...]`` makes a spec.

    Attributes:
        trace: the function being traced.
        value: the SSA name.
        dtype: the element type.
    """

    __slots__ = ("_shape", "dtype", "trace", "value")

    def __init__(self, trace: FunctionTrace, value: str, shape: Shape, dtype: DType) -> None:
        self.trace = trace
        self.value = value
        self._shape = Shape(shape)
        self.dtype = dtype
        trace.register(self)

    @classmethod
    def __class_getitem__(cls, items: Any) -> TensorSpec:
        if not isinstance(items, tuple):
            items = (items,)
        if not items:
            raise TypeError("Tensor[...] needs an element type")
        *axes, dtype = items
        return TensorSpec(axes, dtype)

    # -- shape ---------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[ShapeExtent, ...]:
        """The extents, each an expression with its guarantee."""
        return self._shape.dims

    @property
    def symbolic_shape(self) -> Shape:
        """The shape as a :class:`~symshape_mlir.shapes.Shape`."""
        return self._shape

    @property
    def ndim(self) -> int:
        """The rank."""
        return self._shape.rank

    @property
    def mlir_type(self) -> str:
        """The MLIR type text."""
        return tensor_type(self.shape, self.dtype)

    def __repr__(self) -> str:
        return f"Tensor({self.value}: {self._shape} {self.dtype})"

    def __hash__(self) -> int:
        return id(self)

    def __bool__(self) -> bool:
        raise TypeError("a traced tensor has no truth value at trace time")

    # -- operators ------------------------------------------------------------------------

    def __add__(self, other: Tensor | float) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import add

        return add(self, other)

    def __radd__(self, other: float) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import add

        return add(other, self)

    def __sub__(self, other: Tensor | float) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import subtract

        return subtract(self, other)

    def __rsub__(self, other: float) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import subtract

        return subtract(other, self)

    def __mul__(self, other: Tensor | float) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import multiply

        return multiply(self, other)

    def __rmul__(self, other: float) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import multiply

        return multiply(other, self)

    def __truediv__(self, other: Tensor | float) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import divide

        return divide(self, other)

    def __rtruediv__(self, other: float) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import divide

        return divide(other, self)

    def __pow__(self, other: Tensor | float) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import power

        return power(self, other)

    def __rpow__(self, other: float) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import power

        return power(other, self)

    # Comparisons give i1 tensors. `==` and `!=` keep their identity meaning
    # (tensors are compared and hashed by identity): use `equal`/`not_equal`.
    def __lt__(self, other: Tensor | float) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import less

        return less(self, other)

    def __le__(self, other: Tensor | float) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import less_equal

        return less_equal(self, other)

    def __gt__(self, other: Tensor | float) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import greater

        return greater(self, other)

    def __ge__(self, other: Tensor | float) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import greater_equal

        return greater_equal(self, other)

    def __neg__(self) -> Tensor:
        from symshape_mlir.frontend.ops.elementwise import negative

        return negative(self)

    def __matmul__(self, other: Tensor) -> Tensor:
        from symshape_mlir.frontend.ops.linalg import matmul

        return matmul(self, other)

    def __getitem__(self, key: Any) -> Tensor:
        from symshape_mlir.frontend.ops.indexing import getitem

        return getitem(self, key)

    # -- methods (numpy names) --------------------------------------------------------------

    @overload
    def reshape(self, shape: Sequence[ShapeTarget], /) -> Tensor: ...

    @overload
    def reshape(self, *shape: ShapeTarget) -> Tensor: ...

    def reshape(self, *shape: Any) -> Tensor:
        """``numpy.reshape``; see :func:`~symshape_mlir.frontend.ops.shape_ops.reshape`.

        Takes the target extents as one sequence or as separate arguments.
        """
        from symshape_mlir.frontend.ops.shape_ops import reshape

        if len(shape) == 1 and isinstance(shape[0], list | tuple):
            return reshape(self, shape[0])
        return reshape(self, shape)

    def astype(self, dtype: DType | str) -> Tensor:
        """``numpy.ndarray.astype``."""
        from symshape_mlir.frontend.ops.elementwise import astype

        return astype(self, dtype)

    def transpose(self, *axes: int) -> Tensor:
        """``numpy.transpose`` (reversed axes when none are given)."""
        from symshape_mlir.frontend.ops.shape_ops import transpose

        return transpose(self, axes or None)

    @property
    def T(self) -> Tensor:
        """The reversed-axes transpose."""
        return self.transpose()

    def sum(self, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
        """``numpy.sum``."""
        from symshape_mlir.frontend.ops.reductions import sum as sum_

        return sum_(self, axis, keepdims=keepdims)

    def mean(self, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
        """``numpy.mean``."""
        from symshape_mlir.frontend.ops.reductions import mean

        return mean(self, axis, keepdims=keepdims)

    def max(self, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
        """``numpy.max``."""
        from symshape_mlir.frontend.ops.reductions import max as max_

        return max_(self, axis, keepdims=keepdims)

    def min(self, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
        """``numpy.min``."""
        from symshape_mlir.frontend.ops.reductions import min as min_

        return min_(self, axis, keepdims=keepdims)
