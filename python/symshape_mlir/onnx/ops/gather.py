"""Gathers and scatters: ``Gather``, ``GatherElements``, ``GatherND``, ``ScatterND``,
``ScatterElements``.

Each gather becomes a ``symshape.gather`` through the frontend's ``take``,
``take_along_axis`` and ``gather_nd``; each scatter a ``linalg.generic``
through ``scatter_nd`` and ``put_along_axis`` (every ``reduction``).
Negative indices count from the end of their axis. Constant indices into
data known at import time are evaluated instead
(:mod:`symshape_mlir.onnx.ops.data`).

Example:
    ``GatherElements(x: [batch, seq], ids: [batch, k], axis=1)`` is ``[batch, k]``:
    ``symshape.gather`` of coordinates built by a ``linalg.generic``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from symshape_mlir.extent.expr import Const
from symshape_mlir.frontend.ops.elementwise import add, less, where
from symshape_mlir.frontend.ops.gather import gather_nd as gather_nd_
from symshape_mlir.frontend.ops.gather import take, take_along_axis
from symshape_mlir.frontend.ops.scatter import put_along_axis, scatter_nd
from symshape_mlir.onnx.context import NodeContext
from symshape_mlir.onnx.ops.abstract import abstract
from symshape_mlir.onnx.ops.data import data
from symshape_mlir.onnx.ops.shape import exact_dims
from symshape_mlir.onnx.registry import importer, shape_rule
from symshape_mlir.onnx.values import Known, Literal, Value
from symshape_mlir.shapes.errors import ShapeError
from symshape_mlir.shapes.gather import (
    gather_nd_shape,
    put_along_axis_shape,
    scatter_nd_shape,
    take_along_axis_shape,
    take_shape,
)
from symshape_mlir.shapes.shape import Shape

__all__: list[str] = []


@importer("Gather", since=13)
def gather(node: NodeContext) -> list[Value]:
    dims = exact_dims(node, 0)
    axis = node.axis(node.attr("axis", 0), len(dims))
    indices = data(node, 1)
    if indices is not None and indices.constant is not None:
        picks = indices.constant
        extent = dims[axis]
        if isinstance(extent, Const):
            if np.any((picks < -extent.value) | (picks >= extent.value)):
                node.error(f"indices {picks.tolist()} are out of range for extent {extent}")
            picks = np.where(picks < 0, picks + extent.value, picks)
        if np.all(picks >= 0):
            return [take(node.tensor(0), node.graph.as_tensor(Literal(picks), node.where), axis)]
    x, ids = node.tensor(0), node.tensor(1)
    if ids.dtype.is_float or ids.dtype.is_bool:
        node.error(f"indices must be integers, not {ids.dtype}")
    # Negative indices count from the end of the axis.
    size_ = node.graph.as_tensor(Known((), (dims[axis],), ids.dtype.numpy), node.where)
    wrapped = where(less(ids, 0), add(ids, size_), ids)
    return [take(x, wrapped, axis)]



@importer("GatherElements", since=13)
def gather_elements(node: NodeContext) -> list[Value]:
    x, ids = node.tensor(0), node.tensor(1)
    return [take_along_axis(x, ids, node.axis(node.attr("axis", 0), x.ndim))]


@importer("GatherND", since=13)
def gather_nd(node: NodeContext) -> list[Value]:
    return [gather_nd_(node.tensor(0), node.tensor(1), int(node.attr("batch_dims", 0)))]


@importer("ScatterND", since=13)
def scatter_nd_(node: NodeContext) -> list[Value]:
    data, indices, updates = node.tensor(0), node.tensor(1), node.tensor(2)
    return [scatter_nd(data, indices, updates, node.attr("reduction", "none"))]


@importer("ScatterElements", since=13)
def scatter_elements(node: NodeContext) -> list[Value]:
    data, indices, updates = node.tensor(0), node.tensor(1), node.tensor(2)
    axis = node.axis(node.attr("axis", 0), data.ndim)
    return [put_along_axis(data, indices, updates, axis, node.attr("reduction", "none"))]


# -- shape rules --------------------------------------------------------------------------


def _rule(node: NodeContext, rule: Callable[..., Shape], *args: object) -> list[Value]:
    """The output of the shared shape ``rule`` over ``args`` with input 0's element type
    (its :class:`ShapeError` located at the node)."""
    try:
        return [abstract(rule(*args), node.element_type(0))]
    except ShapeError as err:
        node.error(str(err))


@shape_rule("Gather", since=13)
def gather_rule(node: NodeContext) -> list[Value]:
    return _rule(node, take_shape, node.shape(0), node.shape(1), node.attr("axis", 0))


@shape_rule("GatherElements", since=13)
def gather_elements_rule(node: NodeContext) -> list[Value]:
    return _rule(node, take_along_axis_shape, node.shape(0), node.shape(1),
                 node.attr("axis", 0))


@shape_rule("GatherND", since=13)
def gather_nd_rule(node: NodeContext) -> list[Value]:
    return _rule(node, gather_nd_shape, node.shape(0), node.shape(1),
                 int(node.attr("batch_dims", 0)))


@shape_rule("ScatterND", since=13)
def scatter_nd_rule(node: NodeContext) -> list[Value]:
    return _rule(node, scatter_nd_shape, node.shape(0), node.shape(1), node.shape(2))


@shape_rule("ScatterElements", since=13)
def scatter_elements_rule(node: NodeContext) -> list[Value]:
    return _rule(node, put_along_axis_shape, node.shape(0), node.shape(1), node.shape(2),
                 node.attr("axis", 0))
