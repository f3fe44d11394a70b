"""Choosing between the two local drivers from the calls a variant serves.

One compiled CPU module runs on either local driver: ``local-task``
spreads each dispatch over worker threads, ``local-sync`` runs it on the
calling thread with no hand-off. Which is faster depends on the sizes
and on the machine's load (measured here: BERT-sized zoo models 3-4x
faster on ``local-sync``, an FFN at 32x128 tokens faster on
``local-task``; a choice made on zeros at bind time sometimes kept the
single-threaded driver for multi-millisecond calls). A `DriverRace`
therefore serves the first calls of one binding itself: one untimed call
on each driver (loading its executables), then `TIMED_CALLS` timed calls
on each in turn, with the caller's real inputs; then it hands the faster
driver's function to its owner, which calls it directly from then on::

    >>> race = DriverRace([on_task, on_sync], decide=install)
    >>> race.dispatch(arguments)       # the first 2 + 2 * TIMED_CALLS calls
"""

from __future__ import annotations

import logging
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import iree.runtime as rt

from symshape_mlir.backend.runtime import Function, LoadedModule

__all__ = ["LOCAL_DRIVERS", "TIMED_CALLS", "DriverRace", "race", "timed_dispatch"]

logger = logging.getLogger(__name__)

#: The drivers of the host CPU, between which a race chooses.
LOCAL_DRIVERS = ("local-task", "local-sync")
#: Timed calls on each driver before the race decides.
TIMED_CALLS = 4


def timed_dispatch(function: Function, arguments: list[Any]) -> tuple[list[Any], float]:
    """Calls ``function`` on ``arguments``; returns its results and the seconds it took."""
    start = time.perf_counter()
    results = function.dispatch(arguments)
    return results, time.perf_counter() - start


class DriverRace:
    """Serves calls on each of several functions (one module, one driver each)
    in turn, times them, and hands the fastest to ``decide``.

    Attributes:
        functions: The contenders, the owner's driver first.
        driver: The first contender's driver (the one a call that cannot
            move, with a device buffer of that driver, runs on).
        seconds: The winner's median time per call, once decided (None
            before, and when a device-resident argument decided).
    """

    def __init__(self, functions: Sequence[Function],
                 decide: Callable[[Function], None]) -> None:
        """Starts a race between ``functions``; ``decide`` receives the winner."""
        self.functions = tuple(functions)
        self.driver = self.functions[0].driver
        self._decide = decide
        self._calls = 0
        self._samples: list[list[float]] = [[] for _ in self.functions]
        self._lock = threading.Lock()
        self._decided = False
        self.seconds: float | None = None

    def dispatch(self, arguments: list[Any]) -> list[Any]:
        """Runs one call on the next contender and decides once each has
        its timed calls. Arguments on a device (`bind_params`) belong to
        the first contender's driver: such a call decides for it."""
        if any(isinstance(a, rt.HalBufferView) for a in arguments):
            with self._lock:
                first, self._decided = not self._decided, True
            if first:
                self._decide(self.functions[0])
            return self.functions[0].dispatch(arguments)
        with self._lock:
            turn = self._calls
            self._calls += 1
        index = turn % len(self.functions)
        results, seconds = timed_dispatch(self.functions[index], arguments)
        if turn >= len(self.functions):  # the first call of each loads its executables
            with self._lock:
                self._samples[index].append(seconds)
                ready = not self._decided and all(
                    len(s) >= TIMED_CALLS for s in self._samples)
                self._decided = self._decided or ready
            if ready:
                medians = [statistics.median(s) for s in self._samples]
                best = min(range(len(medians)), key=medians.__getitem__)
                logger.debug("@%s: %s", self.functions[0].name, ", ".join(
                    f"{f.driver} {m * 1e3:.3f} ms" for f, m in zip(self.functions, medians,
                                                                  strict=True)))
                self.seconds = medians[best]
                self._decide(self.functions[best])
        return results


def race(name: str, modules: tuple[LoadedModule, LoadedModule | None],
         decide: Callable[[Function], None]) -> Function | DriverRace:
    """@name of the first of ``modules``, or a `DriverRace` between it and
    @name of the second (the same module on the other local driver) whose
    winner goes to ``decide``.

    Example:
        >>> function = race("mm", (on_task, on_sync), install)
        >>> function.dispatch(arguments)      # a DriverRace: on local-task first
    """
    own, other = modules
    function = own.function(name)
    if other is None:
        return function
    return DriverRace([function, other.function(name)], decide)
