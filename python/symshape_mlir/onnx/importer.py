"""Importing an ONNX model into a symshape ``func.func``.

Every ``dim_param`` of a graph input becomes a named axis (the function
argument's ``symshape.axes``); an unnamed dynamic dim of an input that
names others is named ``<input>_<axis>``, and one of an input that names
none is a fresh symbol. Initializers and ``Constant`` nodes are constants
(large ones as ``dense_resource`` blobs). Each node is imported by the
registered importer for its operator version at the model's opset
(:mod:`symshape_mlir.onnx.registry`), located at the node:
``loc("node name"("model.onnx":<position>:1))``.

Example:
    >>> module = import_model("model.onnx")
    >>> print(module)                                     # doctest: +SKIP
    func.func @main(%arg0: tensor<?x?x64xf32> {symshape.axes = #symshape.shape<[batch, seq, 64]>})
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import onnx
from mlir import ir
from onnx import numpy_helper

import symshape_mlir.onnx.ops  # noqa: F401  (registers the importers)
from symshape_mlir.extent.expr import RESERVED_WORDS
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.ops.constants import INLINE_LIMIT
from symshape_mlir.frontend.source import SourceLocation, located
from symshape_mlir.frontend.tensor import Tensor, TensorSpec
from symshape_mlir.frontend.tracer import FunctionTrace
from symshape_mlir.frontend.tracing import TracedFunction, trace, trace_module
from symshape_mlir.onnx.context import (
    GraphState,
    NodeContext,
    node_location,
    onnx_dtype,
    onnx_type_name,
)
from symshape_mlir.onnx.errors import OnnxImportError
from symshape_mlir.onnx.fold import fold
from symshape_mlir.onnx.registry import lookup, lookup_evaluator
from symshape_mlir.onnx.values import Literal, Undecided, Value, shape_of
from symshape_mlir.shapes.errors import ShapeError
from symshape_mlir.shapes.shape import Shape

__all__ = [
    "DEFAULT_DOMAINS", "MIN_OPSET", "identifier", "import_model", "input_spec", "literal",
    "load_model", "model_opset", "trace_model",
]

#: The oldest default-domain opset the importer reads.
MIN_OPSET = 13

#: The domains of the default opset.
DEFAULT_DOMAINS = ("", "ai.onnx")


def load_model(model: str | os.PathLike[str] | onnx.ModelProto) -> tuple[onnx.ModelProto, str]:
    """The model and the file name its locations use."""
    if isinstance(model, onnx.ModelProto):
        return model, "<onnx>"
    path = os.fspath(model)
    try:
        return onnx.load(path), path
    except (OSError, onnx.onnx_cpp2py_export.checker.ValidationError) as err:
        raise OnnxImportError(f"cannot read the model: {err}", SourceLocation(path, 0)) from None
    except Exception as err:
        raise OnnxImportError(f"not an ONNX model: {err}", SourceLocation(path, 0)) from None


def identifier(text: str, reserved: bool = True) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", text)
    if not name or name[0].isdigit():
        name = f"d_{name}"
    if reserved and (name in RESERVED_WORDS or re.fullmatch(r"_d\d+", name)):
        name = f"axis{name}" if name.startswith("_") else f"axis_{name}"
    return name


def model_opset(model: onnx.ModelProto, file: str) -> int:
    versions = [o.version for o in model.opset_import if o.domain in DEFAULT_DOMAINS]
    newest = onnx.defs.onnx_opset_version()
    if not versions:
        raise OnnxImportError("the model imports no default-domain opset", SourceLocation(file, 0))
    opset = int(versions[0])
    if not MIN_OPSET <= opset <= newest:
        raise OnnxImportError(
            f"opset {opset} is not supported (the importer reads opsets {MIN_OPSET} to {newest})",
            SourceLocation(file, 0),
        )
    return opset


def input_spec(value: onnx.ValueInfoProto, where: SourceLocation) -> TensorSpec:
    kind = value.type.WhichOneof("value")
    if kind != "tensor_type":
        raise OnnxImportError(f"input {value.name!r} is a {kind}, not a tensor", where)
    tensor = value.type.tensor_type
    dtype = onnx_dtype(tensor.elem_type)
    if dtype is None:
        raise OnnxImportError(
            f"input {value.name!r} has element type {onnx_type_name(tensor.elem_type)}, "
            "which the importer does not support",
            where,
        )
    if not tensor.HasField("shape"):
        raise OnnxImportError(f"input {value.name!r} has no shape (its rank is needed)", where)
    axes: list[int | str] = []
    for dim in tensor.shape.dim:
        which = dim.WhichOneof("value")
        if which == "dim_value" and dim.dim_value >= 0:
            axes.append(int(dim.dim_value))
        elif which == "dim_param" and dim.dim_param:
            axes.append(identifier(dim.dim_param))
        else:
            axes.append("?")
    return TensorSpec(axes, dtype)


def trace_model(
    model: str | os.PathLike[str] | onnx.ModelProto,
    *,
    name: str = "main",
    constants: Mapping[str, Any] | None = None,
    value_shapes: dict[str, Shape] | None = None,
) -> TracedFunction:
    """Imports the main graph of ``model`` as one traced function.

    Args:
        model: a path or a ``ModelProto``.
        name: the function's symbol name.
        constants: graph inputs bound to constant values (numpy arrays):
            they become constants of the function instead of arguments,
            so data such as a ``Reshape`` target is known at import time.
        value_shapes: if given, filled with the inferred shape of every
            node output, by value name.

    Raises:
        OnnxImportError: an unsupported opset, op, attribute or element type,
            or a shape error, located at the node.
    """
    proto, file = load_model(model)
    opset = model_opset(proto, file)
    graph = proto.graph
    here = SourceLocation(file, 0)
    bound = dict(constants or {})
    unknown = set(bound) - {v.name for v in graph.input}
    if unknown:
        raise OnnxImportError(f"constants name no graph input: {sorted(unknown)}", here)
    initial: dict[str, Value] = {}
    for init in graph.initializer:
        initial[init.name] = literal(init, here)
    for input_name, array in bound.items():
        initial[input_name] = Literal(np.asarray(array))
    arguments = [v for v in graph.input if v.name not in initial]
    specs = [input_spec(v, here) for v in arguments]
    labels = [identifier(v.name, reserved=False) for v in arguments]

    def subgraph(state: GraphState, graph: onnx.GraphProto, parent: NodeContext) -> list[Value]:
        for init in graph.initializer:
            state.values[init.name] = literal(init, parent.where)
        index = parent.where.line - 1
        for node in graph.node:
            _import_node(state, node, index, opset, file)
        missing = [o.name for o in graph.output if o.name not in state.values]
        if missing:
            parent.error(f"subgraph {graph.name!r} never computes {missing}")
        return [state.values[o.name] for o in graph.output]

    def body(function: FunctionTrace, *args: Tensor) -> list[Tensor]:
        state = GraphState(function, subgraph=lambda graph, parent: subgraph(state, graph, parent))
        state.values.update(initial)
        for value, arg in zip(arguments, args, strict=True):
            state.values[value.name] = arg
        for index, node in enumerate(graph.node):
            _import_node(state, node, index, opset, file)
            if value_shapes is not None:
                for output in node.output:
                    if output in state.values:
                        value_shapes[output] = shape_of(state.values[output])
        results = []
        for output in graph.output:
            where = SourceLocation(file, 0, 1, f"output {output.name!r}", output.name)
            if output.name not in state.values:
                raise OnnxImportError(f"graph output {output.name!r} is never computed", where)
            with located(where):
                results.append(state.as_tensor(state.values[output.name], where))
        return results

    try:
        return trace(
            body, *specs, name=identifier(name, reserved=False), labels=labels,
            location=SourceLocation(file, 0, 1, "", graph.name or name), pass_trace=True,
        )
    except (FrontendError, ShapeError) as err:
        raise OnnxImportError(str(err), here) from None


def literal(init: onnx.TensorProto, where: SourceLocation) -> Literal:
    if onnx_dtype(init.data_type) is None:
        raise OnnxImportError(
            f"initializer {init.name!r} has element type {onnx_type_name(init.data_type)}, "
            "which the importer does not support",
            where,
        )
    return Literal(tensor_array(init, shared=math.prod(init.dims) > INLINE_LIMIT))


#: Element types whose ``raw_data`` is the array's bytes, little-endian as ONNX stores them
#: (on a big-endian host the copy keeps the little-endian dtype; numpy computes with it).
_RAW_LAYOUT: dict[int, np.dtype] = {
    onnx.TensorProto.FLOAT: np.dtype("<f4"),
    onnx.TensorProto.DOUBLE: np.dtype("<f8"),
    onnx.TensorProto.INT64: np.dtype("<i8"),
    onnx.TensorProto.INT32: np.dtype("<i4"),
    onnx.TensorProto.INT16: np.dtype("<i2"),
    onnx.TensorProto.INT8: np.dtype("i1"),
    onnx.TensorProto.UINT8: np.dtype("u1"),
    onnx.TensorProto.UINT64: np.dtype("<u8"),
    onnx.TensorProto.BOOL: np.dtype("?"),
}


def tensor_array(init: onnx.TensorProto, *, shared: bool = False) -> np.ndarray:
    """``init``'s data as a numpy array: its raw bytes read directly where their layout
    is the array's (about 10x faster than ``numpy_helper.to_array`` on small tensors,
    which shape computations are full of), else through ``numpy_helper``.

    With ``shared``, raw bytes are returned as a read-only view, not copied:
    a large initializer then reaches the module's blob with no copy at all.
    """
    layout = _RAW_LAYOUT.get(init.data_type)
    if layout is not None and init.data_location != onnx.TensorProto.EXTERNAL \
            and init.HasField("raw_data"):
        raw = init.raw_data
        dims = tuple(init.dims)
        if len(raw) == layout.itemsize * math.prod(dims):
            array = np.frombuffer(raw, layout).reshape(dims)
            return array if shared else array.copy()
    return numpy_helper.to_array(init)


def _import_node(
    state: GraphState, node: onnx.NodeProto, index: int, opset: int, file: str
) -> None:
    """Imports one node: folded when its inputs are constants, evaluated when they are known
    data, else by its importer."""
    where = node_location(file, node, index)
    if node.domain not in DEFAULT_DOMAINS:
        raise OnnxImportError(
            f"domain {node.domain!r} is not supported", where, node.op_type, node.name, opset
        )
    fn, version = lookup(node.op_type, opset)
    context = NodeContext(node, opset, version or 0, state, file=file, index=index, where=where)
    for position, input_name in enumerate(node.input):
        if input_name and input_name not in state.values:
            context.error(f"input {position} {input_name!r} is not defined before the node")
    evaluate = lookup_evaluator(node.op_type, opset)
    undecided = next((state.undecided[n] for n in node.input if n in state.undecided), None)
    with located(where):
        try:
            outputs = fold(context)
            if outputs is None and evaluate is not None:
                try:
                    outputs = evaluate(context)
                except Undecided as why:
                    undecided = f"{node.op_type} node {where.name!r} cannot decide {why}"
            if outputs is None:
                if fn is None:
                    detail = f"version {version} " if version is not None else ""
                    context.error(f"ONNX {node.op_type} {detail}is not supported")
                outputs = fn(context)
        except (FrontendError, ShapeError) as err:
            context.error(str(err))
    wanted = [n for n in node.output]
    if len(outputs) < len([n for n in wanted if n]):
        context.error(f"produces {len(outputs)} outputs, the node names {len(wanted)}")
    for output_name, value in zip(wanted, outputs, strict=False):
        if output_name:
            state.values[output_name] = value
            if undecided is not None and not isinstance(value, Literal):
                state.undecided[output_name] = undecided


def import_model(
    model: str | os.PathLike[str] | onnx.ModelProto,
    *,
    name: str = "main",
    constants: Mapping[str, Any] | None = None,
    context: ir.Context | None = None,
) -> ir.Module:
    """Imports ``model`` as an MLIR module holding one function (``@main``).

    See :func:`trace_model` for the arguments and errors; ``context`` is the
    MLIR context to parse into (a fresh one by default).
    """
    return trace_module([trace_model(model, name=name, constants=constants)], context)
