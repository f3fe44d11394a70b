"""Errors of the ONNX importer, each naming the node, its op and the opset.

Example:
    >>> import_model("model.onnx")                       # doctest: +SKIP
    OnnxImportError: model.onnx:7: Det node 'det' (opset 17): ONNX Det version 11 is not supported
"""

from __future__ import annotations

from symshape_mlir.frontend.source import SourceLocation

__all__ = ["OnnxImportError"]


class OnnxImportError(Exception):
    """A model the importer cannot bring in.

    Attributes:
        location: the node (its position in the graph and its name), or the
            model for errors that belong to no node.
        op_type: the node's op (empty for model-level errors).
        node: the node's name.
        opset: the model's default-domain opset.
        message: the text, without the location.
    """

    def __init__(
        self,
        message: str,
        location: SourceLocation,
        op_type: str = "",
        node: str = "",
        opset: int | None = None,
    ) -> None:
        self.message = message
        self.location = location
        self.op_type = op_type
        self.node = node
        self.opset = opset
        where = f"{location.file}:{location.line}" if location.line else location.file
        what = f"{op_type} node {node!r} (opset {opset}): " if op_type else ""
        super().__init__(f"{where}: {what}{message}")
