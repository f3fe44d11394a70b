"""Shape rules, one module per op family; importing this package registers them."""

from symshape_mlir.inference.rules import arith, linalg, symshape, tensor

__all__ = ["arith", "linalg", "symshape", "tensor"]
