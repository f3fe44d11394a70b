"""One exported function of an `Executable`: Level 2 checks, plans, variants, parameters.

Calling an `EntryPoint` checks the arguments against the signature
(`SignatureError`), extracts the axis bindings from their shapes
(`AxisBindingError` names the axis, both arguments and both values), looks
the binding up in the function's `Variants` (an LRU of `Specialization`
entries: plan + chosen variant), and dispatches::

    >>> y = exe.mlp(x, w1, b1, w2)          # numpy in, numpy out
    >>> exe.mlp.plan((32, 64), w1, b1, w2).shapes
    ((320,),)
    >>> fast = exe.mlp.bind_params({1: w1, 2: b1, 3: w2})   # weights stay on the device
    >>> y = fast(x)
"""

from __future__ import annotations

import logging
import operator
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import iree.runtime as rt
import numpy as np

from symshape_mlir.backend.devices import binds_empty_buffers
from symshape_mlir.backend.errors import RuntimeCallError, SignatureError
from symshape_mlir.backend.runtime import Function, scalar_argument, tensor_argument
from symshape_mlir.backend.signature import ScalarType, TensorType
from symshape_mlir.extent.expr import Const, Sym
from symshape_mlir.runtime.capture import FunctionSizes
from symshape_mlir.runtime.drivers import DriverRace
from symshape_mlir.runtime.hot import HotThreshold
from symshape_mlir.runtime.params import PackedParams
from symshape_mlir.runtime.plan import Plan, Planner, make_plan
from symshape_mlir.runtime.sizefn import SizeFn, compile_size
from symshape_mlir.runtime.variants import Key, Specialization, Variants
from symshape_mlir.shapes.bindings import extract_bindings

if TYPE_CHECKING:
    from symshape_mlir.runtime.executable import Executable

__all__ = ["BoundFunction", "EntryPoint"]

logger = logging.getLogger(__name__)

# How a driver without empty bindings (Vulkan) fails a call that made an
# empty tensor inside it.
_EMPTY_BINDING = "resolved to an empty buffer range"
# The status of a failed run-time check (cf.assert) of the module.
_CHECK_FAILED = "FAILED_PRECONDITION"


def _with_inputs(err: RuntimeCallError, prepared: Sequence[Any]) -> RuntimeCallError:
    """``err`` (a failed check) with the sizes the call saw: each input's shape,
    and the values of each integer scalar, 0-d integer tensor and short 1-D
    integer tensor (sizes given as data)."""
    seen = []
    for value in prepared:
        shape = getattr(value, "shape", None)
        if isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.size <= 8 \
                and value.ndim <= 1:
            seen.append(f"= {value.tolist()}")
        elif shape is not None:
            seen.append(str(list(shape)))
        else:
            seen.append(f"= {value}")
    return RuntimeCallError(
        function=err.function, driver=err.driver, status=err.status,
        message=f"{err.message}; the call's inputs: {', '.join(seen)}", detail=err.detail)


class EntryPoint:
    """An exported function, called with numpy arrays (see the module docstring).

    Attributes:
        name: The function's name.
        sizes: Its captured sizes.
        executable: The :class:`Executable` it belongs to (``stats()``,
            ``pre_specialize``).
        hot: The calls after which a binding gets its static variant,
            adapted to the dynamic module's measured slowdown.
        variants: What serves each binding: the LRU, the static variants,
            the driver races and the tiers.
    """

    def __init__(self, executable: Executable, function: Function, sizes: FunctionSizes) -> None:
        """Prepares the Level 2 tables of a function; built by `Executable`."""
        self.name = function.name
        self.sizes = sizes
        self.executable = executable
        self._signature = function.signature
        self._nargs = len(self._signature.inputs)
        self._binds_empty = binds_empty_buffers(function.driver)
        self.hot = HotThreshold(executable.hot_after)
        self._dtypes = [
            t.dtype if isinstance(t, TensorType) else None for t in self._signature.results
        ]
        self._tensors = [
            (i, t) for i, t in enumerate(self._signature.inputs) if isinstance(t, TensorType)
        ]
        self._tensor_checks = [
            (
                i,
                t.dtype,
                t.accepted,
                t.rank,
                tuple((axis, d) for axis, d in enumerate(t.dims) if d is not None),
                t,
            )
            for i, t in self._tensors
        ]
        self._scalars = [
            (i, t) for i, t in enumerate(self._signature.inputs) if isinstance(t, ScalarType)
        ]
        self._prepare_keys()
        self._prepare_buckets()
        self.variants = Variants(executable, function, self.named_axes, self.hot)
        self._planner = Planner(self.name, sizes.results, self._dtypes, sizes.buffers)
        # A function without dynamic axes has one plan: no binding, no LRU.
        self._fixed: Specialization | None = None
        if self.is_static:
            plan = make_plan(self.name, sizes.results, self._dtypes, {})
            self._fixed = Specialization(plan, function, (), static=True)
            self._fixed.function = self.variants.race_dynamic(self._fixed.decide)

    def __repr__(self) -> str:
        """Names the signature."""
        return f"<EntryPoint {self._signature}>"

    # -- Level 2 tables ------------------------------------------------------------

    def _prepare_keys(self) -> None:
        """Splits argument extents into key axes, repeats and constants."""
        self.symbols: list[str] = []
        self._key_axes: list[tuple[int, int]] = []
        self._repeats: list[tuple[int, int, int]] = []
        self._consts: list[tuple[int, int, int]] = []
        self._general = False
        used: set[str] = set()
        for result in self.sizes.results:
            for expr in result.sizes or ():
                used |= expr.free_symbols
        for buffer in self.sizes.buffers:
            for expr in buffer.sizes:
                used |= expr.free_symbols
        position: dict[str, int] = {}
        for i, argument in enumerate(self.sizes.arguments):
            for axis, extent in enumerate(argument.shape or ()):
                leaf = extent.expr
                if leaf is None:
                    continue
                if not extent.is_exact:
                    self._general = True
                elif isinstance(leaf, Sym):
                    k = position.get(leaf.name)
                    if k is None:
                        position[leaf.name] = len(self.symbols)
                        self.symbols.append(leaf.name)
                        self._key_axes.append((i, axis))
                    else:
                        self._repeats.append((i, axis, k))
                elif isinstance(leaf, Const):
                    self._consts.append((i, axis, leaf.value))
                else:
                    self._general = True
        # Arguments whose values size results or buffers: read on the host
        # before each call (a scalar, a 0-d tensor, elements of a 1-D one).
        self._scalar_key = [
            (i, argument)
            for i, argument in enumerate(self.sizes.arguments)
            if any(symbol in used for symbol, _, _ in argument.scalars)
        ]
        self.sizing_arguments = frozenset(i for i, _ in self._scalar_key)
        self.named_axes = self.sizes.named_axes
        self.is_static = self.sizes.is_static and not self._general
        self._patterns = [list(a.shape or ()) for a in self.sizes.arguments]

    def _bindings(self, shapes: Sequence[tuple[int, ...]], values: Sequence[Any]) -> dict[str, int]:
        """Full binding extraction: raises `AxisBindingError` with the conflict."""
        bindings = extract_bindings(self._patterns, shapes)
        for i, argument in self._scalar_key:
            argument.bind(values[i], bindings)
        return bindings

    def _key(self, shapes: Sequence[tuple[int, ...]], values: Sequence[Any]) -> Key:
        """The LRU key of one call (axis values, then sizing scalars)."""
        if self._general:
            bindings = self._bindings(shapes, values)
            return tuple(v for _, v in sorted(bindings.items()))
        for i, axis, const in self._consts:
            if shapes[i][axis] != const:
                raise SignatureError(
                    f"argument {i} of @{self.name}: axis {axis} must be {const}, "
                    f"got shape {tuple(shapes[i])}"
                )
        key = [shapes[i][axis] for i, axis in self._key_axes]
        for i, axis, k in self._repeats:
            if shapes[i][axis] != key[k]:
                self._bindings(shapes, values)  # raises, naming the axis and both arguments
        for i, argument in self._scalar_key:
            key.extend(argument.values(values[i]))
        return tuple(key)

    def _key_bindings(
        self, key: Key, shapes: Sequence[tuple[int, ...]], values: Sequence[Any]
    ) -> dict[str, int]:
        if self._general:
            return self._bindings(shapes, values)
        bindings = dict(zip(self.symbols, key, strict=False))
        for i, argument in self._scalar_key:
            argument.bind(values[i], bindings)
        return bindings

    # -- arguments -----------------------------------------------------------------

    def _prepare(self, args: Sequence[Any]) -> list[Any]:
        if len(args) != self._nargs:
            raise SignatureError(f"@{self.name} takes {self._nargs} arguments, got {len(args)}")
        prepared = list(args)
        for i, dtype, accepted, rank, statics, expected in self._tensor_checks:
            value = args[i]
            if value.__class__ is np.ndarray:
                # The common case, checked inline: dtype, rank, static extents, layout.
                found = value.dtype
                if (
                    (found is dtype or found in accepted)
                    and value.ndim == rank
                    and value.flags.c_contiguous
                ):
                    shape = value.shape
                    for axis, extent in statics:
                        if shape[axis] != extent:
                            break
                    else:
                        continue
            elif isinstance(value, rt.HalBufferView):
                continue
            prepared[i] = tensor_argument(self.name, i, value, expected)
        for i, scalar in self._scalars:
            prepared[i] = scalar_argument(self.name, i, args[i], scalar)
        return prepared

    def _specialization(self, shapes: list[tuple[int, ...]], prepared: list[Any]) -> Specialization:
        key = self._key(shapes, prepared)
        spec = self.variants.lookup(key)
        if spec is None:
            bindings = self._key_bindings(key, shapes, prepared)
            static_key = tuple(bindings[n] for n in self.named_axes)
            spec = self.variants.add(key, self._planner(bindings), static_key)
        return spec

    # -- public API ----------------------------------------------------------------

    def __call__(self, *args: Any) -> Any:
        """Calls the function: checks, plans and dispatches (see the module docstring).

        Args:
            *args: numpy arrays (or views from `bind_params`) for tensors,
                Python or numpy integers and floats for scalars.

        Returns:
            The single result, or a tuple of results.

        Raises:
            SignatureError: Wrong count, dtype, rank, static extent or scalar range.
            AxisBindingError: One axis with two sizes.
            PlanError: A result size is negative or beyond int64.
            RuntimeCallError: The module failed at run time.
        """
        return self._run(self._prepare(args))

    def _run(self, prepared: list[Any], hosts: Mapping[int, np.ndarray] | None = None) -> Any:
        spec = self._fixed
        if spec is not None:
            if self._binds_empty:
                return self._pack(spec.function.dispatch(prepared))
        else:
            spec = self._specialization([getattr(v, "shape", ()) for v in prepared], prepared)
            if self._pads:
                padded = self._padded(spec.plan.bindings, prepared)
                if padded is not None:
                    return self._cut(self._run(padded, hosts), spec.plan)
        function = self.variants.serve(spec)
        if self._unbindable(prepared):
            if spec.plan.all_empty:
                return self._pack(
                    [
                        np.empty(s or (), d)
                        for s, d in zip(spec.plan.shapes, self._dtypes, strict=True)
                    ]
                )
            return self._on_host(prepared, hosts or {})
        return self._dispatch(function, prepared, prepared, hosts)

    def _dispatch(self, function: Function | DriverRace, arguments: list[Any],
                  prepared: list[Any], hosts: Mapping[int, np.ndarray] | None) -> Any:
        """Calls ``function``; where the driver cannot bind an empty tensor
        the call made inside it (a truncation to no rows), the host runs the
        call instead (the failed one changed nothing)."""
        try:
            return self._pack(function.dispatch(arguments))
        except RuntimeCallError as err:
            if err.status == _CHECK_FAILED:
                raise _with_inputs(err, prepared) from err
            if self._binds_empty or _EMPTY_BINDING not in err.message:
                raise
        return self._on_host(prepared, hosts or {})

    def _unbindable(self, prepared: Sequence[Any]) -> bool:
        """Whether the driver cannot bind these arguments (a zero-element
        array on a driver without empty bindings)."""
        return not self._binds_empty and any(
            isinstance(v, np.ndarray) and v.size == 0 for v in prepared
        )

    # -- power-of-two buckets ------------------------------------------------------

    def _prepare_buckets(self) -> None:
        """Finds the argument axes a bucketed axis sizes (see `_padded`)."""
        buckets = set(self.sizes.buckets)
        pads: dict[int, list[tuple[int, SizeFn]]] = {}
        for i, argument in enumerate(self.sizes.arguments):
            for axis, extent in enumerate(argument.shape or ()):
                if extent.expr is not None and extent.free_symbols & buckets:
                    pads.setdefault(i, []).append((axis, compile_size(extent.expr)))
        self._pads = pads

    def _padded(self, bindings: Mapping[str, int], prepared: list[Any]) -> list[Any] | None:
        """The arguments padded with zeros so that each bucketed axis is a
        power of two; None when it already is."""
        bucketed = dict(bindings)
        for name in self.sizes.buckets:
            value = bindings[name]
            bucketed[name] = 1 << (value - 1).bit_length() if value > 0 else 0
        if bucketed == bindings:
            return None
        padded = list(prepared)
        for i, axes in self._pads.items():
            value = prepared[i]
            if isinstance(value, rt.HalBufferView):
                raise SignatureError(
                    f"argument {i} of @{self.name} is a bound parameter with a bucketed "
                    f"axis ({', '.join(self.sizes.buckets)}): it cannot be padded"
                )
            shape = list(value.shape)
            for axis, size in axes:
                shape[axis] = size(bucketed)
            grown = np.zeros(shape, value.dtype)
            grown[tuple(slice(0, n) for n in value.shape)] = value
            padded[i] = grown
        with self.executable.lock:
            self.executable.counters.padded += 1
        return padded

    def _cut(self, results: Any, plan: Plan) -> Any:
        """Slices results computed on padded arguments back to the planned shapes."""
        items = [results] if len(plan.shapes) == 1 else list(results)
        for k, shape in enumerate(plan.shapes):
            if shape is not None and items[k].shape != shape:
                items[k] = np.ascontiguousarray(items[k][tuple(slice(0, n) for n in shape)])
        return self._pack(items)

    def _on_host(self, prepared: list[Any], hosts: Mapping[int, np.ndarray]) -> Any:
        """Runs a call the driver cannot bind (an empty input with a
        non-empty result, e.g. a reduction over an empty axis, or an empty
        tensor made inside the call) on the host CPU."""
        arguments = []
        for i, value in enumerate(prepared):
            if isinstance(value, rt.HalBufferView):
                if i not in hosts:
                    raise SignatureError(
                        f"@{self.name} got a zero-element argument, which driver "
                        f"'{self.variants.dynamic.driver}' cannot bind, and a non-empty result"
                    )
                value = hosts[i]
            arguments.append(value)
        logger.debug("@%s: an empty binding on %s, running on the host", self.name,
                     self.variants.dynamic.driver)
        return self.executable.host_executable()[self.name](*arguments)

    @staticmethod
    def _pack(results: list[Any]) -> Any:
        return results[0] if len(results) == 1 else tuple(results)

    def plan(self, *arrays_or_shapes: Any) -> Plan:
        """Returns the results' shapes and bytes for these arguments, without running.

        Args:
            *arrays_or_shapes: Per tensor argument an array or a shape
                (sequence of ints); per scalar argument, and per tensor
                argument whose values size the results (a 0-d integer
                tensor, a short 1-D one read at constant positions), its
                value (a number, a list, an array). A 0-d tensor argument
                also takes a number.

        Raises:
            SignatureError: The shapes do not fit the signature.
            AxisBindingError: One axis with two sizes.
            PlanError: A size is negative or beyond int64, or the function
                is not planned.
        """
        if not self.sizes.planned:
            raise SignatureError(f"@{self.name} was compiled with planning off (unplanned=)")
        if len(arrays_or_shapes) != self._nargs:
            raise SignatureError(
                f"@{self.name} takes {self._nargs} arguments, got {len(arrays_or_shapes)}"
            )
        shapes: list[tuple[int, ...]] = []
        values: list[Any] = []
        for i, value in enumerate(arrays_or_shapes):
            expected = self._signature.inputs[i]
            if isinstance(expected, TensorType) and (
                    i in self.sizing_arguments or (expected.rank == 0 and _is_number(value))):
                array = tensor_argument(self.name, i, value, expected)
                shapes.append(array.shape)
                values.append(array)
            elif isinstance(expected, TensorType):
                shape = tuple(value.shape) if hasattr(value, "shape") else value
                try:
                    shape = tuple(operator.index(n) for n in shape)
                except TypeError:
                    raise SignatureError(
                        f"argument {i} of @{self.name}: expected an array or a shape, got {value!r}"
                    ) from None
                if not expected.fits(shape):
                    raise SignatureError(
                        f"argument {i} of @{self.name} must be {expected}, got shape {shape}"
                    )
                shapes.append(shape)
                values.append(None)
            else:
                shapes.append(())
                values.append(
                    scalar_argument(self.name, i, value, expected)
                    if isinstance(expected, ScalarType)
                    else value
                )
        return self._specialization(shapes, values).plan

    def bind_params(self, params: Mapping[int, Any], *, packed: bool = False) -> BoundFunction:
        """Binds parameter arguments once; returns a function of the others.

        Args:
            params: Argument position -> array (weights, biases, ...).
            packed: False: each array is copied to the device now and passed
                to every call. True: the arrays become IREE parameters of
                modules compiled for this binding (`symshape_mlir.runtime.params`),
                so IREE lays them out for its kernels once, when the module
                loads, instead of on every call; costs a compile now (and
                one per static variant: those pre-specialized before this
                call are compiled now, those pre-specialized later by
                ``pre_specialize``, hot bindings in the background).

        Returns:
            A callable taking the remaining arguments, in order.

        Raises:
            SignatureError: A position is out of range, not a tensor, or the
                array does not fit.
            ValueError: ``packed`` for a function with bucketed axes.
        """
        return BoundFunction(self, params, packed=packed)

    def specializations(self) -> list[tuple[Key, Specialization]]:
        """The LRU's entries, least recently used first."""
        return self.variants.specializations()

def _is_number(value: Any) -> bool:
    """Whether ``value`` is one number (not a shape): an int, a float, a numpy scalar."""
    return isinstance(value, int | float | np.generic)


class BoundFunction:
    """An `EntryPoint` with some arguments bound once.

    Example:
        >>> fast = exe.mlp.bind_params({1: w1, 2: b1, 3: w2})
        >>> fast(x)             # only x is copied per call
        >>> packed = exe.mlp.bind_params({1: w1, 2: b1, 3: w2}, packed=True)
        >>> packed(x)           # weights laid out once, at load time
    """

    def __init__(
        self, entry: EntryPoint, params: Mapping[int, Any], *, packed: bool = False
    ) -> None:
        """Checks ``params`` and uploads them (or compiles the packed module)."""
        self.entry = entry
        arrays: dict[int, np.ndarray] = {}
        for index, value in params.items():
            if not 0 <= index < entry._nargs:
                raise SignatureError(f"@{entry.name} has no argument {index}")
            expected = entry._signature.inputs[index]
            if not isinstance(expected, TensorType):
                raise SignatureError(f"argument {index} of @{entry.name} is not a tensor")
            arrays[index] = tensor_argument(entry.name, index, value, expected)
        # Host copies, for calls that must run on the host (see `EntryPoint._on_host`).
        self._arrays = arrays
        self._free = [i for i in range(entry._nargs) if i not in arrays]
        # What each call passes at the bound positions: device views, or the
        # arrays themselves when packed (the Level 2 checks read their shapes)
        # or when their values size the results (read on the host).
        self._passed: dict[int, Any] = {}
        # The packed modules' variants (None unless packed).
        self.variants: Variants | None = None
        if not packed:
            self._passed = {
                i: a if i in entry.sizing_arguments else entry.variants.dynamic.upload(i, a)
                for i, a in arrays.items()
            }
            return
        if entry._pads:
            raise ValueError(
                f"@{entry.name} has bucketed axes ({', '.join(entry.sizes.buckets)}): "
                "its parameters cannot be packed"
            )
        self._passed = dict(arrays)
        self.variants = entry.variants.pack(PackedParams(entry.name, arrays))

    def __call__(self, *args: Any) -> Any:
        """Calls the function with the non-parameter arguments, in order."""
        entry = self.entry
        if len(args) != len(self._free):
            raise SignatureError(
                f"@{entry.name} with bound parameters takes {len(self._free)} "
                f"arguments, got {len(args)}"
            )
        full: list[Any] = [None] * entry._nargs
        for i, value in self._passed.items():
            full[i] = value
        for i, value in zip(self._free, args, strict=True):
            full[i] = value
        prepared = entry._prepare(full)
        if self.variants is None:
            return entry._run(prepared, self._arrays)
        return self._run_packed(prepared, self.variants)

    def _run_packed(self, prepared: list[Any], variants: Variants) -> Any:
        """Plans like the entry, then runs the packed module (or its static
        variant for the binding), passing the free arguments only."""
        entry = self.entry
        if entry._unbindable(prepared):
            return entry._run(prepared, self._arrays)
        spec = entry._fixed or entry._specialization(
            [getattr(v, "shape", ()) for v in prepared], prepared
        )
        key = spec.static_key
        served = variants.lookup(key) or variants.add(key, spec.plan, key)
        function = variants.serve(served)
        if served.static and function.driver != entry.executable.driver and any(
                isinstance(prepared[i], rt.HalBufferView) for i in self._free):
            function = variants.dynamic  # a device buffer belongs to the executable's device
        return entry._dispatch(function, [prepared[i] for i in self._free], prepared, self._arrays)

    def variant_drivers(self) -> dict[Key, str]:
        """The driver each packed static variant runs on, by its binding of
        the named axes (empty unless packed)."""
        if self.variants is None:
            return {}
        return {key: function.driver
                for key, function in self.variants.static_variants().items()}
