"""Timing helpers the benchmarks share: interleaved rounds, medians and spreads."""

from __future__ import annotations

import importlib
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

__all__ = ["interleaved", "rounds_for"]


def interleaved(fns: dict[str, Callable[[], Any]], rounds: int) -> dict[str, tuple[float, float]]:
    """Median seconds and IQR/median of each callable, timed in interleaved rounds
    (one turn of each per round, so that drift on a shared machine hits all alike).
    A turn is an untimed call and then the timed one: a library's worker threads
    still spinning after its call slow whichever call comes next (onnxruntime's
    and IREE's on two cores: BERT-base attention at 1x16, 0.6-0.7 ms alone, took
    3.4 ms right after another library's call), so each timed call follows one
    of its own, as when a program calls one library over and over. Each round
    takes the callables in a new shuffled order (the same orders in every run)."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    names = list(fns)
    orders = random.Random(0)
    for _ in range(rounds):
        orders.shuffle(names)
        for name in names:
            fn = fns[name]
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
    """Rounds that fill ``budget`` seconds (two calls of each callable per
    round), timed from one call of each, within ``[least, most]``."""
    start = time.perf_counter()
    for fn in fns.values():
        fn()
    return max(least, min(most, int(budget / max(2 * (time.perf_counter() - start), 1e-9))))


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
