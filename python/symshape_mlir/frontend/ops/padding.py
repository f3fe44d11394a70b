"""``pad``: numpy's constant padding with static, symbolic or run-time widths (``tensor.pad``).

A width is an ``int``, an exact extent, or a run-time integer (a 0-d
integer tensor); a negative run-time width fails the call (a run-time
check), as numpy raises.

Example:
    >>> def f(x, k):                                     # x: [batch, 4], k: 0-d i64
    ...     return pad(x, [(0, 1), (2, k)], 0.0)         # [batch + 1, 6 + k]
"""

from __future__ import annotations

from collections.abc import Sequence

from symshape_mlir.extent.expr import Const, Expr
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.index import Index, IndexBuilder, is_runtime_integer
from symshape_mlir.frontend.ops.shape_ops import extract_slice
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.frontend.vjp import Cotangents, Node, primitive, save, vjp_rule
from symshape_mlir.shapes.shape import Shape

__all__ = ["pad", "pad_extent"]

Width = int | Expr | ShapeExtent | Tensor


def pad_extent(op: str, item: Width, x: Tensor, where: SourceLocation) -> ShapeExtent:
    """A pad width of ``op`` as an exact extent.

    Raises:
        FrontendError: not an ``int`` or extent, or a negative ``int``.
        ContractError: an extent that is only an upper bound.
    """
    if isinstance(item, bool) or not isinstance(item, int | Expr | ShapeExtent):
        raise FrontendError(f"{op} at {where}: {item!r} is not a pad width")
    if isinstance(item, int):
        if item < 0:
            raise FrontendError(f"{op} at {where}: negative pad width {item}")
        return Exact(Const(item))
    extent = Exact(item) if isinstance(item, Expr) else item
    x.trace.require_exact(op, "pad width", [extent], where)
    return extent


def _width(item: Width, x: Tensor, where: SourceLocation) -> tuple[str, ShapeExtent]:
    if not is_runtime_integer(item):
        extent = pad_extent("pad", item, x, where)
        if isinstance(extent.expr, Const):
            return str(extent.expr.value), extent
        return x.trace.materialize(extent, where), extent
    b = IndexBuilder(x.trace, where)
    width = b.size(item, "pad", "pad width")
    trace = x.trace
    nonnegative = trace.ssa("i")
    trace.emit(f"{nonnegative} = arith.cmpi sge, {width.value}, {b.ssa(b.const(0))} : index",
               where)
    trace.check(nonnegative, "a pad width is negative", where)
    return width.value, width.extent


@primitive("pad")
def pad(
    x: Tensor,
    pad_width: int | Sequence[Width | Sequence[Width]],
    constant_values: float | int = 0,
) -> Tensor:
    """``numpy.pad(x, pad_width, constant_values=...)`` (mode ``"constant"``).

    ``pad_width`` is one width for every side, ``(before, after)`` for every
    axis, or one ``(before, after)`` per axis; widths are ``int``, exact
    extents or run-time integers.
    """
    where = user_location()
    widths: list[tuple[Width, ...]]
    if isinstance(pad_width, int | Expr | ShapeExtent | Tensor):
        widths = [(pad_width, pad_width)] * x.ndim
    else:
        items = list(pad_width)
        if len(items) == 2 and not isinstance(items[0], Sequence):
            if isinstance(items[1], Sequence):
                raise FrontendError(f"pad at {where}: {items[1]!r} is not a pad width")
            widths = [(items[0], items[1])] * x.ndim
        else:
            # A lone width where a (before, after) pair belongs fails the check below.
            widths = [tuple(p) if isinstance(p, Sequence) else (p,) for p in items]
    if len(widths) != x.ndim or any(len(w) != 2 for w in widths):
        raise FrontendError(f"pad at {where}: pad_width must give (before, after) per axis")
    low = [_width(w[0], x, where) for w in widths]
    save(low=[Index(value, extent) for value, extent in low])
    high = [_width(w[1], x, where) for w in widths]
    shape = Shape([e + lo[1] + hi[1] for e, lo, hi in zip(x.shape, low, high, strict=True)])
    trace = x.trace
    value = trace.ssa("s")
    try:
        literal = x.dtype.literal(constant_values)
    except (OverflowError, TypeError, ValueError) as err:
        raise FrontendError(f"pad at {where}: constant_values {constant_values!r}: {err}") \
            from None
    trace.emit(f"{value} = arith.constant {literal} : {x.dtype.mlir}", where)
    name = trace.ssa("pad")
    indices = ", ".join(f"%p{name[1:]}_{k}: index" for k in range(x.ndim))
    trace.lines.append(
        f"{name} = tensor.pad {x.value} low[{', '.join(v for v, _ in low)}] "
        f"high[{', '.join(v for v, _ in high)}] {{"
    )
    trace.lines.append(f"^bb0({indices}):")
    trace.lines.append(f"  tensor.yield {value} : {x.dtype.mlir} {where.mlir}")
    trace.emit(f"}} : {x.mlir_type} to {tensor_type(shape, x.dtype)}", where)
    return Tensor(trace, name, shape, x.dtype)


@vjp_rule("pad")
def _pad_vjp(node: Node, ct: Tensor) -> Cotangents:
    # The input's entries, from the low widths on.
    x: Tensor = node.args["x"]
    b = IndexBuilder(ct.trace, node.where)
    sizes = [b.dim(x, a) for a in range(x.ndim)]
    return {"x": extract_slice(ct, node.saved["low"], sizes, [1] * x.ndim, x.symbolic_shape,
                               node.where)}
