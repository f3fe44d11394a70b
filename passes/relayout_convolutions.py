"""The ``symshape-relayout-convolutions`` pass: NCHW convolutions channels-last for IREE."""

from __future__ import annotations

import logging

from mlir import ir

from symshape_mlir.lowering.iree import convolutions_channels_last
from symshape_mlir.lowering.iree.layouts import hide_transposed_inputs
from symshape_mlir.lowering.iree.patches import convolutions_as_matmuls, depthwise_as_taps
from symshape_mlir.lowering.iree.sinking import hoist_transposed_inputs, sink_transposes
from symshape_mlir.lowering.iree.widths import pad_convolution_widths
from symshape_mlir.pipeline import ModulePass
from symshape_mlir.walk import functions

__all__ = ["RelayoutConvolutions"]

logger = logging.getLogger(__name__)


class RelayoutConvolutions(ModulePass):
    """Computes 1-D and 2-D channels-first convolutions and poolings channels-last.

    IREE 3.13's CPU backend vectorizes an NCHW convolution along the
    output width, reading strided windows element by element; channels-last
    it vectorizes along the channels (see
    :mod:`symshape_mlir.lowering.iree.layouts`). Each
    ``linalg.conv_2d_nchw_fchw``, ``linalg.depthwise_conv_2d_nchw_chw``,
    ``linalg.conv_1d_ncw_fcw`` and ``linalg.depthwise_conv_1d_ncw_cw``
    (and each ``linalg.pooling_nchw_*`` and ``linalg.pooling_ncw_*``)
    becomes its channels-last op, its input transposed, its kernel
    transposed (a pooling's window as it is), its result transposed back;
    then the transposes move down through elementwise ops, pads and slices
    until they cancel (:mod:`symshape_mlir.lowering.iree.sinking`), in
    static functions an input
    still transposed has its transpose moved up past the single-use pads,
    slices, inserts into zeros (a transposed convolution's input) and elementwise
    ops that make it, and one still transposed after that goes behind a
    ``util.optimization_barrier`` (so that
    IREE does not fuse the transpose into it), and so does a kernel not
    computed from constants. Last, a static convolution whose output width
    leaves a remainder of 4 or more past a multiple of 8 is computed over
    the next multiple and sliced (:mod:`symshape_mlir.lowering.iree.widths`),
    and one with a shared kernel whose output height, width or length is
    dynamic, or whose input has a single channel, is computed as its
    windows copied out times the kernel read as a matrix
    (:mod:`symshape_mlir.lowering.iree.patches`: IREE vectorizes a matrix
    product with a dynamic row count, not such a convolution); its
    input stays behind the barrier, so that the copy reads it channels-last.
    A depthwise one over such sizes becomes a sum over its taps of strided
    slices of the input times the kernel's rows, one elementwise op.
    Runs after
    ``canonicalize`` so that a static variant's barriers carry static
    types.

    Before::

        %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>,
            strides = dense<2> : tensor<2xi64>}
            ins(%x, %w : tensor<1x3x9x9xf32>, tensor<8x3x3x3xf32>)
            outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>

    After::

        %xt = linalg.transpose ins(%x : tensor<1x3x9x9xf32>) ... permutation = [0, 2, 3, 1]
        %xb = "util.optimization_barrier"(%xt) : (tensor<1x9x9x3xf32>) -> tensor<1x9x9x3xf32>
        %wt = linalg.transpose ins(%w : tensor<8x3x3x3xf32>) ... permutation = [2, 3, 1, 0]
        %it = linalg.transpose ins(%init : tensor<1x8x4x4xf32>) ... permutation = [0, 2, 3, 1]
        %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
            strides = dense<2> : tensor<2xi64>} ins(%xb, %wt : ...) outs(%it : ...)
        %y = linalg.transpose ins(%c : tensor<1x4x4x8xf32>) ... permutation = [0, 3, 1, 2]
    """

    name = "symshape-relayout-convolutions"
    summary = ("Compute NCHW convolutions and poolings channels-last for IREE (transposes, "
               "barriers, widths rounded up to whole tiles, dynamic sizes and single input "
               "channels as matrix products)")

    def creates_unregistered_ops(self) -> bool:
        return True

    def run(self, module: ir.Operation) -> None:
        """Rewrites the convolutions of every function of ``module``."""
        for func in functions(module):
            count = convolutions_channels_last(func)
            moved = sink_transposes(func) if count else 0
            hoisted = hoist_transposed_inputs(func) if count else 0
            hide_transposed_inputs(func)
            widened = pad_convolution_widths(func) if count else 0
            products = convolutions_as_matmuls(func) if count else 0
            taps = depthwise_as_taps(func) if count else 0
            logger.debug("relayout %d convolutions, %d transposes moved down, %d up, "
                         "%d widened, %d as matrix products, %d depthwise as taps", count,
                         moved, hoisted, widened, products, taps)
