"""Loads compiled modules into ``iree.runtime`` and calls them with numpy arrays.

Zero-element tensors: drivers that cannot bind zero-byte buffers (Vulkan)
cannot dispatch a call whose tensors are empty. When every result of such a
call has zero elements, the caller's ``out_shapes`` say so and the call
returns empty arrays without dispatching (the module's run-time checks do not
run then). Without ``out_shapes`` a call with an empty input on such a driver
is refused with a `SignatureError`: the result shapes would be a guess. A
call whose empty input feeds a non-empty result (a reduction over an empty
axis) cannot run on such drivers: it dispatches and fails with a
`RuntimeCallError`.
"""

from __future__ import annotations

import logging
import math
import operator
import re
import threading
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import iree.runtime as rt
import numpy as np

from symshape_mlir.backend.artifact import CompiledModule
from symshape_mlir.backend.devices import (
    binds_empty_buffers,
    get_device,
    get_transfers,
    vm_instance,
)
from symshape_mlir.backend.errors import BackendError, RuntimeCallError, SignatureError
from symshape_mlir.backend.signature import (
    OpaqueType,
    ScalarType,
    Signature,
    TensorType,
    parse_declaration,
)
from symshape_mlir.backend.targets import get_target
from symshape_mlir.backend.transfer import Transfers

__all__ = ["Function", "LoadedModule", "Shape", "load", "scalar_argument", "tensor_argument"]

logger = logging.getLogger(__name__)

Shape = Sequence[int]
Result = np.ndarray | int | float
# A checked argument: an array, a device-resident view, or a number.
Prepared: TypeAlias = Any  # np.ndarray | rt.HalBufferView | int | float (rt has no types)
# "[Error invoking function: ]<file>:<line>: <STATUS>; <message>[; while ...]"
_STATUS = re.compile(
    r"^(?:Error invoking function: )?(?:\S+:\d+: )?(?P<status>[A-Z][A-Z_]+); (?P<rest>.*)$",
    re.DOTALL,
)
_STATUS_CONTEXT = re.compile(r";\s*(?:while\b|\n|$)")
_DECLARATION_KEY = "iree.abi.declaration"
# The exception types `iree.runtime` maps IREE status codes to.
_RUNTIME_EXCEPTIONS = (RuntimeError, ValueError, IndexError, MemoryError)


def _call_error(function: str, driver: str, exc: Exception) -> RuntimeCallError:
    detail = str(exc)
    match = _STATUS.match(detail)
    if match is None:
        return RuntimeCallError(
            function=function, driver=driver, status=None, message=detail, detail=detail
        )
    message = _STATUS_CONTEXT.split(match["rest"], maxsplit=1)[0].strip()
    return RuntimeCallError(
        function=function,
        driver=driver,
        status=match["status"],
        message=message,
        detail=detail,
    )


def tensor_argument(function: str, index: int, value: Any, expected: TensorType) -> np.ndarray:
    """Returns a C-contiguous array for a tensor argument, checked against its type.

    A numpy array must have an accepted dtype; any other value is converted
    to the declared dtype, and a value the dtype cannot hold (``300`` for
    ``tensor<i8>``, an int beyond 64 bits, a string) is refused.

    Args:
        function: The function's name, for messages.
        index: The argument's position.
        value: The argument.
        expected: Its declared type.

    Raises:
        SignatureError: If the value does not fit the type.
    """
    if isinstance(value, np.ndarray):
        array = value
    else:
        try:
            array = _convert(value, expected.dtype)
        except (TypeError, ValueError, OverflowError) as exc:
            raise SignatureError(
                f"argument {index} of @{function} must be {expected} ({expected.dtype}): "
                f"cannot convert {_preview(value)}: {exc}"
            ) from None
    if array.dtype not in expected.accepted:
        raise SignatureError(
            f"argument {index} of @{function} must be {expected} "
            f"({expected.dtype}), got a {array.dtype} array"
        )
    if not expected.fits(array.shape):
        raise SignatureError(
            f"argument {index} of @{function} must be {expected}, got shape {array.shape}"
        )
    return np.asarray(array, order="C")


def _convert(value: Any, dtype: np.dtype) -> np.ndarray:
    """Converts an array-like to ``dtype``, refusing values the dtype cannot hold."""
    with warnings.catch_warnings():
        # numpy < 2 wraps out-of-range Python ints with a DeprecationWarning.
        warnings.simplefilter("error", DeprecationWarning)
        array = np.asarray(value, dtype)
    if dtype.kind in "iu" and np.asarray(value).dtype.kind == "b":
        raise TypeError("a boolean is not an integer")
    if dtype.kind in "iub":
        # numpy converts floats (1.5 -> 1) and wide integers silently.
        source = np.asarray(value)
        if source.dtype != array.dtype and not np.array_equal(source, array):
            raise OverflowError("a value is not representable in the element type")
    return array


def _preview(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def scalar_argument(function: str, index: int, value: Any, expected: ScalarType) -> int | float:
    """Returns the Python number for a scalar argument, checked against its type.

    Integers must lie in the type's range (`ScalarType.int_range`): an ``i32``
    argument never receives the low bits of a larger value.

    Args:
        function: The function's name, for messages.
        index: The argument's position.
        value: The argument.
        expected: Its declared type.

    Raises:
        SignatureError: If the value is not a number of the type.
    """
    if expected.is_float:
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError) as exc:
            raise SignatureError(
                f"argument {index} of @{function} must be {expected}, got {_preview(value)}: "
                f"{exc}"
            ) from None
    try:
        number = operator.index(value)
    except TypeError:
        raise SignatureError(
            f"argument {index} of @{function} must be an integer ({expected}), "
            f"got {type(value).__name__} {_preview(value)}"
        ) from None
    low, high = expected.int_range
    if not low <= number <= high:
        raise SignatureError(
            f"argument {index} of @{function} is {expected}: {number} is outside "
            f"[{low}, {high}]"
        )
    return number


class Function:
    """A callable exported function of a loaded module.

    Arguments are numpy arrays for tensors (other array-likes are converted
    to the declared dtype) and Python or numpy scalars for scalars. Arrays
    must have the declared dtype (for signless integers, signed or unsigned
    of the same width), rank and static extents.

    Attributes:
        name: The function's name.
        signature: Its signature from the module's ABI declaration.
        driver: The runtime driver it runs on.
    """

    def __init__(
        self,
        context: rt.VmContext,
        transfers: Transfers,
        driver: str,
        vm_function: rt.VmFunction,
        lock: threading.Lock | None = None,
    ) -> None:
        """Prepares a function for calls.

        Args:
            context: The VM context the module is loaded in.
            transfers: Copies arrays to and from the device the context runs on.
            driver: The device's driver.
            vm_function: The function; it has an ABI declaration.
            lock: Serializes invocations in ``context`` (shared by the
                functions of one module); a new lock if None.

        Raises:
            SignatureError: If the function uses the async ABI or types the
                backend cannot convert.
        """
        self.name: str = vm_function.name
        self.signature: Signature = parse_declaration(vm_function.reflection[_DECLARATION_KEY])
        if self.signature.is_async:
            raise SignatureError(f"@{self.name} uses the async ABI, which is not supported")
        for kind, types in (
            ("argument", self.signature.inputs),
            ("result", self.signature.results),
        ):
            for i, value_type in enumerate(types):
                if isinstance(value_type, OpaqueType):
                    raise SignatureError(
                        f"{kind} {i} of @{self.name} has unsupported type {value_type}"
                    )
        self.driver = driver
        self._context = context
        self._transfers = transfers
        self._vm_function = vm_function
        self._lock = lock if lock is not None else threading.Lock()
        self._binds_empty = binds_empty_buffers(driver)
        self._element_types = {
            dtype: rt.dtypes.map_dtype_to_hal_element_type(dtype)
            for value_type in self.signature.inputs
            if isinstance(value_type, TensorType)
            for dtype in value_type.accepted
        }
        self._all_tensor_results = all(isinstance(t, TensorType) for t in self.signature.results)

    def __repr__(self) -> str:
        """Names the signature and the driver."""
        return f"<Function {self.signature} on {self.driver}>"

    def _tensor_argument(self, index: int, value: Any, expected: TensorType) -> np.ndarray:
        return tensor_argument(self.name, index, value, expected)

    def _check_out_shapes(self, out_shapes: Sequence[Shape | None]) -> list[tuple[int, ...] | None]:
        results = self.signature.results
        if len(out_shapes) != len(results):
            raise SignatureError(
                f"@{self.name} has {len(results)} results, out_shapes gives {len(out_shapes)}"
            )
        checked: list[tuple[int, ...] | None] = []
        for i, (shape, expected) in enumerate(zip(out_shapes, results, strict=True)):
            if shape is None:
                checked.append(None)
                continue
            if not isinstance(expected, TensorType):
                raise SignatureError(
                    f"result {i} of @{self.name} is a scalar ({expected}): its out_shapes "
                    "entry must be None"
                )
            shape = tuple(int(n) for n in shape)
            if not expected.fits(shape):
                raise SignatureError(
                    f"out_shapes[{i}] = {shape} does not fit result {i} of @{self.name}: {expected}"
                )
            checked.append(shape)
        return checked

    def __call__(self, *args: Any, out_shapes: Sequence[Shape | None] | None = None) -> Any:
        """Calls the function.

        Args:
            *args: One value per argument (see the class docstring).
            out_shapes: The expected shape of each result (None for a scalar
                result or an unknown shape). On drivers that cannot bind
                empty buffers (Vulkan) it is required when an input has zero
                elements, and a call whose results are all given as
                zero-element returns empty arrays without dispatching. After
                a dispatch the actual shapes are checked against the given
                ones.

        Returns:
            The single result, or a tuple of the results (empty for none).
            Tensors come back as new numpy arrays, scalars as Python numbers.

        Raises:
            SignatureError: If the arguments or ``out_shapes`` do not fit the
                signature, a result's shape differs from ``out_shapes``, or
                ``out_shapes`` is needed but missing.
            RuntimeCallError: If the runtime reports a failure (e.g. a failed
                assertion in the module).
        """
        inputs = self.signature.inputs
        if len(args) != len(inputs):
            raise SignatureError(f"@{self.name} takes {len(inputs)} arguments, got {len(args)}")
        prepared: list[np.ndarray | int | float] = []
        has_empty_input = False
        for i, (value, expected) in enumerate(zip(args, inputs, strict=True)):
            if isinstance(expected, TensorType):
                array = self._tensor_argument(i, value, expected)
                has_empty_input = has_empty_input or array.size == 0
                prepared.append(array)
            elif isinstance(expected, ScalarType):
                prepared.append(scalar_argument(self.name, i, value, expected))
        shapes = self._check_out_shapes(out_shapes) if out_shapes is not None else None
        if not self._binds_empty:
            empty_results = self._empty_results(shapes)
            if empty_results is not None:
                return self._pack(empty_results)
            if has_empty_input and shapes is None:
                raise SignatureError(
                    f"@{self.name} got a zero-element argument, which driver "
                    f"'{self.driver}' cannot bind: pass out_shapes= so the call can "
                    "return without dispatching"
                )
        results = self._dispatch(prepared)
        if shapes is not None:
            for i, (result, shape) in enumerate(zip(results, shapes, strict=True)):
                if isinstance(result, np.ndarray) and result.shape != shape:
                    raise SignatureError(
                        f"result {i} of @{self.name} has shape {result.shape}, "
                        f"out_shapes gave {shape}"
                    )
        return self._pack(results)

    def _empty_results(self, shapes: list[tuple[int, ...] | None] | None) -> list[Result] | None:
        """Returns the results without dispatching when all are known empty."""
        if shapes is None or not self._all_tensor_results:
            return None
        if any(shape is None or math.prod(shape) != 0 for shape in shapes):
            return None
        logger.debug("@%s: all results empty, not dispatching on %s", self.name, self.driver)
        return [
            np.empty(shape, result.dtype)
            for shape, result in zip(shapes, self.signature.results, strict=True)
            if shape is not None and isinstance(result, TensorType)
        ]

    def upload(self, index: int, value: Any) -> rt.HalBufferView:
        """Copies a tensor argument to the device once, for repeated calls.

        Args:
            index: The argument's position (a tensor argument).
            value: The array; checked like a call argument.

        Returns:
            A device buffer view that `dispatch` accepts in place of the array.

        Raises:
            SignatureError: If the argument is not a tensor or the value does
                not fit its type.
        """
        expected = self.signature.inputs[index]
        if not isinstance(expected, TensorType):
            raise SignatureError(f"argument {index} of @{self.name} is not a tensor")
        array = tensor_argument(self.name, index, value, expected)
        return self._transfers.to_device([(array, self._element_types[array.dtype])])[0]

    def dispatch(self, prepared: Sequence[Prepared]) -> list[Result]:
        """Runs the function on checked arguments, without any other check.

        Args:
            prepared: Per argument a C-contiguous array of an accepted dtype,
                a view from `upload`, or a Python number in range (see
                `tensor_argument` and `scalar_argument`).

        Returns:
            The results, in order.

        Raises:
            RuntimeCallError: If the runtime reports a failure.
        """
        return self._dispatch(prepared)

    def _dispatch(self, prepared: Sequence[Prepared]) -> list[Result]:
        arguments = rt.VmVariantList(len(prepared))
        uploaded = iter(self._transfers.to_device([
            (value, self._element_types[value.dtype])
            for value in prepared if isinstance(value, np.ndarray)]))
        for value in prepared:
            if isinstance(value, np.ndarray):
                arguments.push_ref(next(uploaded).ref)
            elif isinstance(value, rt.HalBufferView):
                arguments.push_ref(value.ref)
            elif isinstance(value, float):
                arguments.push_float(value)
            else:
                arguments.push_int(value)
        returned = rt.VmVariantList(len(self.signature.results))
        try:
            # A VM context is thread-compatible, not thread-safe.
            with self._lock:
                self._context.invoke(self._vm_function, arguments, returned)
        except _RUNTIME_EXCEPTIONS as exc:
            raise _call_error(self.name, self.driver, exc) from exc
        tensors = [
            returned.get_as_object(i, rt.HalBufferView)
            for i, t in enumerate(self.signature.results)
            if isinstance(t, TensorType)
        ]
        host = iter(self._transfers.to_host(tensors))
        return [
            next(host) if isinstance(t, TensorType) else returned.get_variant(i)
            for i, t in enumerate(self.signature.results)
        ]

    @staticmethod
    def _pack(results: list[Result]) -> Any:
        return results[0] if len(results) == 1 else tuple(results)


class LoadedModule:
    """A compiled module loaded on a device, ready to call.

    Attributes:
        compiled: The compiled module.
        driver: The runtime driver it runs on.
    """

    def __init__(
        self,
        compiled: CompiledModule,
        driver: str,
        parameters: tuple[str, Mapping[str, np.ndarray]] | None = None,
    ) -> None:
        """Loads a module; use `load`."""
        self.compiled = compiled
        self.driver = driver
        self._device = get_device(driver)
        instance = vm_instance()
        try:
            modules = [rt.create_hal_module(instance, self._device)]
            if parameters is not None:
                scope, arrays = parameters
                index = rt.ParameterIndex()
                for key, array in arrays.items():
                    index.add_buffer(key, array)
                modules.insert(0, rt.create_io_parameters_module(
                    instance, index.create_provider(scope=scope)))
                # The index reads the arrays when the module initializes.
                self._parameters = dict(arrays)
            self._module = rt.VmModule.copy_buffer(instance, compiled.vmfb)
            self._context = rt.VmContext(instance, [*modules, self._module])
        except _RUNTIME_EXCEPTIONS as exc:
            raise BackendError(
                f"cannot load the {compiled.target} module on '{driver}': {exc}"
            ) from exc
        self._functions: dict[str, Function] = {}
        self._lock = threading.Lock()
        # Exported functions carry an ABI declaration; `__init` and other
        # module internals do not.
        self._names = tuple(
            name
            for name in self._module.function_names
            if _DECLARATION_KEY in self._module.lookup_function(name).reflection
        )

    def __repr__(self) -> str:
        """Names the target, the driver and the functions."""
        names = ", ".join(self.function_names)
        return f"<LoadedModule {self.compiled.target} on {self.driver}: {names}>"

    @property
    def function_names(self) -> tuple[str, ...]:
        """The names of the exported functions."""
        return self._names

    def function(self, name: str) -> Function:
        """Returns an exported function, ready for repeated calls.

        Args:
            name: The function's name.

        Raises:
            KeyError: If the module exports no such function.
            SignatureError: If the function's signature is not supported.
        """
        function = self._functions.get(name)
        if function is None:
            vm_function = self._module.lookup_function(name)
            if vm_function is None or name not in self._names:
                raise KeyError(
                    f"no function @{name} in the module (it exports: "
                    f"{', '.join(self.function_names)})"
                )
            function = Function(
                self._context, get_transfers(self.driver), self.driver, vm_function, self._lock
            )
            self._functions[name] = function
        return function

    def invoke(
        self, name: str, *args: Any, out_shapes: Sequence[Shape | None] | None = None
    ) -> Any:
        """Calls an exported function; see `Function.__call__`.

        Args:
            name: The function's name.
            *args: The arguments.
            out_shapes: The expected result shapes.

        Returns:
            The single result, or a tuple of the results.
        """
        return self.function(name)(*args, out_shapes=out_shapes)

    def __call__(self, *args: Any, out_shapes: Sequence[Shape | None] | None = None) -> Any:
        """Calls the module's only exported function; see `Function.__call__`.

        Raises:
            TypeError: If the module does not export exactly one function.
        """
        names = self.function_names
        if len(names) != 1:
            raise TypeError(
                f"the module exports {len(names)} functions ({', '.join(names)}): "
                "use invoke(name, ...)"
            )
        return self.invoke(names[0], *args, out_shapes=out_shapes)


def load(
    compiled: CompiledModule,
    driver: str | None = None,
    parameters: tuple[str, Mapping[str, np.ndarray]] | None = None,
) -> LoadedModule:
    """Loads a compiled module on a runtime driver's device.

    Args:
        compiled: The module.
        driver: ``"local-task"``, ``"local-sync"``, ``"vulkan"``, ``"cuda"``,
            ``"hip"`` or ``"metal"``; None for the target's default
            (``local-task`` for ``llvm-cpu``).
        parameters: A scope and its arrays by key, for a module whose
            globals are ``#stream.parameter.named<"scope"::"key">``
            (`symshape_mlir.runtime.params`).

    Returns:
        The loaded module.

    Raises:
        ValueError: If the driver cannot run the module's target.
        DriverUnavailableError: If the driver or its device is unavailable.
        BackendError: If the runtime rejects the module.
    """
    spec = get_target(compiled.target)
    chosen = driver if driver is not None else spec.drivers[0]
    if chosen not in spec.drivers:
        raise ValueError(
            f"a {compiled.target} module runs on {' or '.join(spec.drivers)}, not on '{chosen}'"
        )
    return LoadedModule(compiled, chosen, parameters)
