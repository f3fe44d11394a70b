"""Sliding-window ops over ``[N, C, spatial...]`` tensors: ``conv`` and ``pool``.

The input is padded first (``tensor.pad``: zeros for sums, the lowest value
for ``max``), so every read of the ``linalg.generic`` lands inside the padded
tensor by construction; its spatial axes are read through the window maps
``d_out * stride + d_kernel * dilation``. Output extents are exact
expressions over the input's axes: ``(padded - dilation * (k - 1) - 1)
floordiv stride + 1``, ``h ceildiv stride`` for the ``"same_upper"`` and
``"same_lower"`` modes, and, with ``ceil_mode``, ONNX's rounding up (a last
window that would start in the end padding is dropped). Kernel extents are
static; grouped convolutions split the channels with
``tensor.expand_shape``. A pooling op also reads a kernel-shaped
``tensor.empty`` (as linalg's named pooling ops do), which gives its kernel
loops their extents; an average divides by the kernel's size, or by a
window sum over ones where padding does not count.

Floating-point windows with a named linalg op of the same loops and maps
are emitted as that op (`NAMED_CONVOLUTIONS`: ``linalg.conv_2d_nchw_fchw``,
``linalg.depthwise_conv_2d_nchw_chw``, ``linalg.conv_2d_ngchw_gfchw``,
``linalg.pooling_nchw_max``, ...): IREE's CPU backend has convolution
strategies for those and treats a ``linalg.generic`` as any other loop
nest (resnet's 3x3 convolutions ran 2-3x slower as generics). A grouped
1-D convolution (up to 64 groups) is one ``linalg.conv_1d_ncw_fcw`` per
group, its input and kernels sliced per group, the results concatenated
(``tensor.concat``). Other windows (integers, grouped 3-D, 1-D with more
groups) are the ``linalg.generic`` below; both have the same indexing
maps, so inference checks them alike.

Example:
    >>> def f(x, w):              # x: [batch, 3, h, w], w: [8, 3, 3, 3]
    ...     return conv(x, w, strides=2, pads="same_upper")  # [batch, 8, h ceildiv 2, w ceildiv 2]

.. code-block:: mlir

    %y = linalg.generic {indexing_maps = [
        affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>,
        affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>,
        affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = [
        "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%padded, %w : tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>) outs(%zeros : ...)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import cast

import numpy as np

from symshape_mlir.extent import canon
from symshape_mlir.extent.expr import Const, Expr
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.extent.prove import prove_eq
from symshape_mlir.frontend.errors import FrontendError, ShapeError
from symshape_mlir.frontend.index import Index, IndexBuilder
from symshape_mlir.frontend.ops.constants import constant
from symshape_mlir.frontend.ops.elementwise import add, astype, divide, equal, multiply
from symshape_mlir.frontend.ops.gather import take
from symshape_mlir.frontend.ops.generic import Body, Operand, emit_empty, emit_fill, emit_generic
from symshape_mlir.frontend.ops.indexing import getitem
from symshape_mlir.frontend.ops.linalg import multiply_add
from symshape_mlir.frontend.ops.padding import pad, pad_extent
from symshape_mlir.frontend.ops.reductions import COMBINE, identity
from symshape_mlir.frontend.ops.shape_ops import (
    concatenate,
    drop_unit_axes,
    embed_slice,
    expand_dims,
    extract_slice,
    reshape,
    transpose,
)
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import tensor_type
from symshape_mlir.frontend.vjp import (
    Cotangents,
    Node,
    composite,
    primitive,
    vjp_rule,
    zero_rule,
)
from symshape_mlir.shapes.shape import Shape
from symshape_mlir.shapes.windows import Window, window

__all__ = ["NAMED_CONVOLUTIONS", "PAD_MODES", "Pads", "conv", "conv_transpose", "pool"]

Width = int | Expr | ShapeExtent
#: ``"valid"``, ``"same_upper"``, ``"same_lower"``, one width for every side,
#: or ``(before, after)`` per spatial axis.
Pads = str | int | Sequence[tuple[Width, Width]]
PAD_MODES = ("valid", "same_upper", "same_lower")

# The named linalg ops emitted for floating-point windows, by spatial rank:
# ``[N, C, spatial...]`` inputs, ``[F, C, k...]`` kernels.
_CONVOLUTIONS = {1: "linalg.conv_1d_ncw_fcw", 2: "linalg.conv_2d_nchw_fchw",
                 3: "linalg.conv_3d_ncdhw_fcdhw"}
# One filter per channel: ``[C, k...]`` kernels.
_DEPTHWISE = {1: "linalg.depthwise_conv_1d_ncw_cw", 2: "linalg.depthwise_conv_2d_nchw_chw",
              3: "linalg.depthwise_conv_3d_ncdhw_cdhw"}
# Groups: ``[N, G, C, spatial...]`` inputs, ``[G, F, C, k...]`` kernels.
_GROUPED = {2: "linalg.conv_2d_ngchw_gfchw"}
# Spatial ranks whose grouped convolutions are one `_CONVOLUTIONS` op per
# group (`_per_group`), for up to this many groups: IREE 3.13 has no
# strategy for a grouped 1-D window (1-D ``linalg.conv_2d_ngchw_gfchw`` of
# unit height ran as slowly as the generic, ``linalg.conv_2d_nhwgc_gfhwc``
# 1.1-3x faster), and vectorizes each group's ``linalg.conv_1d_nwc_wcf``
# (wav2vec2's positional convolution, 4 groups of 8 channels, kernel 16,
# at batch 4 and 200 frames: 0.45 ms against 1.2-3.7 ms; 16 groups of 48,
# kernel 128: 154-214 ms against 524).
_SPLIT_GROUPS = frozenset({1})
# A transposed convolution's output phases (`_by_phases`) have a multiple of this
# many positions per spatial axis: IREE 3.13 tiles a static extent by its
# divisors, and the upsampler's interleaving transpose over 257 positions (256
# inputs, 2-tap phase kernels) took 5.6-9.1 ms against 4.3-5.5 over 264.
_PHASE_ROWS = 8
_MAX_SPLIT_GROUPS = 64
# Windows of ``[N, C, spatial...]`` reading a kernel-shaped tensor.
_POOLS = {("max", 1): "linalg.pooling_ncw_max", ("max", 2): "linalg.pooling_nchw_max",
          ("sum", 1): "linalg.pooling_ncw_sum", ("sum", 2): "linalg.pooling_nchw_sum"}
#: Every named linalg op a window may be emitted as.
NAMED_CONVOLUTIONS = frozenset(
    {*_CONVOLUTIONS.values(), *_DEPTHWISE.values(), *_GROUPED.values(), *_POOLS.values()})


def _read(window: Window, out_loop: int, kernel_loop: int) -> str:
    """The index map result reading the padded input along ``window``'s axis."""
    out = f"d{out_loop}" if window.stride == 1 else f"d{out_loop} * {window.stride}"
    tap = f"d{kernel_loop}" if window.dilation == 1 else f"d{kernel_loop} * {window.dilation}"
    return f"{out} + {tap}"


def _per_axis(op: str, name: str, value: int | Sequence[int], count: int,
              where: SourceLocation) -> list[int]:
    items = [value] * count if isinstance(value, int) else list(value)
    if len(items) != count or any(isinstance(v, bool) or not isinstance(v, int) or v < 1
                                  for v in items):
        raise FrontendError(
            f"{op} at {where}: {name} must be {count} positive integers (one per spatial axis), "
            f"not {value!r}")
    return items


def _windows(
    op: str,
    x: Tensor,
    kernel: Sequence[int],
    strides: int | Sequence[int],
    dilations: int | Sequence[int],
    pads: Pads,
    ceil_mode: bool,
    where: SourceLocation,
) -> list[Window]:
    spatial = x.ndim - 2
    steps = _per_axis(op, "strides", strides, spatial, where)
    rates = _per_axis(op, "dilations", dilations, spatial, where)
    x.trace.require_exact(op, "input extent", x.shape[2:], where)
    if isinstance(pads, str):
        if pads not in PAD_MODES:
            raise FrontendError(
                f"{op} at {where}: pads {pads!r} is not one of {', '.join(PAD_MODES)}")
        widths: list[tuple[Width, ...]] = []
    elif isinstance(pads, int):
        widths = [(pads, pads)] * spatial
    else:
        widths = [tuple(p) for p in pads]
        if len(widths) != spatial or any(len(p) != 2 for p in widths):
            raise FrontendError(
                f"{op} at {where}: pads must give (before, after) for each of the {spatial} "
                "spatial axes")
    windows = []
    for axis in range(spatial):
        # Exact by require_exact above (or, under defer, a bound): the expression is set.
        size = cast(Expr, x.shape[2 + axis].expr)
        pair: str | tuple[Expr, Expr] = pads if isinstance(pads, str) else cast(
            tuple[Expr, Expr],
            tuple(cast(Expr, pad_extent(op, w, x, where).expr) for w in widths[axis]))
        windows.append(window(size, kernel[axis], steps[axis], rates[axis], pair, ceil_mode))
    return windows


def _width(e: Expr) -> int | Expr:
    return e.value if isinstance(e, Const) else e


def _pad_spatial(x: Tensor, windows: Sequence[Window], value: float | int,
                 where: SourceLocation, include: bool = True) -> Tensor:
    """``x`` padded by the windows' padding (only their slack if not ``include``),
    then cut to the extent the windows read.

    The cut keeps the window maps exact where an output extent is 1: a
    compiler that drops that unit loop reads the axis through a plain
    dimension, which must span the whole axis.
    """
    lead = x.ndim - len(windows)
    widths = [(w.low, w.high + w.slack) if include else (Const(0), Const(w.slack))
              for w in windows]
    if any(lo is not Const(0) or hi is not Const(0) for lo, hi in widths):
        x = pad(x, [(0, 0)] * lead + [(_width(lo), _width(hi)) for lo, hi in widths], value)
    extents = list(x.shape)
    for i, w in enumerate(windows):
        # The input's spatial extents passed require_exact and the padding is exact.
        have = cast(Expr, extents[lead + i].expr)
        read = (w.out - 1) * w.stride + w.span
        if prove_eq(have, read) is not True:
            extents[lead + i] = Exact(canon.minimum(read, have))
    if extents == list(x.shape):
        return x
    trace = x.trace
    sizes: list[Index] = []
    for axis, extent in enumerate(extents):
        if isinstance(extent.expr, Const):
            sizes.append(Index(str(extent.expr.value), extent))
        elif extent is x.shape[axis]:
            sizes.append(Index(trace.dim_index(x, axis, where), extent))
        else:
            sizes.append(Index(trace.materialize(extent, where), extent))
    zero = Index("0", Exact(Const(0)))
    return extract_slice(x, [zero] * x.ndim, sizes, [1] * x.ndim, Shape(extents), where)


def _emit_named(op: str, inputs: Sequence[Tensor], windows: Sequence[Window], init: str,
                out_shape: Shape, where: SourceLocation) -> Tensor:
    """Emits the named window op ``op`` (strides and dilations from ``windows``)."""
    trace = inputs[0].trace
    dtype = inputs[0].dtype
    rank = len(windows)
    strides = ", ".join(str(w.stride) for w in windows)
    dilations = ", ".join(str(w.dilation) for w in windows)
    out_type = tensor_type(out_shape, dtype)
    name = trace.ssa("cv")
    trace.emit(
        f"{name} = {op} {{dilations = dense<[{dilations}]> : tensor<{rank}xi64>, "
        f"strides = dense<[{strides}]> : tensor<{rank}xi64>}} "
        f"ins({', '.join(t.value for t in inputs)} : "
        f"{', '.join(t.mlir_type for t in inputs)}) outs({init} : {out_type}) -> {out_type}",
        where,
    )
    return Tensor(trace, name, out_shape, dtype)


@primitive("slide", label_from="kind")
def _slide(kind: str, padded: Tensor, windows: Sequence[Window], where: SourceLocation) -> Tensor:
    """Max or sum of each window of ``padded`` over its trailing spatial axes."""
    trace = padded.trace
    dtype = padded.dtype
    lead = padded.ndim - len(windows)
    spatial = len(windows)
    out_shape = Shape([*padded.shape[:lead], *(Exact(w.out) for w in windows)])
    kernel = Shape([Exact(Const(w.kernel)) for w in windows])
    taps = Tensor(trace, emit_empty(trace, kernel, dtype, [None] * spatial, where), kernel, dtype)
    init = emit_empty(
        trace, out_shape, dtype, [(padded, a) for a in range(lead)] + [None] * spatial, where)
    filled = emit_fill(trace, init, dtype, identity(kind, dtype), tensor_type(out_shape, dtype),
                       where)
    named = _POOLS.get((kind, spatial)) if lead == 2 and dtype.is_float else None
    if named is not None:
        return _emit_named(named, [padded, taps], windows, filled, out_shape, where)
    outs = [f"d{a}" for a in range(lead + spatial)]
    reads = [_read(w, lead + i, lead + spatial + i) for i, w in enumerate(windows)]
    combine = COMBINE[kind][0 if dtype.is_float else 1]
    def body(block: Body, args: list[str]) -> str:
        return block.op(f"{combine} {args[2]}, {args[0]}", dtype.mlir)

    return emit_generic(
        trace,
        [Operand(padded, (*outs[:lead], *reads)),
         Operand(taps, tuple(f"d{lead + spatial + i}" for i in range(spatial)))],
        lead + 2 * spatial,
        ["parallel"] * (lead + spatial) + ["reduction"] * spatial,
        outs,
        out_shape,
        dtype,
        filled,
        body,
        where,
    )


def _check_input(op: str, x: Tensor, where: SourceLocation) -> None:
    if not isinstance(x, Tensor):
        raise FrontendError(f"{op} at {where}: the input must be a traced tensor")
    if x.ndim < 3:
        raise ShapeError(
            f"{op} at {where}: the input must have rank 3 or more ([N, C, spatial...]), "
            f"not {x.ndim}")
    if x.dtype.is_bool:
        raise FrontendError(f"{op} at {where}: element type i1 is not supported")


@composite
def pool(
    x: Tensor,
    kind: str,
    kernel: Sequence[int],
    *,
    strides: int | Sequence[int] = 1,
    dilations: int | Sequence[int] = 1,
    pads: Pads = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = False,
) -> Tensor:
    """Max or average pooling of ``x: [N, C, spatial...]`` over ``kernel`` windows.

    Args:
        kind: ``"max"`` or ``"avg"``.
        kernel: the window's extent per spatial axis.
        strides, dilations: per spatial axis, or one for all.
        pads: see :data:`Pads`; explicit widths are ``int`` or exact extents.
        ceil_mode: round the output extents up (explicit ``pads`` only).
        count_include_pad: averages divide by the window's extent, padding
            included; else by the number of input elements in the window.

    Raises:
        FrontendError: bad arguments, or an average of integers.
        ShapeError: rank below 3.
        ContractError: an input extent or pad width is only an upper bound.
    """
    where = user_location()
    if kind not in ("max", "avg"):
        raise FrontendError(f"pool at {where}: kind must be 'max' or 'avg', not {kind!r}")
    op = f"{kind}_pool"
    _check_input(op, x, where)
    if kind == "avg" and not x.dtype.is_float:
        raise FrontendError(f"{op} at {where}: needs a floating-point type, not {x.dtype}")
    spatial = x.ndim - 2
    kernel = _per_axis(op, "kernel", kernel, spatial, where)
    windows = _windows(op, x, kernel, strides, dilations, pads, ceil_mode, where)
    if kind == "max":
        lowest = identity("max", x.dtype)
        return _slide("max", _pad_spatial(x, windows, lowest, where), windows, where)
    total = _slide("sum", _pad_spatial(x, windows, 0.0, where), windows, where)
    padded = any(w.low is not Const(0) or w.high is not Const(0) for w in windows)
    if not any(w.slack for w in windows) and (count_include_pad or not padded):
        return divide(total, float(np.prod(kernel)))
    return divide(total, _counts(x, windows, count_include_pad, where))


@primitive("window_counts")
def _counts(x: Tensor, windows: Sequence[Window], count_include_pad: bool,
            where: SourceLocation) -> Tensor:
    """The number of elements each window averages: ``[out...]``, a window sum
    over ones (the input, and its padding if it counts) padded with zeros."""
    trace = x.trace
    lead = x.ndim - len(windows)
    if count_include_pad:
        shape = Shape([Exact(w.size + w.low + w.high) for w in windows])
        sources: list[tuple[Tensor, int] | None] = [None] * len(windows)
    else:
        shape = Shape(x.shape[lead:])
        sources = [(x, lead + i) for i in range(len(windows))]
    empty = emit_empty(trace, shape, x.dtype, sources, where)
    filled = emit_fill(trace, empty, x.dtype, 1.0, tensor_type(shape, x.dtype), where)
    ones = _pad_spatial(Tensor(trace, filled, shape, x.dtype), windows, 0.0, where,
                        include=not count_include_pad)
    return _slide("sum", ones, windows, where)


@composite
def conv(
    x: Tensor,
    w: Tensor,
    bias: Tensor | None = None,
    *,
    strides: int | Sequence[int] = 1,
    dilations: int | Sequence[int] = 1,
    pads: Pads = 0,
    groups: int = 1,
) -> Tensor:
    """Convolution as ONNX's ``Conv``: ``x: [N, C, spatial...]`` with ``w: [F, C / groups, k...]``.

    Args:
        bias: ``[F]``, added to every output position.
        strides, dilations: per spatial axis, or one for all.
        pads: see :data:`Pads`; explicit widths are ``int`` or exact extents.
        groups: ``C`` and ``F`` split into this many groups, group ``g`` of
            the output reading group ``g`` of the input.

    Returns:
        ``[N, F, out...]``.

    Raises:
        FrontendError: bad arguments; kernel extents that are not static.
        ShapeError: ranks, or channel counts that provably do not match.
        ContractError: an input extent or pad width is only an upper bound.
    """
    where = user_location()
    _check_input("conv", x, where)
    if not isinstance(w, Tensor):
        raise FrontendError(f"conv at {where}: the weights must be a traced tensor")
    if w.dtype != x.dtype:
        raise FrontendError(f"conv at {where}: element types differ ({x.dtype}, {w.dtype})")
    if w.ndim != x.ndim:
        raise ShapeError(
            f"conv at {where}: the weights must have rank {x.ndim} like the input, not {w.ndim}")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise FrontendError(f"conv at {where}: groups must be a positive integer, not {groups!r}")
    kernel = _static_kernel("conv", w, where)
    filters, per_group, channels = w.shape[0], w.shape[1], x.shape[1]
    if isinstance(channels, Exact) and isinstance(per_group, Exact) and prove_eq(
            channels.expr, per_group.expr * groups) is False:
        raise ShapeError(
            f"conv at {where}: the input has {channels} channels, not groups * weights axis 1 "
            f"= {groups} * {per_group}")
    if isinstance(filters.expr, Const) and filters.is_exact and filters.expr.value % groups:
        raise ShapeError(
            f"conv at {where}: {filters} output channels do not split into {groups} groups")
    if bias is not None:
        if not isinstance(bias, Tensor) or bias.ndim != 1 or bias.dtype != x.dtype:
            raise FrontendError(f"conv at {where}: the bias must be a 1-D {x.dtype} tensor")
        length = bias.shape[0]
        if isinstance(length, Exact) and isinstance(filters, Exact) and prove_eq(
                length.expr, filters.expr) is False:
            raise ShapeError(
                f"conv at {where}: the bias has {bias.shape[0]} elements, not one per output "
                f"channel ({filters})")
    windows = _windows("conv", x, kernel, strides, dilations, pads, False, where)
    padded = _pad_spatial(x, windows, 0.0 if x.dtype.is_float else 0, where)
    if groups > 1:
        padded = reshape(padded, [padded.shape[0], groups, per_group, *padded.shape[2:]])
        w = reshape(w, [groups, filters // groups, per_group, *w.shape[2:]])
    y = _convolve(padded, w, windows, groups > 1, where)
    if groups > 1:
        y = reshape(y, [y.shape[0], filters, *y.shape[3:]])
    if bias is not None:
        y = add(y, expand_dims(bias, list(range(1, len(windows) + 1))))
    return y


@primitive("convolve")
def _convolve(padded: Tensor, w: Tensor, windows: Sequence[Window], grouped: bool,
              where: SourceLocation) -> Tensor:
    """The windows of ``padded: [N, (G,) C, spatial...]`` contracted with
    ``w: [(G,) F, C, k...]``: ``[N, (G,) F, out...]``."""
    spatial = len(windows)
    # Loops: n, [g], f, out..., c, k...
    lead = 3 if grouped else 2
    outs = [f"d{a}" for a in range(lead + spatial)]
    c = lead + spatial
    taps = [c + 1 + i for i in range(spatial)]
    reads = [_read(win, lead + i, taps[i]) for i, win in enumerate(windows)]
    group = ["d1"] if grouped else []
    x_map = ("d0", *group, f"d{c}", *reads)
    w_map = (*group, f"d{lead - 1}", f"d{c}", *(f"d{t}" for t in taps))
    out_shape = Shape([padded.shape[0], *w.shape[: lead - 1],
                       *(Exact(win.out) for win in windows)])
    trace = padded.trace
    dtype = padded.dtype
    sources = [(padded, 0), *((w, a) for a in range(lead - 1)), *([None] * spatial)]
    init = emit_empty(trace, out_shape, dtype, sources, where)
    zero: float | int = 0.0 if dtype.is_float else 0
    filled = emit_fill(trace, init, dtype, zero, tensor_type(out_shape, dtype), where)
    named = _named_convolution(padded, w, windows, grouped, filled, out_shape, where)
    if named is not None:
        return named

    def body(block: Body, args: list[str]) -> str:
        return multiply_add(block, args, dtype)

    return emit_generic(
        trace,
        [Operand(padded, x_map), Operand(w, w_map)],
        c + 1 + spatial,
        ["parallel"] * c + ["reduction"] * (1 + spatial),
        outs,
        out_shape,
        dtype,
        filled,
        body,
        where,
    )


def _named_convolution(padded: Tensor, w: Tensor, windows: Sequence[Window], grouped: bool,
                       filled: str, out_shape: Shape, where: SourceLocation) -> Tensor | None:
    """:func:`_convolve` as the named linalg op of its loops, where there is one
    (floating point; one filter per channel is a depthwise convolution of
    ``[N, G, spatial...]`` by ``[G, k...]``); None where there is none."""
    spatial = len(windows)
    if not padded.dtype.is_float:
        return None
    if not grouped:
        op = _CONVOLUTIONS.get(spatial)
        return None if op is None else _emit_named(op, [padded, w], windows, filled, out_shape,
                                                   where)
    if _static(padded.shape[2]) == 1 and _static(w.shape[1]) == 1 and spatial in _DEPTHWISE:
        flat = Shape([out_shape[0], out_shape[1], *out_shape[3:]])
        sources = [(padded, 0), (padded, 1), *([None] * spatial)]
        init = emit_fill(padded.trace, emit_empty(padded.trace, flat, padded.dtype, sources,
                                                  where),
                         padded.dtype, 0.0, tensor_type(flat, padded.dtype), where)
        y = _emit_named(_DEPTHWISE[spatial], [drop_unit_axes(padded, [2], where),
                                              drop_unit_axes(w, [1, 2], where)],
                        windows, init, flat, where)
        return expand_dims(y, [2])
    if spatial in _GROUPED:
        return _emit_named(_GROUPED[spatial], [padded, w], windows, filled, out_shape, where)
    groups = _static(padded.shape[1])
    if spatial in _SPLIT_GROUPS and groups is not None and groups <= _MAX_SPLIT_GROUPS \
            and _static(padded.shape[2]) is not None and _static(w.shape[1]) is not None:
        return _per_group(padded, w, windows, groups, out_shape, where)
    return None


def _per_group(padded: Tensor, w: Tensor, windows: Sequence[Window], groups: int,
               out_shape: Shape, where: SourceLocation) -> Tensor:
    """A grouped convolution as one named convolution per group, stacked:
    group ``g`` of ``padded: [N, G, C, spatial...]`` (static ``G`` and
    ``C``) convolved with ``w[g]: [F, C, k...]``, ``[N, G, F, out...]``."""
    spatial = len(windows)
    trace, dtype = padded.trace, padded.dtype
    zero = Index("0", Exact(Const(0)))
    one = Index("1", Exact(Const(1)))

    def size(x: Tensor, axis: int) -> Index:
        value = _static(x.shape[axis])
        if value is not None:
            return Index(str(value), x.shape[axis])
        return Index(trace.dim_index(x, axis, where), x.shape[axis])

    x_sizes = [size(padded, a) for a in range(padded.ndim)]
    w_sizes = [size(w, a) for a in range(w.ndim)]
    x_shape = Shape([padded.shape[0], *padded.shape[2:]])
    w_shape = Shape(list(w.shape[1:]))
    y_shape = Shape([out_shape[0], *out_shape[2:]])
    sources = [(padded, 0), (w, 1), *([None] * spatial)]
    pieces = []
    for g in range(groups):
        at = Index(str(g), Exact(Const(g)))
        x = extract_slice(padded, [zero, at, *[zero] * (padded.ndim - 2)],
                          [x_sizes[0], one, *x_sizes[2:]], [1] * padded.ndim, x_shape, where)
        k = extract_slice(w, [at, *[zero] * (w.ndim - 1)], [one, *w_sizes[1:]],
                          [1] * w.ndim, w_shape, where)
        init = emit_fill(trace, emit_empty(trace, y_shape, dtype, sources, where), dtype, 0.0,
                         tensor_type(y_shape, dtype), where)
        y = _emit_named(_CONVOLUTIONS[spatial], [x, k], windows, init, y_shape, where)
        pieces.append(expand_dims(y, [1]))
    return pieces[0] if groups == 1 else concatenate(pieces, axis=1)


def _static(extent: ShapeExtent) -> int | None:
    """The value of an exact constant extent (None for any other)."""
    return extent.expr.value if extent.is_exact and isinstance(extent.expr, Const) else None


def _static_kernel(op: str, w: Tensor, where: SourceLocation) -> list[int]:
    kernel: list[int] = []
    for axis, extent in enumerate(w.shape[2:]):
        if not (extent.is_exact and isinstance(extent.expr, Const)):
            raise FrontendError(
                f"{op} at {where}: kernel extent {axis} (weights axis {axis + 2}) is {extent}; "
                "kernel extents must be static")
        kernel.append(extent.expr.value)
    return kernel


def _flipped(w: Tensor, groups: int, where: SourceLocation) -> Tensor:
    """``[C, F / groups, k...]`` transposed-convolution weights as ``[F, C / groups, k...]``
    convolution weights, flipped along every spatial axis."""
    channels, per_group = w.shape[0], w.shape[1]
    kernel = [e.expr.value for e in w.shape[2:]]  # type: ignore[union-attr]
    grouped = reshape(w, [groups, channels // groups, per_group, *w.shape[2:]])
    swapped = transpose(grouped, [0, 2, 1, *range(3, w.ndim + 1)])
    result = reshape(swapped, [per_group * groups, channels // groups, *w.shape[2:]])
    for axis, k in enumerate(kernel):
        if k > 1:
            reverse = constant(w.trace, np.arange(k - 1, -1, -1, dtype=np.int64), where)
            result = take(result, reverse, axis + 2)
    return result


@composite
def conv_transpose(
    x: Tensor,
    w: Tensor,
    bias: Tensor | None = None,
    *,
    strides: int | Sequence[int] = 1,
    dilations: int | Sequence[int] = 1,
    pads: str | Sequence[tuple[int, int]] = "valid",
    output_padding: int | Sequence[int] = 0,
    groups: int = 1,
) -> Tensor:
    """Transposed convolution as ONNX's ``ConvTranspose``: ``x: [N, C, spatial...]`` with
    ``w: [C, F / groups, k...]`` gives ``[N, F, out...]``.

    ``out = stride * (in - 1) + output_padding + dilation * (k - 1) + 1 - pad_before -
    pad_after`` (a negative extent fails at run time). ``pads`` is ``"valid"``,
    ``"same_upper"`` / ``"same_lower"`` (``out = in * stride``) or ``(before, after)``
    per spatial axis. With one group, no dilation and a stride above 1 it is one
    convolution per output phase (`_by_phases`); otherwise a convolution with stride 1
    of the input spread out by the stride and padded with zeros (`_spread`).

    Raises:
        FrontendError: bad arguments; kernel extents that are not static.
        ShapeError: ranks, or channel counts that provably do not match.
    """
    where = user_location()
    _check_input("conv_transpose", x, where)
    if not isinstance(w, Tensor) or w.dtype != x.dtype or w.ndim != x.ndim:
        raise FrontendError(f"conv_transpose at {where}: the weights must be a {x.dtype} tensor "
                            f"of rank {x.ndim}")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise FrontendError(
            f"conv_transpose at {where}: groups must be a positive integer, not {groups!r}")
    spatial = x.ndim - 2
    kernel = _static_kernel("conv_transpose", w, where)
    steps = _per_axis("conv_transpose", "strides", strides, spatial, where)
    rates = _per_axis("conv_transpose", "dilations", dilations, spatial, where)
    extra = [output_padding] * spatial if isinstance(output_padding, int) else list(
        output_padding)
    if len(extra) != spatial or any(not 0 <= e < max(s, d) for e, s, d in
                                    zip(extra, steps, rates, strict=False)):
        raise FrontendError(f"conv_transpose at {where}: output_padding {output_padding!r} must "
                            "give one value per spatial axis below its stride or dilation")
    channels = w.shape[0]
    if isinstance(channels, Exact) and isinstance(x.shape[1], Exact) and prove_eq(
            x.shape[1].expr, channels.expr) is False:
        raise ShapeError(f"conv_transpose at {where}: the input has {x.shape[1]} channels, "
                         f"the weights {channels}")
    x.trace.require_exact("conv_transpose", "input extent", x.shape[2:], where)
    widths: list[tuple[int, int]] = []
    for axis in range(spatial):
        k, s, d, e = kernel[axis], steps[axis], rates[axis], extra[axis]
        if isinstance(pads, str):
            if pads not in PAD_MODES:
                raise FrontendError(f"conv_transpose at {where}: pads {pads!r} is not one of "
                                    f"{', '.join(PAD_MODES)}")
            total = 0 if pads == "valid" else e + d * (k - 1) + 1 - s
            first = total // 2 if pads == "same_upper" else total - total // 2
            widths.append((first, total - first) if pads != "valid" else (0, 0))
        else:
            pairs = list(pads)
            if len(pairs) != spatial or any(len(p) != 2 for p in pairs):
                raise FrontendError(f"conv_transpose at {where}: pads must give (before, after) "
                                    f"for each of the {spatial} spatial axes")
            widths.append((int(pairs[axis][0]), int(pairs[axis][1])))
    dtype = x.dtype
    if (groups == 1 and any(s > 1 for s in steps) and all(d == 1 for d in rates)
            and all(lo >= 0 and hi >= 0 for lo, hi in widths)):
        y = _by_phases(x, w, kernel, steps, widths, extra, where)
    else:
        y = _spread(x, w, kernel, steps, rates, widths, extra, groups, where)
    if bias is not None:
        if not isinstance(bias, Tensor) or bias.ndim != 1 or bias.dtype != dtype:
            raise FrontendError(f"conv_transpose at {where}: the bias must be a 1-D {dtype} "
                                "tensor")
        y = add(y, expand_dims(bias, list(range(1, spatial + 1))))
    return y


def _phase_weights(w: Tensor, kernel: list[int], steps: list[int], reads: list[int],
                   where: SourceLocation) -> Tensor:
    """``[C, F, k...]`` transposed-convolution weights as the ``[P * F, C, r...]``
    convolution weights of its ``P = prod(steps)`` output phases (`_by_phases`):
    phase ``p`` of an axis with stride ``s`` reads taps ``p + s * j`` for
    ``j < r = ceil(k / s)``, in reverse (a correlation), a tap past the kernel
    being zero."""
    spatial = len(kernel)
    for axis, (k, s, r) in enumerate(zip(kernel, steps, reads, strict=True)):
        taps = np.array([[p + s * (r - 1 - j) for j in range(r)] for p in range(s)]).reshape(-1)
        w = take(w, constant(w.trace, np.minimum(taps, k - 1).astype(np.int64), where), axis + 2)
        if (taps >= k).any():
            kept = (taps < k).astype(np.float32).reshape([s * r] + [1] * (spatial - 1 - axis))
            w = multiply(w, astype(constant(w.trace, kept, where), w.dtype, where))
    split = reshape(w, [w.shape[0], w.shape[1], *itertools.chain.from_iterable(
        zip(steps, reads, strict=True))])
    phases = transpose(split, [*(2 + 2 * a for a in range(spatial)), 1, 0,
                               *(3 + 2 * a for a in range(spatial))])
    return reshape(phases, [-1, w.shape[0], *reads])


def _by_phases(x: Tensor, w: Tensor, kernel: list[int], steps: list[int],
               widths: list[tuple[int, int]], extra: list[int], where: SourceLocation) -> Tensor:
    """A transposed convolution (one group, no dilation) as one convolution per
    output phase, all in one: output position ``s * q + p`` (``p < s``, per
    axis) sums ``x[q - j] * w[p + s * j]``, a convolution of ``x`` with stride
    1 and a kernel of ``r = ceil(k / s)`` taps. The phases are the output
    channels of one convolution of ``x`` padded by ``r - 1`` on the left and
    to ``q`` positions (`_PHASE_ROWS`) on the right, interleaved into the
    spatial axes and cropped by the pads:

    .. code-block:: text

        [N, C, n]  --conv, [s*F, C, r]-->  [N, s*F, q]
                   --interleave-->  [N, F, q * s]  --crop-->  [N, F, out]

    A stride-2 4x4 kernel multiplies no zeros, where spreading the input by the
    stride multiplies three zeros for each input.
    """
    spatial = len(kernel)
    reads = [-(-k // s) for k, s in zip(kernel, steps, strict=True)]
    # Output phases of `q` positions each, enough for the last position kept, and
    # a multiple of `_PHASE_ROWS` (IREE's static code splits a prime extent badly).
    short = [max(0, -(-(k + e - p[1] - r * s) // s))
             for k, e, p, r, s in zip(kernel, extra, widths, reads, steps, strict=True)]
    sizes = [cast(Expr, x.shape[2 + a].expr) for a in range(spatial)]
    rows = [canon.mul(canon.ceildiv(canon.add(n, r - 1, m), _PHASE_ROWS), _PHASE_ROWS)
            for n, r, m in zip(sizes, reads, short, strict=True)]
    z = conv(x, _phase_weights(w, kernel, steps, reads, where),
             pads=[(r - 1, canon.sub(q, n)) for r, q, n in zip(reads, rows, sizes, strict=True)])
    batch, filters = z.shape[0], w.shape[1]
    split = reshape(z, [batch, *steps, filters, *z.shape[2:]])
    # Interleaved channels-last (the filters stay the innermost axis, as the
    # convolution writes them), then channels first.
    interleaved = transpose(split, [0, *itertools.chain.from_iterable(
        (2 + spatial + a, 1 + a) for a in range(spatial)), 1 + spatial])
    last = reshape(interleaved, [batch, *(
        Exact(canon.mul(q, s)) for q, s in zip(rows, steps, strict=True)), filters])
    full = transpose(last, [0, 1 + spatial, *range(1, 1 + spatial)])
    # The output's extents as ONNX gives them (a negative one is refused when
    # the call is planned), cut from the interleaved phases past the pads.
    outs = [canon.add(canon.mul(canon.sub(n, 1), s), k + e - p[0] - p[1])
            for n, s, k, e, p in zip(sizes, steps, kernel, extra, widths, strict=True)]
    b = IndexBuilder(x.trace, where)
    return extract_slice(
        full, [b.const(0), b.const(0), *(b.const(p[0]) for p in widths)],
        [b.dim(full, 0), b.dim(full, 1),
         *(b.size(out, "conv_transpose", "output extent") for out in outs)],
        [1] * full.ndim, Shape([batch, filters, *(Exact(out) for out in outs)]), where)


def _spread(x: Tensor, w: Tensor, kernel: list[int], steps: list[int], rates: list[int],
            widths: list[tuple[int, int]], extra: list[int], groups: int,
            where: SourceLocation) -> Tensor:
    """A transposed convolution as a convolution with stride 1 of the input spread
    out by the stride and padded with zeros (one strided ``tensor.insert_slice``),
    with the kernel flipped and its channel axes swapped."""
    spatial = len(kernel)
    trace = x.trace
    # The input spread by the stride inside zeros: offsets `low`, widths `low` and `high`
    # around it, each cut back to 0 and cropped from the result instead.
    lows = [d * (k - 1) - p[0] for k, d, p in zip(kernel, rates, widths, strict=True)]
    highs = [d * (k - 1) - p[1] + e for k, d, p, e in zip(kernel, rates, widths, extra,
                                                         strict=True)]
    spread = [canon.add(canon.mul(canon.sub(cast(Expr, x.shape[2 + a].expr), 1), steps[a]), 1,
                        max(lows[a], 0), max(highs[a], 0)) for a in range(spatial)]
    shape = Shape([x.shape[0], x.shape[1], *(Exact(e) for e in spread)])
    b = IndexBuilder(trace, where)
    sizes = [b.dim(x, a) for a in range(x.ndim)]
    offsets = [b.const(0), b.const(0), *(b.const(max(lo, 0)) for lo in lows)]
    spread_x = embed_slice(x, shape, [(x, 0), (x, 1)] + [None] * spatial, offsets, sizes,
                           [1, 1, *steps], where)
    y = conv(spread_x, _flipped(w, groups, where), dilations=rates, groups=groups)
    if any(lo < 0 or hi < 0 for lo, hi in zip(lows, highs, strict=True)):
        keys = [slice(None), slice(None)] + [
            slice(-lo if lo < 0 else None, hi if hi < 0 else None)
            for lo, hi in zip(lows, highs, strict=True)]
        y = getitem(y, tuple(keys))
    return y


# -- VJP rules -------------------------------------------------------------------------
#
# A window op reads its padded input at ``out * stride + tap * dilation``. Per
# tap (a static position in the kernel), those reads are one strided slice of
# the padded input, so a cotangent goes back by embedding it at the same
# slice (``embed_slice``, the transpose of ``extract_slice``) and summing over
# the taps.


def _tap_slice(padded: Tensor, windows: Sequence[Window],
               tap: Sequence[int]) -> tuple[list[Index], list[int]]:
    """The offsets and strides of the entries of ``padded`` that ``tap`` reads."""
    lead = padded.ndim - len(windows)
    offsets = [Index("0", Exact(Const(0)))] * lead + [
        Index(str(k * w.dilation), Exact(Const(k * w.dilation))) for k, w in zip(
            tap, windows, strict=True)]
    return offsets, [1] * lead + [w.stride for w in windows]


def _taps(windows: Sequence[Window]) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(w.kernel) for w in windows)))


def _read_tap(padded: Tensor, windows: Sequence[Window], tap: Sequence[int],
              outs: Sequence[Index], where: SourceLocation) -> Tensor:
    """``[lead..., out...]``: the entries of ``padded`` that ``tap`` reads."""
    b = IndexBuilder(padded.trace, where)
    lead = padded.ndim - len(windows)
    offsets, strides = _tap_slice(padded, windows, tap)
    sizes = [b.dim(padded, a) for a in range(lead)] + list(outs)
    shape = Shape([*padded.shape[:lead], *(s.extent for s in outs)])
    return extract_slice(padded, offsets, sizes, strides, shape, where)


def _place_taps(pieces: Sequence[Tensor], padded: Tensor, windows: Sequence[Window],
                where: SourceLocation) -> Tensor:
    """The sum of each tap's ``[lead..., out...]`` piece placed where that tap
    reads, in zeros of ``padded``'s shape."""
    b = IndexBuilder(padded.trace, where)
    total: Tensor | None = None
    for tap, piece in zip(_taps(windows), pieces, strict=True):
        sizes = [b.dim(piece, a) for a in range(piece.ndim)]
        offsets, strides = _tap_slice(padded, windows, tap)
        placed = embed_slice(piece, padded.symbolic_shape,
                             [(padded, a) for a in range(padded.ndim)], offsets, sizes,
                             strides, where)
        total = placed if total is None else add(total, placed)
    assert total is not None
    return total


@vjp_rule("slide")
def _slide_vjp(node: Node, ct: Tensor) -> Cotangents:
    padded: Tensor = node.args["padded"]
    windows: Sequence[Window] = node.args["windows"]
    where = node.where
    if node.args["kind"] == "sum":
        return {"padded": _place_taps([ct] * len(_taps(windows)), padded, windows, where)}
    # max: each window's cotangent is shared by the entries equal to its
    # maximum (evenly among ties, as the max reduction).
    b = IndexBuilder(ct.trace, where)
    lead = padded.ndim - len(windows)
    outs = [b.dim(ct, lead + i) for i in range(len(windows))]
    hits = [astype(equal(_read_tap(padded, windows, tap, outs, where), node.out), ct.dtype,
                   where) for tap in _taps(windows)]
    count = hits[0]
    for hit in hits[1:]:
        count = add(count, hit)
    share = divide(ct, count)
    return {"padded": _place_taps([hit * share for hit in hits], padded, windows, where)}


vjp_rule("window_counts")(zero_rule)  # counts depend on the shape only


@vjp_rule("convolve")
def _convolve_vjp(node: Node, ct: Tensor) -> Cotangents:
    padded: Tensor = node.args["padded"]
    w: Tensor = node.args["w"]
    windows: Sequence[Window] = node.args["windows"]
    grouped: bool = node.args["grouped"]
    where = node.where
    result: dict[str, Tensor] = {}
    if node.wants(padded):
        result["padded"] = _convolve_input_vjp(padded, w, ct, windows, grouped, where)
    if node.wants(w):
        result["w"] = _convolve_weights_vjp(padded, w, ct, windows, grouped, where)
    return result


def _convolve_input_vjp(padded: Tensor, w: Tensor, ct: Tensor, windows: Sequence[Window],
                        grouped: bool, where: SourceLocation) -> Tensor:
    # Per tap: [n, (g,) c, out...] = sum_f ct[n, (g,) f, out...] w[(g,) f, c, tap],
    # all taps in one contraction [n, (g,) c, out..., k...], then placed.
    trace, dtype = ct.trace, ct.dtype
    spatial = len(windows)
    lead = 3 if grouped else 2
    group = ["d1"] if grouped else []
    channel = f"d{lead - 1}"
    outs = [f"d{lead + i}" for i in range(spatial)]
    taps = [f"d{lead + spatial + i}" for i in range(spatial)]
    f = f"d{lead + 2 * spatial}"
    shape = Shape([ct.shape[0], *w.shape[:lead - 2], w.shape[lead - 1], *ct.shape[lead:],
                   *(Exact(Const(win.kernel)) for win in windows)])
    sources = [(ct, 0), *((w, a) for a in range(lead - 2)), (w, lead - 1),
               *((ct, lead + i) for i in range(spatial)), *([None] * spatial)]
    init = emit_fill(trace, emit_empty(trace, shape, dtype, sources, where), dtype, 0.0,
                     tensor_type(shape, dtype), where)

    def body(block: Body, args: list[str]) -> str:
        return multiply_add(block, args, dtype)

    columns = emit_generic(
        trace,
        [Operand(ct, ("d0", *group, f, *outs)), Operand(w, (*group, f, channel, *taps))],
        lead + 2 * spatial + 1,
        ["parallel"] * (lead + 2 * spatial) + ["reduction"],
        ["d0", *group, channel, *outs, *taps], shape, dtype, init, body, where)
    b = IndexBuilder(trace, where)
    kept = [b.dim(columns, a) for a in range(lead + spatial)]
    zero = Index("0", Exact(Const(0)))
    pieces = [
        extract_slice(columns, [zero] * (lead + spatial) + [
            Index(str(k), Exact(Const(k))) for k in tap], kept + [b.const(1)] * spatial,
            [1] * columns.ndim, Shape(columns.shape[:lead + spatial]), where)
        for tap in _taps(windows)]
    return _place_taps(pieces, padded, windows, where)


def _convolve_weights_vjp(padded: Tensor, w: Tensor, ct: Tensor, windows: Sequence[Window],
                          grouped: bool, where: SourceLocation) -> Tensor:
    # dw[(g,) f, c, k...] = sum over n, out... of ct[n, (g,) f, out...] *
    # padded[n, (g,) c, out * stride + k * dilation].
    trace, dtype = ct.trace, ct.dtype
    spatial = len(windows)
    base = 1 if grouped else 0
    group = ["d0"] if grouped else []
    f, c = f"d{base}", f"d{base + 1}"
    taps = [base + 2 + i for i in range(spatial)]
    n = f"d{base + 2 + spatial}"
    outs = [base + 3 + spatial + i for i in range(spatial)]
    reads = [_read(win, outs[i], taps[i]) for i, win in enumerate(windows)]
    init = emit_fill(trace, emit_empty(trace, w.symbolic_shape, dtype,
                                       [(w, a) for a in range(w.ndim)], where),
                     dtype, 0.0, w.mlir_type, where)

    def body(block: Body, args: list[str]) -> str:
        return multiply_add(block, args, dtype)

    loops = base + 3 + 2 * spatial
    return emit_generic(
        trace,
        [Operand(ct, (n, *group, f, *(f"d{o}" for o in outs))),
         Operand(padded, (n, *group, c, *reads))],
        loops,
        ["parallel"] * (base + 2 + spatial) + ["reduction"] * (1 + spatial),
        [*group, f, c, *(f"d{t}" for t in taps)], w.symbolic_shape, dtype, init, body, where)
