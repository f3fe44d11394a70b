"""What serves each binding of one function: its LRU, static variants, driver races and tiers.

A `Variants` holds, for one exported function (or for that function with
packed parameters, `EntryPoint.bind_params`), everything that decides
which compiled function runs a call:

- an LRU of `Specialization` entries, one per binding seen (its plan, the
  function serving it, its calls);
- the dynamic module, which serves a binding until its static variant
  exists, and from the binding's second call races the local drivers
  (`symshape_mlir.runtime.drivers.DriverRace`);
- the static variants by binding of the named axes, each installed as a
  driver race whose winner then serves; installing one swaps every entry
  of its binding atomically (under the executable's lock);
- hot promotion: a binding that served ``hot.calls`` calls gets its
  static variant compiled in the executable's background thread;
- pre-specialization (`Executable.pre_specialize`), passed on to the
  packed variants of the same function.

The executable compiles and loads modules (`Executable.load_variant`);
its entry points plan calls and dispatch them::

    >>> variants = exe.mm.variants
    >>> spec = variants.lookup(key) or variants.add(key, plan, static_key)
    >>> variants.serve(spec).dispatch(arguments)
    >>> variants.static_variants()
    {(2, 4, 3): <Function @mm(tensor<2x4xf32>, tensor<4x3xf32>) -> (tensor<6xf32>) on local-sync>}
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

from symshape_mlir.backend.runtime import Function, LoadedModule
from symshape_mlir.runtime.drivers import DriverRace, race
from symshape_mlir.runtime.hot import HotThreshold
from symshape_mlir.runtime.params import PackedParams
from symshape_mlir.runtime.plan import Plan

if TYPE_CHECKING:
    from symshape_mlir.runtime.executable import Executable

__all__ = ["RACE_AFTER", "Key", "Modules", "Specialization", "Variants"]

logger = logging.getLogger(__name__)

Key = tuple[int, ...]
Modules = tuple[LoadedModule, LoadedModule | None]

#: The call of a binding from which the dynamic module's calls race the
#: local drivers (a binding called once never does).
RACE_AFTER = 2


@dataclasses.dataclass
class Specialization:
    """What one binding of the axes maps to.

    Attributes:
        plan: The results' shapes and bytes.
        function: The variant that runs it (the dynamic module, or a static
            one compiled for these named-axis values), or a `DriverRace` of
            it on the local drivers; swapped atomically.
        static_key: The values of the function's named axes.
        static: Whether ``function`` is a static variant.
        calls: Calls served.
        promoted: Whether the binding was found hot (its static variant
            is being compiled).
        dynamic_seconds: The dynamic module's time per call at this
            binding (its driver race's winner), once measured.
    """

    plan: Plan
    function: Function | DriverRace
    static_key: Key
    static: bool = False
    calls: int = 0
    promoted: bool = False
    dynamic_seconds: float | None = None

    def decide(self, winner: Function) -> None:
        """Runs the winner of the race this entry serves from (a race it no
        longer serves, replaced by a static variant, decides nothing)."""
        current = self.function
        if isinstance(current, DriverRace) and winner in current.functions:
            if not self.static:
                self.dynamic_seconds = current.seconds
            self.function = winner


def _won(current: Function | DriverRace | None, winner: Function) -> bool:
    """Whether ``winner`` comes from the race ``current`` (still installed)."""
    return isinstance(current, DriverRace) and winner in current.functions


class Variants:
    """The variants of one function and the bindings they serve (see the module docstring).

    Attributes:
        name: The function's name.
        named_axes: Its named axes, whose values key the static variants.
        hot: The calls after which a binding gets its static variant
            (shared with the function's packed variants).
        dynamic: The dynamic module's function on the executable's driver.
        packed: The parameters compiled into every module, or None.
    """

    def __init__(
        self,
        executable: Executable,
        dynamic: Function,
        named_axes: tuple[str, ...],
        hot: HotThreshold,
        *,
        packed: PackedParams | None = None,
        modules: Modules | None = None,
    ) -> None:
        """Serves every binding from ``dynamic`` until it gets a static variant.

        Args:
            executable: Compiles and loads the modules; its lock guards
                the LRU and the counters.
            dynamic: The dynamic module's function.
            named_axes: The function's named axes.
            hot: The hot threshold.
            packed: Parameters packed into the modules (`Variants.pack`).
            modules: The module of ``dynamic`` on the executable's driver
                and on the other local driver, for its races, when it is
                not the executable's own dynamic module.
        """
        self.name = dynamic.name
        self.named_axes = named_axes
        self.hot = hot
        self.dynamic = dynamic
        self.packed = packed
        self._executable = executable
        self._modules = modules
        self._lock = executable.lock
        self._counters = executable.counters
        self._cache_size = executable.cache_size
        # A packed function's calls are planned, and counted, by its entry's LRU.
        self._counted = packed is None
        self._lru: collections.OrderedDict[Key, Specialization] = collections.OrderedDict()
        self._static: dict[Key, Function | DriverRace] = {}
        self._pending: set[Key] = set()
        # Packed variants of the same function: each gets a variant of every
        # binding pre-specialized after it was made.
        self._packed: weakref.WeakSet[Variants] = weakref.WeakSet()

    # -- bindings ------------------------------------------------------------------

    def lookup(self, key: Key) -> Specialization | None:
        """The entry of ``key``, now the most recently used (a hit), or None."""
        with self._lock:
            spec = self._lru.get(key)
            if spec is not None:
                self._lru.move_to_end(key)
                if self._counted:
                    self._counters.hits += 1
        return spec

    def add(self, key: Key, plan: Plan, static_key: Key) -> Specialization:
        """A new entry for ``key`` (a miss), served by its static variant if
        there is one; evicts the least recently used beyond the cache size."""
        lru = self._lru
        with self._lock:
            variant = self._static.get(static_key)
            spec = Specialization(
                plan, variant or self.dynamic, static_key, static=variant is not None
            )
            lru[key] = spec
            evicted = 0
            while len(lru) > self._cache_size:
                lru.popitem(last=False)
                evicted += 1
            if self._counted:
                self._counters.misses += 1
                self._counters.evictions += evicted
        return spec

    def serve(self, spec: Specialization) -> Function | DriverRace:
        """Counts a call of ``spec``'s binding and returns what runs it: from
        the binding's second call a race of the dynamic module on the local
        drivers; a hot binding's static variant is compiled in the background."""
        spec.calls += 1
        if not spec.static:
            if spec.calls == RACE_AFTER:
                spec.function = self.race_dynamic(spec.decide)
            if not spec.promoted and self.hot.is_hot(spec.calls):
                spec.promoted = True
                self.promote(spec.static_key)
        return spec.function

    def race_dynamic(self, decide: Callable[[Function], None]) -> Function | DriverRace:
        """The dynamic module's function racing the local drivers (its winner
        goes to ``decide``), or the function itself off them."""
        if self._modules is None:
            return self._executable.dynamic_race(self.name, decide)
        return race(self.name, self._modules, decide)

    def specializations(self) -> list[tuple[Key, Specialization]]:
        """The LRU's entries, least recently used first."""
        with self._lock:
            return list(self._lru.items())

    # -- static variants -----------------------------------------------------------

    def static_variants(self) -> dict[Key, Function | DriverRace]:
        """The static variants (or their driver races) by named-axis values."""
        with self._lock:
            return dict(self._static)

    def binding(self, static_key: Key) -> dict[str, int]:
        """The named axes' values of ``static_key``."""
        return dict(zip(self.named_axes, static_key, strict=True))

    def install(self, static_key: Key, function: Function | DriverRace) -> int:
        """Makes a static variant (or its driver race) serve its binding;
        returns the entries swapped from the dynamic module. A race's winner
        is installed only while that race is; its time per call and the
        dynamic module's at the same binding give the hot threshold a
        slowdown."""
        swapped = 0
        with self._lock:
            current = self._static.get(static_key)
            if isinstance(function, Function) and current is not None and \
                    not _won(current, function):
                return 0
            if isinstance(current, DriverRace) and current.seconds is not None:
                dynamic = next((s.dynamic_seconds for s in self._lru.values()
                                if s.static_key == static_key and s.dynamic_seconds), None)
                if dynamic is not None:
                    self.hot.observe(dynamic, current.seconds)
            self._static[static_key] = function
            self._pending.discard(static_key)
            for spec in self._lru.values():
                if spec.static_key == static_key:
                    swapped += not spec.static
                    spec.function = function
                    spec.static = True
        return swapped

    def specialize(self, static_key: Key, modules: Modules | None = None) -> int:
        """Installs the static variant of ``static_key`` from ``modules`` (the
        variant on the executable's driver and the other local one), or from
        modules compiled (or read from the disk cache) and loaded now;
        returns the entries swapped."""
        if modules is None:
            modules = self._executable.load_variant(self.binding(static_key), self.packed)
        return self.install(static_key, race(self.name, modules, self._installer(static_key)))

    def pre_specialize(self, static_key: Key, modules: Modules | None = None) -> None:
        """`specialize`, counting the swaps, then the packed variants of the
        function get theirs (compiled now) unless they have it: the bindings
        their calls served were planned in this LRU, so their swaps are
        counted already."""
        swapped = self.specialize(static_key, modules)
        with self._lock:
            self._counters.swaps += swapped
            packed = list(self._packed)
        for variants in packed:
            if static_key not in variants.static_variants():
                variants.specialize(static_key)

    def promote(self, static_key: Key) -> None:
        """Compiles and installs the static variant of a hot binding in the
        executable's background thread (once per binding)."""
        if not self.named_axes:
            return
        with self._lock:
            if static_key in self._pending or static_key in self._static:
                return
            self._pending.add(static_key)

        def work() -> None:
            swapped = self.specialize(static_key)
            with self._lock:
                self._counters.swaps += swapped

        self._executable.in_background(self.name, self.binding(static_key), work)

    def pack(self, packed: PackedParams) -> Variants:
        """The variants of the same function with ``packed`` parameters: its
        dynamic module loaded now, and a static variant of each binding this
        has one for (compiled now) or gets one for by `pre_specialize`."""
        modules = self._executable.load_variant({}, packed)
        variants = Variants(self._executable, modules[0].function(self.name), self.named_axes,
                            self.hot, packed=packed, modules=modules)
        with self._lock:
            self._packed.add(variants)
            static_keys = list(self._static)
        for static_key in static_keys:
            variants.specialize(static_key)
        return variants

    def _installer(self, static_key: Key) -> Callable[[Function], None]:
        """Installs the winner of the race of the static variant of
        ``static_key``, counting it in ``sync_variants`` when it runs on ``local-sync``."""
        def install(function: Function) -> None:
            if function.driver == "local-sync":
                with self._lock:
                    self._counters.sync_variants += 1
            logger.debug("@%s runs on %s", function.name, function.driver)
            self.install(static_key, function)
        return install
