"""Shape computations evaluated while importing: elements are extents, decided by the provers.

Each graph computes a ``Reshape`` or ``Expand`` target from ``Shape`` data
the way torch's exporters do. The import must give the op a symbolic target
(an import that needed run-time data there would fail), and the compiled
model must match onnxruntime at several bindings. An element that depends
on the binding is named by the error of the op that needs it.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from symshape_mlir import runtime
from symshape_mlir.onnx import OnnxImportError, trace_model
from symshape_mlir.runtime.errors import PlanError

ort = pytest.importorskip("onnxruntime")


def _model(nodes, inputs, outputs, inits=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def _info(name: str, dims, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def _const(name: str, array) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(array), name)


def _node(op: str, inputs: list[str], output: str, **attrs) -> onnx.NodeProto:
    return helper.make_node(op, inputs, [output], name=output, **attrs)


def _batch_of(x: str = "x") -> list[onnx.NodeProto]:
    """``b = [batch]`` and ``n = batch`` (0-d) read from ``x``'s shape."""
    return [
        _node("Shape", [x], "s"),
        _node("Gather", ["s", "zero"], "n", axis=0),
        _node("Unsqueeze", ["n", "axes0"], "b"),
    ]


_COMMON = [_const("zero", np.int64(0)), _const("axes0", [0]), _const("minus", [-1]),
           _const("one", [1]), _const("two", np.int64(2)), _const("three", np.int64(3))]


def _check(model: onnx.ModelProto, shapes: list[tuple[int, ...]], expected: list[str]) -> None:
    traced = trace_model(model)
    assert [str(s) for s in traced.result_shapes] == expected
    exe = runtime.compile(traced.module_text, cache_dir=False, hot_after=None)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    for shape in shapes:
        x = rng.standard_normal(shape).astype(np.float32)
        ours = exe.main(x)
        ours = ours if isinstance(ours, tuple) else (ours,)
        for mine, reference in zip(ours, session.run(None, {"x": x}), strict=True):
            assert mine.shape == reference.shape
            np.testing.assert_allclose(mine, reference, rtol=1e-6)


def test_torch_expand_idiom() -> None:
    """``t.expand(batch, -1)`` as TorchScript writes it: Where(Equal(shape, -1 * ones), ...)."""
    nodes = [
        *_batch_of(),
        _node("Concat", ["b", "minus"], "shape", axis=0),
        _node("Shape", ["shape"], "rank"),
        _node("ConstantOfShape", ["rank"], "ones",
              value=helper.make_tensor("v", TensorProto.INT64, [1], [1])),
        _node("Mul", ["ones", "minus"], "minus_ones"),
        _node("Equal", ["shape", "minus_ones"], "is_minus"),
        _node("Where", ["is_minus", "ones", "shape"], "target"),
        _node("Expand", ["row", "target"], "rows"),
        _node("Add", ["x", "rows"], "y"),
    ]
    model = _model(nodes, [_info("x", ["batch", 4])], [_info("y", None)],
                   [*_COMMON, _const("row", np.arange(4, dtype=np.float32)[None])])
    _check(model, [(3, 4), (1, 4), (0, 4)], ["[batch, 4]"])


def test_evaluated_integer_ops() -> None:
    """Arithmetic of either sign, comparisons, logic, casts and reductions on shape data."""
    nodes = [
        *_batch_of(),
        _node("Sub", ["n", "three"], "m"),                 # batch - 3, of either sign
        _node("Div", ["m", "two"], "q"),                   # truncated toward zero
        _node("Mod", ["m", "two"], "r"),                   # the divisor's sign
        _node("Mod", ["m", "two"], "f", fmod=1),           # the dividend's sign
        _node("Abs", ["m"], "a"),
        _node("Neg", ["n"], "neg"),
        _node("Max", ["neg", "zero"], "nothing"),          # max(-batch, 0) = 0
        _node("Cast", ["nothing"], "false", to=TensorProto.BOOL),
        _node("Not", ["false"], "true"),
        _node("Where", ["true", "three", "two"], "w"),     # 3
        *(_node("Unsqueeze", [v, "axes0"], f"{v}_1") for v in ("q", "r", "f", "a", "w")),
        _node("Concat", ["q_1", "r_1", "f_1", "a_1", "w_1"], "parts", axis=0),
        _node("ReduceSum", ["parts"], "total", keepdims=1),
        _node("ReduceProd", ["one_two"], "prod", keepdims=1),   # [2]
        _node("Tile", ["one", "two_1"], "ones"),                # [1, 1]
        _node("ReduceSum", ["ones"], "count", keepdims=1),      # [2]
        _node("Concat", ["b", "total", "prod", "count"], "target", axis=0),
        _node("Expand", ["cell", "target"], "y"),
    ]
    model = _model(
        nodes, [_info("x", ["batch"])], [_info("y", None)],
        [*_COMMON, _const("one_two", [1, 2]), _const("two_1", [2]), _const("cell", np.float32(1))])
    (shape,) = trace_model(model).result_shapes
    for batch in range(8):
        m = batch - 3
        total = int(m / 2) + m % 2 + int(np.fmod(m, 2)) + abs(m) + 3
        assert shape.evaluate({"batch": batch}) == (batch, total, 2, 2)
    exe = runtime.compile(trace_model(model).module_text, cache_dir=False, hot_after=None)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for batch in (0, 1, 4):
        x = np.zeros(batch, np.float32)
        np.testing.assert_array_equal(exe.main(x), session.run(None, {"x": x})[0])


def test_undecided_element_is_named() -> None:
    """``Equal(batch, 1)`` has no value at import time; the Reshape that needs it says so."""
    nodes = [
        *_batch_of(),
        _node("Equal", ["b", "one"], "single"),
        _node("Where", ["single", "minus", "b"], "first"),
        _node("Concat", ["first", "minus"], "target", axis=0),
        _node("Reshape", ["x", "target"], "y"),
    ]
    model = _model(nodes, [_info("x", ["batch", 4])], [_info("y", None)], _COMMON)
    with pytest.raises(OnnxImportError) as raised:
        trace_model(model)
    assert str(raised.value) == (
        "<onnx>:7: Reshape node 'y' (opset 17): input 1 (shape) must be known when the model is "
        "imported: a constant, an initializer, or computed from tensor shapes; it depends on how "
        "the axes are bound: Equal node 'single' cannot decide element [0] (batch == 1)"
    )


def test_undecided_element_can_run() -> None:
    """The same data where the consumer takes a run-time tensor: computed at run time."""
    nodes = [
        *_batch_of(),
        _node("Equal", ["b", "one"], "single"),
        _node("Cast", ["single"], "flag", to=TensorProto.FLOAT),
        _node("Mul", ["x", "flag"], "y"),
    ]
    model = _model(nodes, [_info("x", ["batch"])], [_info("y", None)], _COMMON)
    _check(model, [(1,), (3,), (0,)], ["[batch]"])


def test_zero_d_boolean_constant() -> None:
    """``ConstantOfShape(shape=[], value=bool)`` is a 0-d boolean (of every dtype, 0-d stays)."""
    nodes = [
        _node("ConstantOfShape", ["empty"], "t",
              value=helper.make_tensor("v", TensorProto.BOOL, [1], [True])),
        _node("Greater", ["x", "half"], "big"),
        _node("And", ["big", "t"], "both"),
        _node("Cast", ["both"], "y", to=TensorProto.FLOAT),
    ]
    model = _model(nodes, [_info("x", ["n"])], [_info("y", None)],
                   [_const("empty", np.zeros(0, np.int64)), _const("half", np.float32(0.5))])
    _check(model, [(4,), (1,), (0,)], ["[n]"])


def test_scatter_nd_on_a_shape() -> None:
    """``ScatterND`` writing the batch into a constant shape vector."""
    nodes = [
        *_batch_of(),
        _node("ScatterND", ["base", "where_", "b"], "target"),
        _node("Reshape", ["x", "target"], "y"),
    ]
    model = _model(nodes, [_info("x", ["batch", 6])], [_info("y", None)],
                   [*_COMMON, _const("base", [0, 2, 3]), _const("where_", [[0]])])
    _check(model, [(2, 6), (1, 6), (0, 6)], ["[batch, 2, 3]"])


def _if_model(compare: str) -> onnx.ModelProto:
    then_branch = helper.make_graph([_node("Relu", ["x"], "t")], "then", [], [_info("t", None)])
    else_branch = helper.make_graph([_node("Neg", ["x"], "e")], "else", [], [_info("e", None)])
    nodes = [
        *_batch_of(),
        _node(compare, ["n", "zero"], "cond"),
        helper.make_node("If", ["cond"], ["y"], name="choose", then_branch=then_branch,
                         else_branch=else_branch),
    ]
    return _model(nodes, [_info("x", ["batch", 3])], [_info("y", None)], _COMMON)


def test_if_decided_at_import() -> None:
    """``batch >= 0`` holds at every binding: the ``then`` branch is imported in place."""
    _check(_if_model("GreaterOrEqual"), [(2, 3), (1, 3), (0, 3)], ["[batch, 3]"])


def test_if_undecided_is_named() -> None:
    """``batch > 0`` depends on the binding: the ``If`` names the undecided element."""
    with pytest.raises(OnnxImportError) as raised:
        trace_model(_if_model("Greater"))
    assert str(raised.value) == (
        "<onnx>:5: If node 'choose' (opset 17): input 0 (cond) must be known when the model is "
        "imported: a constant, an initializer, or computed from tensor shapes; it depends on how "
        "the axes are bound: Greater node 'cond' cannot decide element [] (batch > 0)"
    )


def test_constants_fold() -> None:
    """A grid size computed in floats from constants (dinov2's ``Cast(Pow(16.0, 0.5))``)
    folds while importing, so it can be a Reshape target."""
    nodes = [
        _node("Pow", ["sixteen", "half"], "root"),
        _node("Cast", ["root"], "side", to=TensorProto.INT64),
        _node("Unsqueeze", ["side", "axes0"], "side_1"),
        _node("Concat", ["minus", "side_1", "side_1"], "target", axis=0),
        _node("Reshape", ["x", "target"], "y"),
    ]
    model = _model(nodes, [_info("x", ["batch", 16])], [_info("y", None)],
                   [*_COMMON, _const("sixteen", np.float32(16.0)), _const("half", np.float32(0.5))])
    _check(model, [(3, 16), (1, 16), (0, 16)], ["[batch, 4, 4]"])


def test_large_boolean_constant() -> None:
    """A boolean constant too large to print as a list (a causal mask) compiles and runs."""
    mask = np.tril(np.ones((16, 16), bool))
    nodes = [_node("Where", ["mask", "x", "zero_f"], "y")]
    model = _model(nodes, [_info("x", ["batch", 16, 16])], [_info("y", None)],
                   [_const("mask", mask), _const("zero_f", np.float32(0))])
    _check(model, [(2, 16, 16), (1, 16, 16), (0, 16, 16)], ["[batch, 16, 16]"])


def test_pad_to_a_multiple() -> None:
    """Pads computed from the shape (Swin's pad to a multiple of the window): symbolic widths."""
    nodes = [
        *_batch_of(),
        _node("Mod", ["n", "seven"], "r"),
        _node("Sub", ["seven", "r"], "short"),
        _node("Mod", ["short", "seven"], "pad"),            # (7 - n % 7) % 7
        _node("Unsqueeze", ["pad", "axes0"], "pad_1"),
        _node("Concat", ["zeros_3", "pad_1", "zeros_1"], "pads", axis=0),
        _node("Pad", ["x", "pads"], "y"),
    ]
    model = _model(nodes, [_info("x", ["batch", 2])], [_info("y", None)],
                   [*_COMMON, _const("seven", np.int64(7)), _const("zeros_3", [0, 0]),
                    _const("zeros_1", [0])])
    traced = trace_model(model)
    (shape,) = traced.result_shapes
    for batch in range(16):
        assert shape.evaluate({"batch": batch}) == (batch + (7 - batch % 7) % 7, 2)
    _check(model, [(3, 2), (7, 2), (0, 2)], [str(shape)])


def test_division_by_a_size_that_may_be_zero() -> None:
    """Dividing by a size that is 0 at some binding is checked when that size is used."""
    nodes = [
        *_batch_of(),
        _node("Div", ["twelve", "n"], "per"),              # 12 / batch
        _node("Unsqueeze", ["per", "axes0"], "per_1"),
        _node("Concat", ["b", "per_1"], "target", axis=0),
        _node("Expand", ["cell", "target"], "y"),
    ]
    model = _model(nodes, [_info("x", ["batch"])], [_info("y", None)],
                   [*_COMMON, _const("twelve", np.int64(12)), _const("cell", np.float32(1))])
    exe = runtime.compile(trace_model(model).module_text, cache_dir=False, hot_after=None)
    assert exe.main(np.zeros(5, np.float32)).shape == (5, 2)
    with pytest.raises(PlanError) as raised:
        exe.main(np.zeros(0, np.float32))
    assert str(raised.value) == (
        "@main result 0 (made at <onnx>:7:1): axis 1: division by zero in '12 floordiv batch'")


def test_chained_scatters_into_zeros() -> None:
    """Scatters in a row into a tensor of zeros (Swin's attention-mask regions): each
    reduces from its own fill, which IREE 3.13 distributes (chained inits it did not)."""
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("ConstantOfShape", ["s"], "z0",
              value=helper.make_tensor("v", TensorProto.FLOAT, [1], [0.0])),
        _node("ScatterND", ["z0", "rows_a", "ones"], "z1"),
        _node("ScatterND", ["z1", "rows_b", "twos"], "y"),
    ]
    model = _model(nodes, [_info("x", ["n", 2]), _info("ones", ["k", 2]), _info("twos", ["k", 2])],
                   [_info("y", None)],
                   [_const("rows_a", [[0], [2]]), _const("rows_b", [[1], [-1]])])
    traced = trace_model(model)
    exe = runtime.compile(traced.module_text, cache_dir=False, hot_after=None)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for n in (3, 5):
        feeds = {"x": np.zeros((n, 2), np.float32), "ones": np.ones((2, 2), np.float32),
                 "twos": np.full((2, 2), 2, np.float32)}
        np.testing.assert_array_equal(exe.main(*feeds.values()), session.run(None, feeds)[0])


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "LayerNormalization"])
def test_half_precision_normalizations(op: str) -> None:
    """f16 normalizations compute in f32 (IREE 3.13's CPU backend cannot link a fused f16
    softmax: no fmaxf) and match a float32 reference cast to f16."""
    inputs = ["x", "scale"] if op == "LayerNormalization" else ["x"]
    model = _model([_node(op, inputs, "y")], [_info("x", ["n", 6], TensorProto.FLOAT16)],
                   [_info("y", None, TensorProto.FLOAT16)],
                   [_const("scale", np.linspace(0.5, 1.5, 6).astype(np.float16))])
    exe = runtime.compile(trace_model(model).module_text, cache_dir=False, hot_after=None)
    x = np.random.default_rng(0).standard_normal((3, 6)).astype(np.float16)
    wide = x.astype(np.float32)
    shifted = wide - wide.max(-1, keepdims=True)
    if op == "Softmax":
        expected = np.exp(shifted) / np.exp(shifted).sum(-1, keepdims=True)
    elif op == "LogSoftmax":
        expected = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    else:
        centered = wide - wide.mean(-1, keepdims=True)
        expected = centered / np.sqrt((centered**2).mean(-1, keepdims=True) + 1e-5) * \
            np.linspace(0.5, 1.5, 6).astype(np.float16).astype(np.float32)
    got = exe.main(x)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), expected, rtol=2e-3, atol=2e-3)


def test_tile_by_the_batch() -> None:
    """``p.repeat(batch, 1, 1)`` (WavLM's gated position bias): Tile's repeats
    are extents read from the shape, not constants."""
    nodes = [
        *_batch_of(),
        _node("Concat", ["b", "one", "one"], "repeats", axis=0),
        _node("Tile", ["p", "repeats"], "tiled"),
        _node("Add", ["tiled", "x"], "y"),
    ]
    p = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    model = _model(nodes, [_info("x", ["batch", 2, 3])], [_info("y", None)],
                   [*_COMMON, _const("p", p)])
    _check(model, [(3, 2, 3), (1, 2, 3), (0, 2, 3)], ["[batch, 2, 3]"])


def test_tile_by_a_count_that_may_be_negative() -> None:
    """A repeat count that is negative at some binding is a located error."""
    nodes = [
        *_batch_of(),
        _node("Sub", ["b", "one"], "fewer"),
        _node("Concat", ["fewer", "one"], "repeats", axis=0),
        _node("Tile", ["x", "repeats"], "y"),
    ]
    model = _model(nodes, [_info("x", ["batch", 2])], [_info("y", None)], _COMMON)
    with pytest.raises(OnnxImportError) as raised:
        trace_model(model)
    assert str(raised.value) == (
        "<onnx>:6: Tile node 'y' (opset 17): repeats ['batch - 1', '1'] must give a "
        "non-negative count per axis of rank 2")


def test_pad_whose_sign_depends_on_the_binding() -> None:
    """``F.pad(x, (0, 4 - x.shape[1]))``: the width pads where it is positive
    and crops where it is negative (SEW pads its upsampled frames back to the
    input's length); the axis is 4 at every binding."""
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "one"], "t"),
        _node("Sub", ["four", "t"], "width"),
        _node("Concat", ["zeros_3", "width"], "pads", axis=0),
        _node("Pad", ["x", "pads"], "y"),
    ]
    model = _model(nodes, [_info("x", ["batch", "time"])], [_info("y", None)],
                   [*_COMMON, _const("four", [4]), _const("zeros_3", [0, 0, 0])])
    (shape,) = trace_model(model).result_shapes
    for time in range(12):
        assert shape.evaluate({"batch": 2, "time": time}) == (2, 4)
    _check(model, [(2, 1), (3, 4), (2, 7), (0, 9)], [str(shape)])


def test_nonzero_into_a_static_result_is_planned() -> None:
    """NonZero's count is data-dependent, clamped to the input's size: the
    buffers it sizes are planned at that bound, so a model whose results do
    not depend on the count (Longformer's global attention indices) compiles
    without ``unplanned=``."""
    nodes = [_node("NonZero", ["x"], "indices"),
             _node("ReduceSum", ["indices", "one"], "y", keepdims=0)]
    model = _model(nodes, [_info("x", ["batch", 4])], [_info("y", None, TensorProto.INT64)],
                   _COMMON)
    exe = runtime.compile(trace_model(model).module_text, cache_dir=False, hot_after=None)
    assert any(b.bounded and "4 * batch" in map(str, b.sizes) for b in exe.main.sizes.buffers)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    for batch in (3, 1, 0):
        x = (rng.standard_normal((batch, 4)) > 0).astype(np.float32)
        np.testing.assert_array_equal(exe.main(x), session.run(None, {"x": x})[0])


@pytest.mark.parametrize("k, dtype", [(0, None), (1, TensorProto.INT64), (-2, TensorProto.BOOL)])
def test_eye_like_on_symbolic_extents(k: int, dtype: int | None) -> None:
    """EyeLike (XLNet's segment matrix) on a matrix of named extents, with
    the input's element type or another."""
    attrs = {"k": k} if dtype is None else {"k": k, "dtype": dtype}
    model = _model([_node("EyeLike", ["x"], "y", **attrs)], [_info("x", ["rows", "columns"])],
                   [_info("y", None, TensorProto.FLOAT if dtype is None else dtype)])
    traced = trace_model(model)
    assert [str(s) for s in traced.result_shapes] == ["[rows, columns]"]
    exe = runtime.compile(traced.module_text, cache_dir=False, hot_after=None)
    expected = np.float32 if dtype is None else helper.tensor_dtype_to_np_dtype(dtype)
    for rows, columns in [(3, 5), (1, 1), (4, 2), (0, 3)]:
        ours = exe.main(np.ones((rows, columns), np.float32))
        assert ours.dtype == expected
        np.testing.assert_array_equal(ours, np.eye(rows, columns, k, expected))


def test_eye_like_rank_is_located() -> None:
    model = _model([_node("EyeLike", ["x"], "y")], [_info("x", ["n", 2, 2])], [_info("y", None)])
    with pytest.raises(OnnxImportError) as raised:
        trace_model(model)
    assert str(raised.value) == (
        "<onnx>:1: EyeLike node 'y' (opset 17): the input must have rank 2, not 3")


def test_range_from_float_constants_cast_like_a_size() -> None:
    """``arange(n)`` as the newer exporter writes it without its optimizer:
    start and step are float constants ``CastLike`` the size, so they are
    known at import and the range has ``batch`` entries."""
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "zero"], "n", axis=0),
        _node("CastLike", ["zero_f", "n"], "start"),
        _node("CastLike", ["one_f", "n"], "step"),
        _node("Range", ["start", "n", "step"], "r"),
        _node("Cast", ["r"], "r_f", to=TensorProto.FLOAT),
        _node("Add", ["x", "r_f"], "y"),
    ]
    model = _model(nodes, [_info("x", ["batch"])], [_info("y", None)],
                   [*_COMMON, _const("zero_f", np.float32(0)), _const("one_f", np.float32(1))])
    _check(model, [(5,), (1,), (0,)], ["[batch]"])
