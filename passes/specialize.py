"""The ``symshape-specialize`` pass: static shapes for one binding of the named axes."""

from __future__ import annotations

import logging

from mlir import ir

from symshape_mlir.lowering.specialize import declared_axes, parse_bindings, specialize_module
from symshape_mlir.pipeline import InvalidPipelineError, ModulePass, inference, option

__all__ = ["Specialize"]

logger = logging.getLogger(__name__)


class Specialize(ModulePass):
    """Makes every exact extent static under a binding of the named axes.

    Shape inference runs first; an extent becomes static only when it is
    *exact* and its expression is a constant once the bindings are
    substituted (and divides by zero nowhere). Upper bounds and unknown
    extents stay dynamic whatever the bindings: an upper bound is never a
    shape (``symshape-resolve`` may still turn a bound that became constant
    into a ``util.assume.int`` hint).

    In every function that no ``func.call`` of the module calls (entry
    points; a callee's axis names are its own, not the entry's):

    * a tensor argument whose axes become constant gets the static type; a
      ``tensor.cast`` back to the old type at entry feeds the body;
    * the bound names are replaced by their values in the arguments'
      ``symshape.axes`` and in the symshape ops' targets and slice sizes
      (``batch * 16`` becomes ``512``), so the module stays consistent when
      it is inferred again, and leave the function's ``symshape.bucket``
      (a static axis has nothing to pad);
    * a result whose returned extents become constant gets the static type
      (a ``tensor.cast`` before ``func.return``);
    * an ``index`` or ``!symshape.extent`` result that becomes constant
      (``tensor.dim``, ``symshape.dim``, arithmetic on them) is replaced by
      ``arith.constant`` / ``symshape.const``;
    * a tensor result with dynamic dims that become constant gets the static
      type: in place for symshape ops (which then also take the static
      operands), else through a ``tensor.cast`` to the static type and back,
      which lets ``canonicalize`` make the producer static where the op
      allows it (``linalg`` ops).

    ``canonicalize`` (part of ``symshape-to-iree``) then propagates the
    constants: IREE receives static shapes (see ``test/lit/specialize.mlir``).

    Before (``bindings="batch=32"``)::

        func.func @f(%x: tensor<?x64xf32> {symshape.axes = #symshape.shape<[batch, 64]>})
            -> tensor<?xf32> {
          %n = symshape.dim %x, 0 : tensor<?x64xf32>
          %r = symshape.reshape %x to [batch * 64] : (tensor<?x64xf32>) -> tensor<?xf32>
          ...
        }

    After::

        func.func @f(%arg0: tensor<32x64xf32> {symshape.axes = #symshape.shape<[32, 64]>})
            -> tensor<2048xf32> {
          %x = tensor.cast %arg0 : tensor<32x64xf32> to tensor<?x64xf32>
          %n = symshape.const 32
          %r = symshape.reshape %arg0 to [2048] : (tensor<32x64xf32>) -> tensor<2048xf32>
          %rd = tensor.cast %r : tensor<2048xf32> to tensor<?xf32>
          ...
          %s = tensor.cast %rd : tensor<?xf32> to tensor<2048xf32>
          return %s : tensor<2048xf32>
        }

    Options:
        bindings: comma-separated ``NAME=VALUE`` entries (``batch=32,seq=128``);
            each value a non-negative integer (checked when the pass is
            created), each name an axis some function of the module declares
            in ``symshape.axes`` (checked when it runs).
    """

    name = "symshape-specialize"
    summary = "Make exact extents static under axis bindings (batch=32,...); bounds stay dynamic"

    bindings: str = option(
        "", help="axis bindings NAME=VALUE separated by commas, e.g. batch=32,seq=128"
    )

    def __post_init__(self) -> None:
        """Parses ``bindings``.

        Raises:
            InvalidPipelineError: The text is malformed, a value is not a
                non-negative integer or a name is bound twice.
        """
        self._parsed, problems = parse_bindings(self.bindings)
        if problems:
            raise InvalidPipelineError(
                f"{self.name}: invalid bindings '{self.bindings}': " + "; ".join(problems)
            )

    def run(self, module: ir.Operation) -> None:
        """Specializes every entry function of ``module`` in place."""
        declared = declared_axes(module)
        unknown = [name for name in self._parsed if name not in declared]
        for name in unknown:
            known = ", ".join(sorted(declared)) if declared else "none"
            self.error(
                module,
                f"unknown axis '{name}' in bindings (axes declared by symshape.axes: {known})",
            )
        if unknown:
            return
        state = inference(module)
        for where, message in specialize_module(module, state, self._parsed):
            self.error(where, message)
