"""Function transformations over the frontend and the runtime: ``jit``, ``grad``,
``value_and_grad`` and ``vjp``.

``jit`` traces a function once, compiles it with the runtime and calls it on numpy arrays.
``grad``, ``value_and_grad`` and ``vjp`` do the same for a function's
derivatives (JAX's semantics): forward and backward are traced into one
function with the named axes, compiled once on the first call, and served
by the runtime at every binding like any ``jit`` function.

The decorated function's parameters are annotated with their input types
(``Tensor["batch", 64, f32]``), or the types are given as ``inputs=``. It is
traced at decoration time (shape and contract errors show up there, naming
the Python line), compiled once by :func:`symshape_mlir.runtime.compile`
(dynamic shapes, cached on disk) and replaced by the runtime's
:class:`~symshape_mlir.runtime.EntryPoint`: calls at any binding of the
named axes, ``.plan(...)``, ``.bind_params(...)``.

Example:
    >>> import numpy as np
    >>> import symshape_mlir
    >>> from symshape_mlir.frontend import Tensor, f32, relu
    >>> @symshape_mlir.jit
    ... def layer(x: Tensor["batch", 64, f32], w: Tensor[64, 32, f32]):
    ...     return relu(x @ w)
    >>> layer(np.ones((3, 64), np.float32), np.ones((64, 32), np.float32)).shape
    (3, 32)

``@jit(bucket=["batch"])`` pads ``batch`` up to a power of two on each call
(3 rows run the 4-row variant), for functions whose rows are independent.

Derivatives:
    >>> from symshape_mlir.frontend import mean
    >>> def loss(w: Tensor[64, 32, f32], x: Tensor["batch", 64, f32]):
    ...     return mean(relu(x @ w))
    >>> dw = symshape_mlir.grad(loss)(np.ones((64, 32), np.float32),
    ...                               np.ones((3, 64), np.float32))
    >>> dw.shape
    (64, 32)

Called on traced tensors (inside a ``jit`` function), ``grad`` and friends
differentiate in the function being traced: ``@jit`` of a training step
that calls ``grad(loss)`` compiles forward, backward and update as one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, overload

from symshape_mlir import runtime
from symshape_mlir.frontend import autodiff
from symshape_mlir.frontend.source import user_location
from symshape_mlir.frontend.tensor import Tensor, TensorSpec
from symshape_mlir.frontend.tracing import TracedFunction, input_specs, trace
from symshape_mlir.frontend.vjp import ADError

__all__ = ["VJP", "Gradient", "grad", "jit", "value_and_grad", "vjp"]


@overload
def jit(fn: Callable[..., Any], /) -> Any: ...


@overload
def jit(
    *,
    inputs: Sequence[TensorSpec] | None = None,
    target: str = "llvm-cpu",
    bucket: Sequence[str] = (),
    **options: Any,
) -> Callable[[Callable[..., Any]], Any]: ...


def jit(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    inputs: Sequence[TensorSpec] | None = None,
    target: str = "llvm-cpu",
    bucket: Sequence[str] = (),
    **options: Any,
) -> Any:
    """Traces and compiles ``fn``; returns the runtime's entry point for it.

    Args:
        fn: the function (when used as ``@jit`` without arguments).
        inputs: the input types, instead of the annotations.
        target: the IREE target (``"llvm-cpu"``, ``"vulkan"``, ...).
        bucket: named axes that calls pad with zeros up to a power of two,
            so that a few compiled variants serve every size (results are
            sliced back). Only for axes along which the function treats
            positions independently (see :func:`~symshape_mlir.frontend.trace`).
        **options: further :func:`symshape_mlir.runtime.compile` options;
            ``contract="defer"`` also traces upper bounds used as true sizes,
            leaving them to run-time checks.
    """

    def wrap(f: Callable[..., Any]) -> Any:
        specs = tuple(inputs) if inputs is not None else input_specs(f)
        traced = trace(f, *specs, contract=options.get("contract", "reject"), bucket=bucket)
        entry = _compile(traced, target, dict(options))
        entry.__wrapped__ = f
        return entry

    return wrap(fn) if fn is not None else wrap


def _compile(traced: TracedFunction, target: str, options: dict[str, Any]) -> Any:
    """Compiles a traced function; returns the runtime's entry point for it."""
    # Results sized by deferred truncations are known only after the call.
    deferred = options.get("contract") == "defer"
    if (not traced.planned or deferred) and "unplanned" not in options:
        options["unplanned"] = [traced.name]
    module = traced.module
    try:
        executable = runtime.compile(module, target, **options)
    except runtime.UnplannableSizeError as err:
        # A size only the call computes (the count of a boolean mask):
        # results are read after the call.
        if "unplanned" in options or err.function != traced.name:
            raise
        options["unplanned"] = [traced.name]
        executable = runtime.compile(module, target, **options)
    return getattr(executable, traced.name)


def _unwrapped(fun: Callable[..., Any], transform: str) -> Callable[..., Any]:
    """The Python function of a ``jit`` function (itself otherwise).

    Raises:
        ADError: ``fun`` is itself a derivative (``grad(grad(f))``), whose
            ``__wrapped__`` is the function it differentiates: unwrapping
            it would silently drop one differentiation.
    """
    if isinstance(fun, (Gradient, VJP)):
        raise ADError(
            f"{transform} of {fun!r}: differentiating a derivative (a gradient of a "
            "gradient) is not supported", primitive=transform, location=user_location())
    return getattr(fun, "__wrapped__", fun)


def _traced_args(args: Sequence[Any]) -> bool:
    return any(isinstance(a, Tensor) for a in args)


class Gradient:
    """``grad`` or ``value_and_grad`` of a function: call it with numpy arrays.

    The first call traces forward and backward into one function and
    compiles it (:func:`symshape_mlir.runtime.compile`); every call then
    runs that module at the arguments' binding. Called with traced tensors
    (inside ``jit``), it differentiates in the function being traced.

    Attributes:
        fun: the differentiated Python function.
    """

    def __init__(self, fun: Callable[..., Any], argnums: int | Sequence[int], has_aux: bool,
                 with_value: bool, inputs: Sequence[TensorSpec] | None, target: str,
                 options: dict[str, Any]) -> None:
        self.fun = _unwrapped(fun, "value_and_grad" if with_value else "grad")
        self._argnums = argnums
        self._has_aux = has_aux
        self._with_value = with_value
        self._inputs = inputs
        self._target = target
        self._options = options
        self._lock = threading.Lock()
        self._traced: autodiff.TracedGrad | None = None
        self._entry: Any = None
        self.__wrapped__ = self.fun

    def __repr__(self) -> str:
        kind = "value_and_grad" if self._with_value else "grad"
        return f"<{kind} of {getattr(self.fun, '__qualname__', self.fun)}>"

    @property
    def traced(self) -> autodiff.TracedGrad:
        """The traced function (value, aux tensors, then the gradients)."""
        with self._lock:
            if self._traced is None:
                self._traced = autodiff.trace_grad(
                    self.fun, self._inputs, argnums=self._argnums, has_aux=self._has_aux)
            return self._traced

    @property
    def entry(self) -> Any:
        """The runtime's entry point of the compiled function (flat results:
        ``plan``, ``bind_params``, ``executable.stats()``)."""
        traced = self.traced
        with self._lock:
            if self._entry is None:
                self._entry = _compile(traced.traced, self._target, dict(self._options))
            return self._entry

    def __call__(self, *args: Any) -> Any:
        """The gradients at ``args`` (numpy arrays, or traced tensors inside ``jit``)."""
        if _traced_args(args):
            transform = autodiff.value_and_grad if self._with_value else autodiff.grad
            return transform(self.fun, self._argnums, has_aux=self._has_aux)(*args)
        results = self.entry(*args)
        return self._structured(results if isinstance(results, tuple) else (results,))

    def _structured(self, results: tuple[Any, ...]) -> Any:
        traced = self.traced
        count = len(traced.argnums)
        value, rest = results[0], results[1:]
        grads = rest[len(rest) - count:]
        packed = grads[0] if isinstance(self._argnums, int) else tuple(grads)
        if traced.aux is None:
            return (value, packed) if self._with_value else packed
        size, single = traced.aux
        aux = rest[0] if single else tuple(rest[:size])
        return ((value, aux), packed) if self._with_value else (packed, aux)


def grad(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, *, has_aux: bool = False,
         inputs: Sequence[TensorSpec] | None = None, target: str = "llvm-cpu",
         **options: Any) -> Gradient:
    """``jax.grad``: the gradient of a scalar-valued ``fun`` (see :class:`Gradient`).

    Args:
        fun: a function annotated with ``Tensor[...]`` (as ``jit`` takes),
            or a ``jit`` function; it returns a 0-d floating-point tensor
            (with ``has_aux``, a pair ``(value, aux)``).
        argnums: the argument (an int: one gradient) or arguments (a tuple:
            a tuple of gradients) to differentiate; floating-point ones.
        has_aux: ``fun`` returns ``(value, aux)``; the result is then
            ``(grads, aux)``.
        inputs: the input types, instead of the annotations.
        target, **options: as :func:`jit`.

    Raises:
        ADError: ``fun`` is itself a ``grad``, ``value_and_grad`` or ``vjp``
            (a gradient of a gradient is not supported); on the first
            call, a non-scalar or integer output, an
            integer argument in ``argnums``, ``argnums`` out of range, an op
            without a VJP rule on the way, or an upper bound where a rule
            needs an exact extent.
    """
    return Gradient(fun, argnums, has_aux, False, inputs, target, options)


def value_and_grad(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, *,
                   has_aux: bool = False, inputs: Sequence[TensorSpec] | None = None,
                   target: str = "llvm-cpu", **options: Any) -> Gradient:
    """``jax.value_and_grad``: ``(value, grads)`` (``((value, aux), grads)`` with
    ``has_aux``) from one module; see :func:`grad`."""
    return Gradient(fun, argnums, has_aux, True, inputs, target, options)


class VJP:
    """``vjp`` of a function: ``f_vjp(*primals)`` gives ``(outputs, pullback)``.

    ``pullback(*cotangents)`` returns one cotangent per primal (``None`` for
    integer and boolean ones). ``f_vjp.pullback_at(*primals, *cotangents)``
    returns ``(outputs, input cotangents)`` in one call of one compiled
    module; the outputs alone (``f_vjp(*primals)``) come from ``jit(fun)``,
    compiled on first use.
    """

    def __init__(self, fun: Callable[..., Any], inputs: Sequence[TensorSpec] | None,
                 target: str, options: dict[str, Any]) -> None:
        self.fun = _unwrapped(fun, "vjp")
        self._inputs = tuple(inputs) if inputs is not None else None
        self._target = target
        self._options = options
        self._lock = threading.Lock()
        self._traced: TracedFunction | None = None
        self._entry: Any = None
        self._forward: Any = None
        self.__wrapped__ = self.fun

    def __repr__(self) -> str:
        return f"<vjp of {getattr(self.fun, '__qualname__', self.fun)}>"

    @property
    def specs(self) -> tuple[TensorSpec, ...]:
        """The input types."""
        return self._inputs if self._inputs is not None else input_specs(self.fun)

    @property
    def entry(self) -> Any:
        """The runtime's entry point of ``(*primals, *cotangents) -> (*outputs,
        *input cotangents)`` (float primals only)."""
        with self._lock:
            if self._entry is None:
                self._traced = autodiff.trace_vjp(self.fun, self.specs)
                self._entry = _compile(self._traced, self._target, dict(self._options))
            return self._entry

    def _outputs_count(self) -> int:
        self.entry  # noqa: B018 (traces and compiles)
        assert self._traced is not None
        floats = sum(1 for spec in self.specs if spec.dtype.is_float)
        return len(self._traced.result_shapes) - floats

    def pullback_at(self, *args: Any) -> tuple[Any, tuple[Any, ...]]:
        """``(outputs, input cotangents)`` for ``(*primals, *cotangents)``."""
        specs = self.specs
        results = self.entry(*args)
        results = results if isinstance(results, tuple) else (results,)
        count = self._outputs_count()
        outputs, floats = results[:count], iter(results[count:])
        cts = tuple(next(floats) if spec.dtype.is_float else None for spec in specs)
        return (outputs[0] if count == 1 else tuple(outputs)), cts

    def __call__(self, *primals: Any) -> tuple[Any, Callable[..., tuple[Any, ...]]]:
        """``(fun(*primals), pullback)``, as ``jax.vjp(fun, *primals)``."""
        if _traced_args(primals):
            return autodiff.vjp(self.fun, *primals)
        with self._lock:
            if self._forward is None:
                traced = trace(self.fun, *self.specs)
                self._forward = _compile(traced, self._target, dict(self._options))
        outputs = self._forward(*primals)

        def pullback(*cotangents: Any) -> tuple[Any, ...]:
            return self.pullback_at(*primals, *cotangents)[1]

        return outputs, pullback


def vjp(fun: Callable[..., Any], *primals: Any, inputs: Sequence[TensorSpec] | None = None,
        target: str = "llvm-cpu", **options: Any) -> Any:
    """``jax.vjp``: ``vjp(fun, *primals)`` gives ``(outputs, pullback)``; ``vjp(fun)``
    gives a reusable :class:`VJP` (``vjp(fun)(*primals)`` is the same pair).

    Args:
        fun: a function annotated with ``Tensor[...]`` (or a ``jit`` function)
            returning a tensor or a tuple of tensors.
        *primals: its arguments (numpy arrays), or none.
        inputs, target, **options: as :func:`jit`.
    """
    transformed = VJP(fun, inputs, target, options)
    return transformed(*primals) if primals else transformed
