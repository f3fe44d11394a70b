"""Channels-last convolutions computed over an output width IREE tiles evenly.

IREE 3.13's CPU backend tiles a static ``linalg.conv_2d_nhwc_hwcf`` along
the output width by `WIDTH_STEP` columns and computes the columns left over
element by element, far slower: unet's last 3x3 convolution (3x33xWx8 from
24 channels, single-threaded) took 810 us at W = 47 and 177 us at W = 48;
resnet's 3x13xWx16 ones at 3x97x97 55 us at W = 13 and 25 us at W = 16.
A remainder of one column cost little at W = 49 (49 -> 56 went from 175 to
197 us, the work of the extra columns) but 3.4x at W = 257 (4x256xWx16 from
8 channels, 2x2 kernel: 13.6 ms against 4.0 at W = 256 and 5.8 at 264), and
a width below the step is one narrower tile. So a static convolution whose
output width is above the step and leaves a remainder of at least half of
it, or needs at most 1/16 more columns, computes the next multiple of the
step, and the columns it was asked for are sliced out of that:

.. code-block:: mlir

    %x2 = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 2, 0] { tensor.yield %zero }
        : tensor<3x33x47x24xf32> to tensor<3x35x50x24xf32>       // was high[0, 1, 1, 0]
    %i2 = linalg.fill ins(%zero) outs(tensor.empty() : tensor<3x33x48x8xf32>)
    %y2 = linalg.conv_2d_nhwc_hwcf ins(%x2, %w) outs(%i2) -> tensor<3x33x48x8xf32>
    %y = tensor.extract_slice %y2[0, 0, 0, 0] [3, 33, 47, 8] [1, 1, 1, 1]

Each output column reads only its own window, so the columns kept are the
ones asked for, whatever the extra input columns hold. The input gets them
from what makes it: the pad of a padded convolution grows on the right, and
so does the zero fill a transposed convolution spreads its input into
(``tensor.insert_slice`` with strides). A convolution whose input is made
otherwise and needs more columns, or whose init is no ``linalg.fill``
(directly or through a transpose, as
`~symshape_mlir.lowering.iree.layouts` leaves it), is left as it is: a new
pad on the upsampler's spread input (the insert's result) gave wrong values
in IREE 3.13 at 3x9x13, a form not reduced to a reproducer yet.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import linalg, tensor

from symshape_mlir.lowering.iree.sinking import static, static_pad, zeros_insert
from symshape_mlir.walk import collect_ops

__all__ = ["WIDTH_STEP", "pad_convolution_widths"]

#: The output columns IREE computes as one vector tile (measured: f32 on x86-64 with AVX-512).
WIDTH_STEP = 8
#: A small remainder is widened too where the extra columns are at most this
#: share of the width.
EXTRA_SHARE = 16

_WIDTH_AXIS = 2  # [N, OH, OW, F] and [N, H, W, C]


def _pair(op: ir.OpView, name: str) -> list[int]:
    return [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])]


def _with_width(type_: ir.RankedTensorType, width: int) -> ir.RankedTensorType:
    shape = list(type_.shape)
    shape[_WIDTH_AXIS] = width
    return ir.RankedTensorType.get(shape, type_.element_type)


def _maker_if_sole_use(value: ir.Value) -> ir.OpView | None:
    """The op that makes ``value``, when nothing but one op reads ``value``."""
    op = value.owner
    return op if isinstance(op, ir.OpView) and len(list(value.uses)) == 1 else None


def _grown(value: ir.Value, extra: int) -> bool:
    """Gives the pad or the fill that makes ``value`` ``extra`` more columns
    on the right; False (nothing changed) when neither makes it."""
    type_ = ir.RankedTensorType(value.type)
    wider = _with_width(type_, type_.shape[_WIDTH_AXIS] + extra)
    maker = _maker_if_sole_use(value)
    if maker is not None and zeros_insert(maker):
        insert, fill = maker, maker.operands[1].owner
        with ir.InsertionPoint(insert), insert.location:
            empty = tensor.EmptyOp(wider.shape, wider.element_type).result
            insert.operands[1] = linalg.fill(fill.operands[0], outs=[empty])
    elif maker is not None and static_pad(maker, maker.operands[0]):
        high = list(ir.DenseI64ArrayAttr(maker.attributes["static_high"]))
        high[_WIDTH_AXIS] += extra
        maker.attributes["static_high"] = ir.DenseI64ArrayAttr.get(high)
    else:
        return False
    value.set_type(wider)
    return True


def _filled_with(init: ir.Value) -> ir.Value | None:
    """The value ``init`` is filled with, when ``linalg.fill`` makes it
    (directly or through a transpose)."""
    op = init.owner
    if isinstance(op, ir.OpView) and op.name == "linalg.transpose":
        op = op.operands[0].owner
    if isinstance(op, ir.OpView) and op.name == "linalg.fill":
        return op.operands[0]
    return None


def _wider_init(init: ir.Value, width: int) -> ir.Value:
    """A fill like the one that makes ``init``, ``width`` columns wide."""
    type_ = _with_width(ir.RankedTensorType(init.type), width)
    empty = tensor.EmptyOp(type_.shape, type_.element_type).result
    return linalg.fill(_filled_with(init), outs=[empty])


def _worth_widening(width: int, wider: int) -> bool:
    """Whether a convolution ``width`` columns wide is computed ``wider``: a
    remainder of half a step or more, or extra columns of at most
    1/`EXTRA_SHARE` of the width."""
    remainder = width % WIDTH_STEP
    return width > WIDTH_STEP and remainder > 0 and (
        remainder >= WIDTH_STEP // 2 or (wider - width) * EXTRA_SHARE <= width)


def _widen(op: ir.OpView) -> bool:
    """Computes ``op`` over a wider output when its width needs it (see the module docstring)."""
    source, kernel, init = op.operands
    if not all(static(v) for v in (source, kernel, init)):
        return False
    out = ir.RankedTensorType(init.type)
    width = out.shape[_WIDTH_AXIS]
    wider = -(-width // WIDTH_STEP) * WIDTH_STEP
    if not _worth_widening(width, wider):
        return False
    stride, dilation = _pair(op, "strides")[1], _pair(op, "dilations")[1]
    kernel_width = ir.RankedTensorType(kernel.type).shape[1]
    needed = (wider - 1) * stride + (kernel_width - 1) * dilation + 1
    extra = needed - ir.RankedTensorType(source.type).shape[_WIDTH_AXIS]
    if _filled_with(init) is None or (extra > 0 and not _grown(source, extra)):
        return False
    with ir.InsertionPoint(op), op.location:
        op.operands[2] = _wider_init(init, wider)
    result = op.results[0]
    users = [(use.owner, use.operand_number) for use in result.uses]
    result.set_type(_with_width(out, wider))
    with ir.InsertionPoint.after(op), op.location:
        kept = tensor.extract_slice(out, result, [], [], [], [0] * out.rank, list(out.shape),
                                    [1] * out.rank)
    for owner, number in users:
        (owner.operation if isinstance(owner, ir.OpView) else owner).operands[number] = kept
    return True


def pad_convolution_widths(func: ir.Operation) -> int:
    """Widens the static ``linalg.conv_2d_nhwc_hwcf`` ops of ``func`` whose
    output width is worth it (`_worth_widening`); returns how many."""
    with func.context, ir.Location.unknown():
        convolutions = collect_ops(func, lambda op: op.name == "linalg.conv_2d_nhwc_hwcf")
        return sum(_widen(op.opview) for op in convolutions)
