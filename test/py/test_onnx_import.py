"""ONNX import: symbolic axes end to end, the shipped node tests, and located errors.

The transformer block (``test/onnx/graphs.py``) is built the way exporters
write it; it must keep ``batch`` and ``seq`` on every value, compile through
``symshape-to-iree`` and match onnxruntime at several shapes.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "onnx"))

import graphs
import node_suite
from symshape_mlir import runtime
from symshape_mlir.onnx import OnnxImportError, import_model, supported_ops, trace_model

ort = pytest.importorskip("onnxruntime")


def _model(nodes, inputs, outputs, inits=(), opset=17) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _info(name: str, dims, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def _const(name: str, array) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(array), name)


@pytest.fixture(scope="module")
def transformer_exe():
    model = graphs.transformer()
    traced = trace_model(model)
    return model, traced, runtime.compile(traced.module_text, cache_dir=False, hot_after=None)


def _reference(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


@pytest.mark.parametrize("shape", [(2, 5), (1, 1), (3, 17)])
def test_transformer_matches_onnxruntime(transformer_exe, shape) -> None:
    model, _, exe = transformer_exe
    x = np.random.default_rng(sum(shape)).standard_normal((*shape, 64)).astype(np.float32)
    np.testing.assert_allclose(exe.main(x), _reference(model, x), rtol=1e-4, atol=1e-5)


def test_transformer_batch_zero_matches_onnxruntime() -> None:
    """With the head merge written as [batch, seq, 64], onnxruntime runs batch 0 too."""
    model = graphs.transformer(infer_merge=False)
    exe = runtime.compile(trace_model(model).module_text, cache_dir=False, hot_after=None)
    for shape in [(0, 4), (2, 3)]:
        x = np.random.default_rng(0).standard_normal((*shape, 64)).astype(np.float32)
        np.testing.assert_allclose(exe.main(x), _reference(model, x), rtol=1e-4, atol=1e-5)


def test_transformer_batch_zero_with_inferred_merge(transformer_exe) -> None:
    """Reshape to [batch, seq, -1] at batch 0: the -1 is 64 by the symbolic shapes
    (onnxruntime cannot infer it from zero elements)."""
    _, _, exe = transformer_exe
    assert exe.main(np.zeros((0, 4, 64), np.float32)).shape == (0, 4, 64)


def test_transformer_keeps_batch_and_seq_on_every_value(transformer_exe, tmp_path) -> None:
    _, traced, _ = transformer_exe
    assert [str(s) for s in traced.result_shapes] == ["[batch, seq, 64]"]
    source = tmp_path / "transformer.mlir"
    source.write_text(traced.module_text)
    inferred = subprocess.run(
        [sys.executable, "-m", "symshape_mlir.tools.opt", str(source), "--symshape-infer-shapes"],
        check=True, capture_output=True, text=True,
    ).stdout
    shapes = re.findall(r"#symshape\.shape<\[([^\]]*)\]>", inferred)
    assert len(shapes) > 100
    symbols = {s for shape in shapes for s in re.findall(r"[A-Za-z_]\w*", shape)}
    assert symbols == {"batch", "seq"}


def test_exporter_reshape_idiom_is_symbolic() -> None:
    """Shape -> Gather -> Unsqueeze -> Concat(-1) -> Reshape keeps the axes."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["b"], axis=0),
        helper.make_node("Unsqueeze", ["b", "axes"], ["b1"]),
        helper.make_node("Concat", ["b1", "rest"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    inits = [_const("zero", np.int64(0)), _const("axes", [0]), _const("rest", [-1, 4, 16])]
    model = _model(nodes, [_info("x", ["batch", "seq", 64])], [_info("y", None)], inits)
    traced = trace_model(model)
    assert [str(s) for s in traced.result_shapes] == ["[batch, seq, 4, 16]"]
    assert "tensor.expand_shape" in traced.text


def test_named_and_unnamed_dims() -> None:
    model = _model(
        [helper.make_node("Add", ["x", "y"], ["z"])],
        [_info("x", ["batch", None]), _info("y", [None])],
        [_info("z", None)],
    )
    text = str(import_model(model))
    assert "symshape.axes = #symshape.shape<[batch, x_1]>" in text
    assert "%arg1: tensor<?xf32>)" in text


def test_node_locations() -> None:
    model = _model(
        [helper.make_node("Relu", ["x"], ["y"], name="act")],
        [_info("x", ["n"])], [_info("y", None)],
    )
    assert 'loc("act"("<onnx>":1:1))' in trace_model(model).text


def test_large_initializer_is_a_resource() -> None:
    w = np.arange(1024, dtype=np.float32).reshape(32, 32)
    model = _model(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [_info("x", ["n", 32])], [_info("y", None)], [_const("w", w)],
    )
    traced = trace_model(model)
    assert "dense_resource<main_k0>" in traced.text
    exe = runtime.compile(traced.module_text, cache_dir=False, hot_after=None)
    x = np.ones((3, 32), np.float32)
    np.testing.assert_allclose(exe.main(x), x @ w)


# -- errors --------------------------------------------------------------------------------


def _error(model, **kwargs) -> str:
    with pytest.raises(OnnxImportError) as info:
        trace_model(model, **kwargs)
    return str(info.value)


def test_unsupported_op_is_located() -> None:
    model = _model(
        [
            helper.make_node("Relu", ["x"], ["h"]),
            helper.make_node("Det", ["h"], ["y"], name="det"),
        ],
        [_info("x", ["n"])], [_info("y", None)],
    )
    assert _error(model) == (
        "<onnx>:2: Det node 'det' (opset 17): ONNX Det version 11 is not supported"
    )


def test_unsupported_opset() -> None:
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [_info("x", [2])], [_info("y", None)],
                   opset=11)
    assert _error(model) == (
        f"<onnx>: opset 11 is not supported (the importer reads opsets 13 to "
        f"{onnx.defs.onnx_opset_version()})"
    )


def test_unsupported_element_type() -> None:
    model = _model([helper.make_node("Relu", ["x"], ["y"])],
                   [_info("x", [2], TensorProto.COMPLEX64)], [_info("y", None)])
    assert _error(model) == (
        "<onnx>: input 'x' has element type COMPLEX64, which the importer does not support"
    )


def test_reshape_target_from_data_needs_binding() -> None:
    model = _model(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="r")],
        [_info("x", [2, 3]), _info("shape", [2], TensorProto.INT64)], [_info("y", None)],
    )
    assert _error(model) == (
        "<onnx>:1: Reshape node 'r' (opset 17): input 1 (shape) must be known when the model is "
        "imported: a constant, an initializer, or computed from tensor shapes"
    )
    traced = trace_model(model, constants={"shape": np.array([3, 2])})
    assert [str(s) for s in traced.result_shapes] == ["[3, 2]"]


def test_constants_must_name_inputs() -> None:
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [_info("x", [2])], [_info("y", None)])
    assert _error(model, constants={"nope": np.zeros(1)}) == (
        "<onnx>: constants name no graph input: ['nope']"
    )


def test_shape_error_is_located() -> None:
    model = _model(
        [helper.make_node("Add", ["x", "y"], ["z"], name="sum")],
        [_info("x", [3]), _info("y", [4])], [_info("z", None)],
    )
    message = _error(model)
    assert message.startswith("<onnx>:1: Add node 'sum' (opset 17): Add at <onnx>:1 (Add 'sum'): ")
    assert "cannot broadcast" in message


def test_input_without_shape() -> None:
    value = helper.make_tensor_value_info("x", TensorProto.FLOAT, None)
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [value], [_info("y", None)])
    assert _error(model) == "<onnx>: input 'x' has no shape (its rank is needed)"


def test_cli(tmp_path: Path) -> None:
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [_info("x", ["batch", 4])],
                   [_info("y", None)])
    onnx.save(model, tmp_path / "m.onnx")
    out = tmp_path / "m.mlir"
    done = subprocess.run(
        [sys.executable, "-m", "symshape_mlir.tools.import_onnx", str(tmp_path / "m.onnx"),
         "-o", str(out)], capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "symshape.axes = #symshape.shape<[batch, 4]>" in out.read_text()
    bad = _model([helper.make_node("Det", ["x"], ["y"], name="det")], [_info("x", [2])],
                 [_info("y", None)])
    onnx.save(bad, tmp_path / "bad.onnx")
    done = subprocess.run(
        [sys.executable, "-m", "symshape_mlir.tools.import_onnx", str(tmp_path / "bad.onnx")],
        capture_output=True, text=True,
    )
    assert done.returncode == 1
    assert done.stderr == (
        f"{tmp_path / 'bad.onnx'}:1: error: Det node 'det' (opset 17): "
        "ONNX Det version 11 is not supported\n"
    )


def test_cli_unreadable_model(tmp_path: Path) -> None:
    (tmp_path / "junk.onnx").write_bytes(b"\xff\x00junk")
    done = subprocess.run(
        [sys.executable, "-m", "symshape_mlir.tools.import_onnx", str(tmp_path / "junk.onnx")],
        capture_output=True, text=True,
    )
    assert done.returncode == 1
    assert done.stderr.startswith(f"{tmp_path / 'junk.onnx'}:0: error: ")


# -- the node tests shipped with onnx -----------------------------------------------------


def test_onnx_node_tests() -> None:
    """Every case of every supported op imports, compiles and matches, or is
    rejected with a located error (an element type, opset or mode out of scope)."""
    outcomes = node_suite.run(node_suite.cases())
    failed = [f"{o.name}: {o.detail}" for o in outcomes if o.status == "failed"]
    assert not failed, "\n".join(failed)
    passed = {o.op for o in outcomes if o.status == "passed"}
    assert set(supported_ops()) - passed == set()
