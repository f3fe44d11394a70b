"""A softmax over the last axis of a tensor of rank 3 or more, as one
``linalg.softmax`` over rows.

IREE raises the chain the frontend emits for ``softmax`` (max, subtract,
exp, sum, divide) to ``linalg.softmax`` on the tensor's own axes and
splits the work along each leading axis by a divisor of its extent: where
one is prime, one row per workgroup (wav2vec2's attention, ``[4, 4, 199,
199]``: 3,184 workgroups of one row, 1.78 ms against 1.1 ms over 3,184
rows of 199). Over one axis of rows it finds a row count that divides:

.. code-block:: mlir

    %m = linalg.generic {...["parallel", "parallel", "parallel", "reduction"]}
        ins(%x : tensor<4x4x199x199xf32>) outs(%neg_inf : tensor<4x4x199xf32>) // maximumf
    ... subf, exp, the sum, divf ...
    // becomes
    %rows = tensor.collapse_shape %x [[0, 1, 2], [3]]
        : tensor<4x4x199x199xf32> into tensor<3184x199xf32>
    %s = linalg.softmax dimension(1) ins(%rows : tensor<3184x199xf32>)
        outs(%e : tensor<3184x199xf32>) -> tensor<3184x199xf32>
    %y = tensor.expand_shape %s [[0, 1, 2], [3]] output_shape [4, 4, 199, 199]
        : tensor<3184x199xf32> into tensor<4x4x199x199xf32>

Only a chain whose steps have no other use is rewritten, so nothing is
computed twice; ``linalg.softmax`` is what IREE makes of the chain anyway.
"""

from __future__ import annotations

import math
from typing import TypeGuard

from mlir import ir
from mlir.dialects import linalg, tensor

from symshape_mlir.lowering.iree.barriers import axis_sizes, chain, collapse, expand, producer
from symshape_mlir.lowering.iree.captures import fill_scalar
from symshape_mlir.walk import collect_ops

__all__ = ["softmax_rows"]


def _computes(op: ir.Operation | None, name: str) -> TypeGuard[ir.Operation]:
    """Whether ``op`` is a ``linalg.generic`` whose body is one ``name`` of its
    block arguments in order, yielded."""
    if op is None or op.name != "linalg.generic":
        return False
    block = op.regions[0].blocks[0]
    body = list(block.operations)
    if len(body) != 2 or body[0].name != name or body[1].name != "linalg.yield":
        return False
    inner = body[0]
    arguments = list(block.arguments)[: len(inner.operands)]
    return (list(body[1].operands) == [inner.results[0]]
            and list(inner.operands) == arguments)


def _maps(op: ir.Operation) -> list[ir.AffineMap]:
    return [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]


def _owner(value: ir.Value) -> ir.Operation | None:
    """The op making ``value`` before any ``tensor.cast``."""
    owner = producer(value)
    return owner.operation if owner is not None else None


def _same(a: ir.Value, b: ir.Value) -> bool:
    """Whether ``a`` and ``b`` are one value but for casts."""
    return chain(a)[-1] == chain(b)[-1]


def _readers(value: ir.Value) -> list[ir.Operation]:
    """The ops reading ``value`` (before any cast) through casts, other than
    for its sizes (``tensor.dim``, which canonicalization answers from the
    op's init)."""
    found: list[ir.Operation] = []
    pending = [chain(value)[-1]]
    while pending:
        for use in pending.pop().uses:
            if use.owner.name == "tensor.cast":
                pending.append(use.owner.results[0])
            elif use.owner.name != "tensor.dim":
                found.append(use.owner)
    return found


def _only_use(value: ir.Value, user: ir.Operation) -> bool:
    return _readers(value) == [user]


def _most_static(value: ir.Value) -> ir.Value:
    """``value`` or the value it casts, whichever type has the most static
    axes (a static variant's types pass through casts to dynamic ones)."""
    return max(chain(value), key=lambda v: sum(
        not ir.RankedTensorType(v.type).is_dynamic_dim(a)
        for a in range(ir.RankedTensorType(v.type).rank)))


def _filled_with(value: ir.Value, constant: float) -> bool:
    """Whether ``value`` holds the float ``constant`` everywhere (`fill_scalar`)."""
    scalar = fill_scalar(value)
    owner = scalar.owner if scalar is not None else None
    if not isinstance(owner, ir.OpView) or owner.name != "arith.constant":
        return False
    attr = owner.attributes["value"]
    return isinstance(attr, ir.FloatAttr) and ir.FloatAttr(attr).value == constant


def _row_reduction(value: ir.Value, name: str, init: float, rank: int) -> ir.Value | None:
    """The input of the ``linalg.generic`` making ``value`` when it reduces
    the last of ``rank`` axes by ``name`` from ``init``, or None."""
    op = _owner(value)
    if not _computes(op, name) or len(op.operands) != 2 or not _filled_with(op.operands[1], init):
        return None
    identity = ir.AffineMap.get_identity(rank)
    rows = ir.AffineMap.get(rank, 0, [ir.AffineExpr.get_dim(d) for d in range(rank - 1)])
    return op.operands[0] if _maps(op) == [identity, rows] else None


def _by_rows(op: ir.Operation | None, name: str, rank: int) -> tuple[ir.Value, ir.Value] | None:
    """The full operand and the reduced value (before its unit axis) of the
    elementwise ``linalg.generic`` ``op`` computing ``name`` of an element
    and its row's value, or None."""
    if not _computes(op, name) or len(op.operands) != 3:
        return None
    identity = ir.AffineMap.get_identity(rank)
    d = [ir.AffineExpr.get_dim(i) for i in range(rank)]
    row = ir.AffineMap.get(rank, 0, [*d[: rank - 1], ir.AffineExpr.get_constant(0)])
    if _maps(op) != [identity, row, identity]:
        return None
    expand = _owner(op.operands[1])
    if (expand is None or expand.name != "tensor.expand_shape"
            or not _only_use(op.operands[1], op) or not _only_use(expand.operands[0], expand)):
        return None
    return op.operands[0], expand.operands[0]


def _softmax_input(divide: ir.Operation) -> ir.Value | None:
    """The input of the softmax chain ending in ``divide``, or None: each step
    but the exponentials is read by the next step only, the exponentials by
    the sum and ``divide``."""
    rank = ir.RankedTensorType(divide.results[0].type).rank
    if rank < 3:
        return None
    operands = _by_rows(divide, "arith.divf", rank)
    if operands is None:
        return None
    exps, sums = operands
    summed = _row_reduction(sums, "arith.addf", 0.0, rank)
    if summed is None or not _same(summed, exps):
        return None
    exp = _owner(exps)
    if not _computes(exp, "math.exp") or len(exp.operands) != 2:
        return None
    subtract = _owner(exp.operands[0])
    shifted = _by_rows(subtract, "arith.subf", rank)
    if shifted is None:
        return None
    x, maxima = shifted
    maximized = _row_reduction(maxima, "arith.maximumf", -math.inf, rank)
    if (maximized is None or not _same(maximized, x) or not _only_use(exp.operands[0], exp)
            or len(_readers(exps)) != 2):
        return None
    return _most_static(x)


def softmax_rows(func: ir.Operation) -> int:
    """Rewrites each softmax chain over the last axis of a tensor of rank 3
    or more into one ``linalg.softmax`` over its rows; returns how many."""
    rewritten = 0
    for divide in collect_ops(func, lambda o: o.name == "linalg.generic"):
        x = _softmax_input(divide)
        if x is None:
            continue
        type_ = ir.RankedTensorType(x.type)
        groups = [list(range(type_.rank - 1)), [type_.rank - 1]]
        with ir.InsertionPoint(divide), divide.location:
            rows = collapse(x, groups)
            empty = tensor.EmptyOp(axis_sizes(rows), type_.element_type).result
            softmax = linalg.SoftmaxOp([rows.type], rows, empty, 1).results[0]
            result = expand(softmax, type_, groups, axis_sizes(x))
            if result.type != divide.results[0].type:
                result = tensor.CastOp(divide.results[0].type, result).result
        divide.results[0].replace_all_uses_with(result)
        rewritten += 1
    return rewritten
