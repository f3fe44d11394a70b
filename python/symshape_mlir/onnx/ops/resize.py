"""``Resize``: nearest, linear and cubic, one axis at a time.

The output extent of a resized axis is the ``sizes`` element (an extent
expression, e.g. ``height`` read from another tensor's shape) or
``floor(extent * scale)``, computed exactly: a float scale is a dyadic
rational ``p / 2^k``, so the extent is ``(extent * p) floordiv 2^k``
(``height * 2``, ``height floordiv 2``).

Interpolation is separable: for each resized axis a ``linalg.generic``
computes, per output position, the source coordinate under the
``coordinate_transformation_mode`` (in ``f32``, as onnxruntime does), the
neighbours' indices (clamped to the axis, which is the reference's edge
padding) and their weights; the neighbours are read with ``take`` and
weighed. Axes that keep their extent under an identity transformation are
left alone, as are axes whose ``sizes`` element is their extent (under
every transformation, as onnxruntime reads it).

Nearest resizing by an integer scale ``k`` whose positions round to
``y floordiv k`` (``asymmetric`` or ``tf_half_pixel_for_nn`` with ``floor``;
the half-pixel transformations with a ``round_prefer_*`` mode: the source
coordinate stays within ``0.5 - 0.5 / k`` of the source position) repeats
each element ``k`` times along those axes instead of reading through a
gather per axis: a unit axis after each, broadcast to ``k`` and merged into
it, which IREE fuses into its neighbours:

.. code-block:: mlir

    // [batch, 8, h, w] -> [batch, 8, h, 1, w, 1] -> [batch, 8, h, 2, w, 2]
    %b = symshape.broadcast_in_dim %e ...
    // -> [batch, 8, h * 2, w * 2]
    %y = symshape.reshape %b ...

The ``f32`` coordinates the gathers compute agree with ``y floordiv k`` for
positions below 2^22. (One generic reading ``d2 floordiv 2`` would do the
same, but IREE 3.13 crashes on such a map in some dispatches.)

Example:
    ``Resize(x: [batch, 8, h, w], scales=[1, 1, 2, 2], mode="linear")`` is
    ``[batch, 8, h * 2, w * 2]``: two gathers along axes 2 and 3 per axis;
    with ``mode="nearest"`` (``asymmetric``, ``floor``), a broadcast and a
    reshape.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from symshape_mlir.extent import canon
from symshape_mlir.extent.expr import Const, Expr
from symshape_mlir.extent.guarantee import Exact
from symshape_mlir.extent.prove import prove_eq
from symshape_mlir.frontend.dtypes import DType, f32, i64
from symshape_mlir.frontend.ops import elementwise as fe
from symshape_mlir.frontend.ops import shape_ops as fs
from symshape_mlir.frontend.ops.gather import take
from symshape_mlir.frontend.ops.generic import Body, emit_empty, emit_generic
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.onnx.context import NodeContext
from symshape_mlir.onnx.ops.abstract import abstract
from symshape_mlir.onnx.ops.shape import exact_dims
from symshape_mlir.onnx.registry import importer, shape_rule
from symshape_mlir.onnx.values import Value
from symshape_mlir.shapes.shape import Shape

__all__: list[str] = []

_TRANSFORMS = ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
               "tf_half_pixel_for_nn", "half_pixel_symmetric")
_NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
# The nearest modes whose position under each transformation is ``y floordiv k``
# for an integer scale ``k >= 2``.
_FLOORDIV = {
    "asymmetric": ("floor",),
    "tf_half_pixel_for_nn": ("floor",),
    "half_pixel": ("round_prefer_floor", "round_prefer_ceil"),
    "pytorch_half_pixel": ("round_prefer_floor", "round_prefer_ceil"),
    "half_pixel_symmetric": ("round_prefer_floor", "round_prefer_ceil"),
}


class _Axis:
    """Emits the per-position tables of one resized axis.

    Attributes:
        node: the ``Resize`` node.
        extent: the input extent (an ``index`` value) and its expression.
        out: the output extent expression.
        scale: the constant scale, or ``None`` (``out / extent`` at run time).
    """

    def __init__(self, node: NodeContext, x: Tensor, axis: int, out: Expr,
                 scale: float | None) -> None:
        self.node, self.x, self.axis, self.out, self.scale = node, x, axis, out, scale
        trace = node.trace
        self.in_index = trace.dim_index(x, axis, node.where)
        self.out_index = trace.materialize(Exact(out), node.where)

    def table(self, dtype: DType, value: Callable[[Body, str, str], str]) -> Tensor:
        """A ``[out]`` tensor whose element ``y`` is ``value(body, x_original, in_extent)``."""
        trace, where = self.node.trace, self.node.where
        shape = Shape([Exact(self.out)])
        init = emit_empty(trace, shape, dtype, [None], where)

        def body(b: Body, args: list[str]) -> str:
            return value(b, self._source(b), self._float(b, self.in_index))

        return emit_generic(trace, [], 1, ["parallel"], ["d0"], shape, dtype, init, body, where)

    @staticmethod
    def _float(b: Body, index: str) -> str:
        wide = b.op(f"arith.index_cast {index}", "index to i64")
        return b.op(f"arith.sitofp {wide}", "i64 to f32")

    def _source(self, b: Body) -> str:
        """The source coordinate of the output position, per the transformation mode."""
        mode = self.node.attr("coordinate_transformation_mode", "half_pixel")
        y = self._float(b, b.op("linalg.index 0", "index"))
        length_in = self._float(b, self.in_index)
        length_out = self._float(b, self.out_index)
        if self.scale is not None:
            scale = b.const(f32, self.scale)
        else:
            scale = b.op(f"arith.divf {length_out}, {length_in}", "f32")
        half, one = b.const(f32, 0.5), b.const(f32, 1.0)
        if mode == "asymmetric":
            return b.op(f"arith.divf {y}, {scale}", "f32")
        if mode == "align_corners":
            # y * (in - 1) / (out - 1), 0 for a single output.
            out_float = b.op(f"arith.mulf {scale}, {length_in}", "f32")
            span = b.op(f"arith.subf {out_float}, {one}", "f32")
            stretched = b.op(f"arith.mulf {y}, {b.op(f'arith.subf {length_in}, {one}', 'f32')}",
                             "f32")
            single = b.op(f"arith.cmpf oeq, {out_float}, {one}", "f32")
            ratio = b.op(f"arith.divf {stretched}, {span}", "f32")
            return b.op(f"arith.select {single}, {b.const(f32, 0.0)}, {ratio}", "f32")
        centre = b.op(f"arith.divf {b.op(f'arith.addf {y}, {half}', 'f32')}, {scale}", "f32")
        if mode == "tf_half_pixel_for_nn":
            return centre
        source = b.op(f"arith.subf {centre}, {half}", "f32")
        if mode == "pytorch_half_pixel":
            out_float = b.op(f"arith.mulf {scale}, {length_in}", "f32")
            single = b.op(f"arith.cmpf oeq, {out_float}, {one}", "f32")
            return b.op(f"arith.select {single}, {b.const(f32, -0.5)}, {source}", "f32")
        if mode == "half_pixel_symmetric":
            out_float = b.op(f"arith.mulf {scale}, {length_in}", "f32")
            adjustment = b.op(f"arith.divf {length_out}, {out_float}", "f32")
            centre_in = b.op(f"arith.mulf {length_in}, {half}", "f32")
            offset = b.op(f"arith.mulf {centre_in}, "
                          f"{b.op(f'arith.subf {one}, {adjustment}', 'f32')}", "f32")
            return b.op(f"arith.addf {offset}, {source}", "f32")
        return source

    def index(self, rounded: Callable[[Body, str], str], shift: int = 0) -> Tensor:
        """Indices ``clamp(rounded(x_original) + shift, 0, in - 1)`` as ``i64``."""

        def value(b: Body, source: str, _: str) -> str:
            whole = b.op(f"arith.fptosi {rounded(b, source)}", "f32 to i64")
            if shift:
                whole = b.op(f"arith.addi {whole}, {b.const(i64, shift)}", "i64")
            last = b.op(f"arith.index_cast {self.in_index}", "index to i64")
            last = b.op(f"arith.subi {last}, {b.const(i64, 1)}", "i64")
            clamped = b.op(f"arith.minsi {whole}, {last}", "i64")
            return b.op(f"arith.maxsi {clamped}, {b.const(i64, 0)}", "i64")

        return self.table(i64, value)

    def read(self, indices: Tensor) -> Tensor:
        """``x`` read at ``indices`` along the axis."""
        return take(self.x, indices, self.axis)

    def weigh(self, values: Tensor, weights: Tensor) -> Tensor:
        """``values * weights`` with ``weights`` along the axis."""
        trailing = list(range(1, self.x.ndim - self.axis))
        spread = fs.expand_dims(weights, trailing) if trailing else weights
        if values.dtype != f32:
            spread = fe.astype(spread, values.dtype)
        return fe.multiply(values, spread)


def _floor(b: Body, v: str) -> str:
    return b.op(f"math.floor {v}", "f32")


def _rounding(mode: str) -> Callable[[Body, str], str]:
    half = 0.5

    def prefer_floor(b: Body, v: str) -> str:  # ceil(v - 0.5)
        return b.op(f"math.ceil {b.op(f'arith.subf {v}, {b.const(f32, half)}', 'f32')}", "f32")

    def prefer_ceil(b: Body, v: str) -> str:  # floor(v + 0.5)
        return b.op(f"math.floor {b.op(f'arith.addf {v}, {b.const(f32, half)}', 'f32')}", "f32")

    return {
        "round_prefer_floor": prefer_floor,
        "round_prefer_ceil": prefer_ceil,
        "floor": _floor,
        "ceil": lambda b, v: b.op(f"math.ceil {v}", "f32"),
    }[mode]


def _cubic_weight(b: Body, t: str, a: float) -> str:
    """The cubic convolution kernel at distance ``|t| <= 2`` with coefficient ``a``."""
    t = b.op(f"math.absf {t}", "f32")
    t2 = b.op(f"arith.mulf {t}, {t}", "f32")
    t3 = b.op(f"arith.mulf {t2}, {t}", "f32")

    def poly(c3: float, c2: float, c1: float, c0: float) -> str:
        value = b.op(f"arith.mulf {t3}, {b.const(f32, c3)}", "f32")
        value = b.op(f"arith.addf {value}, {b.op(f'arith.mulf {t2}, {b.const(f32, c2)}', 'f32')}",
                     "f32")
        value = b.op(f"arith.addf {value}, {b.op(f'arith.mulf {t}, {b.const(f32, c1)}', 'f32')}",
                     "f32")
        return b.op(f"arith.addf {value}, {b.const(f32, c0)}", "f32")

    near = poly(a + 2, -(a + 3), 0.0, 1.0)
    far = poly(a, -5 * a, 8 * a, -4 * a)
    inside = b.op(f"arith.cmpf ole, {t}, {b.const(f32, 1.0)}", "f32")
    weight = b.op(f"arith.select {inside}, {near}, {far}", "f32")
    beyond = b.op(f"arith.cmpf oge, {t}, {b.const(f32, 2.0)}", "f32")
    return b.op(f"arith.select {beyond}, {b.const(f32, 0.0)}, {weight}", "f32")


def _linear(axis: _Axis) -> Tensor:
    low, high = axis.read(axis.index(_floor)), axis.read(axis.index(_floor, 1))

    def ratio(b: Body, source: str, _: str) -> str:
        return b.op(f"arith.subf {source}, {_floor(b, source)}", "f32")

    weight = axis.table(f32, ratio)
    rest = axis.table(f32, lambda b, s, _: b.op(
        f"arith.subf {b.const(f32, 1.0)}, {b.op(f'arith.subf {s}, {_floor(b, s)}', 'f32')}",
        "f32"))
    return fe.add(axis.weigh(low, rest), axis.weigh(high, weight))


def _cubic(axis: _Axis, a: float, exclude_outside: bool) -> Tensor:
    def weight_at(offset: int) -> Callable[[Body, str, str], str]:
        def value(b: Body, source: str, length: str) -> str:
            ratio = b.op(f"arith.subf {source}, {_floor(b, source)}", "f32")
            distance = b.op(f"arith.subf {ratio}, {b.const(f32, float(offset))}", "f32")
            weight = _cubic_weight(b, distance, a)
            if not exclude_outside:
                return weight
            # Weights of neighbours outside the axis are dropped, the rest renormalized.
            total = b.const(f32, 0.0)
            mine = weight
            for k in range(-1, 3):
                d = b.op(f"arith.subf {ratio}, {b.const(f32, float(k))}", "f32")
                w = _cubic_weight(b, d, a)
                position = b.op(f"arith.addf {_floor(b, source)}, {b.const(f32, float(k))}",
                                "f32")
                below = b.op(f"arith.cmpf olt, {position}, {b.const(f32, 0.0)}", "f32")
                above = b.op(f"arith.cmpf oge, {position}, {length}", "f32")
                outside = b.op(f"arith.ori {below}, {above}", "i1")
                kept = b.op(f"arith.select {outside}, {b.const(f32, 0.0)}, {w}", "f32")
                total = b.op(f"arith.addf {total}, {kept}", "f32")
                if k == offset:
                    mine = kept
            return b.op(f"arith.divf {mine}, {total}", "f32")

        return value

    result: Tensor | None = None
    for offset in range(-1, 3):
        term = axis.weigh(axis.read(axis.index(_floor, offset)), axis.table(f32, weight_at(offset)))
        result = term if result is None else fe.add(result, term)
    assert result is not None
    return result


def _integer_scale(scale: float | None) -> int | None:
    """``scale`` as an integer ``k >= 2``, or None."""
    if scale is None or scale < 2 or scale != int(scale):
        return None
    return int(scale)


def _repeat(x: Tensor, outs: list[Expr], factors: dict[int, int]) -> Tensor:
    """``x`` with each axis ``a`` of ``factors`` read at ``y floordiv factors[a]``: a
    unit axis after each, broadcast to the factor and merged into it."""
    wide: list[fs.ShapeTarget] = []
    for a in range(x.ndim):
        wide += [x.shape[a], Const(factors[a])] if a in factors else [x.shape[a]]
    spread = fs.expand_dims(x, [a + i + 1 for i, a in enumerate(sorted(factors))])
    return fs.reshape(fs.broadcast_to(spread, wide),
                      [outs[a] if a in factors else x.shape[a] for a in range(x.ndim)])


def _targets(node: NodeContext, rank: int) -> tuple[list[Expr], list[float | None]]:
    """The output extents and constant scales of every axis (``None``: from ``sizes``)."""
    dims = exact_dims(node, 0)
    axes = node.attr("axes")
    axes = list(range(rank)) if axes is None else [node.axis(a, rank) for a in axes]
    outs = list(dims)
    scales: list[float | None] = [1.0] * rank
    if node.has(3):
        if node.attr("keep_aspect_ratio_policy", "stretch") != "stretch":
            node.error("keep_aspect_ratio_policy other than 'stretch' is not supported")
        sizes = node.known(3, "sizes").elements
        if len(sizes) != len(axes):
            node.error(f"sizes has {len(sizes)} elements for {len(axes)} axes")
        for a, e in zip(axes, sizes, strict=True):
            outs[a], scales[a] = e, None
        return outs, scales
    if not node.has(2):
        node.error("one of scales and sizes is required")
    given = [float(v) for v in node.literal(2, "scales").reshape(-1)]
    if len(given) != len(axes):
        node.error(f"scales has {len(given)} elements for {len(axes)} axes")
    for a, s in zip(axes, given, strict=True):
        if not s > 0:
            node.error(f"scale {s} is not positive")
        exact = Fraction(float(f32.numpy.type(s)))
        outs[a] = canon.floordiv(canon.mul(dims[a], exact.numerator), exact.denominator)
        scales[a] = float(exact)
    return outs, scales


@importer("Resize", since=11)
def resize(node: NodeContext) -> list[Value]:
    x = node.tensor(0)
    if x.dtype.is_bool:
        node.error("element type i1 is not supported")
    mode = node.attr("mode", "nearest")
    transform = node.attr("coordinate_transformation_mode", "half_pixel")
    nearest = node.attr("nearest_mode", "round_prefer_floor")
    if mode not in ("nearest", "linear", "cubic"):
        node.error(f"mode {mode!r} is not supported")
    if transform not in _TRANSFORMS:
        node.error(f"coordinate_transformation_mode {transform!r} is not supported")
    if nearest not in _NEAREST:
        node.error(f"nearest_mode {nearest!r} is not supported")
    if node.attr("antialias", 0):
        node.error("antialias=1 is not supported")
    if mode != "nearest" and not x.dtype.is_float:
        node.error(f"{mode} resizing of element type {x.dtype} is not supported")
    outs, scales = _targets(node, x.ndim)
    dims = exact_dims(node, 0)
    factors: dict[int, int] = {}
    if mode == "nearest" and nearest in _FLOORDIV.get(transform, ()):
        factors = {a: k for a in range(x.ndim)
                   if (k := _integer_scale(scales[a])) is not None}
    result = _repeat(x, outs, factors) if factors else x
    for a in range(x.ndim):
        # An axis resized to its own extent is left alone, by scales or sizes:
        # onnxruntime's reading also under tf_half_pixel_for_nn, whose formula
        # would read half a position on.
        kept = scales[a] in (None, 1.0) and prove_eq(outs[a], dims[a])
        if a in factors or kept:
            continue
        out = outs[a]
        if isinstance(out, Const) and out.value < 0:
            node.error(f"output extent {out} of axis {a} is negative")
        axis = _Axis(node, result, a, outs[a], scales[a])
        if mode == "nearest":
            result = axis.read(axis.index(_rounding(nearest)))
        elif mode == "linear":
            result = _linear(axis)
        else:
            result = _cubic(axis, float(node.attr("cubic_coeff_a", -0.75)),
                            bool(node.attr("exclude_outside", 0)))
    return [result]


@shape_rule("Resize", since=11)
def resize_rule(node: NodeContext) -> list[Value]:
    outs, _ = _targets(node, node.shape(0).rank)
    return [abstract(Shape([Exact(e) for e in outs]), node.element_type(0))]
