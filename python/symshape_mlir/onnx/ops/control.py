"""Control flow: ``If`` whose condition is decided when the model is imported.

Exporters leave ``If`` nodes on conditions computed from shapes (``seq >
max_positions``); the condition is evaluated like other shape data, and the
branch it selects is imported in place of the node (its nodes see the outer
graph's values). A condition that depends on the binding, or on tensor data,
is an error naming it: a run-time choice between two subgraphs is not
supported.

Example:
    ``If(GreaterOrEqual(Shape(x)[0], 0), then_branch, else_branch)`` imports
    ``then_branch`` (``batch >= 0`` holds at every binding); with ``Greater``
    the condition ``batch > 0`` is undecided, and the import fails naming it.
"""

from __future__ import annotations

import onnx

from symshape_mlir.onnx.context import NodeContext
from symshape_mlir.onnx.registry import importer, shape_rule
from symshape_mlir.onnx.values import Value

__all__: list[str] = []


@importer("If", since=13)
@shape_rule("If", since=13)
def if_(node: NodeContext) -> list[Value]:
    condition = node.known(0, "cond")
    value = condition.constant
    if value is None or value.size != 1:
        node.error(f"the condition must be one value known when the model is imported, not "
                   f"{[str(e) for e in condition.elements]}")
    branch = node.attr("then_branch" if bool(value.reshape(-1)[0]) else "else_branch")
    if not isinstance(branch, onnx.GraphProto):
        node.error("the branch is not a graph")
    assert node.graph.subgraph is not None
    return node.graph.subgraph(branch, node)
