"""Matrix products: ``matmul`` / ``@`` with numpy's batch broadcasting.

Shapes come from :func:`symshape_mlir.shapes.matmul_shape`. Two 2-D operands
give ``linalg.matmul``; two 3-D operands with the same batch extent give
``linalg.batch_matmul``; any other batch pattern (broadcast, rank > 3) is a
``linalg.generic`` contraction. Contraction extents with two different axis
names conflict (:class:`~symshape_mlir.shapes.AxisConflictError`).

Example:
    >>> def f(x, w):                  # x: [batch, seq, 64], w: [64, 32]
    ...     return x @ w              # [batch, seq, 32]
"""

from __future__ import annotations

import numpy as np

from symshape_mlir.frontend.dtypes import DType, promote
from symshape_mlir.frontend.errors import AxisConflictError, FrontendError, ShapeError
from symshape_mlir.frontend.ops.broadcasting import (
    located_broadcast_error,
    read_leading_axes,
)
from symshape_mlir.frontend.ops.constants import constant
from symshape_mlir.frontend.ops.elementwise import astype
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_fill, emit_generic
from symshape_mlir.frontend.ops.shape_ops import (
    drop_unit_axes,
    insert_unit_axes,
    sum_to_shape,
    transpose,
)
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.frontend.vjp import Cotangents, Node, primitive, vjp_rule
from symshape_mlir.shapes.errors import BroadcastError
from symshape_mlir.shapes.rules import matmul_shape
from symshape_mlir.shapes.shape import Shape, axis_name

__all__ = ["matmul", "multiply_add"]


def _check_contraction(a: Tensor, b: Tensor, where: object) -> None:
    ka, kb = a.shape[-1], b.shape[-2]
    na, nb = axis_name(ka), axis_name(kb)
    if na and nb and na != nb:
        raise AxisConflictError(
            f"matmul at {where}: contraction axes '{na}' (input 0 axis {a.ndim - 1}) and "
            f"'{nb}' (input 1 axis {b.ndim - 2}) are different axes unless proven equal",
            (ka, kb),
        )


@primitive("matmul")
def matmul(a: Tensor, b: Tensor) -> Tensor:
    """``numpy.matmul``: a 1-D operand is a row (left) or a column (right)
    vector whose axis is dropped from the result; types are promoted.

    Raises:
        ShapeError: a 0-d operand, or provably different contraction extents.
        AxisConflictError: contraction axes with two different names.
        BroadcastError: incompatible batch extents.
    """
    where = user_location()
    if isinstance(a, np.ndarray) and isinstance(b, Tensor):
        a = constant(b.trace, a, where)
    if isinstance(b, np.ndarray) and isinstance(a, Tensor):
        b = constant(a.trace, b, where)
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise FrontendError(f"matmul at {where}: both operands must be traced tensors")
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError(f"matmul at {where}: operands must have at least one axis (got "
                         f"{a.symbolic_shape} and {b.symbolic_shape}); use * for scalars")
    if a.dtype != b.dtype:
        common = promote(a.dtype, b.dtype)
        a, b = astype(a, common, where), astype(b, common, where)
    if a.ndim == 1 or b.ndim == 1:
        row, column = a.ndim == 1, b.ndim == 1
        full = _matmul(insert_unit_axes(a, [0], where) if row else a,
                       insert_unit_axes(b, [1], where) if column else b, where)
        drop = ([full.ndim - 2] if row else []) + ([full.ndim - 1] if column else [])
        return drop_unit_axes(full, drop, where)
    return _matmul(a, b, where)


def _matmul(a: Tensor, b: Tensor, where: SourceLocation) -> Tensor:
    try:
        shape = matmul_shape(a.symbolic_shape, b.symbolic_shape)
    except BroadcastError as err:
        batch = [a.symbolic_shape[:-2], b.symbolic_shape[:-2]]
        raise located_broadcast_error("matmul", where, err, batch) from None
    except ShapeError as err:
        raise ShapeError(f"matmul at {where}: {err}") from None
    _check_contraction(a, b, where)
    trace = a.trace
    shape = Shape(shape.dims)
    nb = shape.rank - 2
    dtype = a.dtype
    zero: float | int = 0.0 if dtype.is_float else 0

    # Batch axes: read as is, at index 0 (static 1), or broadcast at run time.
    operands: list[tuple[Tensor, list[str]]] = []
    sources: list[tuple[Tensor, int] | None] = [None] * shape.rank
    for tensor, inner in ((a, ("m", "k")), (b, ("k", "n"))):
        target = Shape((*shape.dims[:nb], *tensor.shape[-2:]))
        tensor, exprs = read_leading_axes("matmul", tensor, tensor.ndim - 2, shape.dims[:nb],
                                          target, sources, where)
        loop = {"m": f"d{nb}", "n": f"d{nb + 1}", "k": f"d{nb + 2}"}
        operands.append((tensor, [*exprs, loop[inner[0]], loop[inner[1]]]))
    (lhs, lhs_map), (rhs, rhs_map) = operands
    sources[nb] = (lhs, lhs.ndim - 2)
    sources[nb + 1] = (rhs, rhs.ndim - 1)
    init = emit_empty(trace, shape, dtype, sources, where)
    result_type = tensor_type(shape, dtype)
    filled = emit_fill(trace, init, dtype, zero, result_type, where)
    plain = lhs_map[:-2] == rhs_map[:-2] == [f"d{i}" for i in range(nb)]
    if plain and nb <= 1:
        op = "linalg.matmul" if nb == 0 else "linalg.batch_matmul"
        name = trace.ssa("mm")
        trace.emit(
            f"{name} = {op} ins({lhs.value}, {rhs.value} : {lhs.mlir_type}, {rhs.mlir_type}) "
            f"outs({filled} : {result_type}) -> {result_type}",
            where,
        )
        return Tensor(trace, name, shape, dtype)

    def body(block: Body, args: list[str]) -> str:
        return multiply_add(block, args, dtype)

    iterators = ["parallel"] * (nb + 2) + ["reduction"]
    out_map = [f"d{i}" for i in range(nb + 2)]
    return emit_generic(
        trace,
        [Operand(lhs, tuple(lhs_map)), Operand(rhs, tuple(rhs_map))],
        nb + 3,
        iterators,
        out_map,
        shape,
        dtype,
        filled,
        body,
        where,
    )


def multiply_add(block: Body, args: list[str], dtype: DType) -> str:
    """``acc + a * b`` of a contraction body (``args``: ``a``, ``b``, ``acc``)."""
    mul, add = ("arith.mulf", "arith.addf") if dtype.is_float else ("arith.muli", "arith.addi")
    product = block.op(f"{mul} {args[0]}, {args[1]}", dtype.mlir)
    return block.op(f"{add} {args[2]}, {product}", dtype.mlir)


# -- VJP rules -------------------------------------------------------------------------


def _swap_last(x: Tensor) -> Tensor:
    """``x`` with its last two axes exchanged."""
    return transpose(x, [*range(x.ndim - 2), x.ndim - 1, x.ndim - 2])


@vjp_rule("matmul")
def _matmul_vjp(node: Node, ct: Tensor) -> Cotangents:
    # With vectors as [1, k] rows and [k, 1] columns: dA = C B^T, dB = A^T C,
    # each summed back over the batch axes its operand was broadcast along.
    a, b = node.args["a"], node.args["b"]
    where = node.where
    row, column = a.ndim == 1, b.ndim == 1
    left = insert_unit_axes(a, [0], where) if row else a
    right = insert_unit_axes(b, [1], where) if column else b
    rank = ct.ndim + row + column
    units = ([rank - 2] if row else []) + ([rank - 1] if column else [])
    full = insert_unit_axes(ct, units, where) if units else ct
    result: dict[str, Tensor | None] = {}
    if node.wants(a):
        grad = sum_to_shape(matmul(full, _swap_last(right)), left, where)
        result["a"] = drop_unit_axes(grad, [0], where) if row else grad
    if node.wants(b):
        grad = sum_to_shape(matmul(_swap_last(left), full), right, where)
        result["b"] = drop_unit_axes(grad, [1], where) if column else grad
    return result
