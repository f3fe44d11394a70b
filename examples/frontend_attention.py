"""A single-head attention block written with the Python frontend, dynamic batch and sequence.

``attention`` is traced once with ``x: Tensor["batch", "seq", 64, f32]``:
the projections flatten ``[batch, seq, 64]`` to ``[batch * seq, 64]``
(a symbolic reshape target built with extent arithmetic on ``x.shape``),
multiply by the weights and reshape back; the scores ``q @ k^T / 8`` are a
batched matmul, softmax runs over the key axis, a residual connection and a
layer norm close the block. One compiled module serves every ``(batch,
seq)``.

Run it with ``python examples/frontend_attention.py [--shapes 1x7 4x16]``.
"""

import argparse

import numpy as np

import symshape_mlir
import symshape_mlir.frontend as fe
from symshape_mlir.frontend import Tensor, f32

D = 64


def attention(
    x: Tensor["batch", "seq", 64, f32],  # noqa: F821
    wq: Tensor[64, 64, f32],
    wk: Tensor[64, 64, f32],
    wv: Tensor[64, 64, f32],
) -> Tensor:
    """``layer_norm(x + softmax(q k^T / 8) v)`` with ``q, k, v = x wq, x wk, x wv``."""
    batch, seq, _ = x.shape  # extents: Exact(batch), Exact(seq)
    flat = x.reshape(batch * seq, D)  # target [batch * seq, 64]
    q, k, v = ((flat @ w).reshape(batch, seq, D) for w in (wq, wk, wv))
    scores = q @ k.transpose(0, 2, 1) / 8.0  # [batch, seq, seq]
    out = fe.softmax(scores, axis=-1) @ v  # [batch, seq, 64]
    return fe.layer_norm(x + out)


def reference(x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray) -> np.ndarray:
    """The block in numpy."""
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.transpose(0, 2, 1) / 8.0
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    y = x + (e / e.sum(axis=-1, keepdims=True)) @ v
    centered = y - y.mean(axis=-1, keepdims=True)
    return centered / np.sqrt((centered**2).mean(axis=-1, keepdims=True) + 1e-5)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", default=["1x7", "4x16"], help="BATCHxSEQ")
    parser.add_argument("--show-mlir", action="store_true", help="print the traced module")
    args = parser.parse_args(argv)

    traced = fe.trace(attention)
    print(
        f"traced @{traced.name}: {[str(s) for s in traced.input_shapes]} -> "
        f"{[str(s) for s in traced.result_shapes]}"
    )
    if args.show_mlir:
        print(traced.module_text)
    run = symshape_mlir.jit(attention)

    rng = np.random.default_rng(0)
    wq, wk, wv = (rng.standard_normal((D, D), dtype=np.float32) * 0.1 for _ in range(3))
    worst = 0.0
    for text in args.shapes:
        batch, seq = (int(v) for v in text.split("x"))
        x = rng.standard_normal((batch, seq, D), dtype=np.float32)
        got = run(x, wq, wk, wv)
        want = reference(x, wq, wk, wv)
        error = float(np.max(np.abs(got - want))) if want.size else 0.0
        worst = max(worst, error)
        print(f"batch={batch:<3} seq={seq:<4} out {got.shape}  max |error| vs numpy = {error:.2e}")
    ok = worst < 1e-3
    print("OK" if ok else f"FAILED: max error {worst:.2e}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
