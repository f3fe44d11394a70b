"""``infer_shapes``: the shape rules (``build=False``) against the import, and the merge policies.

Every model of the zoo gets, from its shape rules alone, the shape its
import traces for every value (equal extents, proven). The policies merge
the inferred shapes with the ones a model declares as onnx's symbolic
inference does; an op without a rule leaves its outputs out, with a warning.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "onnx"))

import zoo
from symshape_mlir.extent.prove import prove_eq
from symshape_mlir.onnx import POLICIES, OnnxImportError, infer_shapes
from symshape_mlir.shapes.shape import Shape


def _model(nodes, inputs, outputs, inits=(), value_info=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits),
                              value_info=list(value_info))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def _info(name: str, dims, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def _same(a: Shape, b: Shape) -> bool:
    return a.rank == b.rank and all(
        x == y or prove_eq(x.expr, y.expr) is True for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("name", sorted(zoo.entries()))
def test_rules_match_the_import(name: str) -> None:
    """Every value's shape from the rules equals the traced one."""
    path = zoo.path(zoo.entries()[name])
    traced = infer_shapes(path, policy="override")
    ruled = infer_shapes(path, build=False, policy="override")
    assert set(ruled) == set(traced)
    differ = {k: (str(traced[k]), str(ruled[k])) for k in traced if not _same(traced[k], ruled[k])}
    assert not differ


def _declared_model() -> onnx.ModelProto:
    """``y = x @ w`` whose output declares ``[7, "rows"]`` (axis 0 wrongly, axis 1 a name)."""
    w = numpy_helper.from_array(np.ones((4, 3), np.float32), "w")
    return _model([helper.make_node("MatMul", ["x", "w"], ["y"])],
                  [_info("x", ["batch", 4])], [_info("y", [7, "rows"])], [w])


@pytest.mark.parametrize(("policy", "expected"), [
    ("override", "[batch, 3]"),
    ("refine", "[7, 3]"),
    ("skip", "[7, rows]"),
])
def test_policies(policy: str, expected: str) -> None:
    """The declared shape is kept (skip), overridden, or refined axis by axis."""
    for build in (True, False):
        assert str(infer_shapes(_declared_model(), build=build, policy=policy)["y"]) == expected


def test_strict_policy_rejects_a_contradiction() -> None:
    """A declared constant that the inferred constant contradicts is an error."""
    w = numpy_helper.from_array(np.ones((4, 3), np.float32), "w")
    model = _model([helper.make_node("MatMul", ["x", "w"], ["y"])],
                   [_info("x", [2, 4])], [_info("y", [2, 5])], [w])
    with pytest.raises(OnnxImportError) as raised:
        infer_shapes(model, build=False, policy="strict")
    assert str(raised.value) == "<onnx>: value 'y' is declared [2, 5], inferred [2, 3]"
    assert POLICIES == ("skip", "override", "refine", "strict")


def test_unknown_policy() -> None:
    with pytest.raises(ValueError, match="policy 'loose' is not one of skip, override, refine"):
        infer_shapes(_declared_model(), policy="loose")


def _missing_rule_model() -> onnx.ModelProto:
    return _model([helper.make_node("Relu", ["x"], ["r"]),
                   helper.make_node("Det", ["r"], ["d"]),
                   helper.make_node("Neg", ["d"], ["y"])],
                  [_info("x", ["n", 3, 3])], [_info("y", None)])


def test_missing_rule_is_left_out(caplog: pytest.LogCaptureFixture) -> None:
    """An op without a shape rule: its outputs and their consumers are left out, with a
    warning (none when warn_on_missing is off)."""
    with caplog.at_level(logging.WARNING, logger="symshape_mlir.onnx.shape_inference"):
        shapes = infer_shapes(_missing_rule_model(), build=False)
    assert {k: str(v) for k, v in shapes.items()} == {"r": "[n, 3, 3]"}
    assert [r.getMessage() for r in caplog.records] == [
        "ONNX Det has no shape rule: its outputs are left out"]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="symshape_mlir.onnx.shape_inference"):
        infer_shapes(_missing_rule_model(), build=False, warn_on_missing=False)
    assert not caplog.records


def test_skip_policy_logs_semantic_errors(caplog: pytest.LogCaptureFixture) -> None:
    """Under skip, a node whose shapes contradict is logged and left out; otherwise an error."""
    model = _model([helper.make_node("Add", ["x", "z"], ["s"], name="add"),
                    helper.make_node("Relu", ["x"], ["y"])],
                   [_info("x", [3]), _info("z", [4])], [_info("y", None)])
    with caplog.at_level(logging.WARNING, logger="symshape_mlir.onnx.shape_inference"):
        shapes = infer_shapes(model, build=False, policy="skip")
    assert {k: str(v) for k, v in shapes.items()} == {"y": "[3]"}
    assert len(caplog.records) == 1 and "Add node 'add'" in caplog.records[0].getMessage()
    with pytest.raises(OnnxImportError, match="<onnx>:1: Add node 'add' \\(opset 17\\): "):
        infer_shapes(model, build=False)


def test_unnamed_axes() -> None:
    """An input naming others names its unnamed axes after itself; one naming none gets
    fresh symbols."""
    model = _model([helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Relu", ["z"], ["b"])],
                   [_info("x", ["batch", None]), _info("z", [None, 2])],
                   [_info("a", None), _info("b", None)])
    for build in (True, False):
        shapes = infer_shapes(model, build=build, policy="override")
        assert (str(shapes["a"]), str(shapes["b"])) == ("[batch, x_1]", "[_d0, 2]")


def test_data_dependent_count() -> None:
    """NonZero's count is a fresh symbol (a data-dependent extent), never a guess."""
    model = _model([helper.make_node("NonZero", ["x"], ["y"])], [_info("x", ["n", 3])],
                   [_info("y", None)])
    assert str(infer_shapes(model, build=False, policy="override")["y"]) == "[2, _d0]"


def test_repeated_nodes_reuse_rules_but_never_a_fresh_count() -> None:
    """Nodes of one op, attributes and inputs share a result; NonZero's count does not:
    two NonZero of equal inputs have two independent data-dependent counts."""
    nodes = [helper.make_node("NonZero", ["x"], ["a"]), helper.make_node("NonZero", ["x"], ["b"]),
             helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
             helper.make_node("Transpose", ["x"], ["u"], perm=[1, 0]),
             helper.make_node("Transpose", ["x"], ["v"], perm=[0, 1])]
    model = _model(nodes, [_info("x", ["n", 3])], [_info(o, None) for o in "abtuv"])
    shapes = infer_shapes(model, build=False, policy="override")
    assert [str(shapes[o]) for o in "abtuv"] == [
        "[2, _d0]", "[2, _d1]", "[3, n]", "[3, n]", "[n, 3]"]


_INT = TensorProto.INT64
_GATHERS = {
    "Gather": ([helper.make_node("Gather", ["x", "i"], ["y"], axis=1)],
               [_info("x", ["b", "t", 4]), _info("i", ["n", 2], _INT)], "[b, n, 2, 4]"),
    "GatherElements": ([helper.make_node("GatherElements", ["x", "i"], ["y"], axis=-1)],
                       [_info("x", ["b", "t"]), _info("i", ["b", "k"], _INT)], "[b, k]"),
    "GatherND": ([helper.make_node("GatherND", ["x", "i"], ["y"], batch_dims=1)],
                 [_info("x", ["b", "h", "w", 3]), _info("i", ["b", "n", 2], _INT)],
                 "[b, n, 3]"),
    "ScatterND": ([helper.make_node("ScatterND", ["x", "i", "u"], ["y"])],
                  [_info("x", ["s", 4]), _info("i", ["n", 1], _INT), _info("u", ["n", 4])],
                  "[s, 4]"),
    "ScatterElements": ([helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=0)],
                        [_info("x", ["s", 4]), _info("i", ["n", 4], _INT),
                         _info("u", ["n", 4])], "[s, 4]"),
}


@pytest.mark.parametrize("op", sorted(_GATHERS))
def test_gathers_and_scatters(op: str) -> None:
    """The shape rules of gathers and scatters (shapes/gather.py) give the traced shapes."""
    nodes, inputs, expected = _GATHERS[op]
    model = _model(nodes, inputs, [_info("y", None)])
    for build in (True, False):
        assert str(infer_shapes(model, build=build, policy="override")["y"]) == expected


@pytest.mark.parametrize(("op", "node", "inputs", "message"), [
    ("GatherElements", helper.make_node("GatherElements", ["x", "i"], ["y"], axis=1),
     [_info("x", [3, 4]), _info("i", [5, 2], _INT)], "indices extent 5 along axis 0 exceeds 3"),
    ("GatherND", helper.make_node("GatherND", ["x", "i"], ["y"]),
     [_info("x", [3, 4]), _info("i", [2, 3], _INT)],
     "3 indices after 0 batch axes do not fit rank 2"),
    ("ScatterND", helper.make_node("ScatterND", ["x", "i", "u"], ["y"]),
     [_info("x", [3, 4]), _info("i", [2, 1], _INT), _info("u", [2])],
     "updates have rank 1, not 2 (indices rank - 1 + data rank - 1)"),
    ("ScatterElements", helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=0),
     [_info("x", [3]), _info("i", [2, 1], _INT), _info("u", [2, 1])],
     "data, indices and updates have ranks 1, 2 and 2, not one rank"),
])
def test_gather_and_scatter_errors(op: str, node: onnx.NodeProto, inputs: list[onnx.ValueInfoProto],
                                   message: str) -> None:
    """The rules and the import reject the same shapes with the same reason."""
    model = _model([node], inputs, [_info("y", None)])
    for build in (True, False):
        with pytest.raises(OnnxImportError) as raised:
            infer_shapes(model, build=build)
        assert str(raised.value).endswith(message), (build, str(raised.value))
