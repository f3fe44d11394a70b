"""The ``symshape-strip-annotations`` pass: removes symshape annotations from the IR."""

from __future__ import annotations

import logging

from mlir import ir

from symshape_mlir.pipeline import ModulePass

__all__ = ["StripAnnotations"]

logger = logging.getLogger(__name__)

_PREFIX = "symshape."
_RESULT_ATTRS = "res_attrs"


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

    def run(self, module: ir.Operation) -> None:
        """Strips the annotations of every operation nested in ``module``."""
        removed = 0

        def visit(op: ir.Operation) -> ir.WalkResult:
            nonlocal removed
            removed += _strip_discardable(op) + _strip_result_attrs(op)
            return ir.WalkResult.ADVANCE

        module.walk(visit, ir.WalkOrder.PRE_ORDER)
        logger.debug("removed %d symshape annotations", removed)


def _strip_discardable(op: ir.Operation) -> int:
    # Inherent attribute names carry no dialect prefix: these are discardable.
    names = [name for name in op.attributes if name.startswith(_PREFIX)]
    for name in names:
        del op.attributes[name]
    return len(names)


def _strip_result_attrs(op: ir.Operation) -> int:
    if _RESULT_ATTRS not in op.attributes:
        return 0
    result_attrs = op.attributes[_RESULT_ATTRS]
    if not isinstance(result_attrs, ir.ArrayAttr):
        return 0
    kept: list[ir.DictAttr] = []
    removed = 0
    for entry in result_attrs:
        if not isinstance(entry, ir.DictAttr):
            return 0
        named = [(attr.name, attr.attr) for attr in entry]
        removed += sum(1 for name, _ in named if name.startswith(_PREFIX))
        kept.append(
            ir.DictAttr.get(
                {n: a for n, a in named if not n.startswith(_PREFIX)}, context=op.context
            )
        )
    if removed == 0:
        return 0
    if all(len(entry) == 0 for entry in kept):
        del op.attributes[_RESULT_ATTRS]
    else:
        op.attributes[_RESULT_ATTRS] = ir.ArrayAttr.get(kept, context=op.context)
    return removed
