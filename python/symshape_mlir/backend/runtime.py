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
from collections.abc import Sequence
from typing import Any

import iree.runtime as rt
import numpy as np

from symshape_mlir.backend.artifact import CompiledModule
from symshape_mlir.backend.devices import binds_empty_buffers, get_device, vm_instance
from symshape_mlir.backend.errors import BackendError, RuntimeCallError, SignatureError
from symshape_mlir.backend.signature import (
    OpaqueType,
    ScalarType,
    Signature,
    TensorType,
    parse_declaration,
)
from symshape_mlir.backend.targets import get_target
from symshape_mlir.backend.transfer import to_device, to_host

__all__ = ["Function", "LoadedModule", "Shape", "load"]

logger = logging.getLogger(__name__)

Shape = Sequence[int]
Result = np.ndarray | int | float
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
        device: rt.HalDevice,
        driver: str,
        vm_function: rt.VmFunction,
    ) -> None:
        """Prepares a function for calls.

        Args:
            context: The VM context the module is loaded in.
            device: The device the context runs on.
            driver: The device's driver.
            vm_function: The function; it has an ABI declaration.

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
        self._device = device
        self._vm_function = vm_function
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
        array = value if isinstance(value, np.ndarray) else np.asarray(value, expected.dtype)
        if array.dtype not in expected.accepted:
            raise SignatureError(
                f"argument {index} of @{self.name} must be {expected} "
                f"({expected.dtype}), got a {array.dtype} array"
            )
        if not expected.fits(array.shape):
            raise SignatureError(
                f"argument {index} of @{self.name} must be {expected}, got shape {array.shape}"
            )
        return np.asarray(array, order="C")

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
            elif isinstance(expected, ScalarType) and expected.is_float:
                prepared.append(float(value))
            else:
                prepared.append(operator.index(value))
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

    def _dispatch(self, prepared: list[np.ndarray | int | float]) -> list[Result]:
        arguments = rt.VmVariantList(len(prepared))
        for value in prepared:
            if isinstance(value, np.ndarray):
                view = to_device(self._device, value, self._element_types[value.dtype])
                arguments.push_ref(view.ref)
            elif isinstance(value, float):
                arguments.push_float(value)
            else:
                arguments.push_int(value)
        returned = rt.VmVariantList(len(self.signature.results))
        try:
            self._context.invoke(self._vm_function, arguments, returned)
        except _RUNTIME_EXCEPTIONS as exc:
            raise _call_error(self.name, self.driver, exc) from exc
        tensors = [
            returned.get_as_object(i, rt.HalBufferView)
            for i, t in enumerate(self.signature.results)
            if isinstance(t, TensorType)
        ]
        host = iter(to_host(self._device, tensors))
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

    def __init__(self, compiled: CompiledModule, driver: str) -> None:
        """Loads a module; use `load`."""
        self.compiled = compiled
        self.driver = driver
        self._device = get_device(driver)
        instance = vm_instance()
        try:
            hal = rt.create_hal_module(instance, self._device)
            self._module = rt.VmModule.copy_buffer(instance, compiled.vmfb)
            self._context = rt.VmContext(instance, [hal, self._module])
        except _RUNTIME_EXCEPTIONS as exc:
            raise BackendError(
                f"cannot load the {compiled.target} module on '{driver}': {exc}"
            ) from exc
        self._functions: dict[str, Function] = {}
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
            function = Function(self._context, self._device, self.driver, vm_function)
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


def load(compiled: CompiledModule, driver: str | None = None) -> LoadedModule:
    """Loads a compiled module on a runtime driver's device.

    Args:
        compiled: The module.
        driver: ``"local-task"``, ``"local-sync"``, ``"vulkan"``, ``"cuda"``,
            ``"hip"`` or ``"metal"``; None for the target's default
            (``local-task`` for ``llvm-cpu``).

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
    return LoadedModule(compiled, chosen)
