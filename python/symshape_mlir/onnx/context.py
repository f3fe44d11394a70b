"""What an op importer sees: the node, its inputs, attributes and the traced function.

:class:`GraphState` maps value names to what they stand for (a traced
tensor, a :class:`~symshape_mlir.onnx.values.Known` or a
:class:`~symshape_mlir.onnx.values.Literal`) and turns data known at import
time into tensors when an op needs it at run time. :class:`NodeContext`
gives one node's importer its inputs and attributes, and located errors.

Example:
    >>> def reshape(node: NodeContext) -> list[Value]:      # doctest: +SKIP
    ...     data = node.tensor(0)                          # a traced tensor
    ...     target = node.known(1, "shape")                # elements as extents
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np
import onnx
from onnx import helper, numpy_helper

from symshape_mlir.extent.expr import Expr, Sym
from symshape_mlir.extent.guarantee import Exact
from symshape_mlir.frontend.dtypes import DType, as_dtype
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.ops.constants import constant
from symshape_mlir.frontend.ops.generic import emit_index_vector
from symshape_mlir.frontend.source import SourceLocation
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import FunctionTrace
from symshape_mlir.onnx.errors import OnnxImportError
from symshape_mlir.onnx.values import (
    Abstract,
    Known,
    Literal,
    Value,
    const_values,
    dtype_of,
    shape_of,
)
from symshape_mlir.shapes.shape import Shape

__all__ = ["GraphState", "NodeContext", "node_location", "onnx_dtype"]

_DTYPES: dict[int, str] = {
    onnx.TensorProto.FLOAT: "f32",
    onnx.TensorProto.DOUBLE: "f64",
    onnx.TensorProto.FLOAT16: "f16",
    onnx.TensorProto.BFLOAT16: "bf16",
    onnx.TensorProto.INT8: "i8",
    onnx.TensorProto.INT16: "i16",
    onnx.TensorProto.UINT8: "u8",
    onnx.TensorProto.UINT64: "u64",
    onnx.TensorProto.INT32: "i32",
    onnx.TensorProto.INT64: "i64",
    onnx.TensorProto.BOOL: "i1",
}


def onnx_dtype(elem_type: int) -> DType | None:
    """The frontend element type of an ONNX ``TensorProto`` data type (None: unsupported)."""
    name = _DTYPES.get(int(elem_type))
    return as_dtype(name) if name else None


def onnx_type_name(elem_type: int) -> str:
    """The ONNX name of a data type (``FLOAT``, ``UINT8``)."""
    try:
        return str(onnx.TensorProto.DataType.Name(elem_type))
    except ValueError:
        return f"data type {elem_type}"


@dataclass
class GraphState:
    """The values of the graph being imported.

    Attributes:
        trace: the ``func.func`` being built (``None`` when shapes are only
            inferred: values are then ``Abstract``, never traced tensors).
        values: what each value name stands for.
    """

    trace: FunctionTrace | None
    values: dict[str, Value] = field(default_factory=dict)
    #: Why a value is not known data: the node and element that could not be
    #: decided at import time (``Equal node 'eq' cannot decide element [0] (batch == 1)``).
    undecided: dict[str, str] = field(default_factory=dict)
    #: Imports the nodes of a subgraph (an ``If`` branch) into this graph at the
    #: position of the node that holds it; gives the subgraph's outputs.
    subgraph: Callable[[onnx.GraphProto, NodeContext], list[Value]] | None = None
    #: A fresh symbol for a data-dependent extent between two ends (shape rules).
    fresh: Callable[[Expr, Expr], Sym] | None = None
    #: Tensors built from known data, by the data's id (the data kept alive beside).
    _tensors: dict[int, tuple[Value, Tensor]] = field(default_factory=dict)

    def as_tensor(self, value: Value, where: SourceLocation) -> Tensor:
        """``value`` as a traced tensor (known data is built once, where first needed)."""
        if isinstance(value, Tensor):
            return value
        assert self.trace is not None and not isinstance(value, Abstract), "not building"
        cached = self._tensors.get(id(value))
        if cached is not None:
            return cached[1]
        if isinstance(value, Literal):
            tensor = constant(self.trace, value.array, where)
        else:
            assert isinstance(value, Known)
            tensor = self._from_elements(value, where)
        self._tensors[id(value)] = (value, tensor)
        return tensor

    def _from_elements(self, value: Known, where: SourceLocation) -> Tensor:
        trace = self.trace
        assert trace is not None
        const = value.constant
        if const is not None:
            return constant(trace, const, where)
        indices = [trace.materialize(Exact(element), where) for element in value.elements]
        return emit_index_vector(trace, indices, as_dtype(value.dtype), where, value.shape)


def node_location(file: str, node: onnx.NodeProto, index: int) -> SourceLocation:
    """Where node ``index`` of a graph is: its line, op type and name (``Add 'add_3'``)."""
    label = node.name or f"{node.op_type}_{index}"
    return SourceLocation(file, index + 1, 1, f"{node.op_type} {label!r}", label)


class NodeContext:
    """One node being imported.

    Its location and attributes are read from the protobuf when first asked
    for: inferring shapes over a large graph visits every node once and
    rarely needs either.

    Attributes:
        node: the ONNX node.
        opset: the model's default-domain opset.
        version: the operator version in effect at that opset.
        graph: the graph's values.
        inputs: the input names (read once from the protobuf).
    """

    __slots__ = ("_attributes", "_file", "_index", "_where", "graph", "inputs", "node",
                 "opset", "version")

    def __init__(self, node: onnx.NodeProto, opset: int, version: int, graph: GraphState, *,
                 file: str, index: int, where: SourceLocation | None = None) -> None:
        self.node, self.opset, self.version, self.graph = node, opset, version, graph
        self.inputs: list[str] = list(node.input)
        self._file, self._index, self._where = file, index, where
        self._attributes: dict[str, onnx.AttributeProto] | None = None

    @property
    def where(self) -> SourceLocation:
        """The node's location (its position in the graph and name)."""
        if self._where is None:
            self._where = node_location(self._file, self.node, self._index)
        return self._where

    @property
    def trace(self) -> FunctionTrace:
        """The function being traced."""
        assert self.graph.trace is not None, "shape rules build nothing"
        return self.graph.trace

    def shape(self, index: int) -> Shape:
        """The shape of input ``index``."""
        return shape_of(self.value(index))

    def element_type(self, index: int) -> np.dtype:
        """The numpy element type of input ``index``."""
        return dtype_of(self.value(index))

    def error(self, message: str) -> NoReturn:
        """Raises an :class:`OnnxImportError` located at this node."""
        raise OnnxImportError(
            message, self.where, self.node.op_type, self.node.name, self.opset
        )

    # -- inputs -----------------------------------------------------------------------

    @property
    def input_count(self) -> int:
        """The number of inputs given (trailing empty names dropped)."""
        count = len(self.inputs)
        while count and not self.inputs[count - 1]:
            count -= 1
        return count

    def has(self, index: int) -> bool:
        """Whether optional input ``index`` is given."""
        return index < len(self.inputs) and bool(self.inputs[index])

    def value(self, index: int, what: str = "") -> Value:
        """What input ``index`` stands for.

        Raises:
            OnnxImportError: the input is missing.
        """
        inputs = self.inputs
        if index < len(inputs) and inputs[index]:
            return self.graph.values[inputs[index]]
        self.error(f"input {index}{f' ({what})' if what else ''} is required")

    def tensor(self, index: int, what: str = "") -> Tensor:
        """Input ``index`` as a traced tensor."""
        value = self.value(index, what)
        try:
            return self.graph.as_tensor(value, self.where)
        except FrontendError as err:
            self.error(str(err))

    def float_tensor(self, index: int = 0, what: str = "") -> Tensor:
        """Input ``index`` as a traced tensor of a floating-point type.

        Raises:
            OnnxImportError: the input's element type is not floating-point.
        """
        x = self.tensor(index, what)
        if not x.dtype.is_float:
            self.error(f"element type {x.dtype} is not supported (a floating-point type is)")
        return x

    def dtype(self, index: int) -> DType:
        """The element type of input ``index`` (without building it as a tensor)."""
        value = self.value(index)
        if isinstance(value, Tensor):
            return value.dtype
        array_dtype = dtype_of(value)
        try:
            return as_dtype(array_dtype)
        except TypeError:
            self.error(f"element type {array_dtype} is not supported")

    def tensors(self) -> list[Tensor]:
        """Every given input as a traced tensor."""
        return [self.tensor(i) for i in range(self.input_count)]

    def known(self, index: int, what: str) -> Known:
        """Input ``index`` as integer data known at import time.

        Raises:
            OnnxImportError: the data is computed at run time from values
                the importer cannot follow.
        """
        known = Known.of(self.value(index, what))
        if known is None:
            why = self.graph.undecided.get(self.inputs[index])
            self.error(
                f"input {index} ({what}) must be known when the model is imported: a constant, "
                "an initializer, or computed from tensor shapes"
                + (f"; it depends on how the axes are bound: {why}" if why else "")
            )
        return known

    def ints(self, index: int, what: str) -> list[int]:
        """Input ``index`` as constant integers."""
        known = self.known(index, what)
        values = const_values(known.elements)
        if values is None:
            self.error(f"input {index} ({what}) must be constant, not {list(known.elements)}")
        return values

    def literal(self, index: int, what: str) -> np.ndarray:
        """Input ``index`` as a constant array."""
        value = self.value(index, what)
        if isinstance(value, Literal):
            return value.array
        known = Known.of(value)
        if known is not None and known.constant is not None:
            return known.constant
        self.error(f"input {index} ({what}) must be a constant")

    # -- attributes ---------------------------------------------------------------------

    def attr(self, name: str, default: Any = None) -> Any:
        """Attribute ``name`` as a Python value (tensors as numpy arrays)."""
        attribute = self._attribute_table().get(name)
        if attribute is None:
            return default
        kind = attribute.type
        if kind == onnx.AttributeProto.INT:  # the common kinds read directly
            return attribute.i
        if kind == onnx.AttributeProto.INTS:
            return list(attribute.ints)
        value = helper.get_attribute_value(attribute)
        if isinstance(value, onnx.TensorProto):
            return numpy_helper.to_array(value)
        if isinstance(value, bytes):
            return value.decode()
        if isinstance(value, Sequence) and not isinstance(value, str):
            return list(value)
        return value

    def has_attr(self, name: str) -> bool:
        """Whether attribute ``name`` is set."""
        return name in self._attribute_table()

    def _attribute_table(self) -> dict[str, onnx.AttributeProto]:
        if self._attributes is None:
            self._attributes = {a.name: a for a in self.node.attribute}
        return self._attributes

    def axis(self, axis: int, rank: int, what: str = "axis") -> int:
        """``axis`` normalized into ``[0, rank)``."""
        if not -rank <= axis < rank:
            self.error(f"{what} {axis} is out of range for rank {rank}")
        return axis % rank
