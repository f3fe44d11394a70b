"""Checking traced gradients against central finite differences of float64 numpy references.

A case's function returns a tensor (or several); the loss it is checked
through is ``sum(t + t * t / 4)`` over its floating-point results, the same
in numpy, so the cotangent reaching the op differs from entry to entry (a
rule that permutes or drops entries is caught). Gradients are compared with
central differences of the numpy reference in float64.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import symshape_mlir.frontend as fe
from symshape_mlir.frontend import Tensor, TensorSpec
from symshape_mlir.frontend.autodiff import trace_grad
from symshape_mlir.frontend.tracing import TracedFunction

__all__ = [
    "GradCase",
    "check_case",
    "default_inputs",
    "loss_of",
    "numeric_grad",
    "reference_loss",
    "shape_of",
    "trace_case",
]

Inputs = Callable[[np.random.Generator, Mapping[str, int]], list[np.ndarray]]


@dataclass(frozen=True)
class GradCase:
    """An op checked through the loss at several bindings.

    Attributes:
        name: the traced function's name.
        fn: the traced op(s), on traced tensors.
        specs: its inputs.
        reference: the same in numpy (float64).
        argnums: the inputs differentiated.
        bindings: axis values it runs at.
        inputs: makes the arguments for a binding (default: normal floats,
            the shapes of ``specs``).
        expected: the exact gradients for inputs where finite differences do
            not apply (ties of a max): ``expected(*args)`` per argnum.
        tolerance: absolute and relative tolerance.
    """

    name: str
    fn: Callable[..., Any]
    specs: tuple[TensorSpec, ...]
    reference: Callable[..., Any]
    argnums: tuple[int, ...] = (0,)
    bindings: tuple[Mapping[str, int], ...] = ({"n": 0}, {"n": 1}, {"n": 3})
    inputs: Inputs | None = None
    expected: Callable[..., Sequence[np.ndarray]] | None = None
    tolerance: float = 1e-6


def loss_of(fn: Callable[..., Any]) -> Callable[..., Tensor]:
    """``sum(t + t * t / 4)`` over ``fn``'s floating-point results, traced."""

    def loss(*args: Tensor) -> Tensor:
        out = fn(*args)
        parts = list(out) if isinstance(out, tuple | list) else [out]
        total: Tensor | None = None
        for part in parts:
            if part.dtype.is_float:
                term = fe.sum(part + part * part * 0.25)
                total = term if total is None else total + term
        assert total is not None
        return total

    loss.__name__ = getattr(fn, "__name__", "loss")
    return loss


def reference_loss(reference: Callable[..., Any]) -> Callable[..., float]:
    """The numpy loss of :func:`loss_of`."""

    def loss(*args: np.ndarray) -> float:
        out = reference(*args)
        parts = list(out) if isinstance(out, tuple | list) else [out]
        return float(sum(np.sum(p + p * p * 0.25) for p in parts
                         if np.issubdtype(np.asarray(p).dtype, np.floating)))

    return loss


def numeric_grad(f: Callable[..., float], args: Sequence[np.ndarray], index: int,
                 step: float = 1e-6) -> np.ndarray:
    """Central differences of ``f`` with respect to ``args[index]``."""
    base = [np.array(a, copy=True) for a in args]
    grad = np.zeros_like(base[index], dtype=np.float64)
    for position in np.ndindex(base[index].shape):
        up = [a.copy() for a in base]
        down = [a.copy() for a in base]
        up[index][position] += step
        down[index][position] -= step
        grad[position] = (f(*up) - f(*down)) / (2 * step)
    return grad


def shape_of(spec: TensorSpec, binding: Mapping[str, int]) -> tuple[int, ...]:
    """The concrete shape of ``spec`` at ``binding`` (``"?"`` axes from ``binding["?"]``)."""
    return tuple(a if isinstance(a, int) else binding[a] for a in spec.axes)


def default_inputs(specs: Sequence[TensorSpec], rng: np.random.Generator,
                   binding: Mapping[str, int]) -> list[np.ndarray]:
    """Normal floats of the specs' shapes at ``binding``."""
    return [rng.normal(size=shape_of(spec, binding)).astype(spec.dtype.numpy)
            for spec in specs]


def trace_case(case: GradCase) -> TracedFunction:
    """The case's loss and gradients, traced as one function."""
    return trace_grad(loss_of(case.fn), case.specs, argnums=case.argnums,
                      name=case.name).traced


def check_case(case: GradCase, entry: Any, binding: Mapping[str, int], seed: int = 0) -> None:
    """Runs the compiled case at ``binding`` and compares value and gradients."""
    rng = np.random.default_rng(seed)
    args = case.inputs(rng, binding) if case.inputs else default_inputs(case.specs, rng, binding)
    results = entry(*args)
    value, grads = results[0], results[1:]
    loss = reference_loss(case.reference)
    wide = [a.astype(np.float64) if np.issubdtype(a.dtype, np.floating) else a for a in args]
    tol = case.tolerance
    np.testing.assert_allclose(value, loss(*wide), rtol=tol, atol=tol, err_msg="value")
    expected = case.expected(*wide) if case.expected else [
        numeric_grad(loss, wide, i) for i in case.argnums]
    for i, got, want in zip(case.argnums, grads, expected, strict=True):
        assert got.shape == args[i].shape, (i, got.shape, args[i].shape)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol,
                                   err_msg=f"gradient of argument {i} at {dict(binding)}")
