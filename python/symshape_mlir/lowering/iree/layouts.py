"""Convolutions IREE 3.13 computes fast only channels-last: each NCHW one
becomes its NHWC op between transposes.

IREE's CPU backend tiles a ``linalg.conv_2d_nchw_fchw`` along the output
width and vectorizes the reads of each window along it: with a stride
above 1 those reads are strided gathers (resnet's 3x3 stride-2
convolutions ran at 15 GFLOP/s NCHW against 90 channels-last, its 7x7
stem at 7 against 60). Channels-last, the vectors run along the channels,
contiguous at any stride. So a 2-D convolution over ``[N, C, H, W]`` is
rewritten as

.. code-block:: mlir

    %xt = linalg.transpose ins(%x) permutation = [0, 2, 3, 1]     // [N, H, W, C]
    %xb = iree_tensor_ext.compute_barrier.start %xt               // no dispatch spans it
    %wt = linalg.transpose ins(%w) permutation = [2, 3, 1, 0]     // [KH, KW, C, F]
    %y = linalg.conv_2d_nhwc_hwcf ins(%xb, %wt) outs(...)         // [N, OH, OW, F]
    %r = linalg.transpose ins(%y) permutation = [0, 3, 1, 2]      // [N, F, OH, OW]

The input's transposes first move down to where they cancel
(:mod:`~symshape_mlir.lowering.iree.sinking`); the barrier then goes on
an input that is still a transpose (`hide_transposed_inputs`), and keeps
it out of the convolution's dispatch: IREE fuses a transposing producer into a convolution as a
``linalg.generic`` reading through the permuted map, which leaves its
convolution strategy (as slow as NCHW). A weight transpose computed from
constants only is folded at compile time; one of a function argument gets
a barrier too. The result's transpose fuses into the convolution's
dispatch with what follows (bias, normalization, activation), writing
NCHW again. Depthwise convolutions become
``linalg.depthwise_conv_2d_nhwc_hwc`` the same way, and 1-D ones
``linalg.conv_1d_nwc_wcf`` and ``linalg.depthwise_conv_1d_nwc_wc``
(whisper's encoder stem: its static variant at batch 16 went from 8.5 to
6.7 ms per call). Poolings (``linalg.pooling_nchw_max`` and ``_sum``, and
their 1-D forms) become ``linalg.pooling_nhwc_*`` alike, their window
tensor as it is: resnet's 3x3 stride-2 max pool at 4x128x128 took 236 us
NCHW, single-threaded, and fuses into the stem's dispatch channels-last
(1.53 -> 1.40 ms per call in dispatches).
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import linalg, tensor

from symshape_mlir.lowering.iree.barriers import axis_sizes, hidden
from symshape_mlir.walk import ArgumentFree, collect_ops

__all__ = ["convolutions_channels_last", "hide_transposed_inputs"]

CHANNELS_LAST_OPS = ("linalg.conv_2d_nhwc_hwcf", "linalg.depthwise_conv_2d_nhwc_hwc",
                      "linalg.conv_1d_nwc_wcf", "linalg.depthwise_conv_1d_nwc_wc",
                      "linalg.pooling_nhwc_max", "linalg.pooling_nhwc_sum",
                      "linalg.pooling_nwc_max", "linalg.pooling_nwc_sum")

# Channels-first op -> (channels-last op, the permutations of its input (and
# init) and of its kernel to channels-last).
_CHANNELS_LAST = {
    "linalg.conv_2d_nchw_fchw": (linalg.conv_2d_nhwc_hwcf, (0, 2, 3, 1), (2, 3, 1, 0)),
    "linalg.depthwise_conv_2d_nchw_chw": (linalg.depthwise_conv_2d_nhwc_hwc, (0, 2, 3, 1),
                                          (1, 2, 0)),
    "linalg.conv_1d_ncw_fcw": (linalg.conv_1d_nwc_wcf, (0, 2, 1), (2, 1, 0)),
    "linalg.depthwise_conv_1d_ncw_cw": (linalg.depthwise_conv_1d_nwc_wc, (0, 2, 1), (1, 0)),
    "linalg.pooling_nchw_max": (linalg.pooling_nhwc_max, (0, 2, 3, 1), (0, 1)),
    "linalg.pooling_nchw_sum": (linalg.pooling_nhwc_sum, (0, 2, 3, 1), (0, 1)),
    "linalg.pooling_ncw_max": (linalg.pooling_nwc_max, (0, 2, 1), (0,)),
    "linalg.pooling_ncw_sum": (linalg.pooling_nwc_sum, (0, 2, 1), (0,)),
}


def _inverse(permutation: Sequence[int]) -> list[int]:
    """The permutation that undoes ``permutation``."""
    inverse = [0] * len(permutation)
    for position, axis in enumerate(permutation):
        inverse[axis] = position
    return inverse


def _permuted(value: ir.Value, permutation: Sequence[int]) -> ir.Value:
    """``value`` transposed by ``permutation`` (``linalg.transpose`` into a fresh tensor)."""
    sizes = axis_sizes(value)
    init = tensor.EmptyOp([sizes[p] for p in permutation],
                          ir.RankedTensorType(value.type).element_type)
    return linalg.transpose(value, outs=[init.result], permutation=list(permutation)).results[0]


def convolutions_channels_last(func: ir.Operation) -> int:
    """Rewrites each channels-first convolution of ``func`` (NCW, NCHW)
    channels-last (see the module docstring); returns how many."""
    rewritten = 0
    # A kernel computed from constants only is folded by IREE when compiling.
    constant = ArgumentFree(func)
    for op in collect_ops(func, lambda op: op.name in _CHANNELS_LAST):
        build, to_input, to_kernel = _CHANNELS_LAST[op.name]
        x, w, init = op.operands
        attributes = op.attributes
        with ir.InsertionPoint(op), op.location:
            kernel = w if list(to_kernel) == sorted(to_kernel) else _permuted(w, to_kernel)
            y = build(_permuted(x, to_input),
                      kernel if constant(w) else hidden(kernel),
                      outs=[_permuted(init, to_input)],
                      strides=list(ir.DenseIntElementsAttr(attributes["strides"])),
                      dilations=list(ir.DenseIntElementsAttr(attributes["dilations"])))
            if isinstance(y, ir.OpView):
                y = y.results[0]
            result = _permuted(y, _inverse(to_input))
        op.results[0].replace_all_uses_with(result)
        op.operation.erase()
        rewritten += 1
    return rewritten


def hide_transposed_inputs(func: ir.Operation) -> int:
    """Puts the input of each channels-last convolution of ``func`` that a
    ``linalg.transpose`` makes behind a barrier (see the module docstring);
    returns how many. An input in the layout already (its transpose
    cancelled by `~symshape_mlir.lowering.iree.sinking.sink_transposes`)
    stays as it is: IREE then fuses a padding into the convolution's
    dispatch instead of copying it (mobilenet_v2 at 2x96x80: 2.0 ms per
    call with the barriers, 0.9 without)."""
    count = 0
    for op in collect_ops(func, lambda op: op.name in CHANNELS_LAST_OPS):
        x = op.operands[0]
        owner = x.owner
        if not (isinstance(owner, ir.OpView) and owner.name == "linalg.transpose"):
            continue
        with ir.InsertionPoint(op), op.location:
            op.operands[0] = hidden(x)
        count += 1
    return count
