"""The op importers and evaluators, one module per family; importing this package registers
them."""

from symshape_mlir.onnx.ops import (  # noqa: F401
    control,
    conv,
    data,
    elementwise,
    gather,
    linalg,
    nn,
    reduce,
    resize,
    select,
    shape,
)
