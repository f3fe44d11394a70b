"""The symshape dialect's op and enum classes, generated from ODS by mlir-tblgen,
and predicates on its types, read through the C API.

Example:
    >>> from mlir import ir
    >>> from symshape_mlir.dialects import symshape
    >>> # symshape.ConstOp(ir.Type.parse("!symshape.extent"), ...)
    >>> # symshape.is_extent_type(op.result.type) -> True
"""

from mlir import ir

from symshape_mlir import _symshape
from symshape_mlir.dialects._symshape_enum_gen import *  # noqa: F403
from symshape_mlir.dialects._symshape_ops_gen import *  # noqa: F403


def is_extent_type(type_: ir.Type) -> bool:
    """Whether ``type_`` is ``!symshape.extent``."""
    return _symshape.is_extent_type(type_)


def type_mentions_symshape(type_: ir.Type) -> bool:
    """Whether ``type_`` or a type or attribute nested in it belongs to the
    symshape dialect (``tensor<4x!symshape.extent>``, a function type taking
    one)."""
    return _symshape.type_mentions_symshape(type_)
