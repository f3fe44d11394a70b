"""Folding nodes whose inputs are all constants, with the ``onnx`` reference implementation.

Exporters compute constants the long way: dinov2 writes its patch grid as
``Cast(Pow(16.0, 0.5))``, others ``Sqrt`` a head size or ``Ceil`` a float
quotient of sizes that are static. A node whose every input is a constant
(small enough, see :data:`FOLD_LIMIT`) is evaluated while importing by the
operator's reference implementation (``onnx.reference``, the ONNX semantics
themselves), so the result is a constant too: integer data then feeds
``Reshape`` targets as known data, and IREE is spared the work.

Random ops, ops holding subgraphs, and ops without a reference
implementation are never folded; any failure of the reference leaves the node
to its importer.

Example:
    >>> # Cast(Pow(16.0, 0.5), to=INT64) with constant inputs
    >>> fold(node)                                       # doctest: +SKIP
    [Literal(array(4))]
"""

from __future__ import annotations

import logging

import numpy as np
import onnx
from onnx.reference.ops import load_op

from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.onnx.context import NodeContext, onnx_dtype
from symshape_mlir.onnx.values import Abstract, Known, Literal, Value

__all__ = ["FOLD_LIMIT", "fold"]

logger = logging.getLogger(__name__)

#: Inputs and outputs with more elements than this in all are not folded.
FOLD_LIMIT = 1 << 16

_NEVER = frozenset({
    "Bernoulli", "Constant", "Dropout", "Multinomial", "RandomNormal", "RandomNormalLike",
    "RandomUniform", "RandomUniformLike",
})


def _constant(value: Value) -> np.ndarray | None:
    if isinstance(value, Literal):
        return value.array
    known = Known.of(value)
    return None if known is None else known.constant


def fold(node: NodeContext) -> list[Value] | None:
    """The node's outputs as constants, when every input is one and the node folds."""
    proto = node.node
    values = node.graph.values
    if proto.op_type in _NEVER or any(
            isinstance(values.get(name), Tensor | Abstract) for name in node.inputs if name):
        return None
    if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
           for a in proto.attribute):
        return None
    arrays: list[np.ndarray | None] = []
    for name in node.inputs:
        if not name:
            arrays.append(None)
            continue
        array = _constant(values[name])
        if array is None:
            return None
        arrays.append(array)
    if not any(a is not None for a in arrays) or sum(
            a.size for a in arrays if a is not None) > FOLD_LIMIT:
        return None
    try:
        implementation = load_op("", proto.op_type, node.opset)
        results = implementation(proto, {"log": lambda *_: None, "opsets": {"": node.opset},
                                         "verbose": 0, "new_ops": None}).run(*arrays)
    except Exception as err:  # a reference that cannot run this node: import it instead
        logger.debug("not folding %s %r: %s", proto.op_type, proto.name, err)
        return None
    if not all(isinstance(r, np.ndarray | np.generic) for r in results):
        return None  # a sequence or an optional, not a tensor
    outputs = [np.asarray(r) for r in results]
    if sum(o.size for o in outputs) > FOLD_LIMIT or any(
            onnx_dtype(onnx.helper.np_dtype_to_tensor_dtype(o.dtype)) is None
            if o.dtype.kind in "biuf" else True for o in outputs):
        return None
    return [Literal(o) for o in outputs]
