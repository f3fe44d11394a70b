"""End to end: a symbolic MLP compiled once by `symshape_mlir.runtime`, run at two batch sizes.

Steps (each printed as it runs):

1. ``runtime.compile("examples/mlp.mlir")``: shape inference captures the
   argument axes (``batch``) and the result size (``batch * 10``), then
   ``symshape-to-iree`` and ``iree-compile`` build one llvm-cpu module with a
   dynamic batch (cached on disk: a second run reads it back);
2. for each batch size, ``exe.mlp.plan`` gives the output shape before the
   call, the call runs and is compared with numpy;
3. a call whose arguments disagree on ``batch`` is refused before launch.

Run it with ``bash scripts/demo.sh`` (sets up the venv first) or directly
with ``python examples/mlp_two_batches.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from symshape_mlir import runtime

HERE = Path(__file__).resolve().parent


def reference(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray) -> np.ndarray:
    """The MLP in numpy."""
    return (np.maximum(x @ w1 + b1, 0.0) @ w2).reshape(-1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 32])
    args = parser.parse_args(argv)

    source = HERE / "mlp.mlir"
    print(f"[1/3] runtime.compile({source.name!r}, target='llvm-cpu')")
    exe = runtime.compile(source, target="llvm-cpu")
    stats = exe.stats()
    how = "read from the disk cache" if stats["disk_hits"] else "compiled"
    print(f"      {how} in {stats['compile_seconds']:.2f} s: {exe}")
    print(f"      result size: {[str(e) for e in exe.mlp.sizes.results[0].sizes or ()]}")

    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((64, 128), dtype=np.float32) * 0.1
    b1 = rng.standard_normal(128, dtype=np.float32)
    w2 = rng.standard_normal((128, 10), dtype=np.float32) * 0.1
    worst = 0.0
    for batch in args.batches:
        x = rng.standard_normal((batch, 64), dtype=np.float32)
        plan = exe.mlp.plan(x, w1, b1, w2)
        got = exe.mlp(x, w1, b1, w2)
        want = reference(x, w1, b1, w2)
        error = float(np.max(np.abs(got - want))) if want.size else 0.0
        worst = max(worst, error)
        print(
            f"[2/3] batch={batch:<4} planned {plan.shapes[0]} ({plan.total_bytes} bytes), "
            f"got {tuple(got.shape)}  max |error| vs numpy = {error:.2e}"
        )
        if got.shape != want.shape or plan.shapes[0] != got.shape or error > 1e-3:
            print("mismatch against numpy", file=sys.stderr)
            return 1
    try:
        exe.mlp(np.zeros((3, 64), np.float32), np.zeros((65, 128), np.float32), b1, w2)
    except runtime.SignatureError as err:
        print(f"[3/3] refused before launch: {err}")
    print(f"ok: one module, {len(args.batches)} batch sizes, worst error {worst:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
