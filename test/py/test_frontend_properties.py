"""Random compositions of frontend ops over random named shapes, checked against numpy.

A program is an input shape (axis names and small constants) and a chain of
steps: unary and broadcasting binary elementwise ops, reductions (sums to
variances), matmul with a new weight, softmax, transpose, reversals, rolls,
running sums, sorts, and slices of the first axis bounded by run-time
integers (0-d integer inputs, negative and past the end too). Hypothesis
checks traced shapes (at random bindings) and the round trip through
inference without compiling; a few seeded programs share one compiled
module and are checked for values.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symshape_mlir.frontend as fe
from symshape_mlir import runtime
from symshape_mlir.frontend import Tensor, TensorSpec, f32, i64
from symshape_mlir.frontend.tracing import TracedFunction, trace

from frontend_support import compile_functions
from roundtrip_support import check_round_trip

T = TypeVar("T")
Pick = Callable[[Sequence[Any]], Any]
Item = int | str

NAMES = ("a", "b", "c")


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


UNARY: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "exp": (lambda x: fe.exp(fe.tanh(x)), lambda x: np.exp(np.tanh(x))),
    "tanh": (fe.tanh, np.tanh),
    "relu": (fe.relu, lambda x: np.maximum(x, 0)),
    "negative": (fe.negative, np.negative),
    "sigmoid": (fe.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "scale": (lambda x: 0.5 * x + 1.0, lambda x: 0.5 * x + 1.0),
    "sin": (fe.sin, np.sin),
    "abs": (abs, abs),
    "clip": (lambda x: fe.clip(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5)),
    "floor": (lambda x: fe.floor(x * 2.0), lambda x: np.floor(x * 2.0)),
}
BINARY: dict[str, tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]] = {
    "add": (fe.add, np.add),
    "subtract": (fe.subtract, np.subtract),
    "multiply": (fe.multiply, np.multiply),
    "maximum": (fe.maximum, np.maximum),
    "minimum": (fe.minimum, np.minimum),
}
REDUCE: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "sum": (fe.sum, np.sum),
    "mean": (fe.mean, np.mean),
    "max": (fe.max, np.max),
    "min": (fe.min, np.min),
    "prod": (fe.prod, np.prod),
    "var": (fe.var, np.var),
}
#: Steps along one axis that keep the shape.
ALONG: dict[str, tuple[Callable[[Any, int], Any], Callable[[Any, int], Any]]] = {
    "flip": (fe.flip, np.flip),
    "roll": (lambda x, a: fe.roll(x, 2, axis=a), lambda x, a: np.roll(x, 2, axis=a)),
    "cumsum": (fe.cumsum, np.cumsum),
    "sort": (fe.sort, np.sort),
}
#: The run-time integers programs read (0-d i64 inputs after the tensors).
INTS = ("k0", "k1")


@dataclass(frozen=True)
class Program:
    """Input axes (the first input), then steps; steps may add inputs."""

    inputs: tuple[tuple[Item, ...], ...]
    steps: tuple[tuple[Any, ...], ...]

    @property
    def specs(self) -> tuple[TensorSpec, ...]:
        """The declared input types: the tensors, then the run-time integers."""
        return (*(Tensor[(*axes, f32)] for axes in self.inputs), *(Tensor[i64] for _ in INTS))

    def run(self, args: Sequence[Any], numpy: bool) -> Any:
        """Applies the steps with the frontend (traced) or numpy (arrays)."""
        side = 1 if numpy else 0
        ints = [int(k) if numpy else k for k in args[len(args) - len(INTS):]]
        x, extra = args[0], iter(args[1:len(args) - len(INTS)])
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
            elif kind == "softmax":
                x = _softmax(x, step[1]) if numpy else fe.softmax(x, step[1])
            elif kind == "transpose":
                x = np.transpose(x, step[1]) if numpy else fe.transpose(x, step[1])
            elif kind == "along":
                x = ALONG[step[1]][side](x, step[2])
            elif kind == "head":
                k = ints[step[1]]
                x = x[:k] if step[2] else x[k:]
        return x


def generate(pick: Pick, length: int) -> Program:
    """A random program; ``pick`` chooses among options (hypothesis or a seeded rng)."""
    item: list[Any] = [*NAMES, 1, 2, 3]
    rank = pick([1, 2, 3])
    shape: list[Item] = [pick(item) for _ in range(rank)]
    inputs: list[tuple[Item, ...]] = [tuple(shape)]
    steps: list[tuple[Any, ...]] = []
    heads: list[int] = []
    for _ in range(length):
        kinds = ["unary"]
        if shape:
            kinds += ["binary", "reduce", "softmax", "transpose", "along"]
        if shape and isinstance(shape[0], str) and not heads:
            kinds.append("head")
        if len(shape) >= 2 and shape[-1] != "h":
            kinds.append("matmul")
        kind = pick(kinds)
        if kind == "unary":
            steps.append(("unary", pick(sorted(UNARY))))
        elif kind == "binary":
            keep = pick(list(range(1, len(shape) + 1)))
            # The head's run-time count ("h") is broadcast from 1, never matched.
            other = tuple(d if pick([True, False]) and d != "h" else 1
                          for d in shape[len(shape) - keep :])
            inputs.append(other)
            steps.append(("binary", pick(sorted(BINARY)), pick([True, False])))
            if keep == len(shape):
                shape = [d if d != 1 else o for d, o in zip(shape, other, strict=True)]
        elif kind == "reduce":
            axis = pick(list(range(-len(shape), len(shape))))
            keepdims = pick([True, False])
            steps.append(("reduce", pick(sorted(REDUCE)), axis, keepdims))
            if keepdims:
                shape[axis] = 1
            else:
                del shape[axis]
        elif kind == "matmul":
            k = pick(item)
            inputs.append((shape[-1], k))
            steps.append(("matmul",))
            shape[-1] = k
        elif kind == "softmax":
            steps.append(("softmax", pick(list(range(len(shape))))))
        elif kind == "along":
            steps.append(("along", pick(sorted(ALONG)), pick(list(range(len(shape))))))
        elif kind == "head":
            # The first axis becomes a run-time count ("h"): inputs added later
            # broadcast along it from 1.
            heads.append(len(steps))
            steps.append(("head", pick(range(len(INTS))), pick([True, False])))
            shape[0] = "h"
        else:
            perm = list(range(len(shape)))
            random.Random(pick(list(range(100)))).shuffle(perm)
            steps.append(("transpose", tuple(perm)))
            shape = [shape[p] for p in perm]
    return Program(tuple(inputs), tuple(steps))


def _arrays(
    program: Program, traced: TracedFunction, binding: Mapping[str, int],
    rng: np.random.Generator,
) -> list[np.ndarray]:
    tensors = [rng.standard_normal(shape.evaluate(binding)).astype(np.float32)
               for shape in traced.input_shapes[: len(program.inputs)]]
    return [*tensors, *(np.array(binding[k], np.int64) for k in INTS)]


def _reads(program: Program, traced: TracedFunction, binding: Mapping[str, int]) -> dict[str, int]:
    """``binding`` with the symbols of the run-time integer read (``plus - minus``)."""
    bound = dict(binding)
    value = next((binding[INTS[step[1]]] for step in program.steps if step[0] == "head"), 0)
    for plus, minus in traced.scalar_reads:
        bound[plus], bound[minus] = max(value, 0), max(-value, 0)
    return bound


def _numpy(program: Program, arrays: Sequence[np.ndarray]) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a variance of nothing is NaN
        return np.asarray(program.run([a.astype(np.float64) if a.dtype.kind == "f" else a
                                       for a in arrays], numpy=True))


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_traced_shapes_match_numpy(data: st.DataObject) -> None:
    """Traced result shapes evaluate to numpy's; inference reproduces them."""
    length = data.draw(st.integers(1, 5), label="length")
    program = generate(lambda options: data.draw(st.sampled_from(options)), length)
    traced = trace(lambda *args: program.run(args, numpy=False), *program.specs, name="program")
    binding = {name: data.draw(st.integers(1, 4), label=name) for name in NAMES}
    binding |= {k: data.draw(st.integers(-5, 6), label=k) for k in INTS}
    arrays = _arrays(program, traced, binding, np.random.default_rng(0))
    expected = _numpy(program, arrays)
    (shape,) = traced.result_shapes
    assert shape.evaluate(_reads(program, traced, binding)) == expected.shape
    check_round_trip([traced])


# Seeds whose programs mix elementwise ops, reductions, matmul, steps along an
# axis (sort, flip, roll, cumsum) and slices by run-time integers.
SEEDS = (69, 258, 264, 277, 283, 285)


def _seeded(seed: int) -> Program:
    rng = random.Random(seed)
    return generate(lambda options: rng.choice(list(options)), 5)


@pytest.fixture(scope="module")
def compiled(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[dict[int, TracedFunction], dict[str, runtime.EntryPoint]]:
    """The seeded programs traced and compiled together (see ``frontend_support``)."""
    traced = {}
    for seed in SEEDS:
        program = _seeded(seed)
        traced[seed] = trace(
            lambda *args, p=program: p.run(args, numpy=False), *program.specs, name=f"p{seed}"
        )
    cache = tmp_path_factory.mktemp("frontend-properties")
    return traced, compile_functions(list(traced.values()), cache)


@pytest.mark.parametrize("seed", SEEDS)
def test_seeded_programs_match_numpy(
    seed: int, compiled: tuple[dict[int, TracedFunction], dict[str, runtime.EntryPoint]]
) -> None:
    """Seeded random programs, compiled, match numpy at two bindings."""
    traced, entries = compiled
    program = _seeded(seed)
    rng = np.random.default_rng(seed)
    for binding in ({"a": 1, "b": 2, "c": 3, "k0": 2, "k1": -1},
                    {"a": 4, "b": 1, "c": 2, "k0": 7, "k1": 0}):
        arrays = _arrays(program, traced[seed], binding, rng)
        got = entries[f"p{seed}"](*arrays)
        np.testing.assert_allclose(got, _numpy(program, arrays), rtol=1e-4, atol=1e-4)
