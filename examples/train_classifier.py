"""A small classifier trained with SGD on batches of varying size, compiled once.

``step`` computes the loss of a two-layer MLP (softmax cross-entropy), its
gradients with ``symshape_mlir.value_and_grad`` and the SGD update; under
``symshape_mlir.jit`` forward, backward and update are traced into one
function with a dynamic ``batch`` axis and compiled once (without the hot
tier's static variants here, so that the count printed is that one module). Every step draws a
batch of another size (1 to 64 rows); the runtime serves each from the same
module. The script checks that the loss decreases, that the first gradients
match numpy's, and that one module was compiled.

Run it with ``python examples/train_classifier.py [--steps 150]``.
"""

import argparse
import time

import numpy as np

import symshape_mlir
import symshape_mlir.frontend as fe
from symshape_mlir.frontend import Tensor, f32, i64

FEATURES, HIDDEN, CLASSES = 8, 32, 3


def loss(
    w1: Tensor[FEATURES, HIDDEN, f32],
    b1: Tensor[HIDDEN, f32],
    w2: Tensor[HIDDEN, CLASSES, f32],
    x: Tensor["batch", FEATURES, f32],  # noqa: F821
    labels: Tensor["batch", i64],  # noqa: F821
) -> Tensor:
    """Mean softmax cross-entropy of ``relu(x @ w1 + b1) @ w2`` against ``labels``."""
    logits = fe.relu(x @ w1 + b1) @ w2
    picked = fe.log_softmax(logits, axis=-1) * fe.one_hot(labels, CLASSES)
    return -fe.mean(fe.sum(picked, axis=-1))


def step(
    w1: Tensor[FEATURES, HIDDEN, f32],
    b1: Tensor[HIDDEN, f32],
    w2: Tensor[HIDDEN, CLASSES, f32],
    x: Tensor["batch", FEATURES, f32],  # noqa: F821
    labels: Tensor["batch", i64],  # noqa: F821
    rate: Tensor[f32],
) -> tuple[Tensor, ...]:
    """One SGD step: the loss, then the updated parameters."""
    value, grads = symshape_mlir.value_and_grad(loss, argnums=(0, 1, 2))(w1, b1, w2, x, labels)
    return (value, *(p - rate * g for p, g in zip((w1, b1, w2), grads, strict=True)))


def numpy_gradients(w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, x: np.ndarray,
                    labels: np.ndarray) -> list[np.ndarray]:
    """The loss's gradients, written out by hand in numpy (float64)."""
    pre = x @ w1 + b1
    hidden = np.maximum(pre, 0.0)
    logits = hidden @ w2
    p = np.exp(logits - logits.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    p[np.arange(len(labels)), labels] -= 1.0
    d_logits = p / len(labels)
    d_pre = (d_logits @ w2.T) * (pre > 0)
    return [x.T @ d_pre, d_pre.sum(axis=0), hidden.T @ d_logits]


def blobs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points of three Gaussian blobs and their labels."""
    labels = rng.integers(0, CLASSES, size=n)
    centers = np.eye(CLASSES, FEATURES, dtype=np.float32) * 3.0
    x = centers[labels] + rng.standard_normal((n, FEATURES), dtype=np.float32)
    return x, labels


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--rate", type=float, default=0.2)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    params = [rng.standard_normal((FEATURES, HIDDEN), dtype=np.float32) * 0.3,
              np.zeros(HIDDEN, np.float32),
              rng.standard_normal((HIDDEN, CLASSES), dtype=np.float32) * 0.3]
    x, labels = blobs(rng, 5)
    grads = symshape_mlir.grad(loss, argnums=(0, 1, 2))(*params, x, labels)
    error = max(float(np.max(np.abs(g - want))) for g, want in zip(
        grads, numpy_gradients(*(p.astype(np.float64) for p in params), x, labels),
        strict=True))
    print(f"gradients at batch 5: max |error| vs numpy = {error:.2e}")

    train = symshape_mlir.jit(step, hot_after=None)
    losses = []
    start = time.perf_counter()
    for index in range(args.steps):
        batch = int(rng.choice([1, 3, 8, 17, 32, 64]))
        x, labels = blobs(rng, batch)
        value, *params = train(*params, x, labels, np.float32(args.rate))
        losses.append(float(value))
        if index % 30 == 0 or index == args.steps - 1:
            print(f"step {index:<4} batch {batch:<3} loss {value:.4f}")
    seconds = time.perf_counter() - start
    x, labels = blobs(rng, 500)
    hidden = np.maximum(x @ params[0] + params[1], 0.0)
    accuracy = float(np.mean(np.argmax(hidden @ params[2], axis=-1) == labels))
    stats = train.executable.stats()
    modules = stats["compiles"] + stats["disk_hits"]  # compiled now, or earlier and cached
    first, last = np.mean(losses[:10]), np.mean(losses[-10:])
    print(f"{args.steps} steps in {seconds:.2f} s; mean loss {first:.3f} -> {last:.3f}; "
          f"held-out accuracy {accuracy:.2f}; modules for every batch size: {modules}")
    ok = error < 1e-4 and last < 0.5 * first and modules == 1
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
