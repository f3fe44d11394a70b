"""ONNX ``Resize``: integer nearest upsampling as a broadcast, identity ``sizes`` axes
left alone; numerics against onnxruntime on the dynamic module."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from symshape_mlir import runtime
from symshape_mlir.onnx import import_model, infer_shapes

ort = pytest.importorskip("onnxruntime")

_X = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 2, "h", "w"])

# (coordinate_transformation_mode, nearest_mode, scales, axes gathered; the other
# resized axes are a broadcast)
_NEAREST = [
    ("asymmetric", "floor", [1, 1, 2, 2], 0),
    ("asymmetric", "floor", [1, 1, 3, 1], 0),
    ("half_pixel", "round_prefer_floor", [1, 1, 2, 3], 0),
    ("pytorch_half_pixel", "round_prefer_ceil", [1, 1, 2, 2], 0),
    ("half_pixel_symmetric", "round_prefer_floor", [1, 1, 2, 2], 0),
    ("tf_half_pixel_for_nn", "floor", [1, 1, 2, 2], 0),
    # Positions that do not round to y floordiv k, or a scale that is not an
    # integer: gathers.
    ("asymmetric", "round_prefer_floor", [1, 1, 2, 2], 2),
    ("half_pixel", "floor", [1, 1, 2, 2], 2),
    ("tf_half_pixel_for_nn", "round_prefer_ceil", [1, 1, 2, 2], 2),
    ("asymmetric", "floor", [1, 1, 2.5, 2], 1),
]


def _model(nodes, outputs, inits=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", [_X], outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    model.ir_version = 9
    return model


def _output(name: str) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, None)


def _nearest(cases) -> onnx.ModelProto:
    nodes, inits = [], []
    for i, (transform, rounding, scales, _) in enumerate(cases):
        inits.append(numpy_helper.from_array(np.array(scales, np.float32), f"s{i}"))
        nodes.append(helper.make_node("Resize", ["x", "", f"s{i}"], [f"y{i}"], mode="nearest",
                                      coordinate_transformation_mode=transform,
                                      nearest_mode=rounding))
    return _model(nodes, [_output(f"y{i}") for i in range(len(cases))], inits)


def _by_sizes(transform: str, mode: str, factors: tuple[int, int]) -> onnx.ModelProto:
    """``x`` resized to ``sizes = shape(x) * [1, 1, factors]``, read from ``x``'s shape."""
    inits = [numpy_helper.from_array(np.array([1, 1, *factors], np.int64), "f")]
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Mul", ["shape", "f"], ["sizes"]),
             helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode=mode,
                              coordinate_transformation_mode=transform,
                              nearest_mode="round_prefer_ceil")]
    return _model(nodes, [_output("y")], inits)


def _check(model: onnx.ModelProto, shapes) -> None:
    exe = runtime.compile(import_model(model), cache_dir=False, hot_after=None)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    for shape in shapes:
        x = rng.standard_normal(shape).astype(np.float32)
        expected = session.run(None, {"x": x})
        ours = exe.main(x)
        ours = ours if isinstance(ours, tuple) else (ours,)
        for a, b in zip(ours, expected, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_nearest_matches_onnxruntime() -> None:
    """Each nearest case, broadcast or gathered, gives onnxruntime's elements exactly."""
    model = _nearest(_NEAREST)
    exe = runtime.compile(import_model(model), cache_dir=False, hot_after=None)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    for shape in [(1, 2, 3, 5), (2, 2, 7, 1)]:
        x = rng.standard_normal(shape).astype(np.float32)
        for case, ours, expected in zip(_NEAREST, exe.main(x), session.run(None, {"x": x}),
                                        strict=True):
            assert ours.shape == expected.shape, case
            assert np.array_equal(ours, expected), case


@pytest.mark.parametrize("case", _NEAREST, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
def test_nearest_form(case) -> None:
    """Axes of an integer scale whose positions are ``y floordiv k`` are one
    broadcast and a reshape; the others gather."""
    text = import_model(_nearest([case])).operation.get_asm()
    resized = sum(1 for s in case[2] if s != 1)
    assert text.count("symshape.gather") == case[3]
    assert text.count("symshape.broadcast_in_dim") == (1 if case[3] < resized else 0)


def test_nearest_shapes() -> None:
    """The shape rule and the import agree on the broadcast form's extents."""
    model = _nearest(_NEAREST[:3])
    for build in (True, False):
        shapes = infer_shapes(model, build=build, policy="override")
        assert [str(shapes[f"y{i}"]) for i in range(3)] == [
            "[b, 2, 2 * h, 2 * w]", "[b, 2, 3 * h, w]", "[b, 2, 2 * h, 3 * w]"]


@pytest.mark.parametrize(("transform", "mode", "gathers"), [
    # Axes 0, 1 and 3 keep their extent: only axis 2 is read, twice for linear.
    ("half_pixel", "linear", 2),
    ("align_corners", "linear", 2),
    ("pytorch_half_pixel", "linear", 2),
    ("asymmetric", "nearest", 1),
    # Its formula reads half a position on; onnxruntime leaves such axes alone.
    ("tf_half_pixel_for_nn", "nearest", 1),
    ("pytorch_half_pixel", "cubic", 4),
])
def test_sizes_identity_axes(transform: str, mode: str, gathers: int) -> None:
    """Axes whose ``sizes`` element is their extent are left alone, under every
    transformation; numerics as onnxruntime's."""
    model = _by_sizes(transform, mode, (2, 1))
    assert import_model(model).operation.get_asm().count("symshape.gather") == gathers
    _check(model, [(1, 2, 3, 5), (2, 2, 4, 1)])
