"""Emitting ``linalg.generic`` ops: indexing maps, the body, the result tensor.

Elementwise ops and reductions are written as ``linalg.generic`` (IREE 3.13
parses no named elementwise linalg ops). A body is built with a
:class:`Body`, whose ops become lines of the region.

Example:
    >>> body = Body(trace, where)                       # doctest: +SKIP
    >>> body.op("arith.addf %in0, %in1", "f32")          # doctest: +SKIP
    '%v7'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from symshape_mlir.extent.expr import Const
from symshape_mlir.extent.guarantee import Exact
from symshape_mlir.frontend.dtypes import DType
from symshape_mlir.frontend.index import Index
from symshape_mlir.frontend.source import SourceLocation
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import FunctionTrace, tensor_type
from symshape_mlir.shapes.shape import Shape

__all__ = [
    "Body",
    "Operand",
    "affine_map",
    "emit_empty",
    "emit_empty_sized",
    "emit_fill",
    "emit_generic",
    "emit_index_vector",
]


def affine_map(rank: int, results: Sequence[str]) -> str:
    """``affine_map<(d0, ...) -> (results)>`` over ``rank`` loop dimensions."""
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ({', '.join(results)})>"


@dataclass(frozen=True)
class Operand:
    """An input of a generic op and its indexing map results (``"d0"``, ``"0"``)."""

    tensor: Tensor
    map: tuple[str, ...]


class Body:
    """The region of a generic op under construction."""

    def __init__(self, trace: FunctionTrace, where: SourceLocation) -> None:
        self.trace = trace
        self.where = where
        self.lines: list[str] = []

    def op(self, text: str, type_: str) -> str:
        """Emits ``%r = <text> : <type_>`` and returns ``%r``."""
        name = self.trace.ssa("b")
        self.lines.append(f"  {name} = {text} : {type_} {self.where.mlir}")
        return name

    def const(self, dtype: DType, value: float | int) -> str:
        """A scalar constant of ``dtype``."""
        return self.op(f"arith.constant {dtype.literal(value)}", dtype.mlir)

    def const_index(self, value: int) -> str:
        """An ``index`` constant."""
        return self.op(f"arith.constant {value}", "index")


def emit_empty(
    trace: FunctionTrace,
    shape: Shape,
    dtype: DType,
    sources: Sequence[tuple[Tensor, int] | None],
    where: SourceLocation,
) -> str:
    """Emits ``tensor.empty`` of ``shape``, sized from ``sources`` where given."""
    sizes = trace.dynamic_sizes(shape.dims, sources, where)
    name = trace.ssa("t")
    trace.emit(f"{name} = tensor.empty({', '.join(sizes)}) : {tensor_type(shape, dtype)}", where)
    return name


def emit_empty_sized(
    trace: FunctionTrace, sizes: Sequence[Index], dtype: DType, where: SourceLocation
) -> tuple[str, Shape]:
    """Emits ``tensor.empty`` sized by ``index`` values; returns it and its shape."""
    shape = Shape([s.extent for s in sizes])
    dynamic = [s.value for s in sizes if s.const is None]
    name = trace.ssa("t")
    trace.emit(f"{name} = tensor.empty({', '.join(dynamic)}) : {tensor_type(shape, dtype)}", where)
    return name, shape


def emit_fill(
    trace: FunctionTrace,
    init: str,
    dtype: DType,
    value: float | int,
    type_: str,
    where: SourceLocation,
) -> str:
    """Emits ``linalg.fill`` of ``init`` with a constant."""
    scalar = trace.ssa("s")
    trace.emit(f"{scalar} = arith.constant {dtype.literal(value)} : {dtype.mlir}", where)
    name = trace.ssa("f")
    trace.emit(
        f"{name} = linalg.fill ins({scalar} : {dtype.mlir}) outs({init} : {type_}) -> {type_}",
        where,
    )
    return name


def emit_generic(
    trace: FunctionTrace,
    inputs: Sequence[Operand],
    loops: int,
    iterators: Sequence[str],
    out_map: Sequence[str],
    out_shape: Shape,
    out_dtype: DType,
    init: str,
    body: Callable[[Body, list[str]], str],
    where: SourceLocation,
) -> Tensor:
    """Emits a ``linalg.generic`` with one result and returns it.

    Args:
        inputs: the input tensors and their maps.
        loops: the number of loop dimensions.
        iterators: ``"parallel"`` or ``"reduction"`` per loop.
        out_map: the output map results.
        out_shape, out_dtype: the result.
        init: the ``outs`` tensor (empty, or filled for a reduction).
        body: builds the region from the block arguments (inputs, then the
            output) and returns the yielded value.
        where: the location of the op.
    """
    maps = [affine_map(loops, o.map) for o in inputs] + [affine_map(loops, out_map)]
    out_type = tensor_type(out_shape, out_dtype)
    block = Body(trace, where)
    args = [trace.ssa("a") for _ in inputs]
    out_arg = trace.ssa("acc")
    yielded = body(block, [*args, out_arg])
    name = trace.ssa("g")
    ins = ", ".join(o.tensor.value for o in inputs)
    in_types = ", ".join(o.tensor.mlir_type for o in inputs)
    ins_text = f" ins({ins} : {in_types})" if inputs else ""
    block_args = ", ".join(
        [f"{a}: {o.tensor.dtype.mlir}" for a, o in zip(args, inputs, strict=True)]
        + [f"{out_arg}: {out_dtype.mlir}"]
    )
    iterator_text = ", ".join(f'"{i}"' for i in iterators)
    lines = [
        f"{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
        f"iterator_types = [{iterator_text}]}}{ins_text} outs({init} : {out_type}) {{",
        f"^bb0({block_args}):",
        *block.lines,
        f"  linalg.yield {yielded} : {out_dtype.mlir} {where.mlir}",
    ]
    trace.lines.extend(lines)
    trace.emit(f"}} -> {out_type}", where)
    return Tensor(trace, name, out_shape, out_dtype)


def emit_index_vector(
    trace: FunctionTrace, indices: Sequence[str], dtype: DType, where: SourceLocation,
    shape: Sequence[int] | None = None,
) -> Tensor:
    """An integer tensor of ``index`` values (a reshape's target, sizes known
    while importing), each cast to ``dtype``; 1-D unless ``shape`` is given
    (row-major, as many elements as ``indices``).

    .. code-block:: mlir

        %i3 = arith.index_cast %n : index to i64
        %fe = tensor.from_elements %i3, %c4 : tensor<2xi64>
    """
    items = []
    for index in indices:
        name = trace.ssa("i")
        trace.emit(f"{name} = arith.index_cast {index} : index to {dtype.mlir}", where)
        items.append(name)
    dims = Shape([Exact(Const(n)) for n in (shape if shape is not None else [len(items)])])
    name = trace.ssa("fe")
    trace.emit(f"{name} = tensor.from_elements {', '.join(items)} : {tensor_type(dims, dtype)}",
               where)
    return Tensor(trace, name, dims, dtype)
