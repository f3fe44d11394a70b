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
    (one call of each per round, so that drift on a shared machine hits all alike).
    Each round calls them in a new shuffled order (the same orders in every run),
    so that none always comes right after the same one: a peer's worker threads
    spinning down after its call slow whichever call comes next."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    names = list(fns)
    orders = random.Random(0)
    for _ in range(rounds):
        orders.shuffle(names)
        for name in names:
            fn = fns[name]
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
    """Rounds that fill ``budget`` seconds, timed from one round, within ``[least, most]``."""
    start = time.perf_counter()
    for fn in fns.values():
        fn()
    return max(least, min(most, int(budget / max(time.perf_counter() - start, 1e-9))))


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
