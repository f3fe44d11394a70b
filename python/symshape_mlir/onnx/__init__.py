"""ONNX import with symbolic dimensions.

:func:`import_model` reads a model with the ``onnx`` package and returns an
MLIR module with one function: graph inputs are arguments whose
``dim_param`` dims are named axes (``symshape.axes``), nodes are traced
through the frontend's ops (so every extent is a symbolic expression over
those axes), and shape computations are evaluated while importing.

Example:
    >>> from symshape_mlir.onnx import import_model
    >>> module = import_model("model.onnx")              # doctest: +SKIP
    >>> from symshape_mlir import runtime
    >>> exe = runtime.compile(module)                     # doctest: +SKIP
    >>> exe.main(tokens)                                  # doctest: +SKIP
"""

from symshape_mlir.onnx.errors import OnnxImportError
from symshape_mlir.onnx.importer import MIN_OPSET, import_model, load_model, trace_model
from symshape_mlir.onnx.registry import supported_ops
from symshape_mlir.onnx.shape_inference import POLICIES, infer_shapes

__all__ = [
    "MIN_OPSET",
    "POLICIES",
    "OnnxImportError",
    "import_model",
    "infer_shapes",
    "load_model",
    "supported_ops",
    "trace_model",
]
