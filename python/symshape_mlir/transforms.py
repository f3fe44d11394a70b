"""Function transformations over the frontend and the runtime: ``@jit``.

``jit`` traces a function once, compiles it with the runtime and calls it on numpy arrays.

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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, overload

from symshape_mlir import runtime
from symshape_mlir.frontend.tensor import TensorSpec
from symshape_mlir.frontend.tracing import input_specs, trace

__all__ = ["jit"]


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
        # Results sized by deferred truncations are known only after the call.
        deferred = options.get("contract") == "defer"
        if (not traced.planned or deferred) and "unplanned" not in options:
            options["unplanned"] = [traced.name]
        try:
            executable = runtime.compile(traced.module_text, target, **options)
        except runtime.UnplannableSizeError as err:
            # A size only the call computes (the count of a boolean mask):
            # results are read after the call.
            if "unplanned" in options or err.function != traced.name:
                raise
            options["unplanned"] = [traced.name]
            executable = runtime.compile(traced.module_text, target, **options)
        entry = getattr(executable, traced.name)
        entry.__wrapped__ = f
        return entry

    return wrap(fn) if fn is not None else wrap
