"""Convolution, pooling and padding: Conv, ConvTranspose, MaxPool, AveragePool,
GlobalAveragePool, GlobalMaxPool and Pad (constant mode).

``auto_pad`` maps onto the frontend's pad modes (``SAME_UPPER`` is
``"same_upper"``: output ``ceil(in / stride)``, the odd pad at the end), and
explicit ``pads`` ``[b1, ..., bn, e1, ..., en]`` onto ``(before, after)``
pairs; with a symbolic input extent the output stays an exact expression.
``Pad`` takes its pads (and value) when the model is imported; a negative
pad crops.

Example:
    ``Conv(x: [batch, 3, h, w], W: [8, 3, 3, 3], auto_pad="SAME_UPPER", strides=[2, 2])``
    is ``[batch, 8, h ceildiv 2, w ceildiv 2]``; ``MaxPool(x, kernel_shape=[2, 2],
    strides=[2, 2], ceil_mode=1)`` keeps a partial last window.
"""

from __future__ import annotations

from typing import cast

from symshape_mlir.extent import canon
from symshape_mlir.extent.expr import Const, Expr, as_expr
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.extent.prove import prove_le, prove_nonnegative
from symshape_mlir.frontend.ops.conv import Pads, conv, conv_transpose, pool
from symshape_mlir.frontend.ops.indexing import getitem
from symshape_mlir.frontend.ops.padding import pad
from symshape_mlir.frontend.ops.reductions import mean, reduce
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.onnx.context import NodeContext
from symshape_mlir.onnx.ops.abstract import abstract
from symshape_mlir.onnx.registry import importer, shape_rule
from symshape_mlir.onnx.values import Value
from symshape_mlir.shapes.shape import Shape
from symshape_mlir.shapes.slices import EXTENTS, slice_indices
from symshape_mlir.shapes.windows import transposed_extent, transposed_pads, window

__all__: list[str] = []

_AUTO_PAD = {"VALID": "valid", "SAME_UPPER": "same_upper", "SAME_LOWER": "same_lower"}


def _spatial_input(node: NodeContext) -> Tensor:
    x = node.float_tensor(0)
    if x.ndim < 3:
        node.error(f"the input must have rank 3 or more ([N, C, spatial...]), not {x.ndim}")
    return x


def _ints(node: NodeContext, name: str, count: int, default: int) -> list[int]:
    values = [int(v) for v in node.attr(name, [default] * count)]
    if len(values) != count:
        node.error(f"{name} must have {count} values, not {len(values)}")
    return values


def _pads(node: NodeContext, spatial: int) -> Pads:
    auto_pad = node.attr("auto_pad", "NOTSET")
    if auto_pad != "NOTSET":
        if auto_pad not in _AUTO_PAD:
            node.error(f"auto_pad {auto_pad!r} is not NOTSET, VALID, SAME_UPPER or SAME_LOWER")
        if node.has_attr("pads"):
            node.error(f"pads cannot be given with auto_pad {auto_pad}")
        return _AUTO_PAD[auto_pad]
    pads = _ints(node, "pads", 2 * spatial, 0)
    return [(pads[i], pads[spatial + i]) for i in range(spatial)]


def _kernel(node: NodeContext, spatial: int) -> list[int]:
    if not node.has_attr("kernel_shape"):
        node.error("the kernel_shape attribute is required")
    return _ints(node, "kernel_shape", spatial, 1)


@importer("Conv", since=11)
def conv_(node: NodeContext) -> list[Value]:
    x = _spatial_input(node)
    w = node.tensor(1, "W")
    spatial = x.ndim - 2
    if node.has_attr("kernel_shape"):
        kernel = [str(k) for k in _kernel(node, spatial)]
        extents = [str(e) for e in w.shape[2:]]
        if w.ndim == x.ndim and extents != kernel:
            node.error(
                f"kernel_shape [{', '.join(kernel)}] does not match the weights' spatial "
                f"extents [{', '.join(extents)}]")
    bias = node.tensor(2, "B") if node.has(2) else None
    return [conv(
        x, w, bias,
        strides=_ints(node, "strides", spatial, 1),
        dilations=_ints(node, "dilations", spatial, 1),
        pads=_pads(node, spatial),
        groups=int(node.attr("group", 1)),
    )]


@importer("ConvTranspose", since=11)
def conv_transpose_(node: NodeContext) -> list[Value]:
    x = _spatial_input(node)
    w = node.tensor(1, "W")
    spatial = x.ndim - 2
    if node.has_attr("output_shape"):
        node.error("the output_shape attribute is not supported (give pads instead)")
    auto_pad = node.attr("auto_pad", "NOTSET")
    pads: str | list[tuple[int, int]]
    if auto_pad != "NOTSET":
        pads = cast(str, _pads(node, spatial))
    else:
        widths = _ints(node, "pads", 2 * spatial, 0)
        pads = [(widths[i], widths[spatial + i]) for i in range(spatial)]
    bias = node.tensor(2, "B") if node.has(2) else None
    return [conv_transpose(
        x, w, bias,
        strides=_ints(node, "strides", spatial, 1),
        dilations=_ints(node, "dilations", spatial, 1),
        pads=pads,
        output_padding=_ints(node, "output_padding", spatial, 0),
        groups=int(node.attr("group", 1)),
    )]


def _pool(node: NodeContext, kind: str) -> Tensor:
    x = _spatial_input(node)
    spatial = x.ndim - 2
    return pool(
        x, kind, _kernel(node, spatial),
        strides=_ints(node, "strides", spatial, 1),
        dilations=_ints(node, "dilations", spatial, 1),
        pads=_pads(node, spatial),
        ceil_mode=bool(node.attr("ceil_mode", 0)),
        count_include_pad=bool(node.attr("count_include_pad", 0)),
    )


@importer("MaxPool", since=12)
def max_pool(node: NodeContext) -> list[Value]:
    if len(node.node.output) > 1 and node.node.output[1]:
        node.error("output 1 (Indices) is not supported")
    return [_pool(node, "max")]


@importer("AveragePool", since=11)
def average_pool(node: NodeContext) -> list[Value]:
    return [_pool(node, "avg")]


@importer("GlobalAveragePool", "GlobalMaxPool", since=1)
def global_pool(node: NodeContext) -> list[Value]:
    x = _spatial_input(node)
    axes = list(range(2, x.ndim))
    if node.node.op_type == "GlobalAveragePool":
        return [mean(x, axes, keepdims=True)]
    return [reduce("max", x, axes, keepdims=True, where=node.where)]


@importer("Pad", since=13)
def pad_(node: NodeContext) -> list[Value]:
    mode = node.attr("mode", "constant")
    if mode != "constant":
        node.error(f"mode {mode!r} is not supported (constant is)")
    x = node.tensor(0)
    value: float | int = 0
    if node.has(2):
        array = node.literal(2, "constant_value")
        if array.size != 1:
            node.error(f"constant_value must be one value, not {array.size}")
        value = array.reshape(-1)[0].item()
    widths: list[tuple[int | Expr, int | Expr]] = [(0, 0)] * x.ndim
    crops: list[slice] = [slice(None)] * x.ndim
    for axis, low, high in _pad_widths(node, x.ndim):
        widths[axis] = (_grown(low), _grown(high))
        crop = _crop(node, axis, x.shape[axis], low, high)
        if crop is not None:
            crops[axis] = slice(*crop)
    if any(c != slice(None) for c in crops):
        x = getitem(x, tuple(crops))
    grown = any(not (isinstance(w, int) and w == 0) for pair in widths for w in pair)
    return [pad(x, widths, value) if grown else x]


def _pad_widths(node: NodeContext, rank: int) -> list[tuple[int, Expr, Expr]]:
    """``Pad``'s ``(axis, before, after)`` widths: positive ones pad, negative ones
    crop, one whose sign depends on the binding does both (:func:`_cut`)."""
    pads = list(node.known(1, "pads").elements)
    axes = list(range(rank))
    if node.has(3):
        axes = [node.axis(a, rank, "axes entry") for a in node.ints(3, "axes")]
    if len(pads) != 2 * len(axes):
        node.error(f"pads has {len(pads)} entries, not 2 per axis ({2 * len(axes)})")
    return [(axis, pads[i], pads[len(axes) + i]) for i, axis in enumerate(axes)]


def _crop(node: NodeContext, axis: int, extent: ShapeExtent, low: Expr,
          high: Expr) -> tuple[int | Expr | None, int | Expr | None] | None:
    """The slice bounds that crop ``axis`` by widths ``low`` and ``high`` (None: no crop).

    A constant cut is a negative stop: numpy's wrap gives ``extent - cut``
    clamped at 0 with no test of the stop's sign.
    """
    before, after = _cut(low), _cut(high)
    if not (before or after):
        return None
    if not extent.is_exact or extent.expr is None:
        node.error(f"axis {axis} is {extent}, not an exact extent to crop")
    stop = None
    if after:
        stop = -after if isinstance(after, int) else canon.sub(extent.expr, after)
    return before or None, stop


def _grown(e: Expr) -> int | Expr:
    """How much a width pads: ``max(e, 0)`` (0 for a crop)."""
    if isinstance(e, Const):
        return max(e.value, 0)
    if prove_nonnegative(e):
        return e
    return 0 if prove_le(e, 0) else canon.maximum(e, Const(0))


def _cut(e: Expr) -> Expr | int:
    """How much a width crops: ``max(-e, 0)`` (0 for a pad).

    A width whose sign depends on the binding (torch's ``F.pad(x, (0, n -
    x.shape[-1]))`` with ``n`` from another branch, which a valid binding
    makes non-negative) pads by ``max(e, 0)`` and crops by ``max(-e, 0)``:
    one of them is 0 in every call, and the axis grows by ``e`` either way.
    """
    if isinstance(e, Const):
        return max(-e.value, 0)
    if prove_nonnegative(e):
        return 0
    return canon.neg(e) if prove_le(e, 0) else canon.maximum(canon.neg(e), Const(0))


# -- shape rules --------------------------------------------------------------------------


def _spatial_shape(node: NodeContext) -> Shape:
    shape = node.shape(0)
    if shape.rank < 3:
        node.error(f"the input must have rank 3 or more ([N, C, spatial...]), not {shape.rank}")
    return shape


def _windowed(node: NodeContext, shape: Shape, channels: ShapeExtent, kernel: list[int],
              ceil_mode: bool) -> list[Value]:
    spatial = shape.rank - 2
    pads = _pads(node, spatial)
    strides = _ints(node, "strides", spatial, 1)
    dilations = _ints(node, "dilations", spatial, 1)
    outs = []
    for axis in range(spatial):
        extent = shape[2 + axis]
        if not extent.is_exact or extent.expr is None:
            node.error(f"spatial axis {axis} is {extent}, not an exact extent")
        pair = pads if isinstance(pads, str) else cast(list[tuple[int, int]], pads)[axis]
        outs.append(Exact(window(extent.expr, kernel[axis], strides[axis], dilations[axis], pair,
                                 ceil_mode).out))
    return [abstract(Shape([shape[0], channels, *outs]), node.element_type(0))]


@shape_rule("Conv", since=11)
def conv_rule(node: NodeContext) -> list[Value]:
    shape, weights = _spatial_shape(node), node.shape(1)
    kernel = [int(e.expr.value) for e in weights[2:]  # type: ignore[union-attr]
              if e.is_exact and isinstance(e.expr, Const)]
    if len(kernel) != shape.rank - 2:
        node.error("kernel extents must be static")
    return _windowed(node, shape, weights[0], kernel, False)


@shape_rule("MaxPool", "AveragePool", since=11)
def pool_rule(node: NodeContext) -> list[Value]:
    shape = _spatial_shape(node)
    return _windowed(node, shape, shape[1], _kernel(node, shape.rank - 2),
                     bool(node.attr("ceil_mode", 0)))


@shape_rule("GlobalAveragePool", "GlobalMaxPool", since=1)
def global_pool_rule(node: NodeContext) -> list[Value]:
    shape = _spatial_shape(node)
    return [abstract(Shape([shape[0], shape[1], *([Exact(1)] * (shape.rank - 2))]),
                     node.element_type(0))]


@shape_rule("ConvTranspose", since=11)
def conv_transpose_rule(node: NodeContext) -> list[Value]:
    shape, weights = _spatial_shape(node), node.shape(1)
    spatial = shape.rank - 2
    auto_pad = node.attr("auto_pad", "NOTSET")
    mode = _AUTO_PAD.get(auto_pad) if auto_pad != "NOTSET" else None
    widths = _ints(node, "pads", 2 * spatial, 0)
    strides = _ints(node, "strides", spatial, 1)
    dilations = _ints(node, "dilations", spatial, 1)
    extra = _ints(node, "output_padding", spatial, 0)
    outs = []
    for axis in range(spatial):
        kernel, extent = weights[2 + axis], shape[2 + axis]
        if not (kernel.is_exact and isinstance(kernel.expr, Const)) or extent.expr is None:
            node.error("kernel extents must be static and input extents exact")
        k = kernel.expr.value
        pads = transposed_pads(k, strides[axis], dilations[axis],
                               mode or (widths[axis], widths[spatial + axis]), extra[axis])
        outs.append(Exact(transposed_extent(extent.expr, k, strides[axis], dilations[axis], pads,
                                            extra[axis])))
    filters = weights[1] * int(node.attr("group", 1))
    return [abstract(Shape([shape[0], filters, *outs]), node.element_type(0))]


@shape_rule("Pad", since=13)
def pad_rule(node: NodeContext) -> list[Value]:
    shape = node.shape(0)
    dims = list(shape)
    for axis, low, high in _pad_widths(node, shape.rank):
        # As the import: cropped by the negative parts, grown by the positive ones.
        crop = _crop(node, axis, dims[axis], low, high)
        if crop is not None:
            start, stop = (None if b is None else as_expr(b) for b in crop)
            extent = cast(Expr, dims[axis].expr)
            dims[axis] = Exact(slice_indices(EXTENTS, start, stop, 1, extent)[1])
        dims[axis] = dims[axis] + Exact(canon.add(_grown(low), _grown(high)))
    return [abstract(Shape(dims), node.element_type(0))]
