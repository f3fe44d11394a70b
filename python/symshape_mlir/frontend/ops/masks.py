"""Boolean masks: ``x[mask]`` keeps the entries where ``mask`` is true.

The number of entries kept is data dependent: an exact extent that is a
fresh symbol (``_dN``), never a guess. It is made in one place,
:func:`compress`, by a stage-2 ``dynamic_truncate`` to the mask's count,
which also bounds it by the mask's size.

``mask`` covers the leading axes of ``x`` (its shape is theirs, checked at
run time where not proven). The entries are found without a scatter: with
``c`` the running count of true entries, the ``j``-th kept one is at
position ``#{i : c[i] <= j}`` (quadratic work in the mask's size).

Example:
    >>> def f(x):                        # x: [n] f32
    ...     return x[x > 0.0]            # [_d0]: the positive entries
"""

from __future__ import annotations

from symshape_mlir.frontend.dtypes import i64
from symshape_mlir.frontend.errors import FrontendError, ShapeError
from symshape_mlir.frontend.ops.broadcasting import same_extent
from symshape_mlir.frontend.ops.elementwise import astype
from symshape_mlir.frontend.ops.gather import gather_along
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_fill, emit_generic
from symshape_mlir.frontend.ops.reductions import sum as sum_
from symshape_mlir.frontend.ops.scan import cumsum
from symshape_mlir.frontend.ops.shape_ops import dynamic_truncate, reshape
from symshape_mlir.frontend.source import SourceLocation
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.shapes.shape import Shape

__all__ = ["compress"]


def compress(x: Tensor, mask: Tensor, where: SourceLocation) -> Tensor:
    """``x[mask]`` for a boolean ``mask`` over the leading axes of ``x``."""
    if mask.ndim > x.ndim:
        raise FrontendError(f"indexing at {where}: a mask of rank {mask.ndim} for a tensor of "
                            f"rank {x.ndim}")
    trace = x.trace
    for axis in range(mask.ndim):
        a, b = mask.shape[axis], x.shape[axis]
        if same_extent(a, b):
            continue
        if a.is_exact and b.is_exact and a.expr is not None and b.expr is not None and \
                a.expr.const_value is not None and b.expr.const_value is not None:
            raise ShapeError(f"indexing at {where}: the mask's axis {axis} has {a} entries, the "
                             f"tensor's {b}")
        equal = trace.ssa("i")
        trace.emit(f"{equal} = arith.cmpi eq, {trace.dim_index(mask, axis, where)}, "
                   f"{trace.dim_index(x, axis, where)} : index", where)
        trace.check(equal, f"the mask's axis {axis} must match the tensor's", where)
    rest = list(x.shape[mask.ndim:])
    flat_mask = mask if mask.ndim == 1 else reshape(mask, [-1])
    flat = x if mask.ndim == 1 else reshape(x, [-1, *rest])
    counts = cumsum(astype(flat_mask, i64, where))
    positions = _positions(counts, where)
    picked = gather_along(flat, positions, 0, where)
    # The data-dependent size: a fresh exact symbol, at most the mask's size
    # (where a value range [0, mask size] belongs to it).
    return dynamic_truncate(picked, sum_(astype(flat_mask, i64, where)), axis=0, stage="exact")


def _positions(counts: Tensor, where: SourceLocation) -> Tensor:
    """``p[j] = #{i : counts[i] <= j}`` for ``j < len(counts)``: the position of
    the ``j``-th true entry when ``counts`` is the running count of a mask."""
    trace = counts.trace
    shape = Shape([counts.shape[0]])
    init = emit_empty(trace, shape, i64, [(counts, 0)], where)
    filled = emit_fill(trace, init, i64, 0, tensor_type(shape, i64), where)

    def body(block: Body, args: list[str]) -> str:
        count, acc = args
        j = block.op(f"arith.index_cast {block.op('linalg.index 0', 'index')}", "index to i64")
        before = block.op(f"arith.cmpi sle, {count}, {j}", "i64")
        one = block.op(f"arith.extui {before}", "i1 to i64")
        return block.op(f"arith.addi {acc}, {one}", "i64")

    return emit_generic(trace, [Operand(counts, ("d1",))], 2, ["parallel", "reduction"],
                        ["d0"], shape, i64, filled, body, where)
