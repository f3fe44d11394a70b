"""Building blocks of the shape rules: outputs shaped like an input, or broadcast.

A shape rule (``@shape_rule``, beside each importer) returns
:class:`~symshape_mlir.onnx.values.Abstract` outputs, or data where its
importer would (``Shape`` gives known extents either way).

Example:
    >>> @shape_rule("Relu", since=14)
    ... def relu(node):
    ...     return [like(node)]
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from symshape_mlir.onnx.context import NodeContext
from symshape_mlir.onnx.values import Abstract
from symshape_mlir.shapes.broadcast import broadcast_shapes
from symshape_mlir.shapes.errors import BroadcastError
from symshape_mlir.shapes.shape import Shape, ShapeLike, as_shape

__all__ = ["BOOL", "abstract", "broadcast", "like"]

BOOL = np.dtype(np.bool_)


def abstract(shape: ShapeLike, dtype: np.dtype) -> Abstract:
    """A run-time tensor of ``shape`` and ``dtype``."""
    return Abstract(shape if isinstance(shape, Shape) else as_shape(shape), np.dtype(dtype))


def like(node: NodeContext, index: int = 0, dtype: np.dtype | None = None) -> Abstract:
    """Input ``index``'s shape, with its element type or ``dtype``."""
    return Abstract(node.shape(index), dtype if dtype is not None else node.element_type(index))


def broadcast(node: NodeContext, indices: Iterable[int] | None = None,
              dtype: np.dtype | None = None) -> Abstract:
    """The inputs' shapes broadcast numpy-style (every given input by default).

    The element type is ``dtype``, else the first input's.
    """
    chosen = list(range(node.input_count)) if indices is None else list(indices)
    try:
        shape = broadcast_shapes(*(node.shape(i) for i in chosen))
    except BroadcastError as err:
        node.error(str(err))
    return Abstract(shape, dtype if dtype is not None else node.element_type(chosen[0]))
