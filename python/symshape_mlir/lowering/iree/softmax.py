"""A softmax over the last axis, as rows whose exponentials are computed once.

IREE raises the chain the frontend emits for ``softmax`` (max, subtract,
exp, sum, divide) to ``linalg.softmax`` on the tensor's own axes, then
decomposes it inside one dispatch with the exponentials computed twice
(once for the sum, once for the division), and splits the work along each
leading axis by a divisor of its extent: where one is prime, one row per
workgroup (wav2vec2's attention, ``[4, 4, 199, 199]``: 3,184 workgroups of
one row, 1.78 ms against 1.1 ms over 3,184 rows of 199).

Over one axis of rows IREE finds a row count that divides. A static tensor
of at most `STORED_EXPONENTIALS` bytes keeps the frontend's chain over the
rows, with its exponentials written once, behind a compute barrier, and read
by the sum and the division (rows of 99 to 199, as in the audio models'
attention: 0.25 -> 0.16 ms and 1.0 -> 0.62 ms per softmax, one thread; the
rows of BERT-base's attention at 8 x 128, 6 MB: 1.5-2.1 -> 0.6-0.9 ms on
two threads). A larger or dynamic one is one ``linalg.softmax`` over the
rows (at 28 MB, 4 x 384, storing them is 5-10 % slower):

.. code-block:: mlir

    %m = linalg.generic {...["parallel", "parallel", "parallel", "reduction"]}
        ins(%x : tensor<4x4x199x199xf32>) outs(%neg_inf : tensor<4x4x199xf32>) // maximumf
    ... subf, exp, the sum, divf ...
    // becomes, static and small
    %rows = tensor.collapse_shape %x [[0, 1, 2], [3]]
        : tensor<4x4x199x199xf32> into tensor<3184x199xf32>
    %m = linalg.generic {...} ins(%rows ...) outs(%neg_inf : tensor<3184xf32>)  // maximumf
    %e = linalg.generic {...} ins(%rows, %m ...) -> tensor<3184x199xf32>      // exp(x - m)
    %b = "iree_tensor_ext.compute_barrier.start"(%e) ...
    %z = linalg.generic {...} ins(%b ...) outs(%zero : tensor<3184xf32>)     // addf
    %s = linalg.generic {...} ins(%b, %z ...) -> tensor<3184x199xf32>        // divf
    // or else
    %s = linalg.softmax dimension(1) ins(%rows : tensor<3184x199xf32>)
        outs(%e : tensor<3184x199xf32>) -> tensor<3184x199xf32>
    // then
    %y = tensor.expand_shape %s [[0, 1, 2], [3]] output_shape [4, 4, 199, 199]
        : tensor<3184x199xf32> into tensor<4x4x199x199xf32>

A softmax of rank 2 is already over rows: only a static, small one is
rewritten. Only a chain whose steps have no other use is rewritten, so
nothing is computed twice.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeGuard

from mlir import ir
from mlir.dialects import arith, linalg, tensor
from mlir.dialects import math as mlir_math

from symshape_mlir.lowering.generics import generic
from symshape_mlir.lowering.iree.barriers import (
    axis_sizes,
    chain,
    collapse,
    expand,
    producer,
    unfused,
)
from symshape_mlir.lowering.iree.captures import fill_scalar
from symshape_mlir.walk import collect_ops

__all__ = ["STORED_EXPONENTIALS", "softmax_rows"]

#: The most bytes of a static softmax whose exponentials are stored once.
STORED_EXPONENTIALS = 8 << 20


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
    if rank < 2:
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


def _stored(type_: ir.RankedTensorType) -> bool:
    """Whether a softmax over a tensor of ``type_`` stores its exponentials
    (static, small)."""
    width = ir.FloatType(type_.element_type).width
    return type_.has_static_shape and math.prod(type_.shape) * width // 8 <= STORED_EXPONENTIALS


def _over_rows(inputs: list[ir.Value], init: ir.Value,
               body: Callable[..., ir.Value]) -> ir.Value:
    """A `generic` over ``[row, column]``: each input is ``[rows, columns]``
    or one value per row; a reduction of the columns when ``init`` has one
    value per row. ``body`` gets the inputs' elements and the init's."""
    full = ir.AffineMap.get_identity(2)
    row = ir.AffineMap.get(2, 0, [ir.AffineExpr.get_dim(0)])
    maps = [full if ir.RankedTensorType(v.type).rank == 2 else row for v in [*inputs, init]]
    reduces = ir.RankedTensorType(init.type).rank == 1
    iterators = [linalg.IteratorType.parallel,
                 linalg.IteratorType.reduction if reduces else linalg.IteratorType.parallel]
    return generic(inputs, init, maps, iterators, body)


def _stored_softmax(rows: ir.Value) -> ir.Value:
    """The frontend's softmax chain over static ``rows``, its exponentials
    written once (`~symshape_mlir.lowering.iree.barriers.unfused`)."""
    type_ = ir.RankedTensorType(rows.type)
    element = type_.element_type
    count, width = type_.shape

    def filled(value: float) -> ir.Value:
        constant = arith.constant(element, ir.FloatAttr.get(element, value))
        return linalg.fill(constant, outs=[tensor.empty([count], element)])

    maxima = _over_rows([rows], filled(-math.inf), arith.maximumf)
    exps = unfused(_over_rows([rows, maxima], tensor.empty([count, width], element),
                              lambda x, m, _: mlir_math.exp(arith.subf(x, m))))
    sums = _over_rows([exps], filled(0.0), arith.addf)
    return _over_rows([exps, sums], tensor.empty([count, width], element),
                      lambda e, z, _: arith.divf(e, z))


def softmax_rows(func: ir.Operation) -> int:
    """Rewrites each softmax chain over the last axis of a tensor of rank 3
    or more (2 when static and small) into a softmax over its rows; returns
    how many."""
    rewritten = 0
    for divide in collect_ops(func, lambda o: o.name == "linalg.generic"):
        x = _softmax_input(divide)
        if x is None:
            continue
        type_ = ir.RankedTensorType(x.type)
        groups = [list(range(type_.rank - 1)), [type_.rank - 1]]
        stored = _stored(type_)
        if type_.rank == 2 and not stored:
            continue
        with ir.InsertionPoint(divide), divide.location:
            rows = collapse(x, groups) if type_.rank > 2 else x
            if stored:
                softmax = _stored_softmax(rows)
            else:
                empty = tensor.EmptyOp(axis_sizes(rows), type_.element_type).result
                softmax = linalg.SoftmaxOp([rows.type], rows, empty, 1).results[0]
            result = expand(softmax, type_, groups, axis_sizes(x)) if type_.rank > 2 else softmax
            if result.type != divide.results[0].type:
                result = tensor.CastOp(divide.results[0].type, result).result
        divide.results[0].replace_all_uses_with(result)
        rewritten += 1
    return rewritten
