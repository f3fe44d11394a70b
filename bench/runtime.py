"""The two-level runtime against its peers, as ratios measured in one run.

Models: an MLP 512 -> 1024 -> 512 (relu) over a dynamic batch, and a
single-head attention block (seq 64, d 256) over a dynamic batch and
sequence (``test/e2e/attention.mlir`` at d = 256). Peers: numpy, torch eager,
``torch.compile(dynamic=True)``, ``jax.jit``; a peer that is not installed is
skipped with a note. Sections:

(a) extra cost of the first call at a never-seen batch size over the
    median of the next five calls at that size, each call on a freshly
    made input (ours, weights bound or packed: Level 2 binding + plan;
    jax.jit: retrace and compile; torch.compile(dynamic=True): guard
    checks);
(b) Level-1 compile time (no disk cache) vs torch.compile's first call;
(c) Level-2 overhead over the raw ``iree.runtime`` invoke of the same
    module (`Function.dispatch`) on a tiny function;
(d) steady state at batch 1, 32 and 256: our dynamic module and our hot-tier
    static variant, with the weights bound by ``bind_params`` as device
    buffers passed to each call (``dyn``, ``tier``) or packed as IREE
    parameters laid out once at load time (``pdyn``, ``ptier``; each packed
    tier runs on the local driver timed faster for it), against
    each peer; ``best peer / ours`` > 1 means ours is faster. A tier is the
    static variant a hot binding swaps in (compiled here ahead of time with
    ``pre_specialize``); a note says when its results are not bit-identical
    to its dynamic module's.

Variants are timed in interleaved rounds (one turn of each per round: a
pause, an untimed call, then the timed one; at least 15, more while a
row's rounds fit in 6 seconds); medians are kept and ``spread`` is the
largest interquartile range over median in the row.
Thread pools of the peers are told not to spin (``quiet_threads``) so that
they do not starve the next variant.

Run from the repository root::

    .venv/bin/python bench/runtime.py            # about 3 minutes on 2 cores
    .venv/bin/python bench/runtime.py --quick    # a smoke run
"""

from __future__ import annotations

import quiet_threads  # noqa: F401  (before numpy)

# isort: split

import argparse
import os
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from symshape_mlir import runtime

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import interleaved, peer, print_notes, rounds_for

ROOT = Path(__file__).resolve().parents[1]
NOTES: list[str] = []
_MAX_ROUNDS = 400

MLP_DIMS = {"256": "512", "512": "1024", "128": "512"}


def mlp_text() -> str:
    """The e2e MLP resized to 512 -> 1024 -> 512."""
    text = (ROOT / "test/e2e/mlp.mlir").read_text()
    return re.sub(r"(?<!\d)(256|512|128)(?!\d)", lambda m: MLP_DIMS[m.group(1)], text)


def attention_text() -> str:
    """The e2e attention block at d = 256 (scale 1/16)."""
    text = (ROOT / "test/e2e/attention.mlir").read_text()
    return re.sub(r"(?<![\di])64(?!\d)", "256", text).replace("0.125", "0.0625")


def np_mlp(x: Any, w1: Any, b1: Any, w2: Any) -> Any:
    return (np.maximum(x @ w1 + b1, 0.0) @ w2).reshape(-1)


def np_attention(x: Any, wq: Any, wk: Any, wv: Any) -> Any:
    q, k, v = x @ wq, x @ wk, x @ wv
    s = q @ k.transpose(0, 2, 1) * np.float32(0.0625)
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v


class Peers:
    """The optional peers, each a factory of a callable on numpy arrays."""

    def __init__(self) -> None:
        self.torch: Any = peer("torch", NOTES)
        if self.torch is not None:
            self.torch.set_num_threads(os.cpu_count() or 1)
        self.jax: Any = peer("jax", NOTES)
        self.jnp: Any = self.jax and peer("jax.numpy", NOTES)

    def torch_fn(self, model: str, params: Sequence[np.ndarray], compiled: bool) -> Any:
        if self.torch is None:
            return None
        torch = self.torch
        tp = [torch.from_numpy(p) for p in params]

        def mlp(x: Any) -> Any:
            return (torch.relu(x @ tp[0] + tp[1]) @ tp[2]).reshape(-1)

        def attention(x: Any) -> Any:
            q, k, v = x @ tp[0], x @ tp[1], x @ tp[2]
            return torch.softmax(q @ k.transpose(1, 2) * 0.0625, dim=-1) @ v

        fn = mlp if model == "mlp" else attention
        if compiled:
            fn = torch.compile(fn, dynamic=True)

        def call(x: np.ndarray) -> Any:
            with torch.no_grad():
                return fn(torch.from_numpy(x)).numpy()

        return call

    def jax_fn(self, model: str, params: Sequence[np.ndarray]) -> Any:
        if self.jax is None:
            return None
        jnp, jax = self.jnp, self.jax
        jp = [jax.device_put(p) for p in params]

        def mlp(x: Any, w1: Any, b1: Any, w2: Any) -> Any:
            return (jnp.maximum(x @ w1 + b1, 0.0) @ w2).reshape(-1)

        def attention(x: Any, wq: Any, wk: Any, wv: Any) -> Any:
            q, k, v = x @ wq, x @ wk, x @ wv
            return jax.nn.softmax(q @ k.transpose(0, 2, 1) * 0.0625, axis=-1) @ v

        fn = jax.jit(mlp if model == "mlp" else attention)
        return lambda x: np.asarray(fn(x, *jp).block_until_ready())


def inputs(model: str, batch: int, rng: np.random.Generator) -> np.ndarray:
    shape = (batch, 512) if model == "mlp" else (batch, 64, 256)
    return rng.standard_normal(shape, dtype=np.float32)


def weights(model: str, rng: np.random.Generator) -> list[np.ndarray]:
    if model == "mlp":
        shapes: list[tuple[int, ...]] = [(512, 1024), (1024,), (1024, 512)]
    else:
        shapes = [(256, 256)] * 3
    return [rng.standard_normal(s, dtype=np.float32) * 0.05 for s in shapes]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (smoke test)")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 32, 256])
    args = parser.parse_args(argv)
    rounds = 5 if args.quick else 15
    budget = 1.0 if args.quick else 6.0  # seconds of steady-state timing per row
    rng = np.random.default_rng(0)
    peers = Peers()
    texts = {"mlp": mlp_text(), "attention": attention_text()}
    refs = {"mlp": np_mlp, "attention": np_attention}

    # (b) Level-1 compile time, no disk cache.
    print("(b) Level-1 compile time (no disk cache) vs torch.compile first call")
    exes: dict[str, runtime.Executable] = {}
    for model, text in texts.items():
        start = time.perf_counter()
        exes[model] = runtime.compile(text, cache_dir=None, hot_after=None)
        ours = time.perf_counter() - start
        line = f"    {model:<10} ours {ours:6.2f} s"
        params = weights(model, rng)
        tc = peers.torch_fn(model, params, compiled=True)
        if tc is not None:
            try:
                start = time.perf_counter()
                tc(inputs(model, 8, rng))
                theirs = time.perf_counter() - start
                line += f"   torch.compile {theirs:6.2f} s   torch/ours {theirs / ours:5.2f}x"
            except Exception as exc:  # a peer failing is reported, not fatal
                NOTES.append(f"torch.compile failed on {model}: {type(exc).__name__}: {exc}")
        print(line)

    # (c) Level-2 overhead on a tiny function.
    tiny = runtime.compile(
        (ROOT / "test/py/runtime_programs.py").read_text().split('ADD = """')[1].split('"""')[0],
        cache_dir=None,
        hot_after=None,
    )
    a = np.ones((1, 4), np.float32)
    tiny(a, a)
    raw = tiny.add.variants.dynamic
    level2 = interleaved(
        {"raw": lambda: raw.dispatch([a, a]), "ours": lambda: tiny(a, a)}, rounds * 400
    )
    overhead = (level2["ours"][0] - level2["raw"][0]) * 1e6
    print("\n(c) Level-2 overhead over the raw iree.runtime invoke (tiny add, batch 1)")
    print(
        f"    raw {level2['raw'][0] * 1e6:7.1f} us   ours {level2['ours'][0] * 1e6:7.1f} us   "
        f"overhead {overhead:5.1f} us   ratio {level2['ours'][0] / level2['raw'][0]:.3f}   "
        f"spread {max(level2['raw'][1], level2['ours'][1]):.2f}"
    )

    # (a) first call at a never-seen batch.
    sizes = 5 if args.quick else 15
    print(f"\n(a) extra cost of the first call at an unseen batch (median over {sizes} sizes)")
    for model in texts:
        params = weights(model, rng)
        candidates: dict[str, Callable[[np.ndarray], Any] | None] = {
            "ours": exes[model][model].bind_params({1: params[0], 2: params[1], 3: params[2]}),
            "ours packed": exes[model][model].bind_params(
                {1: params[0], 2: params[1], 3: params[2]}, packed=True
            ),
            "jax.jit": peers.jax_fn(model, params),
            "torch.compile": peers.torch_fn(model, params, compiled=True),
        }
        line = f"    {model:<10}"
        extras = {}
        for name, fn in candidates.items():
            if fn is None:
                continue
            try:
                fn(inputs(model, 2, rng))
                costs = []
                for batch in range(10, 10 + sizes):
                    # Each call gets a fresh input: a new array costs a
                    # call more on this machine (cold caches, first touch)
                    # than the binding does, and is not what is measured.
                    calls = []
                    for _ in range(6):
                        x = inputs(model, batch, rng)
                        start = time.perf_counter()
                        fn(x)
                        calls.append(time.perf_counter() - start)
                    costs.append(calls[0] - statistics.median(calls[1:]))
                extras[name] = statistics.median(costs)
                line += f"   {name} {extras[name] * 1e3:8.3f} ms"
            except Exception as exc:
                NOTES.append(f"{name} failed on {model}: {type(exc).__name__}: {exc}")
        for name in ("jax.jit", "torch.compile"):
            if name in extras and extras["ours"] > 0:
                line += f"   {name}/ours {extras[name] / extras['ours']:8.1f}x"
        print(line)

    # (d) steady state.
    print("\n(d) steady state: best peer / ours (> 1: ours faster); per-variant medians in ms")
    ours = ("dyn", "tier", "pdyn", "ptier")
    header = f"    {'model':<10}{'batch':>6}  " + "".join(f"{n:>8}" for n in ours)
    header += "  " + "".join(f"{n:>14}" for n in ("numpy", "torch", "torch.compile", "jax.jit"))
    header += "  " + "".join(f"{'best/' + n:>11}" for n in ours) + f"{'spread':>8}"
    print(header)
    for model, text in texts.items():
        params = weights(model, rng)
        exe = runtime.compile(text, cache_dir=None, hot_after=None)
        exe.pre_specialize(
            [{"batch": b} if model == "mlp" else {"batch": b, "seq": 64} for b in args.batches]
        )
        dynamic = runtime.compile(text, cache_dir=None, hot_after=None)
        bound = {1: params[0], 2: params[1], 3: params[2]}
        variants = {
            "dyn": dynamic[model].bind_params(bound),
            "tier": exe[model].bind_params(bound),
            # Weights as IREE parameters, laid out once at load time.
            "pdyn": dynamic[model].bind_params(bound, packed=True),
            "ptier": exe[model].bind_params(bound, packed=True),
        }
        drivers = {key[0]: d for key, d in variants["ptier"].variant_drivers().items()}
        NOTES.append(f"{model} ptier drivers (timed at bind time) by batch: {drivers}")
        peer_fns: dict[str, Callable[[np.ndarray], Any] | None] = {
            "numpy": lambda x, model=model, params=params: refs[model](x, *params),
            "torch": peers.torch_fn(model, params, compiled=False),
            "torch.compile": peers.torch_fn(model, params, compiled=True),
            "jax.jit": peers.jax_fn(model, params),
        }
        for batch in args.batches:
            x = inputs(model, batch, rng)
            want = refs[model](x, *params)
            outputs = {}
            for name, fn in variants.items():
                got = outputs[name] = np.asarray(fn(x)).reshape(want.shape)
                if not np.allclose(got, want, rtol=1e-3, atol=1e-3):
                    NOTES.append(f"{model} batch {batch}: {name} differs from numpy")
            for dyn, tier in (("dyn", "tier"), ("pdyn", "ptier")):
                if outputs[dyn].tobytes() != outputs[tier].tobytes():
                    NOTES.append(
                        f"{model} batch {batch}: {tier} and {dyn} results are not bit-identical"
                    )
            fns: dict[str, Callable[[], Any]] = {
                name: lambda x=x, fn=fn: fn(x) for name, fn in variants.items()
            }
            for name, fn in peer_fns.items():
                if fn is None:
                    continue
                try:
                    fn(x)
                    fn(x)
                    fns[name] = lambda fn=fn, x=x: fn(x)
                except Exception as exc:
                    NOTES.append(f"{name} failed on {model}: {type(exc).__name__}: {exc}")
            # Rounds to fill the row's time budget: fast rows get many.
            timed = interleaved(fns, rounds_for(fns, rounds, _MAX_ROUNDS, budget))
            row = f"    {model:<10}{batch:>6}  "
            row += "".join(f"{timed[n][0] * 1e3:8.3f}" for n in ours) + "  "
            for name in ("numpy", "torch", "torch.compile", "jax.jit"):
                row += f"{timed[name][0] * 1e3:14.3f}" if name in timed else f"{'n/a':>14}"
            best = min(timed[n][0] for n in timed if n not in ours)
            spread = max(s for _, s in timed.values())
            row += "  " + "".join(f"{best / timed[n][0]:11.2f}" for n in ours) + f"{spread:8.2f}"
            print(row)
    print_notes(NOTES)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
