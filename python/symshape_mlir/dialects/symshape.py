"""The symshape dialect's op and enum classes, generated from ODS by mlir-tblgen.

Example:
    >>> from mlir import ir
    >>> from symshape_mlir.dialects import symshape
    >>> # symshape.ConstOp(ir.Type.parse("!symshape.extent"), ...)
"""

from symshape_mlir.dialects._symshape_enum_gen import *  # noqa: F403
from symshape_mlir.dialects._symshape_ops_gen import *  # noqa: F403
