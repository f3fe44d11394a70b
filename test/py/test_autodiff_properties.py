"""Random compositions of differentiable ops over random named shapes: their gradients.

A program is an input shape (axis names and small constants) and a chain of
steps: smooth elementwise functions, broadcasting binary ops with new inputs
(some of their axes 1), reductions with ``keepdims``, matmul with a new
weight, softmax / log_softmax / layer_norm, transposes, flips, rolls, running
sums, padding, concatenation, flattening and slices of the first axis by a
run-time integer. Hypothesis checks, without compiling, that every program's
gradient traces, passes the contract and inference's round trip, and has its
inputs' shapes; a few seeded programs share compiled modules and are checked
against central finite differences of float64 numpy at bindings 0, 1 and 3.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symshape_mlir.frontend as fe
from autodiff_support import loss_of, numeric_grad, reference_loss
from symshape_mlir.frontend import Tensor, TensorSpec, f64, i64
from symshape_mlir.frontend.autodiff import trace_grad
from symshape_mlir.frontend.tracing import TracedFunction

from frontend_support import compile_functions
from roundtrip_support import check_round_trip

Pick = Callable[[Sequence[Any]], Any]
Item = int | str
NAMES = ("a", "b")
#: Extents that steps made (a run-time count, a grown or flattened axis): new
#: inputs broadcast along them from 1, never match them.
MADE = ("h", "grown", "flat")


def _np_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True, initial=-np.inf))
    return e / e.sum(axis=axis, keepdims=True)


def _np_layer_norm(x: np.ndarray, axis: int) -> np.ndarray:
    centered = x - x.mean(axis, keepdims=True)
    return centered / np.sqrt((centered**2).mean(axis, keepdims=True) + 1e-5)


#: Functions smooth everywhere (a tie or a kink would defeat finite differences).
UNARY: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "tanh": (fe.tanh, np.tanh),
    "sigmoid": (fe.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "exp_tanh": (lambda x: fe.exp(fe.tanh(x)), lambda x: np.exp(np.tanh(x))),
    "square": (lambda x: x * x * 0.5, lambda x: x * x * 0.5),
    "scale": (lambda x: 0.5 * x + 1.0, lambda x: 0.5 * x + 1.0),
}
BINARY: dict[str, tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]] = {
    "add": (fe.add, np.add),
    "subtract": (fe.subtract, np.subtract),
    "multiply": (fe.multiply, np.multiply),
    "divide": (lambda x, y: x / (y * y + 1.0), lambda x, y: x / (y * y + 1.0)),
}
REDUCE: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "sum": (fe.sum, np.sum),
    "mean": (fe.mean, np.mean),
    "max": (fe.max, lambda x, a, keepdims: np.max(x, a, keepdims=keepdims, initial=-np.inf)),
    "var": (fe.var, np.var),
    "logsumexp": (fe.logsumexp,
                  lambda x, a, keepdims: np.log(np.sum(np.exp(x), a, keepdims=keepdims))),
}
NORMALIZE: dict[str, tuple[Callable[[Any, int], Any], Callable[[Any, int], Any]]] = {
    "softmax": (fe.softmax, _np_softmax),
    "log_softmax": (fe.log_softmax, lambda x, a: np.log(_np_softmax(x, a))),
    "layer_norm": (fe.layer_norm, _np_layer_norm),
}
ALONG: dict[str, tuple[Callable[[Any, int], Any], Callable[[Any, int], Any]]] = {
    "flip": (fe.flip, np.flip),
    "roll": (lambda x, a: fe.roll(x, 1, axis=a), lambda x, a: np.roll(x, 1, axis=a)),
    "cumsum": (fe.cumsum, np.cumsum),
    "pad": (lambda x, a: fe.pad(x, [(1, 0) if i == a else (0, 0) for i in range(x.ndim)]),
            lambda x, a: np.pad(x, [(1, 0) if i == a else (0, 0) for i in range(x.ndim)])),
    "concatenate": (lambda x, a: fe.concatenate([x, x * 0.5], axis=a),
                    lambda x, a: np.concatenate([x, x * 0.5], axis=a)),
}


@dataclass(frozen=True)
class Program:
    """Inputs (the first is the program's start), then steps; steps may add inputs."""

    inputs: tuple[tuple[Item, ...], ...]
    steps: tuple[tuple[Any, ...], ...]

    @property
    def specs(self) -> tuple[TensorSpec, ...]:
        """The tensors, then the run-time integer ``k``."""
        return (*(Tensor[(*axes, f64)] for axes in self.inputs), Tensor[i64])

    def run(self, *args: Any, numpy: bool = False) -> Any:
        """Applies the steps with the frontend (traced) or numpy (arrays)."""
        side = 1 if numpy else 0
        k = int(args[-1]) if numpy else args[-1]
        x, extra = args[0], iter(args[1:-1])
        for step in self.steps:
            kind = step[0]
            if kind == "unary":
                x = UNARY[step[1]][side](x)
            elif kind == "binary":
                y = next(extra)
                fn = BINARY[step[1]][side]
                x = fn(y, x) if step[2] else fn(x, y)
            elif kind == "reduce":
                x = REDUCE[step[1]][side](x, step[2], keepdims=step[3])
            elif kind == "matmul":
                x = x @ next(extra)
            elif kind == "normalize":
                x = NORMALIZE[step[1]][side](x, step[2])
            elif kind == "transpose":
                x = np.transpose(x, step[1]) if numpy else fe.transpose(x, step[1])
            elif kind == "along":
                x = ALONG[step[1]][side](x, step[2])
            elif kind == "flatten":
                x = x.reshape(-1)
            else:  # "head"
                x = x[:k]
        return x


def generate(pick: Pick, length: int) -> Program:
    """A random program; ``pick`` chooses among options (hypothesis or a seeded rng)."""
    item: list[Item] = [*NAMES, 1, 2, 3]
    shape: list[Item] = [pick(item) for _ in range(pick([1, 2, 3]))]
    inputs: list[tuple[Item, ...]] = [tuple(shape)]
    steps: list[tuple[Any, ...]] = []
    for _ in range(length):
        kinds = ["unary"]
        if shape:
            kinds += ["binary", "reduce", "normalize", "transpose", "along", "flatten"]
        if shape and shape[0] in NAMES and "h" not in shape:
            kinds.append("head")
        if len(shape) >= 2 and shape[-1] not in MADE:
            kinds.append("matmul")
        kind = pick(kinds)
        axis = pick(list(range(len(shape)))) if shape else 0
        if kind == "unary":
            steps.append(("unary", pick(sorted(UNARY))))
        elif kind == "binary":
            keep = pick(list(range(1, len(shape) + 1)))
            other = tuple(d if pick([True, False]) and d not in MADE else 1
                          for d in shape[len(shape) - keep:])
            inputs.append(other)
            steps.append(("binary", pick(sorted(BINARY)), pick([True, False])))
            if keep == len(shape):
                shape = [d if d != 1 else o for d, o in zip(shape, other, strict=True)]
        elif kind == "reduce":
            keepdims = pick([True, False])
            steps.append(("reduce", pick(sorted(REDUCE)), axis, keepdims))
            if keepdims:
                shape[axis] = 1
            else:
                del shape[axis]
        elif kind == "matmul":
            width = pick([1, 2, 3])
            inputs.append((shape[-1], width))
            steps.append(("matmul",))
            shape[-1] = width
        elif kind == "normalize":
            steps.append(("normalize", pick(sorted(NORMALIZE)), axis))
        elif kind == "along":
            name = pick(sorted(ALONG))
            steps.append(("along", name, axis))
            if name in ("pad", "concatenate"):
                shape[axis] = "grown"
        elif kind == "flatten":
            steps.append(("flatten",))
            shape = ["flat"]
        elif kind == "head":
            steps.append(("head",))
            shape[0] = "h"
        else:
            perm = list(range(len(shape)))
            random.Random(pick(list(range(100)))).shuffle(perm)
            steps.append(("transpose", tuple(perm)))
            shape = [shape[p] for p in perm]
    return Program(tuple(inputs), tuple(steps))


def _trace(program: Program, name: str) -> TracedFunction:
    count = len(program.inputs)
    return trace_grad(loss_of(lambda *args: program.run(*args)), program.specs,
                      argnums=tuple(range(count)), name=name).traced


def _arrays(program: Program, traced: TracedFunction, binding: Mapping[str, int],
            rng: np.random.Generator) -> list[np.ndarray]:
    shapes = [shape.evaluate(binding) for shape in traced.input_shapes[:-1]]
    return [*(rng.standard_normal(s) * 0.8 for s in shapes), np.array(binding["k"], np.int64)]


def _bound(traced: TracedFunction, binding: Mapping[str, int]) -> dict[str, int]:
    """``binding`` with the symbols of the run-time integer read (``plus - minus``)."""
    bound = dict(binding)
    for plus, minus in traced.scalar_reads:
        bound[plus], bound[minus] = max(binding["k"], 0), max(-binding["k"], 0)
    return bound


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_gradients_trace_and_pass_the_contract(data: st.DataObject) -> None:
    """Every program's gradient traces, passes the contract and inference's round trip,
    and each gradient has its input's shape at random bindings."""
    length = data.draw(st.integers(1, 5), label="length")
    program = generate(lambda options: data.draw(st.sampled_from(options)), length)
    traced = _trace(program, "program")
    check_round_trip([traced])
    binding = {name: data.draw(st.integers(0, 4), label=name) for name in NAMES}
    binding["k"] = data.draw(st.integers(-3, 5), label="k")
    bound = _bound(traced, binding)
    count = len(program.inputs)
    for given_shape, grad_shape in zip(traced.input_shapes[:count],
                                       traced.result_shapes[1:], strict=True):
        assert grad_shape.evaluate(bound) == given_shape.evaluate(bound)


# Seeds whose programs mix broadcasting, reductions, matmul, normalizations,
# steps along an axis, flattening and slices by a run-time integer.
SEEDS = (10, 42, 53, 56, 69, 101, 105, 106, 144, 204, 232)


def _seeded(seed: int) -> Program:
    rng = random.Random(seed)
    return generate(lambda options: rng.choice(list(options)), 5)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The seeded programs' gradients, traced and compiled together."""
    traced = [_trace(_seeded(seed), f"p{seed}") for seed in SEEDS]
    return compile_functions(traced, tmp_path_factory.mktemp("autodiff-properties"))


@pytest.mark.parametrize("seed", SEEDS)
def test_seeded_gradients_match_finite_differences(seed: int, compiled: dict[str, Any]) -> None:
    """Seeded programs' gradients equal float64 finite differences at bindings 0, 1, 3."""
    program = _seeded(seed)
    traced = _trace(program, f"p{seed}")
    loss = reference_loss(lambda *args: program.run(*args, numpy=True))
    rng = np.random.default_rng(seed)
    count = len(program.inputs)
    for binding in ({"a": 1, "b": 3, "k": 2}, {"a": 3, "b": 1, "k": -1},
                    {"a": 0, "b": 2, "k": 1}):
        arrays = _arrays(program, traced, binding, rng)
        value, *grads = compiled[f"p{seed}"](*arrays)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a mean of nothing is NaN
            want = loss(*arrays)
            for i in range(count):
                assert grads[i].shape == arrays[i].shape
            if not np.isfinite(want):
                continue  # an empty reduction: only the shapes are defined
            np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5)
            for i in range(count):
                np.testing.assert_allclose(grads[i], numeric_grad(loss, arrays, i),
                                           rtol=1e-5, atol=1e-5,
                                           err_msg=f"input {i} at {binding}: {program}")
