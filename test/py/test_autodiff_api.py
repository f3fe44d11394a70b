"""``symshape_mlir.grad``, ``value_and_grad`` and ``vjp``: JAX's semantics over numpy
arrays, one compile for every binding, differentiation inside ``jit``, and the
structured error of each misuse."""

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import symshape_mlir
import symshape_mlir.frontend as fe
from symshape_mlir.extent.expr import Const, Sym
from symshape_mlir.extent.guarantee import Exact, Unknown, UpperBound
from symshape_mlir.frontend import ADError, Tensor, f32, f64, i64
from symshape_mlir.frontend.autodiff import trace_grad
from symshape_mlir.frontend.ops.generic import emit_empty, emit_fill
from symshape_mlir.frontend.source import user_location
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.frontend.vjp import COMPOSITES, PRIMITIVES, RULES, observed

FILE = Path(__file__).name


def loss(w: Tensor[4, 3, f32], x: Tensor["batch", 4, f32], y: Tensor["batch", i64]):  # noqa: F821
    """Softmax cross-entropy of a linear classifier."""
    logits = x @ w
    return -fe.mean(fe.sum(fe.log_softmax(logits, axis=-1) * fe.one_hot(y, 3), axis=-1))


def np_loss(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    logits = x.astype(np.float64) @ w
    shifted = logits - logits.max(-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    return float(-np.mean(log_p[np.arange(len(y)), y]))


def np_grad_w(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    logits = x.astype(np.float64) @ w
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    p[np.arange(len(y)), y] -= 1
    return x.T @ p / len(y)


def _data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(4, 3)).astype(np.float32),
            rng.normal(size=(n, 4)).astype(np.float32), rng.integers(0, 3, size=n))


@pytest.fixture(scope="module")
def value_and_grad(cache_dir: Path) -> Any:
    """``value_and_grad(loss, argnums=(0, 1))``, compiled once for the module."""
    return symshape_mlir.value_and_grad(loss, argnums=(0, 1), cache_dir=cache_dir)


def test_value_and_grad_at_every_binding_from_one_compile(value_and_grad: Any) -> None:
    """One module serves batches 1, 5 and 17: values and gradients match numpy."""
    for n in (1, 5, 17):
        w, x, y = _data(n)
        value, (dw, dx) = value_and_grad(w, x, y)
        assert value.dtype == np.float32 and dw.dtype == np.float32 and dx.shape == (n, 4)
        np.testing.assert_allclose(value, np_loss(w, x, y), rtol=1e-5)
        np.testing.assert_allclose(dw, np_grad_w(w, x, y), rtol=1e-4, atol=1e-6)
    assert value_and_grad.entry.executable.stats()["compiles"] == 1


def test_plan_of_the_gradients(value_and_grad: Any) -> None:
    """The runtime plans the results (value, then one gradient per argnum) without running."""
    w, x, y = _data(6)
    assert value_and_grad.entry.plan(w, x, y).shapes == ((), (4, 3), (6, 4))


def test_grad_argnums_int_and_tuple(cache_dir: Path) -> None:
    """An int argnums gives one array, a tuple a tuple; a jit function is differentiated
    through its Python function."""
    w, x, y = _data(3)
    dw = symshape_mlir.grad(symshape_mlir.jit(loss, cache_dir=cache_dir), cache_dir=cache_dir)(
        w, x, y)
    assert isinstance(dw, np.ndarray)
    np.testing.assert_allclose(dw, np_grad_w(w, x, y), rtol=1e-4, atol=1e-6)
    both = symshape_mlir.grad(loss, argnums=(0,), cache_dir=cache_dir)(w, x, y)
    assert isinstance(both, tuple) and len(both) == 1
    np.testing.assert_allclose(both[0], dw, rtol=1e-6)


def test_has_aux(cache_dir: Path) -> None:
    """``has_aux``: ``fun`` returns (value, aux); grad gives (grads, aux)."""

    def with_accuracy(w: Tensor[4, 3, f32], x: Tensor["batch", 4, f32],  # noqa: F821
                      y: Tensor["batch", i64]):  # noqa: F821
        hits = fe.astype(fe.equal(fe.argmax(x @ w, axis=-1), y), f32)
        return loss(w, x, y), (fe.mean(hits), x @ w)

    w, x, y = _data(5)
    (value, (accuracy, logits)), dw = symshape_mlir.value_and_grad(
        with_accuracy, has_aux=True, cache_dir=cache_dir)(w, x, y)
    np.testing.assert_allclose(value, np_loss(w, x, y), rtol=1e-5)
    np.testing.assert_allclose(accuracy, np.mean(np.argmax(x @ w, -1) == y), rtol=1e-6)
    np.testing.assert_allclose(logits, x @ w, rtol=1e-5)
    np.testing.assert_allclose(dw, np_grad_w(w, x, y), rtol=1e-4, atol=1e-6)


def test_vjp(cache_dir: Path) -> None:
    """``vjp(fun, *primals)`` gives the outputs and a pullback (None for an integer
    primal); ``vjp(fun)`` is reusable and ``pullback_at`` is one call."""

    def scores(x: Tensor["n", 4, f64], w: Tensor[4, "m", f64], k: Tensor[i64]):  # noqa: F821
        return fe.tanh(x @ w) * 2.0, fe.sum(x, axis=1)

    rng = np.random.default_rng(1)
    x, w = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    (out, rows), pullback = symshape_mlir.vjp(scores, x, w, 7, cache_dir=cache_dir)
    np.testing.assert_allclose(rows, x.sum(1))
    np.testing.assert_allclose(out, np.tanh(x @ w) * 2.0, rtol=1e-6)
    ct, ct_rows = rng.normal(size=(3, 2)), rng.normal(size=3)
    dx, dw, dk = pullback(ct, ct_rows)
    local = ct * 2.0 * (1 - np.tanh(x @ w) ** 2)
    np.testing.assert_allclose(dx, local @ w.T + ct_rows[:, None], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dw, x.T @ local, rtol=1e-5, atol=1e-6)
    assert dk is None
    reusable = symshape_mlir.vjp(scores, cache_dir=cache_dir)
    outputs, cts = reusable.pullback_at(x[:1], w, 7, ct[:1], ct_rows[:1])
    np.testing.assert_allclose(outputs[1], x[:1].sum(1))
    np.testing.assert_allclose(cts[1], x[:1].T @ local[:1], rtol=1e-5, atol=1e-6)


def test_training_step_inside_jit(cache_dir: Path) -> None:
    """``grad`` on traced tensors differentiates inside the jit function: forward,
    backward and update are one module; the loss decreases at varying batches."""

    @symshape_mlir.jit(cache_dir=cache_dir)
    def step(w: Tensor[4, 3, f32], x: Tensor["batch", 4, f32], y: Tensor["batch", i64]):  # noqa: F821
        value, dw = symshape_mlir.value_and_grad(loss)(w, x, y)
        return value, w - 0.5 * dw

    rng = np.random.default_rng(2)
    w = np.zeros((4, 3), np.float32)
    losses = []
    for n in (8, 3, 16, 1, 8, 5, 12, 8) * 4:
        x = rng.normal(size=(n, 4)).astype(np.float32)
        y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 1).astype(np.int64)
        value, w = step(w, x, y)
        losses.append(float(value))
    assert np.mean(losses[-8:]) < 0.7 * np.mean(losses[:8])
    assert step.executable.stats()["compiles"] == 1


# -- misuse: one structured error each -----------------------------------------------


def _raises(fun: Any, *specs: Any, **kwargs: Any) -> ADError:
    with pytest.raises(ADError) as info:
        trace_grad(fun, specs or None, **kwargs)
    return info.value


def test_non_scalar_output() -> None:
    """grad of a function with a non-scalar output says so and names its shape."""

    def rows(x: Tensor["batch", 4, f32]):  # noqa: F821
        return fe.sum(x, axis=1)

    err = _raises(rows)
    assert str(err) == ("grad of test_non_scalar_output.<locals>.rows: the function must "
                        "return a scalar, but its output has shape [batch]; reduce it (sum, "
                        "mean) or use vjp")
    assert err.primitive == "grad" and err.location is not None


def test_integer_output() -> None:
    """An integer scalar output has no gradient."""

    def count(x: Tensor["batch", i64], w: Tensor[4, f32]):  # noqa: F821
        return fe.sum(x)

    err = _raises(count, argnums=1)
    assert str(err) == ("grad of test_integer_output.<locals>.count: the function returned "
                        "a i64 scalar; only floating-point outputs have gradients")


def test_integer_argument() -> None:
    """Differentiating an integer argument names it."""
    err = _raises(loss, argnums=(0, 2))
    assert str(err) == ("grad of loss: argument 2 ('y') is i64: integer and boolean inputs "
                        "are not differentiable (leave it out of argnums)")
    assert err.primitive == "grad"


@pytest.mark.parametrize(("argnums", "message"), [
    (3, "grad of loss: argnums 3 is out of range for 3 arguments"),
    ((0, -3), "grad of loss: argnums (0, -3) names an argument twice"),
    ("w", "grad of loss: argnums must be an int or a non-empty tuple of ints, not 'w'"),
    ((), "grad of loss: argnums must be an int or a non-empty tuple of ints, not ()"),
], ids=["out_of_range", "repeated", "name", "empty"])
def test_bad_argnums(argnums: Any, message: str) -> None:
    """argnums must name each argument once, in range."""
    assert str(_raises(loss, argnums=argnums)) == message


def test_op_without_rule() -> None:
    """A cotangent reaching an op without a VJP rule raises, naming the op and line."""

    def softplus_loss(x: Tensor["n", f64]):  # noqa: F821
        def body(block: Any, values: list[str], dtype: Any) -> str:
            return block.op(f"math.exp {values[0]}", dtype.mlir)

        return fe.sum(fe.elementwise("my_exp", [x], body))

    err = _raises(softplus_loss)
    line = softplus_loss.__code__.co_firstlineno + 4
    assert str(err) == (f"my_exp at {FILE}:{line} (return fe.sum(fe.elementwise(\"my_exp\", "
                        "[x], body))): my_exp has no VJP rule, and the gradient needs it")
    assert (err.primitive, err.location.line if err.location else None) == ("my_exp", line)


def test_running_product_has_no_rule() -> None:
    """cumprod is differentiable in principle but has no rule: a clean error, not a guess."""

    def product(x: Tensor["n", f64]):  # noqa: F821
        return fe.sum(fe.cumprod(x))

    err = _raises(product)
    assert err.primitive == "cumprod"
    assert str(err).endswith(": a running product has no VJP rule")


def test_unused_op_without_rule_is_fine() -> None:
    """An op without a rule that the output does not read needs no rule."""

    def unused(x: Tensor["n", f64]):  # noqa: F821
        fe.cumprod(x)
        return fe.sum(x * x)

    assert trace_grad(unused).traced.result_shapes[1].rank == 1


def test_value_made_outside_the_ops() -> None:
    """A float made by no differentiable op (an internal emitter called directly) that
    a cotangent reaches is an error, never a silently missing gradient."""

    def raw(x: Tensor["n", f64]):  # noqa: F821
        where = user_location()
        init = emit_empty(x.trace, x.symbolic_shape, f64, [(x, 0)], where)
        ones = fe.Tensor(x.trace, emit_fill(x.trace, init, f64, 1.0,
                                            tensor_type(x.shape, f64), where),
                         x.symbolic_shape, f64)
        return fe.sum(x * ones)

    err = _raises(raw)
    assert re.fullmatch(rf"a value made by linalg\.fill at {FILE}:\d+ \(.*\) is "
                        r"differentiated, but no VJP rule covers it \(it was made outside the "
                        r"frontend's differentiable ops\)", str(err)), str(err)


def test_upper_bound_where_exact_is_needed() -> None:
    """A reshape's VJP needs its input's exact extents; a stage-1 truncation gives an
    upper bound: the error names the op, its line, the field and the guarantee."""

    def flat(x: Tensor["n", 4, f64], k: Tensor[i64]):  # noqa: F821
        t = fe.dynamic_truncate(x, k)
        return fe.sum(t.reshape(8))

    err = _raises(flat)
    line = flat.__code__.co_firstlineno + 2
    assert (err.primitive, err.field, err.guarantee) == ("reshape", "input extent 0",
                                                         "upper bound")
    assert err.location is not None and err.location.line == line
    assert str(err) == (
        f"reshape at {FILE}:{line} (return fe.sum(t.reshape(8))): its VJP needs an exact "
        "input extent 0, but it is ub(n), only an upper bound (the bound comes from "
        f"dynamic_truncate at {FILE}:{line - 1} (t = fe.dynamic_truncate(x, k)): axis 0 keeps "
        "at most n entries (stage upper_bound)); a gradient cannot be built from it")


def test_nested_differentiation() -> None:
    """A gradient of a gradient is refused cleanly."""

    def inner(x: Tensor["n", f64]):  # noqa: F821
        return fe.sum(x * x)

    def outer(x: Tensor["n", f64]):  # noqa: F821
        return fe.sum(symshape_mlir.grad(inner)(x))

    err = _raises(outer)
    assert err.primitive == "grad"
    assert "a gradient of a gradient" in str(err)


def test_has_aux_needs_a_pair() -> None:
    """With has_aux the function returns (value, aux)."""

    def single(x: Tensor["n", f64]):  # noqa: F821
        return fe.sum(x)

    err = _raises(single, has_aux=True)
    assert str(err).startswith("grad of test_has_aux_needs_a_pair.<locals>.single with "
                               "has_aux: the function must return a pair (value, aux)")


@pytest.mark.parametrize(("extent", "kind"), [
    (Exact(Const(4)), "static"), (Exact(Sym("batch")), "symbolic"),
    (UpperBound(Sym("batch")), "upper bound"), (Unknown(), "unknown"),
], ids=["static", "symbolic", "upper_bound", "unknown"])
def test_observed_guarantee(extent: Any, kind: str) -> None:
    """AD errors name what an extent guarantees."""
    assert observed(extent) == kind


# -- coverage -----------------------------------------------------------------------------

#: Primitives without a VJP rule, and why none is needed or given.
NO_RULE = {
    # outputs that are never floating point, or inputs that never are
    "less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "isnan", "isinf",
    "isfinite", "argmax", "argmin", "bitwise_and", "bitwise_or", "bitwise_xor", "invert",
    "logical_and", "logical_or", "logical_xor", "logical_not", "one_hot",
    # made from no tensor
    "constant", "zeros", "ones", "arange", "eye", "array",
    # a body the user writes: no rule can know its derivative
    "elementwise",
}


def test_every_public_op_is_covered() -> None:
    """Every op of ``symshape_mlir.frontend`` is a primitive or a composition of them."""
    for name in fe.__all__:
        value = getattr(fe, name)
        if isinstance(value, type) or not callable(value) or name in (
                "trace", "trace_module"):
            continue
        assert "primitive" in value.__dict__ or value.__dict__.get("composite"), name


def test_every_primitive_has_a_rule_or_a_reason() -> None:
    """A new primitive must get a VJP rule or be listed as needing none."""
    missing = sorted(set(PRIMITIVES) - set(RULES) - NO_RULE)
    assert not missing, missing
    assert not (NO_RULE & set(RULES))
    assert set(COMPOSITES) >= {"getitem", "conv", "pool", "sum", "stack", "split"}
