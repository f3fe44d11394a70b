"""The symbolic shape of every value of an ONNX model, with or without building it.

``infer_shapes(model)`` imports the model (each node through the frontend,
as ``import_model`` does) and reads each value's shape off the traced
function. ``infer_shapes(model, build=False)`` builds nothing: each node's
registered shape rule (:func:`~symshape_mlir.onnx.registry.shape_rule`, one
beside each importer) gives its outputs' shapes and element types from its
inputs', after folding constants and evaluating shape data exactly as the
import does. Both name a graph input's ``dim_param`` axes after it, give an
unnamed axis of an input that names others the name ``<input>_<axis>``, and
an unnamed axis of an input that names none a fresh symbol (``_d0``).

The result is merged with the shapes the model already declares
(``value_info`` and graph outputs) under a policy, as in onnx's symbolic
shape inference:

=============  =====================================================================
``skip``       keep a declared shape; semantic errors are logged, their outputs left
               out (build=False)
``override``   the inferred shape replaces a declared one
``refine``     per axis, the more specific wins: a constant over a symbolic extent
               over a declared but unnamed one (the default)
``strict``     a declared constant that the inferred extent contradicts is an error
=============  =====================================================================

An op without a shape rule leaves its outputs (and what depends on them) out
of the result, with a warning when ``warn_on_missing``.

Example:
    >>> shapes = infer_shapes("model.onnx", build=False)        # doctest: +SKIP
    >>> shapes["/attn/Reshape_output_0"]                       # doctest: +SKIP
    Shape('[batch, seq, 12, 64]')
"""

from __future__ import annotations

import contextlib
import gc
import logging
import math
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
import onnx

import symshape_mlir.onnx.ops  # noqa: F401  (registers the rules)
from symshape_mlir.extent.context import ExtentContext
from symshape_mlir.extent.expr import Const, Expr, Sym
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.source import SourceLocation
from symshape_mlir.onnx.context import GraphState, NodeContext, onnx_dtype, onnx_type_name
from symshape_mlir.onnx.errors import OnnxImportError
from symshape_mlir.onnx.fold import FOLD_LIMIT, fold
from symshape_mlir.onnx.importer import (
    DEFAULT_DOMAINS,
    identifier,
    input_spec,
    literal,
    load_model,
    model_opset,
    trace_model,
)
from symshape_mlir.onnx.registry import lookup_evaluator, lookup_shape_rule
from symshape_mlir.onnx.values import KNOWN_LIMIT, Abstract, Literal, Undecided, Value, shape_of
from symshape_mlir.shapes.errors import ShapeError
from symshape_mlir.shapes.shape import Shape

__all__ = ["POLICIES", "infer_shapes"]

logger = logging.getLogger(__name__)

#: The ways inferred shapes merge with declared ones.
POLICIES = ("skip", "override", "refine", "strict")


def infer_shapes(
    model: str | os.PathLike[str] | onnx.ModelProto,
    *,
    constants: Mapping[str, Any] | None = None,
    build: bool = True,
    policy: str = "refine",
    warn_on_missing: bool = True,
) -> dict[str, Shape]:
    """The symbolic shape of every node output of ``model``, by value name.

    Args:
        model: a path or a ``ModelProto``.
        constants: graph inputs bound to constant values (see ``trace_model``).
        build: import the model to infer (every supported op), or only run
            the shape rules (faster; builds nothing).
        policy: how inferred shapes merge with the declared ones (:data:`POLICIES`).
        warn_on_missing: log a warning for each op without a shape rule
            (``build=False``).

    Raises:
        OnnxImportError: a located error of the model (and under ``strict``, a
            declared extent that the inferred one contradicts).
        ValueError: an unknown policy.
    """
    if policy not in POLICIES:
        raise ValueError(f"policy {policy!r} is not one of {', '.join(POLICIES)}")
    proto, file = load_model(model)
    shapes: dict[str, Shape] = {}
    if build:
        trace_model(model, constants=constants, value_shapes=shapes)
    else:
        with _collector_paused():
            _Inference(proto, file, policy, warn_on_missing).run(constants or {}, shapes)
    return _merge(proto, file, shapes, policy)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off: a graph's worth of small, acyclic objects
    otherwise triggers collections that cost a third of the run."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class _Inference:
    """One run of the shape rules over a graph."""

    def __init__(self, model: onnx.ModelProto, file: str, policy: str,
                 warn_on_missing: bool) -> None:
        self.model, self.file, self.policy = model, file, policy
        self.warn_on_missing = warn_on_missing
        self.opset = model_opset(model, file)
        self.context = ExtentContext()
        self.missing: set[str] = set()
        self.weights: dict[tuple[int, ...], Shape] = {}
        #: Rule outputs by op, attributes and inputs (see ``_apply``).
        self.seen: dict[tuple[Any, ...], list[Value]] = {}
        #: How many fresh symbols the rules have drawn.
        self.drawn = 0

    def run(self, constants: Mapping[str, Any], shapes: dict[str, Shape]) -> None:
        graph = self.model.graph
        here = SourceLocation(self.file, 0)
        state = GraphState(None)
        unknown = set(constants) - {v.name for v in graph.input}
        if unknown:
            raise OnnxImportError(f"constants name no graph input: {sorted(unknown)}", here)
        for init in graph.initializer:
            state.values[init.name] = _initializer(init, here, self.weights)
        for name, array in constants.items():
            state.values[name] = Literal(np.asarray(array))
        for value in graph.input:
            if value.name not in state.values:
                state.values[value.name] = self._argument(value, here)
        state.subgraph = lambda sub, parent: self._subgraph(state, sub, parent, shapes)
        state.fresh = self._fresh
        try:
            for index, node in enumerate(graph.node):
                self._node(state, node, index, shapes)
        finally:
            # The closure holds the state that holds it: unlinked, the graph's values are
            # freed when the run returns rather than by a collection over all of them.
            state.subgraph = None

    def _argument(self, value: onnx.ValueInfoProto, where: SourceLocation) -> Abstract:
        spec = input_spec(value, where)
        label = identifier(value.name, reserved=False)
        named = any(isinstance(a, str) and a != "?" for a in spec.axes)
        dims: list[ShapeExtent] = []
        for axis, item in enumerate(spec.axes):
            if isinstance(item, int):
                dims.append(Exact(Const(item)))
            elif item != "?":
                dims.append(Exact(Sym(item)))
            else:
                dims.append(Exact(Sym(f"{label}_{axis}") if named else
                                  self.context.fresh_symbol()))
        return Abstract(Shape(dims), spec.dtype.numpy)

    def _subgraph(self, state: GraphState, graph: onnx.GraphProto, parent: NodeContext,
                  shapes: dict[str, Shape]) -> list[Value]:
        for init in graph.initializer:
            state.values[init.name] = _initializer(init, parent.where, self.weights)
        for node in graph.node:
            self._node(state, node, parent.where.line - 1, shapes)
        missing = [o.name for o in graph.output if o.name not in state.values]
        if missing:
            parent.error(f"subgraph {graph.name!r} never computes {missing}")
        return [state.values[o.name] for o in graph.output]

    def _node(self, state: GraphState, node: onnx.NodeProto, index: int,
              shapes: dict[str, Shape]) -> None:
        op = node.op_type
        context = NodeContext(node, self.opset, 0, state, file=self.file, index=index)
        if node.domain not in DEFAULT_DOMAINS:
            context.error(f"domain {node.domain!r} is not supported")
        values = state.values
        data = True  # folding and evaluating need every input to be data
        for name in context.inputs:
            if name:
                value = values.get(name)
                if value is None:
                    return  # an input no rule could give: its consumers are unknown too
                data = data and type(value) is not Abstract
        rule = lookup_shape_rule(op, self.opset)
        try:
            outputs = fold(context) if data else None
            evaluate = lookup_evaluator(op, self.opset) if data else None
            if outputs is None and evaluate is not None:
                try:
                    outputs = evaluate(context)
                except Undecided:
                    outputs = None
            if outputs is None:
                if rule is None:
                    self._missing(op)
                    return
                outputs = self._apply(rule, context)
        except (FrontendError, ShapeError) as err:
            self._semantic(context, str(err))
            return
        except OnnxImportError as err:
            if self.policy != "skip" or not err.op_type:
                raise
            logger.warning("%s", err)
            return
        for name, value in zip(node.output, outputs, strict=False):
            if name:
                state.values[name] = value
                shapes[name] = shape_of(value)

    def _apply(self, rule: Callable[[NodeContext], list[Value]],
               context: NodeContext) -> list[Value]:
        """``rule``'s outputs for the node, reused from an earlier node of the same op,
        attributes and inputs (layers repeat): a rule is a function of those alone,
        except where it draws a fresh symbol, which is never reused."""
        key = _rule_key(context.node, context.inputs, context.graph.values)
        outputs = self.seen.get(key) if key is not None else None
        if outputs is None:
            drawn = self.drawn
            outputs = rule(context)
            if key is not None and self.drawn == drawn:
                self.seen[key] = outputs
        return outputs

    def _fresh(self, low: Expr, high: Expr) -> Sym:
        self.drawn += 1
        return self.context.fresh_symbol()

    def _semantic(self, context: NodeContext, message: str) -> None:
        if self.policy != "skip":
            context.error(message)
        logger.warning("%s: %s", context.where, message)

    def _missing(self, op: str) -> None:
        if self.warn_on_missing and op not in self.missing:
            logger.warning("ONNX %s has no shape rule: its outputs are left out", op)
        self.missing.add(op)


def _initializer(init: onnx.TensorProto, where: SourceLocation,
                 weights: dict[tuple[int, ...], Shape]) -> Value:
    """Initializers that may feed shape data (small integers and booleans, tiny floats that
    may fold) as constants; the others by shape and element type, without reading them.
    ``weights`` holds the shapes of those already seen, by dims (models repeat a handful)."""
    dims = tuple(init.dims)
    count = math.prod(dims)
    if count <= KNOWN_LIMIT or (count <= FOLD_LIMIT and init.data_type in _DATA_TYPES):
        return literal(init, where)
    dtype = onnx_dtype(init.data_type)
    if dtype is None:
        raise OnnxImportError(
            f"initializer {init.name!r} has element type {onnx_type_name(init.data_type)}, "
            "which the importer does not support", where)
    shape = weights.get(dims)
    if shape is None:
        shape = weights[dims] = Shape([Exact(Const(n)) for n in dims])
    return Abstract(shape, dtype.numpy)


_SUBGRAPHS = frozenset({onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS})


def _rule_key(node: onnx.NodeProto, inputs: list[str],
              values: Mapping[str, Value]) -> tuple[Any, ...] | None:
    """What a shape rule's outputs depend on: the op, its attributes and its inputs by
    content (``None`` for a node holding a subgraph or reading a large constant)."""
    parts: list[Any] = [node.op_type]
    for attribute in node.attribute:
        if attribute.type in _SUBGRAPHS:
            return None
        parts.append(attribute.SerializeToString())
    for name in inputs:
        value = values[name] if name else None
        if type(value) is Literal:
            array = value.array
            if array.size > KNOWN_LIMIT:
                return None
            parts.append((array.dtype.str, array.shape, array.tobytes()))
        else:
            parts.append(value)  # Abstract and Known compare by content
    return tuple(parts)


_DATA_TYPES = frozenset({onnx.TensorProto.INT64, onnx.TensorProto.INT32, onnx.TensorProto.BOOL})


def _declared(model: onnx.ModelProto) -> dict[str, list[int | str | None]]:
    """The shapes the model declares for its values, per axis a size, a name or ``None``."""
    out: dict[str, list[int | str | None]] = {}
    for info in [*model.graph.value_info, *model.graph.output]:
        if not info.type.HasField("tensor_type") or not info.type.tensor_type.HasField("shape"):
            continue
        out[info.name] = [
            int(d.dim_value) if d.HasField("dim_value") else (d.dim_param or None)
            for d in info.type.tensor_type.shape.dim
        ]
    return out


def _constant(extent: ShapeExtent) -> int | None:
    return extent.expr.value if extent.is_exact and isinstance(extent.expr, Const) else None


def _merge(model: onnx.ModelProto, file: str, shapes: dict[str, Shape],
           policy: str) -> dict[str, Shape]:
    """``shapes`` merged with the declared shapes under ``policy`` (see the module)."""
    if policy == "override":
        return shapes
    for name, dims in _declared(model).items():
        inferred = shapes.get(name)
        if inferred is None:
            continue
        if policy == "strict" and (len(dims) != inferred.rank or any(
                isinstance(d, int) and _constant(e) not in (None, d)
                for d, e in zip(dims, inferred, strict=False))):
            raise OnnxImportError(
                f"value {name!r} is declared {dims}, inferred {inferred}",
                SourceLocation(file, 0))
        if len(dims) != inferred.rank:
            continue  # skip and refine keep the inferred shape of another rank
        merged: list[ShapeExtent] = []
        for item, extent in zip(dims, inferred, strict=True):
            if isinstance(item, int) and (policy == "skip" or _constant(extent) is None):
                merged.append(Exact(Const(item)))
            elif isinstance(item, str) and policy == "skip":
                merged.append(Exact(Sym(identifier(item))))
            else:
                merged.append(extent)
        shapes[name] = Shape(merged)
    return shapes
