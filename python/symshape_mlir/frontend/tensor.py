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

import functools
import operator
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from symshape_mlir.extent.expr import Const
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.frontend.dtypes import DType, as_dtype
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.source import user_location
from symshape_mlir.frontend.tracer import FunctionTrace, tensor_type
from symshape_mlir.shapes.shape import Shape

if TYPE_CHECKING:
    from symshape_mlir.frontend.ops.shape_ops import ShapeTarget

__all__ = ["Tensor", "TensorSpec"]

AxisItem = int | str
Operand = Any  # a Tensor, a Python number, a numpy array or scalar
Axis = int | Sequence[int] | None


def _is_operand(value: object) -> bool:
    """Whether ``value`` can be an elementwise operand (a tensor, a number, a numpy value)."""
    return isinstance(value, Tensor | int | float | np.ndarray | np.generic)


#: numpy names of frontend ops that the frontend spells otherwise.
_NUMPY_NAMES = {
    "absolute": "abs", "fabs": "abs", "true_divide": "divide", "mod": "remainder",
    "bitwise_not": "invert", "amax": "max", "amin": "min", "around": "round",
    "concat": "concatenate", "power": "power", "float_power": "power",
}
#: Frontend names that are not numpy ops.
_NOT_OPS = frozenset({"jit", "trace", "trace_module", "elementwise", "dynamic_truncate"})


def _numpy_call(name: str, method: str, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """numpy's ``name`` applied to traced tensors, as the frontend's op.

    Raises:
        FrontendError: numpy's function has no traced form here (or takes
            ``out=``, or other arguments than the op).
    """
    where = user_location()
    fe = _ops()
    op = _NUMPY_NAMES.get(name, name)
    if method != "__call__" or op in _NOT_OPS or op not in fe.__all__ or \
            not callable(getattr(fe, op)) or isinstance(getattr(fe, op), type):
        what = name if method == "__call__" else f"{name}.{method}"
        raise FrontendError(f"numpy.{what} at {where} has no traced form; use the frontend's "
                            "ops (symshape_mlir.frontend) on traced tensors")
    if "out" in kwargs:
        raise FrontendError(f"numpy.{name} at {where}: out= is not supported (traced values "
                            "are immutable)")
    try:
        return getattr(fe, op)(*args, **kwargs)
    except TypeError as err:
        raise FrontendError(f"numpy.{name} at {where}: {err}") from None


_OPS: list[ModuleType] = []


def bind_ops(ops: ModuleType) -> None:
    """Gives tensors the frontend's ops for their operators and methods.

    ``symshape_mlir.frontend`` binds itself once it has imported every op:
    the ops are built on this module, which therefore cannot import them.
    """
    _OPS[:] = [ops]


def _ops() -> ModuleType:
    """The frontend's ops (``symshape_mlir.frontend``, bound by it on import)."""
    return _OPS[0]


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
    def size(self) -> ShapeExtent:
        """The element count, an extent (``batch * 64``)."""
        return functools.reduce(operator.mul, self.shape, Exact(Const(1)))

    @property
    def mlir_type(self) -> str:
        """The MLIR type text."""
        return tensor_type(self.shape, self.dtype)

    def __repr__(self) -> str:
        return f"Tensor({self.value}: {self._shape} {self.dtype})"

    def __hash__(self) -> int:
        return id(self)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """numpy's ufuncs on traced tensors (``np.exp(x)``, ``np.ones(3) * x``) trace
        the frontend's op of the same name."""
        return _numpy_call(ufunc.__name__, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        """numpy's functions on traced tensors (``np.sum(x, axis=1)``,
        ``np.concatenate([x, y])``) trace the frontend's op of the same name."""
        return _numpy_call(func.__name__, "__call__", args, kwargs)

    def __bool__(self) -> bool:
        raise FrontendError(
            f"a traced tensor has no truth value while tracing, at {user_location()}: its "
            "values exist only when the function runs. Choose elementwise with "
            "fe.where(condition, x, y); compare shapes with x.shape")

    def _no_value(self, kind: str) -> FrontendError:
        return FrontendError(
            f"a traced tensor has no {kind} value while tracing, at {user_location()}: its "
            "values exist only when the function runs (a 0-d integer tensor can size "
            "tensors: x[:k], fe.arange(k), x.reshape(k, -1))")

    def __int__(self) -> int:
        raise self._no_value("int")

    def __float__(self) -> float:
        raise self._no_value("float")

    def __index__(self) -> int:
        raise self._no_value("int")

    def __len__(self) -> int:
        """The first axis's extent, when it is a constant (``len()`` must return an int)."""
        if not self.ndim:
            raise FrontendError(f"len() of a 0-d tensor at {user_location()}")
        first = self.shape[0]
        if first.is_exact and isinstance(first.expr, Const):
            return first.expr.value
        raise FrontendError(
            f"len() at {user_location()}: the first axis is {first}, not a constant; "
            "use x.shape[0] (an extent)")

    def __iter__(self) -> Iterator[Tensor]:
        """The slices along the first axis, when its extent is a constant."""
        for i in range(len(self)):
            yield self[i]

    def __contains__(self, item: object) -> bool:
        raise FrontendError(f"'in' on a traced tensor at {user_location()}: its values exist "
                            "only when the function runs; use fe.any(x == value)")

    # -- operators ------------------------------------------------------------------------

    def __add__(self, other: Operand) -> Tensor:
        return _ops().add(self, other)

    def __radd__(self, other: Operand) -> Tensor:
        return _ops().add(other, self)

    def __sub__(self, other: Operand) -> Tensor:
        return _ops().subtract(self, other)

    def __rsub__(self, other: Operand) -> Tensor:
        return _ops().subtract(other, self)

    def __mul__(self, other: Operand) -> Tensor:
        return _ops().multiply(self, other)

    def __rmul__(self, other: Operand) -> Tensor:
        return _ops().multiply(other, self)

    def __truediv__(self, other: Operand) -> Tensor:
        return _ops().divide(self, other)

    def __rtruediv__(self, other: Operand) -> Tensor:
        return _ops().divide(other, self)

    def __floordiv__(self, other: Operand) -> Tensor:
        return _ops().floor_divide(self, other)

    def __rfloordiv__(self, other: Operand) -> Tensor:
        return _ops().floor_divide(other, self)

    def __mod__(self, other: Operand) -> Tensor:
        return _ops().remainder(self, other)

    def __rmod__(self, other: Operand) -> Tensor:
        return _ops().remainder(other, self)

    def __pow__(self, other: Operand) -> Tensor:
        return _ops().power(self, other)

    def __rpow__(self, other: Operand) -> Tensor:
        return _ops().power(other, self)

    def __and__(self, other: Operand) -> Tensor:
        return _ops().bitwise_and(self, other)

    def __rand__(self, other: Operand) -> Tensor:
        return _ops().bitwise_and(other, self)

    def __or__(self, other: Operand) -> Tensor:
        return _ops().bitwise_or(self, other)

    def __ror__(self, other: Operand) -> Tensor:
        return _ops().bitwise_or(other, self)

    def __xor__(self, other: Operand) -> Tensor:
        return _ops().bitwise_xor(self, other)

    def __rxor__(self, other: Operand) -> Tensor:
        return _ops().bitwise_xor(other, self)

    # Comparisons give i1 tensors, as in numpy (hashing stays by identity).
    def __lt__(self, other: Operand) -> Tensor:
        return _ops().less(self, other)

    def __le__(self, other: Operand) -> Tensor:
        return _ops().less_equal(self, other)

    def __gt__(self, other: Operand) -> Tensor:
        return _ops().greater(self, other)

    def __ge__(self, other: Operand) -> Tensor:
        return _ops().greater_equal(self, other)

    def __eq__(self, other: object) -> Tensor:  # type: ignore[override]
        if not _is_operand(other):
            return NotImplemented  # identity, as for any object (`x in [None, ...]`)
        return _ops().equal(self, other)

    def __ne__(self, other: object) -> Tensor:  # type: ignore[override]
        if not _is_operand(other):
            return NotImplemented
        return _ops().not_equal(self, other)

    def __neg__(self) -> Tensor:
        return _ops().negative(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return _ops().abs(self)

    def __invert__(self) -> Tensor:
        return _ops().invert(self)

    def __matmul__(self, other: Tensor) -> Tensor:
        return _ops().matmul(self, other)

    def __rmatmul__(self, other: Tensor) -> Tensor:
        return _ops().matmul(other, self)

    def __getitem__(self, key: Any) -> Tensor:
        return _ops().getitem(self, key)

    # -- methods (numpy names) --------------------------------------------------------------

    @overload
    def reshape(self, shape: Sequence[ShapeTarget], /) -> Tensor: ...

    @overload
    def reshape(self, *shape: ShapeTarget) -> Tensor: ...

    def reshape(self, *shape: Any) -> Tensor:
        """``numpy.reshape``; see :func:`~symshape_mlir.frontend.ops.shape_ops.reshape`.

        Takes the target extents as one sequence or as separate arguments.
        """
        if len(shape) == 1 and isinstance(shape[0], list | tuple):
            return _ops().reshape(self, shape[0])
        return _ops().reshape(self, shape)

    def astype(self, dtype: DType | str) -> Tensor:
        """``numpy.ndarray.astype``."""
        return _ops().astype(self, dtype)

    def flatten(self) -> Tensor:
        """The elements as one axis (``reshape(-1)``)."""
        return self.reshape(-1)

    ravel = flatten

    def squeeze(self, axis: Axis = None) -> Tensor:
        """``numpy.squeeze``."""
        return _ops().squeeze(self, axis)

    def clip(self, a_min: Operand = None, a_max: Operand = None) -> Tensor:
        """``numpy.clip``."""
        return _ops().clip(self, a_min, a_max)

    def round(self, decimals: int = 0) -> Tensor:
        """``numpy.round``."""
        return _ops().round(self, decimals)

    def copy(self) -> Tensor:
        """The tensor itself (traced values are immutable)."""
        return self

    def transpose(self, *axes: Any) -> Tensor:
        """``numpy.transpose`` (reversed axes when none are given); the axes as
        separate arguments or one sequence."""
        if len(axes) == 1 and isinstance(axes[0], list | tuple):
            axes = tuple(axes[0])
        return _ops().transpose(self, axes or None)

    def swapaxes(self, axis1: int, axis2: int) -> Tensor:
        """``numpy.swapaxes``."""
        return _ops().swapaxes(self, axis1, axis2)

    @property
    def T(self) -> Tensor:
        """The reversed-axes transpose."""
        return self.transpose()

    def sum(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """``numpy.sum``."""
        return _ops().sum(self, axis, keepdims=keepdims)

    def mean(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """``numpy.mean``."""
        return _ops().mean(self, axis, keepdims=keepdims)

    def max(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """``numpy.max``."""
        return _ops().max(self, axis, keepdims=keepdims)

    def min(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """``numpy.min``."""
        return _ops().min(self, axis, keepdims=keepdims)

    def prod(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """``numpy.prod``."""
        return _ops().prod(self, axis, keepdims=keepdims)

    def all(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """``numpy.all``."""
        return _ops().all(self, axis, keepdims=keepdims)

    def any(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """``numpy.any``."""
        return _ops().any(self, axis, keepdims=keepdims)

    def var(self, axis: Axis = None, ddof: int = 0, keepdims: bool = False) -> Tensor:
        """``numpy.var``."""
        return _ops().var(self, axis, ddof=ddof, keepdims=keepdims)

    def std(self, axis: Axis = None, ddof: int = 0, keepdims: bool = False) -> Tensor:
        """``numpy.std``."""
        return _ops().std(self, axis, ddof=ddof, keepdims=keepdims)

    def argmax(self, axis: int | None = None, keepdims: bool = False) -> Tensor:
        """``numpy.argmax``."""
        return _ops().argmax(self, axis, keepdims=keepdims)

    def argmin(self, axis: int | None = None, keepdims: bool = False) -> Tensor:
        """``numpy.argmin``."""
        return _ops().argmin(self, axis, keepdims=keepdims)

    def cumsum(self, axis: int | None = None) -> Tensor:
        """``numpy.cumsum``."""
        return _ops().cumsum(self, axis)

    def cumprod(self, axis: int | None = None) -> Tensor:
        """``numpy.cumprod``."""
        return _ops().cumprod(self, axis)

    def sort(self, axis: int = -1) -> Tensor:
        """``numpy.sort`` (a new tensor: traced values are immutable)."""
        return _ops().sort(self, axis)

    def argsort(self, axis: int = -1) -> Tensor:
        """``numpy.argsort`` (stable)."""
        return _ops().argsort(self, axis)
