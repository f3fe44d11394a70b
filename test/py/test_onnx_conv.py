"""ONNX Conv and pooling: symbolic spatial axes end to end, against ``onnx.reference``.

Each numeric test compiles one module with ``batch``, ``h`` and ``w``
dynamic and runs it at two input sizes; the located errors need no
compile. The shipped node tests of these ops run in ``test_onnx_import.py``.
"""

from __future__ import annotations

import linecache
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from symshape_mlir import runtime
from symshape_mlir.frontend import FrontendError, ShapeError, Tensor, f32, i32, trace
from symshape_mlir.frontend.ops.conv import conv, pool
from symshape_mlir.frontend.ops.padding import pad
from symshape_mlir.lowering.iree.patches import MIN_FEATURES
from symshape_mlir.onnx import OnnxImportError, import_model, infer_shapes, trace_model
from symshape_mlir.passes import run_pipeline

X = ["batch", 3, "h", "w"]


def _model(node: onnx.NodeProto, inputs=(("x", X),), inits=(), opset=22) -> onnx.ModelProto:
    infos = [helper.make_tensor_value_info(n, TensorProto.FLOAT, dims) for n, dims in inputs]
    output = helper.make_tensor_value_info(node.output[0], TensorProto.FLOAT, None)
    graph = helper.make_graph([node], "g", infos, [output], list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


def _const(name: str, shape: tuple[int, ...], seed: int = 0) -> onnx.TensorProto:
    array = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return numpy_helper.from_array(array, name)


def _check(
    model: onnx.ModelProto,
    sizes: list[tuple[int, int, int]],
    shape: str,
    reference: Callable[[np.ndarray], np.ndarray] | None = None,
) -> None:
    """The output's symbolic shape is ``shape``; one module matches the reference
    (``onnx.reference`` by default) at ``sizes``."""
    assert str(infer_shapes(model)["y"]) == shape
    exe = runtime.compile(trace_model(model).module_text, cache_dir=False, hot_after=None)
    if reference is None:
        evaluator = ReferenceEvaluator(model)
        reference = lambda x: evaluator.run(None, {"x": x})[0]  # noqa: E731
    for n, h, w in sizes:
        x = np.random.default_rng(h * w).standard_normal((n, 3, h, w)).astype(np.float32)
        expected = reference(x)
        got = exe.main(x)
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_conv_same_upper_stride_2_keeps_symbolic_axes() -> None:
    """SAME_UPPER with stride 2: [batch, 4, h ceildiv 2, w ceildiv 2], one module for any h, w."""
    node = helper.make_node("Conv", ["x", "W", "B"], ["y"], auto_pad="SAME_UPPER", strides=[2, 2])
    model = _model(node, inits=[_const("W", (4, 3, 3, 3)), _const("B", (4,), 1)])
    _check(model, [(2, 7, 10), (1, 4, 5)], "[batch, 4, h ceildiv 2, w ceildiv 2]")


def test_grouped_conv_with_bias_pads_and_dilations() -> None:
    """Three groups of one channel, asymmetric pads, stride 2 and dilation 2 on h."""
    node = helper.make_node("Conv", ["x", "W", "B"], ["y"], group=3, pads=[1, 0, 2, 1],
                            strides=[2, 1], dilations=[2, 1])
    model = _model(node, inits=[_const("W", (6, 1, 3, 2)), _const("B", (6,), 1)])
    _check(model, [(2, 9, 6), (1, 6, 3)], "[batch, 6, h floordiv 2, w]")


def test_grouped_1d_conv_is_one_named_convolution_per_group() -> None:
    """A grouped 1-D Conv (two groups of three channels, pads, stride 2, dilation 2)
    is one ``linalg.conv_1d_ncw_fcw`` per group, with the shape rules' extents, and
    matches ``onnx.reference`` from the dynamic module and a static variant."""
    node = helper.make_node("Conv", ["x", "W", "B"], ["y"], group=2, pads=[2, 1], strides=[2],
                            dilations=[2])
    model = _model(node, inputs=(("x", ["batch", 6, "t"]),),
                   inits=[_const("W", (8, 3, 4)), _const("B", (8,), 1)])
    assert str(infer_shapes(model)["y"]) == "[batch, 8, t floordiv 2 - 1]"
    text = trace_model(model).module_text
    assert text.count("linalg.conv_1d_ncw_fcw") == 2
    assert text.count("tensor.concat") == 1
    assert text.count("linalg.generic") == 1  # the bias
    exe = runtime.compile(text, cache_dir=False, hot_after=None)
    exe.pre_specialize([{"batch": 2, "t": 11}])
    evaluator = ReferenceEvaluator(model)
    for n, t in [(2, 11), (1, 7), (3, 5)]:
        x = np.random.default_rng(t).standard_normal((n, 6, t)).astype(np.float32)
        np.testing.assert_allclose(exe.main(x), evaluator.run(None, {"x": x})[0],
                                   rtol=1e-5, atol=1e-5)
    assert exe.stats()["variants"] == {"main": 1}


def test_grouped_1d_conv_with_many_groups_is_one_window() -> None:
    """Past 64 groups a grouped 1-D Conv stays one ``linalg.generic`` window."""
    node = helper.make_node("Conv", ["x", "W"], ["y"], group=65)
    model = _model(node, inputs=(("x", ["batch", 65, "t"]),), inits=[_const("W", (130, 1, 3))])
    text = trace_model(model).module_text
    assert "linalg.conv_1d" not in text and text.count("linalg.generic") == 1
    exe = runtime.compile(text, cache_dir=False, hot_after=None)
    x = np.random.default_rng(0).standard_normal((2, 65, 6)).astype(np.float32)
    np.testing.assert_allclose(exe.main(x), ReferenceEvaluator(model).run(None, {"x": x})[0],
                               rtol=1e-5, atol=1e-5)


STATIC_CONVS = [
    pytest.param(dict(strides=[2, 2], pads=[1, 1, 1, 1]), (8, 3, 3, 3), id="conv_stride_2"),
    pytest.param(dict(dilations=[2, 1], pads=[0, 1, 2, 0]), (4, 3, 3, 2), id="conv_dilated"),
    pytest.param(dict(group=3, strides=[1, 2]), (3, 1, 3, 3), id="depthwise"),
    pytest.param(dict(group=3, pads=[1, 1, 1, 1]), (6, 1, 3, 3), id="depthwise_multiplier_2"),
    pytest.param(dict(group=3, strides=[2, 2]), (6, 1, 1, 1), id="grouped_1x1"),
]


@pytest.mark.parametrize(("attributes", "kernel"), STATIC_CONVS)
def test_static_variants_of_convolutions_match(attributes: dict[str, Any],
                                               kernel: tuple[int, ...]) -> None:
    """Static variants (named convolutions computed channels-last) agree with
    ``onnx.reference`` as the dynamic module does."""
    node = helper.make_node("Conv", ["x", "W", "B"], ["y"], **attributes)
    model = _model(node, inits=[_const("W", kernel), _const("B", (kernel[0],), 1)])
    _assert_static_variants_match(model, [(2, 9, 8), (1, 6, 5)])


def _assert_static_variants_match(model: onnx.ModelProto, sizes: list[tuple[int, int, int]]
                                  ) -> None:
    """``model``'s static variants at ``(batch, h, w)`` each agree with ``onnx.reference``."""
    exe = runtime.compile(trace_model(model).module_text, cache_dir=False, hot_after=None)
    exe.pre_specialize([{"batch": n, "h": h, "w": w} for n, h, w in sizes])
    evaluator = ReferenceEvaluator(model)
    for n, h, w in sizes:
        x = np.random.default_rng(h * w).standard_normal((n, 3, h, w)).astype(np.float32)
        expected = evaluator.run(None, {"x": x})[0]
        np.testing.assert_allclose(exe.main(x), expected, rtol=1e-4, atol=1e-5)
    assert exe.stats()["variants"] == {"main": len(sizes)}


POOLS = [
    pytest.param(
        "MaxPool", dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
        [(1, 8, 6), (2, 5, 9)], "[batch, 3, (h + 1) ceildiv 2 - 1, (w + 1) ceildiv 2 - 1]",
        id="maxpool_ceil_mode",
    ),
    pytest.param(
        # At h = 5 the rounded-up last window would start in the end padding: dropped.
        "MaxPool", dict(kernel_shape=[3, 2], strides=[3, 2], pads=[1, 1, 1, 0], ceil_mode=1),
        [(1, 5, 5), (2, 4, 6)],
        "[batch, 3, min((h + 2) ceildiv 3, max((h + 1) ceildiv 3, (h + 2) ceildiv 3 - 1)), "
        "(w + 1) ceildiv 2]",
        id="maxpool_ceil_mode_drops_window_in_padding",
    ),
    pytest.param(
        "AveragePool",
        dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=0),
        [(2, 7, 6), (1, 4, 9)], "[batch, 3, (h + 1) floordiv 2, (w + 1) floordiv 2]",
        id="averagepool_count_include_pad_0",
    ),
    pytest.param(
        "AveragePool",
        dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1,
             count_include_pad=1),
        [(1, 6, 6), (2, 7, 4)], "[batch, 3, (h + 1) ceildiv 2, (w + 1) ceildiv 2]",
        id="averagepool_ceil_mode_count_include_pad_1",
    ),
]


@pytest.mark.parametrize(("op", "attributes", "sizes", "shape"), POOLS)
def test_pooling_matches_reference(op: str, attributes: dict[str, Any],
                                   sizes: list[tuple[int, int, int]], shape: str) -> None:
    """Ceil mode and padding that does not count, at two sizes of one module."""
    _check(_model(helper.make_node(op, ["x"], ["y"], **attributes)), sizes, shape)


def test_pad_crops_and_pads() -> None:
    """Negative pads crop, positive ones pad with the value; extents stay symbolic."""
    node = helper.make_node("Pad", ["x", "pads", "value"], ["y"])
    pads = numpy_helper.from_array(np.array([0, 0, -1, 2, 0, 1, 1, -3]), "pads")
    value = numpy_helper.from_array(np.array(0.5, np.float32), "value")
    model = _model(node, inits=[pads, value])
    _check(model, [(2, 5, 7), (1, 3, 4)],
           "[batch, 4, h - min(1, h) + 1, max(0, w - 3) + 2]",
           # numpy.pad (and so onnx.reference) takes no negative pads.
           lambda x: np.pad(x[:, :, 1:, :-3], [(0, 0), (0, 1), (0, 1), (2, 0)],
                            constant_values=0.5))


# -- located errors ----------------------------------------------------------------------

W = _const("W", (4, 3, 3, 3))
PADS = numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1]), "pads")
ERRORS = [
    pytest.param(
        "Conv", dict(), [("x", [2, 3, 5])], [_const("W", (4, 3, 3))],
        "conv at <onnx>:1 (Conv 'n'): the input has 3 channels, not groups * weights axis 1 "
        "= 1 * 3",
        id="rank_3_input_is_fine_but_not_this",
    ),
]
ERRORS = [
    pytest.param(
        "MaxPool", dict(kernel_shape=[2, 2]), ["x"], [], ["y", "indices"],
        "output 1 (Indices) is not supported", id="maxpool_indices",
    ),
    pytest.param(
        "Conv", dict(group=2), ["x", "W"], [_const("W", (4, 2, 3, 3))], ["y"],
        "conv at <onnx>:1 (Conv 'n'): the input has 3 channels, not groups * weights axis 1 "
        "= 2 * 2",
        id="grouped_channel_mismatch",
    ),
    pytest.param(
        "Conv", dict(group=3), ["x", "W"], [_const("W", (4, 1, 3, 3))], ["y"],
        "conv at <onnx>:1 (Conv 'n'): 4 output channels do not split into 3 groups",
        id="filters_not_divisible_by_groups",
    ),
    pytest.param(
        "Conv", dict(group=0), ["x", "W"], [W], ["y"],
        "conv at <onnx>:1 (Conv 'n'): groups must be a positive integer, not 0",
        id="group_zero",
    ),
    pytest.param(
        "Conv", dict(), ["x", "W"], [_const("W", (4, 3, 3))], ["y"],
        "conv at <onnx>:1 (Conv 'n'): the weights must have rank 4 like the input, not 3",
        id="weights_rank",
    ),
    pytest.param(
        "Conv", dict(), ["x", "W"], [numpy_helper.from_array(np.ones((4, 3, 3, 3)), "W")], ["y"],
        "conv at <onnx>:1 (Conv 'n'): element types differ (f32, f64)",
        id="weights_element_type",
    ),
    pytest.param(
        "Conv", dict(), ["x", "W", "B"], [W, _const("B", (5,))], ["y"],
        "conv at <onnx>:1 (Conv 'n'): the bias has 5 elements, not one per output channel (4)",
        id="bias_extent",
    ),
    pytest.param(
        "Conv", dict(), ["x", "W", "B"], [W, _const("B", (4, 1))], ["y"],
        "conv at <onnx>:1 (Conv 'n'): the bias must be a 1-D f32 tensor",
        id="bias_rank",
    ),
    pytest.param(
        "Conv", dict(kernel_shape=[3, 2]), ["x", "W"], [W], ["y"],
        "kernel_shape [3, 2] does not match the weights' spatial extents [3, 3]",
        id="kernel_shape_mismatch",
    ),
    pytest.param(
        "Conv", dict(strides=[0, 1]), ["x", "W"], [W], ["y"],
        "conv at <onnx>:1 (Conv 'n'): strides must be 2 positive integers (one per spatial "
        "axis), not [0, 1]",
        id="stride_zero",
    ),
    pytest.param(
        "Conv", dict(dilations=[1]), ["x", "W"], [W], ["y"],
        "dilations must have 2 values, not 1", id="dilations_count",
    ),
    pytest.param(
        "Conv", dict(pads=[0, -1, 0, 0]), ["x", "W"], [W], ["y"],
        "conv at <onnx>:1 (Conv 'n'): negative pad width -1", id="negative_pad",
    ),
    pytest.param(
        "Conv", dict(auto_pad="SAME"), ["x", "W"], [W], ["y"],
        "auto_pad 'SAME' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER", id="auto_pad_value",
    ),
    pytest.param(
        "AveragePool", dict(kernel_shape=[2, 2], auto_pad="VALID", pads=[0, 0, 0, 0]), ["x"],
        [], ["y"], "pads cannot be given with auto_pad VALID", id="auto_pad_with_pads",
    ),
    pytest.param(
        "MaxPool", dict(), ["x"], [], ["y"], "the kernel_shape attribute is required",
        id="kernel_shape_missing",
    ),
    pytest.param(
        "Pad", dict(mode="edge"), ["x", "pads"], [PADS], ["y"],
        "mode 'edge' is not supported (constant is)", id="pad_mode",
    ),
    pytest.param(
        "Pad", dict(), ["x", "pads", "", "axes"],
        [PADS, numpy_helper.from_array(np.array([2]), "axes")], ["y"],
        "pads has 8 entries, not 2 per axis (2)", id="pad_count",
    ),
    pytest.param(
        "Pad", dict(), ["x", "pads", "value"],
        [PADS, numpy_helper.from_array(np.zeros(2, np.float32), "value")], ["y"],
        "constant_value must be one value, not 2", id="pad_value",
    ),
]


def _error(model: onnx.ModelProto) -> str:
    with pytest.raises(OnnxImportError) as info:
        trace_model(model)
    return str(info.value)


@pytest.mark.parametrize(("op", "attributes", "inputs", "inits", "outputs", "message"), ERRORS)
def test_located_errors(op: str, attributes: dict[str, Any], inputs: list[str],
                        inits: list[onnx.TensorProto], outputs: list[str], message: str) -> None:
    """Each error names the node, its op and the opset."""
    node = helper.make_node(op, inputs, outputs, name="n", **attributes)
    assert _error(_model(node, inits=inits)) == f"<onnx>:1: {op} node 'n' (opset 22): {message}"


def test_input_rank_and_type_errors() -> None:
    """Pooling needs [N, C, spatial...] of a floating-point type."""
    node = helper.make_node("GlobalAveragePool", ["x"], ["y"], name="n")
    assert _error(_model(node, inputs=[("x", ["batch", 3])])) == (
        "<onnx>:1: GlobalAveragePool node 'n' (opset 22): the input must have rank 3 or more "
        "([N, C, spatial...]), not 2"
    )
    model = _model(node)
    model.graph.input[0].type.tensor_type.elem_type = TensorProto.INT32
    assert _error(model) == (
        "<onnx>:1: GlobalAveragePool node 'n' (opset 22): element type i32 is not supported "
        "(a floating-point type is)"
    )


def test_kernel_extents_must_be_static() -> None:
    """Weights given as a graph input with a named kernel axis."""
    node = helper.make_node("Conv", ["x", "W"], ["y"], name="n")
    model = _model(node, inputs=[("x", X), ("W", [4, 3, "k", 3])])
    assert _error(model) == (
        "<onnx>:1: Conv node 'n' (opset 22): conv at <onnx>:1 (Conv 'n'): kernel extent 0 "
        "(weights axis 2) is k; kernel extents must be static"
    )


# -- frontend errors only Python callers can make ------------------------------------------

HERE = os.path.basename(__file__)
IMAGE = Tensor[1, 2, 6, 6, f32]


def _kind(x: Tensor) -> Tensor:
    return pool(x, "min", [2, 2])


def _mode(x: Tensor) -> Tensor:
    return pool(x, "max", [2, 2], pads="same")


def _pairs(x: Tensor) -> Tensor:
    return pool(x, "max", [2, 2], pads=[(1, 1)])


def _width(x: Tensor) -> Tensor:
    return pool(x, "max", [2, 2], pads=[(1.5, 0), (0, 0)])  # type: ignore[list-item]


def _pad_bool(x: Tensor) -> Tensor:
    return pad(x, [(0, 0), (0, 0), (True, 0), (0, 0)])  # type: ignore[list-item]


def _pad_negative(x: Tensor) -> Tensor:
    return pad(x, [(0, 0), (0, 0), (0, -1), (0, 0)])


def _rank(x: Tensor) -> Tensor:
    return pool(x[0, 0], "max", [2])


def _weights(x: Tensor) -> Tensor:
    return conv(x, np.ones((2, 2, 1, 1), np.float32))  # type: ignore[arg-type]


def _input(x: Tensor) -> Tensor:
    return conv(np.ones((1, 2, 6, 6), np.float32), x)  # type: ignore[arg-type]


def _average_of_integers(x: Tensor) -> Tensor:
    return pool(x, "avg", [2, 2])


def _booleans(x: Tensor) -> Tensor:
    return pool(x, "max", [2, 2])


FRONTEND_ERRORS: list[tuple[Callable[..., Any], Any, type[Exception], str]] = [
    (_kind, IMAGE, FrontendError, "pool at {}: kind must be 'max' or 'avg', not 'min'"),
    (_mode, IMAGE, FrontendError,
     "max_pool at {}: pads 'same' is not one of valid, same_upper, same_lower"),
    (_pairs, IMAGE, FrontendError,
     "max_pool at {}: pads must give (before, after) for each of the 2 spatial axes"),
    (_width, IMAGE, FrontendError, "max_pool at {}: 1.5 is not a pad width"),
    (_pad_bool, IMAGE, FrontendError, "pad at {}: True is not a pad width"),
    (_pad_negative, IMAGE, FrontendError, "pad at {}: negative pad width -1"),
    (_rank, IMAGE, ShapeError,
     "max_pool at {}: the input must have rank 3 or more ([N, C, spatial...]), not 2"),
    (_weights, IMAGE, FrontendError, "conv at {}: the weights must be a traced tensor"),
    (_input, IMAGE, FrontendError, "conv at {}: the input must be a traced tensor"),
    (_average_of_integers, Tensor[1, 2, 6, 6, i32], FrontendError,
     "avg_pool at {}: needs a floating-point type, not i32"),
    (_booleans, Tensor[1, 2, 6, 6, "i1"], FrontendError,
     "max_pool at {}: element type i1 is not supported"),
]


@pytest.mark.parametrize(("fn", "spec", "error", "message"), FRONTEND_ERRORS,
                         ids=[case[0].__name__.strip("_") for case in FRONTEND_ERRORS])
def test_frontend_errors(fn: Callable[..., Any], spec: Any, error: type[Exception],
                         message: str) -> None:
    """Each names the op and the caller's line."""
    line = fn.__code__.co_firstlineno + 1
    text = linecache.getline(__file__, line).strip()
    with pytest.raises(error) as info:
        trace(fn, spec)
    assert str(info.value) == message.format(f"{HERE}:{line} ({text})")


WIDE_CONVS = [
    pytest.param("Conv", dict(pads=[1, 1, 1, 1]), (8, 3, 3, 3), [(1, 5, 13), (2, 3, 29)],
                 id="padded_widths_13_29"),
    pytest.param("Conv", dict(strides=[2, 2], pads=[1, 1, 1, 1]), (8, 3, 3, 3),
                 [(1, 5, 29), (2, 3, 13)], id="stride_2_widths_15_7"),
    pytest.param("Conv", dict(dilations=[1, 2], pads=[0, 2, 0, 1]), (4, 3, 2, 3), [(2, 4, 14)],
                 id="dilated_width_13"),
    pytest.param("Conv", dict(pads=[1, 0, 1, 0]), (5, 3, 3, 1), [(1, 4, 14), (1, 4, 17)],
                 id="1_wide_kernel_widths_14_17"),
    pytest.param("Conv", dict(), (8, 3, 3, 3), [(1, 5, 15)], id="unpadded_width_13"),
    pytest.param("ConvTranspose", dict(strides=[2, 2], pads=[1, 1, 1, 1]), (3, 4, 4, 4),
                 [(1, 3, 7), (2, 2, 10)], id="transposed_widths_14_20"),
]


@pytest.mark.parametrize(("op", "attributes", "kernel", "sizes"), WIDE_CONVS)
def test_static_variants_of_wide_convolutions_match(
        op: str, attributes: dict[str, Any], kernel: tuple[int, ...],
        sizes: list[tuple[int, int, int]]) -> None:
    """Static variants whose output width is computed wider and sliced
    (`symshape_mlir.lowering.iree.widths`) agree with ``onnx.reference``."""
    node = helper.make_node(op, ["x", "W", "B"], ["y"], **attributes)
    channels = kernel[1] if op == "ConvTranspose" else kernel[0]
    model = _model(node, inits=[_const("W", kernel), _const("B", (channels,), 1)])
    _assert_static_variants_match(model, sizes)


def test_wide_convolution_is_widened() -> None:
    """The 13-column static convolution of ``padded_widths_13_29`` is computed 16 wide."""
    model = _model(helper.make_node("Conv", ["x", "W"], ["y"], pads=[1, 1, 1, 1]),
                   inits=[_const("W", (8, 3, 3, 3))])
    module = import_model(model)
    run_pipeline(module, "builtin.module(symshape-specialize{bindings=batch=1,h=3,w=13},"
                         "symshape-to-iree)")
    text = str(module)
    assert "outs(%" in text and "tensor<1x3x16x8xf32>) -> tensor<1x3x16x8xf32>" in text
    assert "[1, 3, 13, 8] [1, 1, 1, 1] : tensor<1x3x16x8xf32> to tensor<1x3x13x8xf32>" in text


DYNAMIC_CONVS = [
    pytest.param("Conv", dict(strides=[2, 2], pads=[3, 3, 3, 3]), (8, 3, 7, 7),
                 [(2, 17, 12), (1, 5, 6)], id="stem_7x7_stride_2"),
    pytest.param("Conv", dict(dilations=[2, 3], strides=[1, 2], pads=[0, 1, 2, 0]),
                 (9, 3, 3, 2), [(2, 9, 8), (1, 7, 4)], id="dilated_strided"),
    pytest.param("Conv", {}, (10, 3, 1, 1), [(2, 4, 7), (3, 1, 1)], id="pointwise"),
    pytest.param("Conv", dict(strides=[2, 2]), (8, 3, 1, 1), [(2, 5, 7), (1, 2, 3)],
                 id="pointwise_stride_2"),
    pytest.param("Conv", {}, (8, 3, 3, 3), [(2, 2, 6), (0, 4, 4)], id="no_rows"),
    pytest.param("ConvTranspose", dict(strides=[2, 2], pads=[1, 1, 1, 1]), (3, 8, 4, 4),
                 [(2, 5, 3), (1, 2, 2)], id="transposed"),
    pytest.param("Conv", dict(group=3, strides=[2, 1], dilations=[1, 2], pads=[1, 2, 1, 0]),
                 (3, 1, 3, 3), [(2, 9, 8), (1, 1, 5), (0, 4, 4)], id="depthwise"),
]


@pytest.mark.parametrize(("op", "kernel_attributes", "kernel", "sizes"), DYNAMIC_CONVS)
def test_dynamic_convolutions_are_matrix_products(op: str, kernel_attributes: dict[str, Any],
                                                  kernel: tuple[int, ...],
                                                  sizes: list[tuple[int, int, int]]) -> None:
    """In the dynamic module a convolution over dynamic spatial sizes is its
    windows times the kernel as a matrix, a depthwise one a sum of strided
    slices (`symshape_mlir.lowering.iree.patches`), and agrees with
    ``onnx.reference``, also with no output rows (an output height of 0, a
    batch of 0)."""
    node = helper.make_node(op, ["x", "W"], ["y"], **kernel_attributes)
    model = _model(node, inits=[_const("W", kernel)])
    module = import_model(model)
    run_pipeline(module, "builtin.module(symshape-to-iree)")
    text = str(module)
    depthwise = kernel_attributes.get("group") == 3
    assert ("linalg.matmul" in text) != depthwise and "linalg.conv" not in text
    assert ("linalg.depthwise" in text) is False
    exe = runtime.compile(trace_model(model).module_text, cache_dir=False, hot_after=None)
    evaluator = ReferenceEvaluator(model)
    for n, h, w in sizes:
        x = np.random.default_rng(h * w).standard_normal((n, 3, h, w)).astype(np.float32)
        expected = evaluator.run(None, {"x": x})[0]
        got = exe.main(x)
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("kernel", "group"), [((8, 3, 4), 1), ((3, 1, 4), 3)],
                         ids=["conv", "depthwise"])
def test_dynamic_1d_convolutions(kernel: tuple[int, ...], group: int) -> None:
    """1-D convolutions over a dynamic length likewise."""
    node = helper.make_node("Conv", ["x", "W"], ["y"], strides=[2], pads=[1, 2], group=group)
    model = _model(node, inputs=(("x", ["batch", 3, "t"]),), inits=[_const("W", kernel)])
    module = import_model(model)
    run_pipeline(module, "builtin.module(symshape-to-iree)")
    assert "linalg.conv" not in str(module) and "linalg.depthwise" not in str(module)
    exe = runtime.compile(trace_model(model).module_text, cache_dir=False, hot_after=None)
    evaluator = ReferenceEvaluator(model)
    for n, t in [(2, 13), (1, 2)]:
        x = np.random.default_rng(t).standard_normal((n, 3, t)).astype(np.float32)
        np.testing.assert_allclose(exe.main(x), evaluator.run(None, {"x": x})[0],
                                   rtol=1e-4, atol=1e-5)


def test_narrow_dynamic_convolution_stays_a_convolution() -> None:
    """With fewer than ``MIN_FEATURES`` output channels the copy of the windows
    would cost more than the product saves: the convolution is kept."""
    assert MIN_FEATURES == 8
    node = helper.make_node("Conv", ["x", "W"], ["y"], pads=[1, 1, 1, 1])
    model = _model(node, inits=[_const("W", (7, 3, 3, 3))])
    module = import_model(model)
    run_pipeline(module, "builtin.module(symshape-to-iree)")
    text = str(module)
    assert "linalg.conv_2d_nhwc_hwcf" in text and "linalg.matmul" not in text


TRANSPOSED = [
    pytest.param(dict(strides=[2, 2]), (3, 4, 4, 4), [(2, 5, 3), (1, 1, 1)], id="4x4_stride_2"),
    pytest.param(dict(strides=[2, 2], pads=[1, 1, 1, 1]), (3, 5, 3, 3), [(2, 4, 6), (1, 3, 3)],
                 id="3x3_stride_2_pads"),
    pytest.param(dict(strides=[3, 2], pads=[2, 0, 1, 1], output_padding=[2, 1]), (3, 2, 4, 5),
                 [(1, 3, 4), (2, 2, 1)], id="uneven_strides_output_padding"),
    pytest.param(dict(strides=[2, 1], pads=[0, 1, 0, 1]), (3, 4, 1, 3), [(2, 4, 5)],
                 id="kernel_below_stride"),
    pytest.param(dict(strides=[2, 2], auto_pad="SAME_UPPER"), (3, 2, 3, 3),
                 [(1, 5, 4), (2, 2, 7)], id="same_upper"),
]


@pytest.mark.parametrize(("attributes", "kernel", "sizes"), TRANSPOSED)
def test_transposed_convolutions_by_phases(attributes: dict[str, Any], kernel: tuple[int, ...],
                                           sizes: list[tuple[int, int, int]]) -> None:
    """A strided transposed convolution (one group, no dilation) is one stride-1
    convolution of the undilated input whose output channels are the output
    phases (no zero-spread input), and agrees with ``onnx.reference`` in the
    dynamic module and in static variants."""
    node = helper.make_node("ConvTranspose", ["x", "W", "B"], ["y"], **attributes)
    model = _model(node, inits=[_const("W", kernel), _const("B", (kernel[1],), 1)])
    module = import_model(model)
    run_pipeline(module, "builtin.module(symshape-to-iree)")
    assert "tensor.insert_slice" not in str(module)
    _check(model, sizes, str(infer_shapes(model)["y"]))
    _assert_static_variants_match(model, sizes)


SINGLE_CHANNEL = [
    pytest.param(["batch", 1, "w"], dict(strides=[5]), (16, 1, 10), [(2, 4000), (1, 23)],
                 id="waveform_stride_5"),
    pytest.param(["batch", 1, "h", "w"], dict(pads=[1, 1, 1, 1]), (16, 1, 3, 3),
                 [(2, 17, 12), (1, 5, 6)], id="image_3x3"),
    pytest.param(["batch", 1, "h", "w"], dict(strides=[2, 1], dilations=[1, 2]), (6, 1, 5, 5),
                 [(3, 28, 28), (1, 9, 9)], id="image_5x5_six_filters"),
]


@pytest.mark.parametrize(("axes", "attributes", "kernel", "sizes"), SINGLE_CHANNEL)
def test_single_channel_convolutions_are_matrix_products(
        axes: list[str | int], attributes: dict[str, Any], kernel: tuple[int, ...],
        sizes: list[tuple[int, ...]]) -> None:
    """A convolution over one input channel is computed as its windows times
    the kernel in static variants too (IREE's direct form is nearly element
    by element there), and agrees with ``onnx.reference``."""
    node = helper.make_node("Conv", ["x", "W", "B"], ["y"], **attributes)
    model = _model(node, inputs=[("x", axes)],
                   inits=[_const("W", kernel), _const("B", (kernel[0],), 1)])
    names = [a for a in axes if isinstance(a, str)]
    module = import_model(model)
    binding = ",".join(f"{n}={v}" for n, v in zip(names, sizes[0], strict=True))
    run_pipeline(module, f"builtin.module(symshape-specialize{{bindings={binding}}},"
                         "symshape-to-iree)")
    assert "linalg.matmul" in str(module) and "linalg.conv" not in str(module)
    exe = runtime.compile(trace_model(model).module_text, cache_dir=False, hot_after=None)
    exe.pre_specialize([dict(zip(names, s, strict=True)) for s in sizes[:1]])
    evaluator = ReferenceEvaluator(model)
    for size in sizes:
        shape = [dict(zip(names, size, strict=True)).get(a, a) for a in axes]
        x = np.random.default_rng(sum(size)).standard_normal(shape).astype(np.float32)
        expected = evaluator.run(None, {"x": x})[0]
        np.testing.assert_allclose(exe.main(x), expected, rtol=1e-4, atol=1e-4)
    assert exe.stats()["variants"] == {"main": 1}
