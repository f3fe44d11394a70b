"""When a binding is hot: the static tier's threshold, adapted to the dynamic module's slowdown.

A binding's static variant is compiled in the background once the binding
has served ``hot_after`` calls. How much it is worth depends on how much
slower the dynamic module is, and that varies by an order of magnitude
between programs (measured here with IREE 3.13 on llvm-cpu: convolution
nets with dynamic spatial axes 10-30x slower than their static variants,
transformer blocks 1.5-3x). Each function therefore learns its slowdown:
at a binding whose dynamic-module calls and static-variant calls both ran
a driver race (`symshape_mlir.runtime.drivers.DriverRace`), the ratio of
the two winners' median times per call. Later bindings become hot after
``ceil(hot_after / slowdown)`` calls, never fewer than two (a binding
called once never compiles) and never more than ``hot_after``::

    >>> hot = HotThreshold(16)
    >>> hot.calls
    16
    >>> hot.observe(dynamic_seconds=0.040, static_seconds=0.004)   # 10x slower
    >>> hot.calls
    2
"""

from __future__ import annotations

import math
import statistics
import threading

__all__ = ["LEAST_CALLS", "HotThreshold"]

#: The fewest calls after which a binding is hot.
LEAST_CALLS = 2
# Slowdowns kept per function (the most recent ones).
_SAMPLES = 16


class HotThreshold:
    """The calls after which a binding of one function gets its static variant.

    Attributes:
        hot_after: The threshold before any slowdown is known (the
            executable's ``hot_after``); below 1 when tiers are off.
    """

    def __init__(self, hot_after: int) -> None:
        """Starts at ``hot_after`` calls (tiers off when below 1)."""
        self.hot_after = hot_after
        self._slowdowns: list[float] = []
        self._lock = threading.Lock()
        self.calls = hot_after

    @property
    def slowdown(self) -> float | None:
        """The median slowdown measured so far (None before the first)."""
        with self._lock:
            return statistics.median(self._slowdowns) if self._slowdowns else None

    def observe(self, dynamic_seconds: float, static_seconds: float) -> None:
        """Records one binding's time per call in the dynamic module and in
        its static variant, and lowers or raises ``calls`` accordingly."""
        if self.hot_after < 1 or static_seconds <= 0.0:
            return
        with self._lock:
            self._slowdowns.append(dynamic_seconds / static_seconds)
            del self._slowdowns[:-_SAMPLES]
            slowdown = statistics.median(self._slowdowns)
        self.calls = max(min(LEAST_CALLS, self.hot_after),
                         min(self.hot_after, math.ceil(self.hot_after / max(slowdown, 1.0))))

    def is_hot(self, calls: int) -> bool:
        """Whether a binding that has served ``calls`` calls is hot."""
        return 0 < self.calls <= calls
