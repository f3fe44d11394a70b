"""The op importers, one module per family; importing this package registers them."""

from symshape_mlir.onnx.ops import conv, elementwise, linalg, nn, reduce, shape  # noqa: F401
