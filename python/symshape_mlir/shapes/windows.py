"""Sliding windows over one spatial axis: padding and output extent (convolutions, pools).

One rule for every producer of windowed ops: the frontend's ``conv`` and
``pool``, and the ONNX shape rules of ``Conv``, ``MaxPool``,
``AveragePool`` and ``ConvTranspose``. Extents are exact expressions over
the input's: ``(padded - dilation * (k - 1) - 1) floordiv stride + 1``;
``size ceildiv stride`` for ``"same_upper"`` / ``"same_lower"`` (ONNX's
``SAME_*``, the odd pad at the end or the start); with ``ceil_mode``,
ONNX's rounding up, a last window starting in the end padding being dropped.

Example:
    >>> str(window(Sym("h"), 3, 2, 1, "same_upper").out)
    'h ceildiv 2'
    >>> str(transposed_extent(Sym("h"), 4, 2, 1, (1, 1), 0))
    '2 * h'
"""

from __future__ import annotations

from dataclasses import dataclass

from symshape_mlir.extent import canon
from symshape_mlir.extent.expr import Const, Expr, ExprLike, as_expr

__all__ = ["SAME_MODES", "Window", "transposed_extent", "transposed_pads", "window"]

#: The padding modes computed from the input extent (``"valid"`` pads nothing).
SAME_MODES = ("same_upper", "same_lower")


@dataclass(frozen=True)
class Window:
    """The window of one spatial axis.

    Attributes:
        size: the input extent.
        kernel, stride, dilation: the window.
        low, high: the padding before and after, part of the input.
        slack: padding after the ``high`` one that windows may read but
            that is no element (``ceil_mode``'s partial last window).
        out: the output extent.
    """

    size: Expr
    kernel: int
    stride: int
    dilation: int
    low: Expr
    high: Expr
    slack: int
    out: Expr

    @property
    def span(self) -> int:
        """The extent one window covers."""
        return self.dilation * (self.kernel - 1) + 1


def window(
    size: ExprLike,
    kernel: int,
    stride: int,
    dilation: int,
    pads: str | tuple[ExprLike, ExprLike],
    ceil_mode: bool = False,
) -> Window:
    """The window of an axis of extent ``size``.

    Args:
        pads: ``"valid"``, one of :data:`SAME_MODES`, or the ``(before,
            after)`` padding.
        ceil_mode: round the output extent up (pools).
    """
    size = as_expr(size)
    span = dilation * (kernel - 1) + 1
    slack = 0
    low: Expr
    high: Expr
    if pads == "valid":
        low = high = Const(0)
        out = canon.floordiv(size - span, stride) + 1
    elif isinstance(pads, str):
        out = canon.ceildiv(size, stride)
        total = (out - 1) * stride + span - size
        if span < stride:
            total = canon.maximum(0, total)
        half = canon.floordiv(total, 2)
        low = half if pads == "same_upper" else total - half
        high = total - low
    else:
        low, high = as_expr(pads[0]), as_expr(pads[1])
        reach = size + low + high - span
        if ceil_mode:
            # ONNX rounds up, then drops a last window starting in the end padding.
            last = canon.ceildiv(reach, stride)
            out = last + 1
            if not (isinstance(high, Const) and high.value + stride <= span):
                out = canon.minimum(out, canon.maximum(last, canon.ceildiv(size + low, stride)))
            slack = stride - 1
        else:
            out = canon.floordiv(reach, stride) + 1
    return Window(size, kernel, stride, dilation, low, high, slack, out)


def transposed_pads(kernel: int, stride: int, dilation: int, pads: str | tuple[int, int],
                    output_padding: int) -> tuple[int, int]:
    """A transposed convolution's ``(before, after)`` padding: given, or for
    ``"same_*"`` what makes the output ``size * stride`` (the odd one at the
    end for ``"same_upper"``)."""
    if not isinstance(pads, str):
        return pads
    if pads == "valid":
        return 0, 0
    total = output_padding + dilation * (kernel - 1) + 1 - stride
    first = total // 2 if pads == "same_upper" else total - total // 2
    return first, total - first


def transposed_extent(size: ExprLike, kernel: int, stride: int, dilation: int,
                      pads: tuple[int, int], output_padding: int) -> Expr:
    """A transposed convolution's output extent: ``stride * (size - 1) + output_padding +
    dilation * (kernel - 1) + 1 - before - after`` (negative for sizes too small)."""
    return canon.add(canon.mul(stride, canon.sub(size, 1)),
                     output_padding + dilation * (kernel - 1) + 1 - pads[0] - pads[1])
