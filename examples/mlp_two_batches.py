"""End to end: a symbolic MLP through symshape-opt and iree-compile, run at two batch sizes.

Steps (each printed as it runs):

1. ``symshape-opt --symshape-to-iree examples/mlp.mlir`` resolves the symbolic
   program (named batch axis, symbolic broadcast and reshape targets) into
   plain MLIR;
2. ``iree-compile`` builds one llvm-cpu module with a dynamic batch;
3. the module runs at batch 1 and batch 32 and is compared with numpy.

Run it with ``bash scripts/demo.sh`` (sets up the venv first) or directly
with ``python examples/mlp_two_batches.py``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from symshape_mlir import backend

HERE = Path(__file__).resolve().parent


def reference(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray) -> np.ndarray:
    """The MLP in numpy."""
    return (np.maximum(x @ w1 + b1, 0.0) @ w2).reshape(-1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 32])
    args = parser.parse_args(argv)

    opt = shutil.which("symshape-opt") or str(Path(sys.executable).with_name("symshape-opt"))
    source = HERE / "mlp.mlir"
    print(f"[1/3] symshape-opt --symshape-to-iree {source.name}")
    resolved = subprocess.run(
        [opt, "--symshape-to-iree", str(source)], check=True, capture_output=True, text=True
    ).stdout

    print("[2/3] iree-compile (llvm-cpu, dynamic batch)")
    compiled = backend.compile_module(resolved, "llvm-cpu")
    out_dir = HERE.parent / "build" / "examples"
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "mlp.resolved.mlir").write_text(resolved)
    (out_dir / "mlp.vmfb").write_bytes(compiled.vmfb)
    print(f"      wrote {out_dir / 'mlp.resolved.mlir'} and {out_dir / 'mlp.vmfb'}")
    module = backend.load(compiled, "local-task")

    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((64, 128), dtype=np.float32) * 0.1
    b1 = rng.standard_normal(128, dtype=np.float32)
    w2 = rng.standard_normal((128, 10), dtype=np.float32) * 0.1
    worst = 0.0
    for batch in args.batches:
        x = rng.standard_normal((batch, 64), dtype=np.float32)
        got = module.invoke("mlp", x, w1, b1, w2)
        want = reference(x, w1, b1, w2)
        error = float(np.max(np.abs(got - want))) if want.size else 0.0
        worst = max(worst, error)
        print(f"[3/3] batch={batch:<4} output {tuple(got.shape)}  "
              f"max |error| vs numpy = {error:.2e}")
        if got.shape != want.shape or error > 1e-3:
            print("mismatch against numpy", file=sys.stderr)
            return 1
    print(f"ok: one module, {len(args.batches)} batch sizes, worst error {worst:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
