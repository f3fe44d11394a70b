"""Removing ``symshape.*`` attributes from IR.

Annotations (``symshape.shape``, ``symshape.value``) are discardable
attributes and function result attributes; the user's declaration of named
axes (``symshape.axes``) is a function argument attribute. Upstream tools do
not know any of them.
"""

from __future__ import annotations

from mlir import ir

__all__ = ["SHAPE_ATTR", "strip_annotations"]

#: The discardable attribute holding the shapes inference knows of an op's
#: results (``{symshape.shape = #symshape.shape<[batch, 4]>}``).
SHAPE_ATTR = "symshape.shape"

_PREFIX = "symshape."
_RESULT_ATTRS = "res_attrs"
_ARG_ATTRS = "arg_attrs"


def strip_annotations(root: ir.Operation, *, arguments: bool = False) -> int:
    """Removes ``symshape.*`` attributes from every op nested in ``root``.

    Args:
        root: the op to clean, itself included.
        arguments: also remove function argument attributes
            (``symshape.axes``), as ``symshape-resolve`` does.

    Returns:
        How many attributes were removed.
    """
    removed = 0

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal removed
        removed += _strip_discardable(op) + _strip_entries(op, _RESULT_ATTRS)
        if arguments:
            removed += _strip_entries(op, _ARG_ATTRS)
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.PRE_ORDER)
    return removed


def _strip_discardable(op: ir.Operation) -> int:
    # Inherent attribute names carry no dialect prefix: these are discardable.
    names = [name for name in op.attributes if name.startswith(_PREFIX)]
    for name in names:
        del op.attributes[name]
    return len(names)


def _strip_entries(op: ir.Operation, list_name: str) -> int:
    """Strips ``symshape.*`` from a per-argument or per-result dictionary list."""
    if list_name not in op.attributes:
        return 0
    entries = op.attributes[list_name]
    if not isinstance(entries, ir.ArrayAttr):
        return 0
    kept: list[ir.DictAttr] = []
    removed = 0
    for entry in entries:
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
        del op.attributes[list_name]
    else:
        op.attributes[list_name] = ir.ArrayAttr.get(kept, context=op.context)
    return removed
