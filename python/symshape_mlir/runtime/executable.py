"""`compile` and the `Executable` it returns: Level 1 once, module builds, statistics.

Level 1 (once per module, target and flags; cached on disk): shape
inference captures the sizes (`symshape_mlir.runtime.capture`), the module
goes through ``symshape-to-iree`` and ``iree-compile`` with dynamic shapes.
Static variants (``symshape-specialize``) are compiled ahead of time by
`Executable.pre_specialize`, or in a background thread for a binding seen
``hot_after`` times, and swapped in atomically; each function's
`symshape_mlir.runtime.variants.Variants` decides which serves a call, and
asks the executable for the modules (`Executable.load_variant`)::

    >>> exe = compile("examples/mlp.mlir", hot_after=100)
    >>> exe.pre_specialize([{"batch": 1}, {"batch": 32}])
    >>> y = exe.mlp(x, w1, b1, w2)
    >>> exe.stats()["compiles"]
    3
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import logging
import os
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from mlir import ir

from symshape_mlir.backend.artifact import CompiledModule
from symshape_mlir.backend.compile import compile_module
from symshape_mlir.backend.errors import CompileError
from symshape_mlir.backend.runtime import Function, LoadedModule, load
from symshape_mlir.backend.targets import get_target, target_flags
from symshape_mlir.passes import run_pipeline
from symshape_mlir.pipeline import AnalysisCache
from symshape_mlir.runtime.capture import FunctionSizes, capture_module
from symshape_mlir.runtime.diskcache import DiskCache, cache_key, default_cache_dir
from symshape_mlir.runtime.drivers import LOCAL_DRIVERS, DriverRace, race
from symshape_mlir.runtime.entry import EntryPoint
from symshape_mlir.runtime.params import PackedParams
from symshape_mlir.runtime.source import ModuleSource
from symshape_mlir.runtime.tiling import CONTRACTIONS, tiles_by_work, tiles_static_variants
from symshape_mlir.walk import ArgumentFree, collect_ops, functions

__all__ = ["Executable", "Stats", "compile"]

logger = logging.getLogger(__name__)

_T = TypeVar("_T")
_PROGRESS_AFTER = 1.0


@dataclasses.dataclass
class Stats:
    """Counters of one executable (see `Executable.stats`)."""

    hits: int = 0
    misses: int = 0
    evictions: int = 0
    disk_hits: int = 0
    disk_misses: int = 0
    compiles: int = 0
    swaps: int = 0
    padded: int = 0
    compile_seconds: float = 0.0
    sync_variants: int = 0


def _bindings_text(bindings: Mapping[str, int]) -> str:
    return ",".join(f"{name}={int(value)}" for name, value in sorted(bindings.items()))


CONTRACT_MODES = ("reject", "defer")
_PIPELINES = {
    "reject": "symshape-to-iree",
    "defer": "symshape-infer-shapes,symshape-verify-contract{mode=defer},"
             "symshape-resolve{target=iree},canonicalize,cse,symshape-relayout-convolutions",
}


class Executable:
    """A compiled module: call its functions with numpy arrays.

    ``exe(*args)`` calls the only exported function; ``exe.name(*args)`` or
    ``exe[name](*args)`` a named one (an `EntryPoint`).

    Attributes:
        target: The IREE target.
        driver: The runtime driver.
        flags: The ``iree-compile`` flags of the dynamic module.
        cache_size: The LRU capacity per function.
        hot_after: Calls after which a binding gets a static variant, or
            -1 when tiers are off.
        counters: The counters `stats` reports.
        lock: Guards the counters and every function's `Variants`.
    """

    def __init__(
        self,
        source: ModuleSource,
        *,
        target: str,
        driver: str | None,
        flags: Sequence[str],
        data_tiling: bool | None,
        static_data_tiling: bool | None,
        cache_size: int,
        hot_after: int | None,
        cache_dir: Path | None,
        unplanned: bool | Collection[str],
        contract: str = "reject",
        cache_max_bytes: int | None = None,
    ) -> None:
        """Compiles (or reads from the disk cache) the dynamic module; use `compile`."""
        if contract not in CONTRACT_MODES:
            raise ValueError(f"contract must be one of {CONTRACT_MODES}, got {contract!r}")
        self.contract = contract
        if cache_size < 1:
            raise ValueError(f"cache_size must be >= 1, got {cache_size}")
        if hot_after is not None and hot_after < 1:
            raise ValueError(f"hot_after must be >= 1 or None, got {hot_after}")
        get_target(target)
        self.target = target
        self.cache_size = cache_size
        self.hot_after = hot_after if hot_after is not None else -1
        self.source = source
        self._extra_flags = tuple(flags)
        self._data_tiling = data_tiling
        self._static_data_tiling = static_data_tiling
        self._unplanned = unplanned
        self.counters = Stats()
        self.lock = threading.Lock()
        self._disk = DiskCache(cache_dir, cache_max_bytes) if cache_dir is not None else None
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._futures: list[concurrent.futures.Future[None]] = []
        self._host: Executable | None = None
        compiled, meta = self._build("")
        self.flags = compiled.flags
        self._compiled = compiled
        self._module = load(compiled, driver)
        self.driver = self._module.driver
        # The dynamic module on the other local driver, loaded for the first race.
        self._other: LoadedModule | None = None
        sizes = {name: FunctionSizes.from_json(data) for name, data in meta["functions"].items()}
        self._entries: dict[str, EntryPoint] = {}
        for name in self._module.function_names:
            if name in sizes:
                self._entries[name] = EntryPoint(self, self._module.function(name), sizes[name])
        self._single = next(iter(self._entries.values())) if len(self._entries) == 1 else None

    # -- building ------------------------------------------------------------------

    def _timed(self, what: str, build: Callable[[], _T]) -> _T:
        """Runs a compile step, logging progress when it takes over a second."""
        start = time.perf_counter()
        timer = threading.Timer(
            _PROGRESS_AFTER, logger.info, ("compiling %s for %s ...", what, self.target)
        )
        timer.daemon = True
        timer.start()
        try:
            return build()
        finally:
            timer.cancel()
            seconds = time.perf_counter() - start
            with self.lock:
                self.counters.compiles += 1
                self.counters.compile_seconds += seconds
            if seconds > _PROGRESS_AFTER:
                logger.info("compiled %s for %s in %.1f s", what, self.target, seconds)

    def _tiling(
        self, bindings: str, packed: PackedParams | None = None, contracts: bool = False,
        tiles: bool = False,
    ) -> bool | None:
        """Data tiling for the dynamic module (``""``) or a static variant.

        A static variant without packed parameters has it as the caller
        chose (``static_data_tiling``) or, left to the runtime, when
        ``tiles`` (`~symshape_mlir.runtime.tiling.tiles_static_variants`
        of the source: it convolves with constant kernels and contracts no
        two activations; on, onnxruntime time / ours rose from 0.63 to 0.92
        for mobilenet_v2 at batch 1 and fell from 1.35 to 0.82 for bert at
        8x48; or `~symshape_mlir.runtime.tiling.tiles_by_work` of the
        specialized module: contractions with constant weights do nearly
        all of its work). Modules with packed parameters use the target's default (on for
        llvm-cpu): their weights are laid out once, at load time. Such a
        module, and the dynamic module left to the default, is compiled
        without it when the source ``contracts`` two activations
        (`_contracts_activations`): then both operands are laid out on
        every call (attention at batch 256, seq 64, d 256, packed static
        variant: 82 ms with it, 62 ms without).
        """
        if packed is None and bindings:
            return tiles if self._static_data_tiling is None else self._static_data_tiling
        if packed is None and self._data_tiling is not None:
            return self._data_tiling
        if contracts and get_target(self.target).data_tiling:
            return False
        return None

    def _requested_flags(self, bindings: str, packed: PackedParams | None) -> tuple[str, ...]:
        tiling = self._tiling(bindings, packed)
        return (*target_flags(self.target, data_tiling=tiling), *self._flags(bindings))

    def _flags(self, bindings: str) -> tuple[str, ...]:
        """The caller's flags, after the target's flags for static variants (``bindings``
        given) that the caller does not set itself."""
        if not bindings:
            return self._extra_flags
        given = {flag.split("=", 1)[0] for flag in self._extra_flags}
        static = tuple(flag for flag in get_target(self.target).static_flags
                       if flag.split("=", 1)[0] not in given)
        return (*static, *self._extra_flags)

    def _compile_text(
        self, bindings: str, packed: PackedParams | None = None
    ) -> tuple[CompiledModule, dict[str, Any]]:
        """Runs the symshape pipeline and ``iree-compile``; captures sizes when dynamic."""
        with self.source.copy() as module:
            meta: dict[str, Any] = {}
            # Judged before specialization makes every operand static.
            contracts = _contracts_activations(module, packed)
            tiles = bool(bindings) and packed is None and self._static_data_tiling is None \
                and tiles_static_variants(module)
            # One inference: the sizes are captured from the facts the pipeline reuses.
            analyses = AnalysisCache()
            if not bindings and packed is None:
                sizes = capture_module(module, self._unplanned, analyses.infer(module.operation))
                meta["functions"] = {name: s.to_json() for name, s in sizes.items()}
            specialize = f"symshape-specialize{{bindings={bindings}}}," if bindings else ""
            run_pipeline(module, f"builtin.module({specialize}{_PIPELINES[self.contract]})",
                         analyses)
            if packed is not None:
                packed.globalize(module)
            elif bindings and self._static_data_tiling is None and not tiles:
                # Static now: weights that carry nearly all the work tile it too.
                tiles = tiles_by_work(module)
            resolved = module.operation.get_asm(enable_debug_info=True)
            tiling = self._tiling(bindings, packed, contracts, tiles)
        what = self.source.name + (f" [{bindings}]" if bindings else "")
        if packed is not None:
            what += f" with @{packed.function} parameters packed"

        def build() -> CompiledModule:
            try:
                return compile_module(
                    resolved,
                    self.target,
                    flags=self._flags(bindings),
                    data_tiling=tiling,
                    locate_phase=False,
                )
            except CompileError as first:
                if tiling is not None or not get_target(self.target).data_tiling:
                    raise
                # Some dynamic programs (attention) fail with data tiling in
                # IREE 3.13: every variant must compile, so retry without.
                logger.info("retrying %s without data tiling: %s", what, first)
                return compile_module(
                    resolved, self.target, flags=self._flags(bindings), data_tiling=False
                )

        compiled = self._timed(what, build)
        meta["flags"] = list(compiled.flags)
        meta["compile_seconds"] = compiled.compile_seconds
        return compiled, meta

    def _build(
        self, bindings: str, packed: PackedParams | None = None
    ) -> tuple[CompiledModule, dict[str, Any]]:
        """Returns the artifact for ``bindings`` from the disk cache, compiling on a miss."""
        if self._disk is None:
            return self._compile_text(bindings, packed)
        unplanned = "all" if self._unplanned is True else ",".join(sorted(self._unplanned or ()))
        params = f"|params={packed.key_text()}" if packed is not None else ""
        if bindings and packed is None and self._static_data_tiling is None:
            # The flags are the module's to decide (`tiles_static_variants`).
            params += "|tiling=module"
        key = cache_key(
            self.source.digest,
            self.target,
            self._requested_flags(bindings, packed),
            bindings=f"{bindings}|unplanned={unplanned}|contract={self.contract}{params}",
        )
        with self._disk.locked(key):
            entry = self._disk.read(key)
            if entry is not None:
                with self.lock:
                    self.counters.disk_hits += 1
                logger.debug("disk cache hit %s", key)
                flags = tuple(entry.meta["flags"])
                return CompiledModule(vmfb=entry.vmfb, target=self.target, flags=flags), entry.meta
            with self.lock:
                self.counters.disk_misses += 1
            compiled, meta = self._compile_text(bindings, packed)
            self._disk.write(key, compiled.vmfb, meta)
            return compiled, meta

    def load_variant(
        self, bindings: Mapping[str, int], packed: PackedParams | None = None
    ) -> tuple[LoadedModule, LoadedModule | None]:
        """The module for ``bindings`` (``{}``: the dynamic one), with
        ``packed`` parameters if given, compiled or read from the disk
        cache, loaded on the executable's driver and, when that driver is
        local, on the other local driver too (None otherwise)."""
        compiled, _ = self._build(_bindings_text(bindings), packed)
        parameters = packed.parameters() if packed is not None else None
        own = load(compiled, self.driver, parameters)
        if self.driver not in LOCAL_DRIVERS:
            return own, None
        other = next(d for d in LOCAL_DRIVERS if d != self.driver)
        return own, load(compiled, other, parameters)

    def dynamic_race(self, name: str, decide: Callable[[Function], None]
                     ) -> Function | DriverRace:
        """A race of the dynamic module's @name on both local drivers (for
        one binding's calls), or the function itself off the local drivers."""
        if self.driver not in LOCAL_DRIVERS:
            return self._module.function(name)
        with self.lock:
            if self._other is None:
                other = next(d for d in LOCAL_DRIVERS if d != self.driver)
                self._other = load(self._compiled, other)
            loaded = self._other
        return race(name, (self._module, loaded), decide)

    # -- variants and tiers --------------------------------------------------------

    def pre_specialize(
        self, bindings: Iterable[Mapping[str, int]], functions: Iterable[str] | None = None
    ) -> None:
        """Compiles static variants now; calls with matching bindings use them.

        Functions already bound with packed parameters (`EntryPoint.bind_params`)
        get their packed variant of each binding now too.

        Args:
            bindings: Axis bindings (``[{"batch": 1}, {"batch": 32}]``). A
                variant serves a function when the binding gives every named
                axis of that function.
            functions: Restrict to these functions (default: all).

        Raises:
            KeyError: ``functions`` names a function the module does not export.
            ValueError: a binding names an axis that none of the functions
                declares, binds one to a negative size, or gives no function
                all of its named axes.
            TypeError: a size that is not an integer.
            CompileError: ``iree-compile`` fails.
        """
        chosen = list(functions) if functions is not None else list(self._entries)
        for name in chosen:
            self[name]  # an unknown name raises
        for binding in bindings:
            self._check_binding(binding, chosen)
            entries = [
                self._entries[name]
                for name in chosen
                if self._entries[name].named_axes
                and set(self._entries[name].named_axes) <= set(binding)
            ]
            if not entries:
                needs = "; ".join(f"@{name}: {', '.join(self._entries[name].named_axes)}"
                                  for name in chosen if self._entries[name].named_axes)
                raise ValueError(f"pre_specialize: the binding {dict(binding)} gives no "
                                 f"function all of its named axes ({needs or 'none has any'})")
            modules = self.load_variant(binding)
            for entry in entries:
                entry.variants.pre_specialize(
                    tuple(int(binding[n]) for n in entry.named_axes), modules)

    def _check_binding(self, binding: Mapping[str, int], chosen: Sequence[str]) -> None:
        """Refuses a `pre_specialize` binding before anything is compiled."""
        declared = {axis for name in chosen for axis in self._entries[name].named_axes}
        for axis, size in binding.items():
            if axis not in declared:
                raise ValueError(
                    f"pre_specialize: axis {axis!r} is not a named axis of "
                    f"{', '.join('@' + name for name in chosen)} "
                    f"(named axes: {', '.join(sorted(declared)) or 'none'})")
            if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
                raise TypeError(f"pre_specialize: axis {axis!r} is bound to {size!r}, "
                                "not an integer")
            if size < 0:
                raise ValueError(f"pre_specialize: axis {axis!r} is bound to {size}: "
                                 "sizes are non-negative")

    def in_background(self, name: str, binding: Mapping[str, int],
                      build: Callable[[], None]) -> None:
        """Runs ``build`` (compiling and installing the static variant of
        @name for ``binding``) in the tier thread."""
        with self.lock:
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="symshape-tier"
                )
            pool = self._pool

        def work() -> None:
            try:
                build()
            except Exception:
                logger.exception("static variant %s of @%s failed; staying dynamic", binding, name)
                return
            logger.debug("@%s: static variant for %s swapped in", name, binding)

        self._futures.append(pool.submit(work))

    def host_executable(self) -> Executable:
        """The module compiled for the host CPU, for calls a GPU driver cannot bind."""
        with self.lock:
            host = self._host
        if host is None:
            host = Executable(
                self.source,
                target="llvm-cpu",
                driver="local-sync",
                flags=(),
                data_tiling=None,
                static_data_tiling=self._static_data_tiling,
                cache_size=self.cache_size,
                hot_after=None,
                cache_dir=self._disk.directory if self._disk is not None else None,
                unplanned=self._unplanned,
                cache_max_bytes=self._disk.max_bytes if self._disk is not None else None,
            )
            with self.lock:
                self._host = self._host or host
                host = self._host
        return host

    def wait(self, timeout: float | None = None) -> bool:
        """Waits for background compiles; returns whether all finished."""
        futures = list(self._futures)
        _, pending = concurrent.futures.wait(futures, timeout=timeout)
        return not pending

    def close(self) -> None:
        """Stops the background compiler (running compiles finish first)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    # -- calling -------------------------------------------------------------------

    @property
    def function_names(self) -> tuple[str, ...]:
        """The exported functions."""
        return tuple(self._entries)

    def __getitem__(self, name: str) -> EntryPoint:
        """The entry point of a function."""
        try:
            return self._entries[name]
        except KeyError:
            raise KeyError(
                f"no function @{name} (the module exports: {', '.join(self._entries)})"
            ) from None

    def __getattr__(self, name: str) -> EntryPoint:
        """``exe.mlp``: the entry point of a function."""
        entries: dict[str, EntryPoint] | None = self.__dict__.get("_entries")
        if entries is None or name not in entries:
            exported = f" (the module exports: {', '.join(entries)})" if entries else ""
            raise AttributeError(f"no function @{name}{exported}", name=name, obj=self)
        return entries[name]

    def _only(self) -> EntryPoint:
        if self._single is not None:
            return self._single
        if len(self._entries) != 1:
            raise TypeError(
                f"the module exports {len(self._entries)} functions "
                f"({', '.join(self._entries)}): call exe.<name>(...)"
            )
        return next(iter(self._entries.values()))

    def __call__(self, *args: Any) -> Any:
        """Calls the only exported function; see `EntryPoint.__call__`."""
        single = self._single
        return (single if single is not None else self._only())(*args)

    def plan(self, *arrays_or_shapes: Any) -> Any:
        """`EntryPoint.plan` of the only exported function."""
        return self._only().plan(*arrays_or_shapes)

    def stats(self) -> dict[str, Any]:
        """Counters: ``hits``/``misses``/``evictions`` of the specialization
        LRUs, ``disk_hits``/``disk_misses``, ``compiles``, ``swaps``,
        ``padded`` (calls padded up to a bucket), ``compile_seconds`` and
        ``sync_variants`` (static variants whose driver race chose
        ``local-sync``); ``variants``: static variants per function."""
        with self.lock:
            out: dict[str, Any] = dataclasses.asdict(self.counters)
        out["variants"] = {
            name: len(e.variants.static_variants()) for name, e in self._entries.items()
        }
        return out

    def __repr__(self) -> str:
        """Names the target, the driver and the functions."""
        return f"<Executable {self.target} on {self.driver}: {', '.join(self._entries)}>"


def _contracts_activations(
    module: ir.Module | ir.Operation, packed: PackedParams | None = None
) -> bool:
    """Whether a contraction in ``module`` multiplies two activations.

    An operand is a weight when its shape is static or, in the function
    whose parameters are ``packed``, when it is computed from parameters
    and constants only (a packed module computes it once). Data tiling
    lays out both operands of a contraction in tiles: a weight once (per
    call when it is an argument, at load time when packed), paying back at
    large batches; two activations on every call, and IREE 3.13 fails to
    compile such dynamic contractions with data tiling (attention's
    scores: ``affine.delinearize_index ... statically non-positive``),
    after about as long as a whole compile.
    """
    for func in functions(module.operation):
        parameters: Collection[int] = ()
        if packed is not None and ir.StringAttr(func.attributes["sym_name"]).value == \
                packed.function:
            parameters = packed.arrays.keys()
        weights = _Weights(func, parameters)
        for op in collect_ops(func, lambda op: op.name in CONTRACTIONS):
            if not any(weights(operand) for operand in list(op.operands)[:2]):
                return True
    return False


class _Weights:
    """Decides which values of a function are weights (`_contracts_activations`)."""

    def __init__(self, func: ir.Operation, parameters: Collection[int]) -> None:
        self._parameters = parameters
        self._from_parameters = ArgumentFree(func, parameters)

    def __call__(self, value: ir.Value) -> bool:
        if isinstance(t := value.type, ir.RankedTensorType) and t.has_static_shape:
            return True
        return bool(self._parameters) and self._from_parameters(value)


def compile(
    module: str | os.PathLike[str] | Any,
    target: str = "llvm-cpu",
    *,
    driver: str | None = None,
    flags: Sequence[str] = (),
    data_tiling: bool | None = None,
    static_data_tiling: bool | None = None,
    cache_size: int = 64,
    hot_after: int | None = 16,
    cache_dir: str | os.PathLike[str] | bool | None = True,
    cache_max_bytes: int | None = None,
    unplanned: bool | Collection[str] = (),
    contract: str = "reject",
) -> Executable:
    """Compiles a symshape module once (Level 1) and returns a callable `Executable`.

    Args:
        module: A ``.mlir`` path, MLIR text, or an ``mlir.ir`` module.
        target: ``"llvm-cpu"``, ``"vulkan"``, ``"cuda"``, ``"metal"``, ``"rocm"``.
        driver: The runtime driver; None for the target's default.
        flags: Extra ``iree-compile`` flags.
        data_tiling: ``--iree-opt-data-tiling`` for the dynamic module: on or
            off; None: the target's default (on for llvm-cpu), except for a
            module that contracts two activations (no operand of static
            shape: attention's scores), and retried without when the
            module fails to compile with it.
        static_data_tiling: The same for static variants (whose parameters
            are not packed): True or False; None: on exactly for modules
            that convolve with constant kernels and multiply no two
            activations (`~symshape_mlir.runtime.tiling`). Weights passed
            as arguments are re-laid out on every call (MLP 512-1024-512,
            llvm-cpu: static variants without it 1.5-4x faster at batch
            1-32, equal at 256); constant kernels are laid out once, at
            compile time (onnxruntime time / ours with it off -> on:
            mobilenet_v2 0.48-0.65 -> 0.61-0.92, efficientnet at
            4x128x128 0.62 -> 1.04), while contractions of two activations
            lose (bert at 8x48 1.35 -> 0.82).
        cache_size: Specialization entries kept per function (LRU).
        hot_after: Calls with one binding after which its static variant is
            compiled in the background; None turns tiers off.
        cache_dir: The disk cache directory; True for the default
            (`default_cache_dir`), False or None for no disk cache.
        cache_max_bytes: The most bytes of artifacts the disk cache keeps
            (least recently used ones are removed); None for
            ``$SYMSHAPE_MLIR_CACHE_MAX_BYTES`` or 2 GiB.
        unplanned: Function names (or True for all) whose result sizes are
            not computed before calls: for results that depend on values
            computed inside the function.
        contract: ``"reject"`` (``symshape-to-iree``: an upper bound used as a
            true size is a compile-time error) or ``"defer"`` (it becomes a
            run-time check: a call that violates it fails cleanly).

    Raises:
        UnplannableSizeError: A planned result size cannot be computed on
            the host before the call.
        PipelineError: The symshape passes reject the module.
        CompileError: ``iree-compile`` fails.
    """
    source = ModuleSource(module)
    directory: Path | None
    if cache_dir is True:
        directory = default_cache_dir()
    elif cache_dir is False or cache_dir is None:
        directory = None
    else:
        directory = Path(cache_dir)
    return Executable(
        source,
        target=target,
        driver=driver,
        flags=flags,
        data_tiling=data_tiling,
        static_data_tiling=static_data_tiling,
        cache_size=cache_size,
        hot_after=hot_after,
        cache_dir=directory,
        unplanned=unplanned,
        contract=contract,
        cache_max_bytes=cache_max_bytes,
    )
