"""Dynamic vs statically specialized IREE modules vs numpy, as ratios from one run.

For the MLP (``test/e2e/mlp.mlir``) and the attention block
(``test/e2e/attention.mlir``) at three batch sizes, this builds

* one *dynamic* module: ``symshape-opt --symshape-to-iree`` then
  ``iree-compile`` (llvm-cpu, host CPU), serving every batch size;
* one *static* module per batch size: ``symshape-opt
  --symshape-specialize{bindings=batch=B,...} --symshape-to-iree`` then
  ``iree-compile``;

each with and without ``--iree-opt-data-tiling``, checks every module
against numpy once, then times calls: after warm-up calls, the variants are
called in interleaved rounds (one call of each per round, so drift hits all
alike) and the median per-call time of each is kept. The table shows ratios
of those medians only; absolute times on a shared 2-core machine mean little.

Columns (each a ratio of median times, > 1 means the second is faster):

* ``dyn/static``: dynamic time over static time (the static variant's gain);
* ``numpy/dyn``: numpy time over the dynamic module's time;
* ``numpy/static``: numpy time over the static module's time;
* ``tiling dyn``: dynamic without data tiling over dynamic with it (only in
  the rows with data tiling);
* ``spread``: the largest interquartile range over median among the row's
  variants, a measure of how far to trust the ratios of that row.

A variant IREE fails to compile is shown as ``n/a`` with the reason below
the table.

Run it from the repository root (after ``scripts/setup.sh``)::

    .venv/bin/python bench/dynamic_vs_static.py            # full run, about a minute
    .venv/bin/python bench/dynamic_vs_static.py --quick    # fewer calls, for a smoke test
    .venv/bin/python bench/dynamic_vs_static.py --driver local-sync --repeats 50
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from symshape_mlir import backend
from symshape_mlir.backend import CompileError, Function

__all__ = ["MODELS", "Model", "main"]

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]
E2E_DIR = ROOT / "test" / "e2e"
SEQ = 64

Arrays = tuple[np.ndarray, ...]


def _normal(rng: np.random.Generator, shape: Sequence[int], scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(tuple(shape), dtype=np.float32) * np.float32(scale)).astype(
        np.float32
    )


def _mlp_inputs(rng: np.random.Generator, batch: int) -> Arrays:
    return (
        _normal(rng, (batch, 256)),
        _normal(rng, (256, 512), 0.06),
        _normal(rng, (512,)),
        _normal(rng, (512, 128), 0.04),
    )


def _mlp_numpy(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray) -> np.ndarray:
    return (np.maximum(x @ w1 + b1, 0) @ w2).reshape(-1)


def _attention_inputs(rng: np.random.Generator, batch: int) -> Arrays:
    return (
        _normal(rng, (batch, SEQ, 64)),
        _normal(rng, (64, 64), 0.125),
        _normal(rng, (64, 64), 0.125),
        _normal(rng, (64, 64), 0.125),
    )


def _attention_numpy(x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray
                     ) -> np.ndarray:
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ np.swapaxes(k, 1, 2) / np.float32(8)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ v


@dataclasses.dataclass(frozen=True)
class Model:
    """A benchmarked program.

    Attributes:
        file: Its file in ``test/e2e``.
        function: The exported function.
        batches: The batch sizes measured.
        bindings: The axis bindings of a batch size.
        inputs: The arguments at a batch size.
        numpy: The numpy implementation.
    """

    file: str
    function: str
    batches: tuple[int, ...]
    bindings: Callable[[int], Mapping[str, int]]
    inputs: Callable[[np.random.Generator, int], Arrays]
    numpy: Callable[..., np.ndarray]


MODELS: dict[str, Model] = {
    "mlp": Model(
        "mlp.mlir", "mlp", (1, 32, 256), lambda b: {"batch": b}, _mlp_inputs, _mlp_numpy
    ),
    "attention": Model(
        "attention.mlir",
        "attention",
        (1, 8, 32),
        lambda b: {"batch": b, "seq": SEQ},
        _attention_inputs,
        _attention_numpy,
    ),
}


def _symshape_opt() -> str:
    found = shutil.which(
        "symshape-opt", path=os.pathsep.join([str(Path(sys.executable).parent),
                                             os.environ.get("PATH", "")])
    )
    if found is None:
        raise SystemExit("symshape-opt is not installed (run scripts/setup.sh)")
    return found


def _resolve(model: Model, bindings: Mapping[str, int] | None) -> str:
    flags = []
    if bindings is not None:
        text = ",".join(f"{name}={value}" for name, value in bindings.items())
        flags.append(f"--symshape-specialize=bindings={text}")
    flags.append("--symshape-to-iree")
    proc = subprocess.run(
        [_symshape_opt(), *flags, str(E2E_DIR / model.file)],
        capture_output=True, text=True, check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"symshape-opt {' '.join(flags)} failed:\n{proc.stderr}")
    return proc.stdout


@dataclasses.dataclass
class Variant:
    """One callable measured in a row: a loaded function or numpy."""

    label: str
    call: Callable[[], object] | None
    failure: str | None = None
    times: list[float] = dataclasses.field(default_factory=list)

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times else None

    @property
    def spread(self) -> float | None:
        """Interquartile range over median: how noisy the median is."""
        if len(self.times) < 4:
            return None
        q1, _, q3 = statistics.quantiles(self.times, n=4)
        return (q3 - q1) / statistics.median(self.times)


def _load(text: str, data_tiling: bool, driver: str, function: str
          ) -> tuple[Function | None, str | None]:
    try:
        compiled = backend.compile_module(text, "llvm-cpu", data_tiling=data_tiling)
    except CompileError as error:
        first = error.errors[0].message if error.errors else str(error).splitlines()[0]
        return None, f"iree-compile ({error.phase}): {first}"
    return backend.load(compiled, driver).function(function), None


def _check(variant: Variant, args: Arrays, expected: np.ndarray) -> None:
    if variant.call is None:
        return
    got = variant.call()
    if not isinstance(got, np.ndarray) or got.shape != expected.shape or not np.allclose(
        got, expected, rtol=1e-3, atol=1e-3
    ):
        raise SystemExit(f"{variant.label}: results differ from numpy")


def _measure(variants: list[Variant], warmup: int, repeats: int) -> None:
    runnable = [v for v in variants if v.call is not None]
    for _ in range(warmup):
        for variant in runnable:
            variant.call()  # type: ignore[misc]
    for _ in range(repeats):
        for variant in runnable:
            start = time.perf_counter()
            variant.call()  # type: ignore[misc]
            variant.times.append(time.perf_counter() - start)


def _ratio(numerator: float | None, denominator: float | None) -> str:
    if numerator is None or denominator is None:
        return "n/a"
    return f"{numerator / denominator:.2f}"


@dataclasses.dataclass
class Row:
    model: str
    batch: int
    data_tiling: bool
    dynamic: Variant
    static: Variant
    numpy: Variant
    dynamic_untiled: Variant | None = None


def run(models: Sequence[str], driver: str, warmup: int, repeats: int) -> list[Row]:
    """Builds, checks and times every variant; returns one row per (model, batch, tiling)."""
    rows: list[Row] = []
    rng = np.random.default_rng(0)
    for name in models:
        model = MODELS[name]
        print(f"[{name}] resolving and compiling (dynamic, and static per batch)...",
              file=sys.stderr, flush=True)
        dynamic_text = _resolve(model, None)
        dynamic = {tiling: _load(dynamic_text, tiling, driver, model.function)
                   for tiling in (False, True)}
        for batch in model.batches:
            static_text = _resolve(model, model.bindings(batch))
            args = model.inputs(rng, batch)
            expected = model.numpy(*args)
            numpy_variant = Variant("numpy", lambda m=model, a=args: m.numpy(*a))
            by_tiling: dict[bool, Row] = {}
            for tiling in (False, True):
                fn, failure = dynamic[tiling]
                dyn = Variant(f"{name} dynamic tiling={tiling}",
                              (lambda f=fn, a=args: f(*a)) if fn else None, failure)
                sfn, sfailure = _load(static_text, tiling, driver, model.function)
                stat = Variant(f"{name} static batch={batch} tiling={tiling}",
                               (lambda f=sfn, a=args: f(*a)) if sfn else None, sfailure)
                for variant in (dyn, stat):
                    _check(variant, args, expected)
                by_tiling[tiling] = Row(name, batch, tiling, dyn, stat, numpy_variant)
            by_tiling[True].dynamic_untiled = by_tiling[False].dynamic
            print(f"[{name}] batch {batch}: timing {repeats} rounds...", file=sys.stderr,
                  flush=True)
            _measure([numpy_variant, *(v for r in by_tiling.values()
                                      for v in (r.dynamic, r.static))], warmup, repeats)
            rows.extend(by_tiling.values())
    return rows


def _spread(row: Row) -> str:
    spreads = [v.spread for v in (row.dynamic, row.static, row.numpy) if v.spread is not None]
    return f"{max(spreads):.0%}" if spreads else "n/a"


def format_table(rows: Sequence[Row]) -> str:
    """The ratio table, then the reasons of the variants that did not compile."""
    header = ("model", "batch", "data tiling", "dyn/static", "numpy/dyn", "numpy/static",
              "tiling dyn", "spread")
    lines = [header]
    failures: dict[str, str] = {}
    for row in rows:
        tiling_gain = (_ratio(row.dynamic_untiled.median, row.dynamic.median)
                       if row.dynamic_untiled is not None else "")
        lines.append((
            row.model, str(row.batch), "on" if row.data_tiling else "off",
            _ratio(row.dynamic.median, row.static.median),
            _ratio(row.numpy.median, row.dynamic.median),
            _ratio(row.numpy.median, row.static.median),
            tiling_gain,
            _spread(row),
        ))
        for variant in (row.dynamic, row.static):
            if variant.failure is not None:
                failures[variant.label] = variant.failure
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = [" | ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True))
           for line in lines]
    out.insert(1, "-+-".join("-" * w for w in widths))
    out.extend(f"n/a: {label}: {reason}" for label, reason in failures.items())
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the benchmark and prints the table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS))
    parser.add_argument("--driver", choices=["local-task", "local-sync"], default="local-task")
    parser.add_argument("--warmup", type=int, default=10, help="warm-up calls per variant")
    parser.add_argument("--repeats", type=int, default=100, help="timed calls per variant")
    parser.add_argument("--quick", action="store_true", help="2 warm-up and 5 timed calls")
    args = parser.parse_args(argv)
    warmup, repeats = (2, 5) if args.quick else (args.warmup, args.repeats)
    rows = run(args.models, args.driver, warmup, repeats)
    print(f"llvm-cpu (host CPU) on {args.driver}; median of {repeats} interleaved calls "
          f"after {warmup} warm-up calls; ratios of median times (> 1: the second is faster)")
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
