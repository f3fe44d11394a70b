"""Convolutions over dynamic spatial sizes in forms IREE vectorizes: one
matrix product, or a sum of strided slices for a depthwise one.

IREE 3.13's CPU backend vectorizes a channels-last convolution well only
when its output's spatial sizes are static. With a dynamic height or
width it computes the windows nearly element by element: resnet's 7x7
stride-2 stem (3 channels in, 8 out) at 2x96x80, single-threaded, took
3.0 ms in the dynamic module against 115 us in a static variant, its
3x3 convolutions of 8 channels 300 us against 17. A matrix product with
a dynamic row count it vectorizes as well as a static one. So, in a
function whose convolution has a dynamic spatial output size, the
windows are copied out first (the *patches*), one row per output pixel,
and multiplied by the kernel read as a matrix:

.. code-block:: mlir

    // linalg.conv_2d_nhwc_hwcf {strides = dense<2>, dilations = dense<1>}
    //     ins(%x, %w : tensor<?x?x?x3xf32>, tensor<7x7x3x8xf32>) outs(%init : tensor<?x?x?x8xf32>)
    %p = linalg.generic {indexing_maps = [
           affine_map<(n, i, j, a, b, c) -> (n, i * 2 + a, j * 2 + b, c)>,
           affine_map<(n, i, j, a, b, c) -> (n, i, j, a, b, c)>], ...}
           ins(%x) outs(tensor.empty(%n, %oh, %ow) : tensor<?x?x?x7x7x3xf32>)
    %pm = tensor.collapse_shape %p [[0, 1, 2], [3, 4, 5]] : ... into tensor<?x147xf32>
    %wm = tensor.collapse_shape %w [[0, 1, 2], [3]] : ... into tensor<147x8xf32>
    %im = tensor.collapse_shape %init [[0, 1, 2], [3]] : ... into tensor<?x8xf32>
    %ym = linalg.matmul ins(%pm, %wm) outs(%im) -> tensor<?x8xf32>
    %y = tensor.expand_shape %ym [[0, 1, 2], [3]] output_shape [%n, %oh, %ow, 8]

The patches of a 1x1 convolution of stride 1 are its input, so it is
collapsed directly. Rows are summed in another order than the direct
convolution's, an f32 rounding difference only. Static convolutions are
left to IREE's convolution strategy (faster there), except those over a
single input channel (a waveform, a grayscale image), which it computes
nearly element by element too: wav2vec2's first convolution (4x4000
samples, 16 filters of 10, stride 5) took 406 us, 33 us as patches times
the kernel, a 3x3 one of 16 filters over 4x66x66 1.51 ms against 0.22,
LeNet's 5x5 one of 6 filters over 8x28x28 439 us against 87 (one thread).
Left to IREE are also convolutions whose kernel has a
dynamic size, and dynamic ones with fewer than `MIN_FEATURES` output channels:
there the copy costs more than the product saves (the upsampler's last
transposed convolution, 8 channels to 4 through 4x4 windows, at
4x128x128: 369 ms to copy the windows of its 256x256 output, 333 ms
computed directly). The input of both forms is read behind a barrier
(`~symshape_mlir.lowering.iree.barriers.hidden`): fused with what makes
it, the copy read across the channels through a transpose (sew at
4x4000: 979 us against 296 for the direct convolution it replaced), and
the taps of convnext's 7x7 convolutions each loaded their own sizes (100
push constants, over IREE's limit of 64).

Single-threaded dispatch time per call of the dynamic modules at
2x96x80, before and after: resnet 4.4 -> 1.1 ms, mobilenet_v2 7.8 ->
0.9 ms (its 1x1 convolutions were contractions over three dynamic axes,
and the global pool after the last one took 2.0 ms), shufflenet 5.5 ->
0.7 ms, unet 38 -> 8.7 ms; sew at 4x4000 2.7 -> 1.9 ms. The copy of the
windows is the largest dispatch left (resnet's stem, 3 channels deep:
0.7 ms): IREE copies through an index map that is no permutation element
by element.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from mlir import ir
from mlir.dialects import arith, linalg, tensor

from symshape_mlir.lowering.generics import generic, generic_copy
from symshape_mlir.lowering.iree.barriers import axis_sizes, collapse, expand, hidden
from symshape_mlir.walk import collect_ops

__all__ = ["MIN_FEATURES", "convolutions_as_matmuls", "depthwise_as_taps"]

#: Channels-last convolutions with a shared kernel, by name: their count of spatial axes.
_SPATIAL = {"linalg.conv_2d_nhwc_hwcf": 2, "linalg.conv_1d_nwc_wcf": 1}
#: Channels-last depthwise convolutions, by name: their count of spatial axes.
_DEPTHWISE = {"linalg.depthwise_conv_2d_nhwc_hwc": 2, "linalg.depthwise_conv_1d_nwc_wc": 1}

#: Output channels below which the copy of the windows (``KH * KW * C`` values per
#: output pixel) costs more than the product saves (``KH * KW * C * F`` multiply-adds).
MIN_FEATURES = 8

_DYNAMIC = ir.ShapedType.get_dynamic_size()


def _ints(op: ir.OpView, name: str) -> list[int]:
    return [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])]


def _patches(x: ir.Value, kernel: list[int], strides: list[int], dilations: list[int],
             sizes: list[ir.Value | int], channels: int) -> ir.Value:
    """The windows of ``x`` (``[N, *spatial, C]``), one per output position:
    ``[N, *out, *kernel, C]``."""
    spatial = len(kernel)
    rank = 2 * spatial + 2
    d = [ir.AffineExpr.get_dim(i) for i in range(rank)]
    reads = [d[0]]
    for axis in range(spatial):
        out, tap = d[1 + axis], d[1 + spatial + axis]
        reads.append(out * strides[axis] + tap * dilations[axis])
    reads.append(d[rank - 1])
    shape = [_DYNAMIC if isinstance(s, ir.Value) else s for s in sizes]
    element = ir.RankedTensorType(x.type).element_type
    result = ir.RankedTensorType.get([*shape, *kernel, channels], element)
    return generic_copy(x, ir.AffineMap.get(rank, 0, reads), result, [*sizes, *kernel, channels])


def _as_matmul(op: ir.OpView, spatial: int) -> ir.Value:
    """The matrix-product form of the convolution ``op`` (see the module docstring)."""
    x, w, init = op.operands
    result_type = ir.RankedTensorType(op.results[0].type)
    *kernel, channels, _ = ir.RankedTensorType(w.type).shape
    strides, dilations = _ints(op, "strides"), _ints(op, "dilations")
    sizes = axis_sizes(init)[: spatial + 1]
    rows = list(range(spatial + 1))
    if all(k == 1 for k in kernel) and all(s == 1 for s in strides):
        matrix = collapse(x, [rows, [spatial + 1]])
    else:
        patches = _patches(hidden(x), kernel, strides, dilations, sizes, channels)
        matrix = collapse(patches, [rows, list(range(spatial + 1, 2 * spatial + 2))])
    weights = collapse(w, [list(range(spatial + 1)), [spatial + 1]])
    product = linalg.matmul(matrix, weights, outs=[collapse(init, [rows, [spatial + 1]])])
    if isinstance(product, ir.OpView):
        product = product.results[0]
    return expand(product, result_type, [rows, [spatial + 1]], sizes)


def _dynamic_spatial(op: ir.OpView, spatial: int) -> bool:
    """Whether ``op``'s output has a dynamic spatial size and its kernel a static shape."""
    output = ir.RankedTensorType(op.results[0].type)
    return (any(output.is_dynamic_dim(1 + axis) for axis in range(spatial))
            and ir.RankedTensorType(op.operands[1].type).has_static_shape)


def _as_taps(op: ir.OpView, spatial: int) -> ir.Value:
    """The sum-of-slices form of the depthwise convolution ``op`` (see the module docstring)."""
    x, w, init = op.operands
    x = hidden(x)
    result_type = ir.RankedTensorType(op.results[0].type)
    *kernel, channels = ir.RankedTensorType(w.type).shape
    strides, dilations = _ints(op, "strides"), _ints(op, "dilations")
    sizes = axis_sizes(init)[: spatial + 1]
    dynamic = [s for s in sizes if isinstance(s, ir.Value)]
    static = [*(_DYNAMIC if isinstance(s, ir.Value) else s for s in sizes), channels]
    element = result_type.element_type
    row = ir.RankedTensorType.get([channels], element)
    slices, rows = [], []
    for tap in itertools.product(*(range(k) for k in kernel)):
        offsets = [0, *(t * d for t, d in zip(tap, dilations, strict=True)), 0]
        slices.append(tensor.ExtractSliceOp(result_type, x, [], dynamic, [], offsets, static,
                                            [1, *strides, 1]).result)
        rows.append(tensor.ExtractSliceOp(row, w, [], [], [], [*tap, 0], [1] * spatial
                                          + [channels], [1] * (spatial + 1)).result)
    rank = spatial + 2
    identity = ir.AffineMap.get_identity(rank)
    along_channels = ir.AffineMap.get(rank, 0, [ir.AffineExpr.get_dim(rank - 1)])
    maps = [identity] * len(slices) + [along_channels] * len(rows) + [identity]

    def taps(*arguments: ir.Value) -> ir.Value:
        total = arguments[-1]
        for value, weight in zip(arguments[:len(slices)], arguments[len(slices):-1],
                                 strict=True):
            total = arith.AddFOp(total, arith.MulFOp(value, weight).result).result
        return total

    return generic(slices + rows, init, maps, [linalg.IteratorType.parallel] * rank, taps)


def _rewrite(func: ir.Operation, ops: dict[str, int],
             select: Callable[[ir.OpView, int], bool],
             build: Callable[[ir.OpView, int], ir.Value]) -> int:
    """Replaces each op of ``func`` named in ``ops`` (with its count of spatial
    axes) that ``select`` takes by what ``build`` makes of it; returns how many."""
    rewritten = 0
    for op in collect_ops(func, lambda op: op.name in ops):
        spatial = ops[op.name]
        if not select(op, spatial):
            continue
        with ir.InsertionPoint(op), op.location:
            result = build(op, spatial)
        op.results[0].replace_all_uses_with(result)
        op.operation.erase()
        rewritten += 1
    return rewritten


def _single_channel(op: ir.OpView) -> bool:
    """Whether ``op``'s kernel has a static shape and reads one input channel."""
    kernel = ir.RankedTensorType(op.operands[1].type)
    return kernel.has_static_shape and kernel.shape[-2] == 1


def convolutions_as_matmuls(func: ir.Operation) -> int:
    """Rewrites as patches times a matrix (see the module docstring) each
    channels-last convolution of ``func`` with a static kernel whose output
    has a dynamic spatial size and at least `MIN_FEATURES` channels, or
    whose input has a single channel; returns how many."""
    return _rewrite(func, _SPATIAL,
                    lambda op, spatial: _single_channel(op) or (
                        _dynamic_spatial(op, spatial)
                        and ir.RankedTensorType(op.operands[1].type).shape[-1] >= MIN_FEATURES),
                    _as_matmul)


def depthwise_as_taps(func: ir.Operation) -> int:
    """Rewrites each channels-last depthwise convolution of ``func`` over
    floats whose output has a dynamic spatial size and whose kernel is
    static as a sum of strided slices (see the module docstring); returns
    how many."""
    return _rewrite(func, _DEPTHWISE,
                    lambda op, spatial: _dynamic_spatial(op, spatial) and isinstance(
                        ir.RankedTensorType(op.results[0].type).element_type, ir.FloatType),
                    _as_taps)
