"""Timing helpers the benchmarks share: interleaved rounds, medians and spreads."""

from __future__ import annotations

import importlib
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

__all__ = ["interleaved", "rounds_for"]


#: Seconds each turn waits first, so that the threads of the library called
#: before (onnxruntime's spin 20-50 ms after a call on two cores) are idle.
SETTLE = 0.05


def interleaved(fns: dict[str, Callable[[], Any]], rounds: int) -> dict[str, tuple[float, float]]:
    """Median seconds and IQR/median of each callable, timed in interleaved rounds
    (one turn of each per round, so that drift on a shared machine hits all alike).

    A turn waits `SETTLE` seconds, makes an untimed call, then the timed one: a
    library's worker threads still spinning after its call slow whatever runs
    next on two cores (onnxruntime's, for 20-50 ms: unet at 4x128x128 took
    10.5-12 ms per call right after an onnxruntime call, 6.1-6.8 alone, and
    BERT-base attention at 1x16 3.4 ms against 0.6-0.7), so each library is
    timed as when a program calls only it. Each round takes the callables in a
    new shuffled order (the same orders in every run)."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    names = list(fns)
    orders = random.Random(0)
    for _ in range(rounds):
        orders.shuffle(names)
        for name in names:
            fn = fns[name]
            time.sleep(SETTLE)
            fn()
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    out = {}
    for name, samples in times.items():
        median = statistics.median(samples)
        q = statistics.quantiles(samples, n=4) if len(samples) >= 4 else [median, median, median]
        out[name] = (median, (q[2] - q[0]) / median if median else 0.0)
    return out


def rounds_for(fns: dict[str, Callable[[], Any]], least: int, most: int, budget: float) -> int:
    """Rounds that fill ``budget`` seconds (per round: two calls of each callable
    and its wait), timed from one call of each, within ``[least, most]``."""
    start = time.perf_counter()
    for fn in fns.values():
        fn()
    per_round = 2 * (time.perf_counter() - start) + SETTLE * len(fns)
    return max(least, min(most, int(budget / per_round)))


def print_notes(notes: list[str]) -> None:
    """Prints a benchmark's notes once each (skipped peers, compile times), if any."""
    if notes:
        print("\nnotes:")
        for note in dict.fromkeys(notes):
            print(f"    {note}")


def peer(module: str, notes: list[str]) -> Any:
    """The peer package ``module`` (``jax``, ``torch``), or None with a note
    that its columns are skipped when it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        notes.append(f"{module.split('.')[0]} not installed: {module} columns skipped")
        return None
