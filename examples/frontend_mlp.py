"""A two-layer MLP written with the Python frontend, compiled once, run at two batch sizes.

``@symshape_mlir.jit`` traces ``mlp`` once with a dynamic ``batch`` axis
(``x: Tensor["batch", 64, f32]``), compiles it with the runtime and returns
the entry point; each call extracts ``batch`` from ``x`` and runs the same
compiled module. The traced MLIR is printed first (``--show-mlir``).

Run it with ``python examples/frontend_mlp.py [--batches 1 32]``.
"""

import argparse

import numpy as np

import symshape_mlir
import symshape_mlir.frontend as fe
from symshape_mlir.frontend import Tensor, f32


def mlp(
    x: Tensor["batch", 64, f32],  # noqa: F821
    w1: Tensor[64, 128, f32],
    b1: Tensor[128, f32],
    w2: Tensor[128, 10, f32],
) -> Tensor:
    """``softmax(relu(x @ w1 + b1) @ w2)``; shapes: ``[batch, 64] -> [batch, 10]``."""
    hidden = fe.relu(x @ w1 + b1)
    assert str(hidden.symbolic_shape) == "[batch, 128]"  # shapes are known while tracing
    return fe.softmax(hidden @ w2, axis=-1)


def reference(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray) -> np.ndarray:
    """The MLP in numpy."""
    logits = np.maximum(x @ w1 + b1, 0.0) @ w2
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 32])
    parser.add_argument("--show-mlir", action="store_true", help="print the traced module")
    args = parser.parse_args(argv)

    traced = fe.trace(mlp)
    print(
        f"traced @{traced.name}: {[str(s) for s in traced.input_shapes]} -> "
        f"{[str(s) for s in traced.result_shapes]}"
    )
    if args.show_mlir:
        print(traced.module_text)
    run = symshape_mlir.jit(mlp)

    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((64, 128), dtype=np.float32) * 0.1
    b1 = rng.standard_normal(128, dtype=np.float32)
    w2 = rng.standard_normal((128, 10), dtype=np.float32) * 0.1
    worst = 0.0
    for batch in args.batches:
        x = rng.standard_normal((batch, 64), dtype=np.float32)
        got = run(x, w1, b1, w2)
        want = reference(x, w1, b1, w2)
        error = float(np.max(np.abs(got - want))) if want.size else 0.0
        worst = max(worst, error)
        print(f"batch={batch:<4} out {got.shape}  max |error| vs numpy = {error:.2e}")
    ok = worst < 1e-4
    print("OK" if ok else f"FAILED: max error {worst:.2e}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
