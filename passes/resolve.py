"""The ``symshape-resolve`` pass: symbolic IR to plain upstream MLIR."""

from __future__ import annotations

import logging
from typing import Literal

from mlir import ir

from symshape_mlir.lowering import resolve_module
from symshape_mlir.pipeline import ModulePass, inference, option

__all__ = ["Resolve"]

logger = logging.getLogger(__name__)


class Resolve(ModulePass):
    """Lowers every symshape op, type and attribute to upstream dialects.

    First every requirement that is not proven and not checked yet gets a
    run-time check (``cf.assert``) before its op, and every declared argument
    axis an entry check. Then extents become ``index`` arithmetic (divisions
    guarded by ``cf.assert``),
    runtime scalars become ``tensor.extract`` with their semantics, reshapes
    become ``tensor.reshape`` with an ``i64`` shape, broadcasts and gathers
    become ``linalg.generic``, truncations become ``tensor.extract_slice``.
    ``symshape.*`` annotations and ``symshape.axes`` are removed; the output
    contains no symshape op, type or attribute. With ``target=iree``, dynamic
    axes bounded by a constant get ``util.assume.int`` /
    ``flow.tensor.tie_shape`` hints (IREE ops, in generic form), and the
    forms IREE 3.13 is known to miscompile are shielded with
    ``util.optimization_barrier``, ``flow.tensor.tie_shape`` or ``scf.if``
    (checked casts, loop starts, tensor selects, gathered slices, empty
    slices at the end of an axis, reshape sizes, broadcasts over extents of
    1, fills read in loop bodies); insertions
    become out-of-place ``linalg.generic`` ops, reductions over an empty
    axis give their inits, slices of empty tensors and of fills become
    ``tensor.empty`` and fills, and equal elementwise tensors are merged,
    in the order of the table :data:`symshape_mlir.lowering.iree.SHIELDS`,
    which names each shield's IREE symptom and reproducer.

    Before::

        %r = symshape.reshape %x to [dim(0, 0) * 2, 256]
            : (tensor<?x512xf32>) -> tensor<?x256xf32>

    After::

        %d = tensor.dim %x, %c0 : tensor<?x512xf32>
        %n = arith.muli %d, %c2 : index
        ...
        cf.assert %same, "symshape: reshape target changes the element count (...)"
        %shape = tensor.from_elements %n_i64, %c256_i64 : tensor<2xi64>
        %r = tensor.reshape %x(%shape)
            : (tensor<?x512xf32>, tensor<2xi64>) -> tensor<?x256xf32>
    """

    name = "symshape-resolve"
    summary = "Lower symshape ops and attributes to arith/tensor/linalg/cf"

    target: Literal["generic", "iree"] = option(
        "generic", help="generic: upstream dialects only; iree: also util/flow upper-bound hints "
        "and shields around known IREE 3.13 miscompiles"
    )

    def creates_unregistered_ops(self) -> bool:
        return self.target == "iree"

    def run(self, module: ir.Operation) -> None:
        resolve_module(module, self.target, inference(module))
