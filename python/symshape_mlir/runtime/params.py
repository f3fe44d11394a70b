"""Packed parameters: arguments a caller binds once become IREE parameters.

A function argument bound with ``bind_params(..., packed=True)`` is no
longer passed per call: in the module compiled for the bound function it
is a global whose value IREE reads from a parameter index at load time, so
IREE hoists whatever depends only on it (the data-tiling layout of a matmul
weight) into module initialization, done once instead of on every call.
`globalize_arguments` rewrites the resolved module (after
``symshape-to-iree``):

.. code-block:: mlir

    util.global private @__param_mlp_1 = #stream.parameter.named<"symshape"::"mlp.1">
        : tensor<512x1024xf32>
    func.func @mlp(%x: tensor<?x512xf32>, %b1: tensor<1024xf32>, ...) {
      %w = util.global.load @__param_mlp_1 : tensor<512x1024xf32>
      %w1 = tensor.cast %w : tensor<512x1024xf32> to tensor<?x1024xf32>
      ...

The global has the bound array's static shape, cast back to the
argument's type, so entry checks between the parameter and the other
arguments still hold. IREE's ops are built in generic form (the util and
stream dialects are not registered here).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
from mlir import ir
from mlir.dialects import tensor

from symshape_mlir.walk import functions

__all__ = ["PARAMETER_SCOPE", "PackedParams", "globalize_arguments", "parameter_key"]

PARAMETER_SCOPE = "symshape"


def parameter_key(function: str, index: int) -> str:
    """The parameter index key of argument ``index`` of ``function``."""
    return f"{function}.{index}"


@dataclasses.dataclass(frozen=True)
class PackedParams:
    """The arguments of one function bound as parameters.

    Attributes:
        function: The function's name.
        arrays: Argument position -> its C-contiguous array.
    """

    function: str
    arrays: Mapping[int, np.ndarray]

    def key_text(self) -> str:
        """What a compiled module depends on: positions, shapes and dtypes, not values."""
        return f"{self.function}:" + ";".join(
            f"{i}:{'x'.join(map(str, a.shape))}:{a.dtype.str}"
            for i, a in sorted(self.arrays.items()))

    def parameters(self) -> tuple[str, dict[str, np.ndarray]]:
        """The scope and arrays by key that `symshape_mlir.backend.load` takes."""
        return PARAMETER_SCOPE, {parameter_key(self.function, i): a
                                 for i, a in self.arrays.items()}

    def globalize(self, module: ir.Module | ir.Operation) -> None:
        """Rewrites the resolved ``module`` (`globalize_arguments`)."""
        with module.context:
            globalize_arguments(module, self.function,
                                {i: a.shape for i, a in self.arrays.items()})


def globalize_arguments(module: ir.Module | ir.Operation, function: str,
                        params: Mapping[int, tuple[int, ...]]) -> None:
    """Turns arguments of ``function`` into parameter globals.

    Args:
        module: The resolved module (its context allows unregistered dialects).
        function: The function's name.
        params: Argument position -> the bound array's shape (its element
            type is the argument's).

    Raises:
        KeyError: No such function.
    """
    root = module.operation
    found = [func for func in functions(root)
             if ir.StringAttr(func.attributes["sym_name"]).value == function]
    if not found:
        raise KeyError(f"no function @{function} in the module")
    func = found[0]
    block = func.regions[0].blocks[0]
    first = block.operations[0]
    for index in sorted(params, reverse=True):
        argument = block.arguments[index]
        element = ir.RankedTensorType(argument.type).element_type
        static = ir.RankedTensorType.get(list(params[index]), element, loc=func.location)
        name = f"__param_{function}_{index}"
        key = parameter_key(function, index)
        with ir.InsertionPoint.at_block_begin(root.regions[0].blocks[0]), func.location:
            ir.Operation.create("util.global", attributes={
                "sym_name": ir.StringAttr.get(name),
                "sym_visibility": ir.StringAttr.get("private"),
                "type": ir.TypeAttr.get(static),
                "initial_value": ir.OpaqueAttr.get(
                    "stream", f'parameter.named<"{PARAMETER_SCOPE}"::"{key}">'.encode(),
                    static),
            })
        with ir.InsertionPoint(first), func.location:
            loaded = ir.Operation.create(
                "util.global.load", results=[static],
                attributes={"global": ir.FlatSymbolRefAttr.get(name)}).result
            value = loaded if static == argument.type else tensor.CastOp(argument.type,
                                                                          loaded).result
        argument.replace_all_uses_with(value)
        block.erase_argument(index)
    function_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    inputs = [arg.type for arg in block.arguments]
    func.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get(inputs, function_type.results))
    if "arg_attrs" in func.attributes:
        kept = [attr for i, attr in enumerate(ir.ArrayAttr(func.attributes["arg_attrs"]))
                if i not in params]
        func.attributes["arg_attrs"] = ir.ArrayAttr.get(kept)
