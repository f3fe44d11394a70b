"""The ``symshape-strip-annotations`` pass: removes symshape annotations from the IR."""

from __future__ import annotations

import logging

from mlir import ir

from symshape_mlir.annotations import strip_annotations
from symshape_mlir.pipeline import ModulePass

__all__ = ["StripAnnotations"]

logger = logging.getLogger(__name__)


class StripAnnotations(ModulePass):
    """Removes ``symshape.*`` discardable attributes and function result attributes.

    Annotations such as the ``symshape.shape`` attributes written by
    ``symshape-infer-shapes`` let lit tests and people read what inference
    found; later tools (IREE) do not know them. This pass removes, from every
    operation of the module (the module included), each discardable
    attribute whose name starts with ``symshape.``, and the ``symshape.*``
    entries of function result attributes (``res_attrs``, as used by
    ``func.func`` and other function-like ops).

    Function *argument* attributes are left alone: ``symshape.axes`` on an
    argument is the user's declaration of the input's named axes, which the
    later passes read; ``symshape-resolve`` removes it when it lowers the
    function.

    Before::

        func.func @f(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>})
            -> (tensor<?xf32> {symshape.shape = #symshape.shape<[batch]>}) {
          %0 = math.exp %x {symshape.shape = #symshape.shape<[batch]>} : tensor<?xf32>
          return %0 : tensor<?xf32>
        }

    After::

        func.func @f(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>})
            -> tensor<?xf32> {
          %0 = math.exp %x : tensor<?xf32>
          return %0 : tensor<?xf32>
        }
    """

    name = "symshape-strip-annotations"
    summary = "Remove symshape.* annotations (discardable and function result attributes)"

    preserves_analyses = True

    def run(self, module: ir.Operation) -> None:
        """Strips the annotations of every operation nested in ``module``."""
        removed = strip_annotations(module)
        logger.debug("removed %d symshape annotations", removed)
