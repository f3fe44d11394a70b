"""One training step (forward, backward, SGD update) against its peers, as ratios of one run.

Models: an MLP 512 -> 1024 -> 512 (relu) and a single-head attention block
(seq 64, d 128, softmax over keys), each with a mean squared error to a
target, over a dynamic batch. Ours: ``symshape_mlir.jit`` of a step that
calls ``symshape_mlir.value_and_grad`` (one module: forward, backward and
update), served dynamically (``dyn``) and by the static variant a hot
binding swaps in (``tier``, compiled ahead with ``pre_specialize``). Peers:
``jax.jit`` of the same step with ``jax.value_and_grad``, torch autograd
eager, and torch autograd over ``torch.compile(dynamic=True)`` of the loss;
a peer that is not installed is skipped with a note (``--peer-path DIR``
searches DIR last for them, e.g. another environment's site-packages).

(a) extra cost of the first step at a never-seen batch size over the median
    of the next five at that size (ours: a new binding is planned in
    microseconds; jax.jit retraces and compiles);
(b) steady state at batch 1, 32 and 256: per-variant medians in ms, and
    ``best peer / ours`` (> 1: ours faster). Each step's results are checked
    against the first peer's (or numpy's loss) before timing.

Variants are timed in interleaved rounds (``interleaved`` from
``bench/timing.py``). Run from the repository root::

    .venv/bin/python bench/ad.py            # a few minutes on 2 cores
    .venv/bin/python bench/ad.py --quick    # a smoke run
"""

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import symshape_mlir
import symshape_mlir.frontend as fe
from symshape_mlir.frontend import Tensor, f32
from symshape_mlir.frontend.tracing import input_specs

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import interleaved, peer, print_notes

NOTES: list[str] = []
RATE = 0.01
SEQ, D = 64, 128


def mlp_loss(w1: Tensor[512, 1024, f32], b1: Tensor[1024, f32], w2: Tensor[1024, 512, f32],
             x: Tensor["batch", 512, f32], y: Tensor["batch", 512, f32]) -> Tensor:  # noqa: F821
    out = fe.relu(x @ w1 + b1) @ w2
    return fe.mean((out - y) * (out - y))


def attention_loss(wq: Tensor[D, D, f32], wk: Tensor[D, D, f32], wv: Tensor[D, D, f32],
                   x: Tensor["batch", SEQ, D, f32],  # noqa: F821
                   y: Tensor["batch", SEQ, D, f32]) -> Tensor:  # noqa: F821
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = fe.softmax(q @ fe.swapaxes(k, 1, 2) * (1 / D**0.5), axis=-1)
    out = scores @ v
    return fe.mean((out - y) * (out - y))


def step_of(loss: Callable[..., Tensor]) -> Callable[..., Any]:
    """``loss``'s SGD step: the value, then the three updated parameters."""

    def step(p0: Any, p1: Any, p2: Any, x: Any, y: Any) -> tuple[Any, ...]:
        value, grads = symshape_mlir.value_and_grad(loss, argnums=(0, 1, 2))(p0, p1, p2, x, y)
        return (value, *(p - RATE * g for p, g in zip((p0, p1, p2), grads, strict=True)))

    step.__name__ = f"{loss.__name__}_step"
    return step


def params(model: str, rng: np.random.Generator) -> list[np.ndarray]:
    shapes = [(512, 1024), (1024,), (1024, 512)] if model == "mlp" else [(D, D)] * 3
    return [rng.standard_normal(s, dtype=np.float32) * 0.05 for s in shapes]


def data(model: str, batch: int, rng: np.random.Generator) -> list[np.ndarray]:
    shape = (batch, 512) if model == "mlp" else (batch, SEQ, D)
    return [rng.standard_normal(shape, dtype=np.float32) for _ in range(2)]


class Peers:
    """The optional peers: each gives a step function on numpy arrays."""

    def __init__(self) -> None:
        self.jax: Any = peer("jax", NOTES)
        self.jnp: Any = self.jax and peer("jax.numpy", NOTES)
        self.torch: Any = peer("torch", NOTES)

    def jax_step(self, model: str) -> Callable[..., Any] | None:
        if self.jax is None:
            return None
        jax, jnp = self.jax, self.jnp

        def mlp(p: Sequence[Any], x: Any, y: Any) -> Any:
            out = jnp.maximum(x @ p[0] + p[1], 0.0) @ p[2]
            return jnp.mean((out - y) ** 2)

        def attention(p: Sequence[Any], x: Any, y: Any) -> Any:
            q, k, v = x @ p[0], x @ p[1], x @ p[2]
            scores = jax.nn.softmax(q @ jnp.swapaxes(k, 1, 2) * (1 / D**0.5), axis=-1)
            return jnp.mean((scores @ v - y) ** 2)

        grad = jax.value_and_grad(mlp if model == "mlp" else attention)

        @jax.jit
        def step(p: Sequence[Any], x: Any, y: Any) -> Any:
            value, grads = grad(p, x, y)
            return value, [a - RATE * g for a, g in zip(p, grads, strict=True)]

        def call(p0: Any, p1: Any, p2: Any, x: Any, y: Any) -> list[np.ndarray]:
            value, new = step([p0, p1, p2], x, y)
            return [np.asarray(value.block_until_ready()), *map(np.asarray, new)]

        return call

    def torch_step(self, model: str, compiled: bool) -> Callable[..., Any] | None:
        if self.torch is None:
            return None
        torch = self.torch

        def mlp(p: Sequence[Any], x: Any, y: Any) -> Any:
            out = torch.relu(x @ p[0] + p[1]) @ p[2]
            return torch.mean((out - y) ** 2)

        def attention(p: Sequence[Any], x: Any, y: Any) -> Any:
            q, k, v = x @ p[0], x @ p[1], x @ p[2]
            scores = torch.softmax(q @ k.transpose(1, 2) * (1 / D**0.5), dim=-1)
            return torch.mean((scores @ v - y) ** 2)

        loss = mlp if model == "mlp" else attention
        if compiled:
            loss = torch.compile(loss, dynamic=True)

        def call(p0: Any, p1: Any, p2: Any, x: Any, y: Any) -> list[np.ndarray]:
            p = [torch.from_numpy(a).requires_grad_() for a in (p0, p1, p2)]
            value = loss(p, torch.from_numpy(x), torch.from_numpy(y))
            grads = torch.autograd.grad(value, p)
            with torch.no_grad():
                new = [(a - RATE * g).numpy() for a, g in zip(p, grads, strict=True)]
            return [value.detach().numpy(), *new]

        return call


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (smoke test)")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 32, 256])
    parser.add_argument("--peer-path", action="append", default=[],
                        help="a directory searched last for the peers")
    args = parser.parse_args(argv)
    sys.path.extend(args.peer_path)
    rounds = 5 if args.quick else 15
    budget = 1.0 if args.quick else 6.0
    rng = np.random.default_rng(0)
    peers = Peers()
    losses = {"mlp": mlp_loss, "attention": attention_loss}

    ours: dict[str, dict[str, Any]] = {}
    for model, loss in losses.items():
        start = time.perf_counter()
        specs = input_specs(loss)
        dynamic = symshape_mlir.jit(step_of(loss), inputs=specs, cache_dir=None, hot_after=None)
        compile_seconds = time.perf_counter() - start
        tiered = symshape_mlir.jit(step_of(loss), inputs=specs, hot_after=None)
        tiered.executable.pre_specialize([{"batch": b} for b in args.batches])
        ours[model] = {"dyn": dynamic, "tier": tiered}
        NOTES.append(f"{model}: our step module compiled in {compile_seconds:.1f} s "
                     "(no disk cache)")

    sizes = 3 if args.quick else 8
    print(f"(a) extra cost of the first step at an unseen batch (median over {sizes} sizes)")
    for model in losses:
        p = params(model, rng)
        candidates = {"ours": ours[model]["dyn"], "jax.jit": peers.jax_step(model),
                      "torch.compile": peers.torch_step(model, compiled=True)}
        line = f"    {model:<10}"
        extras: dict[str, float] = {}
        for name, fn in candidates.items():
            if fn is None:
                continue
            try:
                fn(*p, *data(model, 2, rng))
                costs = []
                for batch in range(3, 3 + sizes):
                    calls = []
                    for _ in range(6):
                        args_ = data(model, batch, rng)
                        begin = time.perf_counter()
                        fn(*p, *args_)
                        calls.append(time.perf_counter() - begin)
                    costs.append(calls[0] - statistics.median(calls[1:]))
                extras[name] = statistics.median(costs)
                line += f"   {name} {extras[name] * 1e3:9.3f} ms"
            except Exception as exc:  # a peer failing is reported, not fatal
                NOTES.append(f"{name} failed on {model}: {type(exc).__name__}: {exc}")
        for name in ("jax.jit", "torch.compile"):
            if name in extras and extras["ours"] > 0:
                line += f"   {name}/ours {extras[name] / extras['ours']:8.1f}x"
        print(line)

    print("\n(b) steady state, one training step: best peer / ours (> 1: ours faster); "
          "medians in ms")
    variants = ("dyn", "tier")
    peer_names = ("jax.jit", "torch", "torch.compile")
    print(f"    {'model':<10}{'batch':>6}  " + "".join(f"{n:>9}" for n in variants) + "  "
          + "".join(f"{n:>14}" for n in peer_names) + "  "
          + "".join(f"{'best/' + n:>10}" for n in variants) + f"{'spread':>8}")
    for model in losses:
        p = params(model, rng)
        peer_fns = {"jax.jit": peers.jax_step(model),
                    "torch": peers.torch_step(model, compiled=False),
                    "torch.compile": peers.torch_step(model, compiled=True)}
        for batch in args.batches:
            x, y = data(model, batch, rng)
            fns: dict[str, Callable[[], Any]] = {
                name: (lambda fn=ours[model][name], x=x, y=y, p=p: fn(*p, x, y))
                for name in variants}
            results = {name: fn() for name, fn in fns.items()}
            for name, fn in peer_fns.items():
                if fn is None:
                    continue
                try:
                    results[name] = fn(*p, x, y)
                    fns[name] = lambda fn=fn, x=x, y=y, p=p: fn(*p, x, y)
                except Exception as exc:
                    NOTES.append(f"{name} failed on {model}: {type(exc).__name__}: {exc}")
            reference = next((results[n] for n in peer_names if n in results), None)
            for name in variants:
                got = results[name]
                if reference is not None and not all(
                        np.allclose(a, b, rtol=2e-3, atol=1e-5)
                        for a, b in zip(got, reference, strict=True)):
                    NOTES.append(f"{model} batch {batch}: {name} differs from the peers")
            start = time.perf_counter()
            for fn in fns.values():
                fn()
            count = max(rounds, min(200, int(budget / (time.perf_counter() - start))))
            timed = interleaved(fns, count)
            row = f"    {model:<10}{batch:>6}  " + "".join(
                f"{timed[n][0] * 1e3:9.3f}" for n in variants) + "  "
            row += "".join(f"{timed[n][0] * 1e3:14.3f}" if n in timed else f"{'n/a':>14}"
                           for n in peer_names)
            others = [timed[n][0] for n in timed if n not in variants]
            if others:
                row += "  " + "".join(f"{min(others) / timed[n][0]:10.2f}" for n in variants)
            row += f"{max(s for _, s in timed.values()):8.2f}"
            print(row)
    print_notes(NOTES)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
