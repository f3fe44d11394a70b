"""Shape rules one op at a time: the facts of a function's returned value."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mlir import ir

from symshape_mlir.context import new_context
from symshape_mlir.extent import Strength
from symshape_mlir.inference import (
    InferenceOptions,
    OpUsageError,
    ShapeInferenceError,
    ValueFacts,
    infer,
)

ARGS = ("%x: tensor<?x?x64xf32> {symshape.axes = #symshape.shape<[batch, seq, 64]>}, "
        "%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %t: tensor<2xi64>, "
        "%flag: i1, %kept: tensor<i64>")
# %u is the size of a truncated axis: only an upper bound, ub(batch).
PRELUDE = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x64xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x64xf32>
  %n = tensor.dim %v, %c0 : tensor<?xf32>
  %tr = symshape.dynamic_truncate %x, %kept axis 0 stage upper_bound
      : (tensor<?x?x64xf32>, tensor<i64>) -> tensor<?x?x64xf32>
  %u = tensor.dim %tr, %c0 : tensor<?x?x64xf32>
"""


@pytest.fixture()
def context() -> Iterator[ir.Context]:
    context = new_context()
    with context, ir.Location.unknown():
        yield context


def _returned(body: str, result_type: str, options: InferenceOptions | None = None) -> ValueFacts:
    """Facts of the value a function with ``body`` returns."""
    module = ir.Module.parse(
        f"func.func @f({ARGS}) -> {result_type} {{{PRELUDE}{body}\n}}")
    state = infer(module.operation, options)
    block = module.body.operations[0].regions[0].blocks[0]
    ret = block.operations[len(block.operations) - 1]
    return state.facts_of(ret.operands[0])


def _text(facts: ValueFacts) -> str:
    parts = []
    if facts.shape is not None:
        parts.append("shape [" + ", ".join(str(e) for e in facts.shape) + "]")
    if facts.value is not None and facts.value.strength is not Strength.UNKNOWN:
        parts.append(f"value {facts.value}")
    if facts.elements is not None:
        parts.append("elements [" + ", ".join(str(e) for e in facts.elements) + "]")
    return "; ".join(parts)


SCALAR_CASES = [
    ("addi", "%r = arith.addi %b, %s : index", "index", "value batch + seq"),
    ("subi", "%r = arith.subi %b, %c1 : index", "index", "value batch - 1"),
    ("muli", "%r = arith.muli %b, %s : index", "index", "value batch * seq"),
    ("floordivsi", "%r = arith.floordivsi %b, %c2 : index", "index", "value batch floordiv 2"),
    ("ceildivsi", "%r = arith.ceildivsi %b, %c2 : index", "index", "value batch ceildiv 2"),
    ("divsi_nonnegative", "%r = arith.divsi %b, %c2 : index", "index", "value batch floordiv 2"),
    ("divui_nonnegative", "%r = arith.divui %b, %c2 : index", "index", "value batch floordiv 2"),
    ("remsi_nonnegative", "%r = arith.remsi %s, %c2 : index", "index", "value seq mod 2"),
    ("minsi", "%r = arith.minsi %b, %s : index", "index", "value min(batch, seq)"),
    ("maxsi", "%r = arith.maxsi %b, %s : index", "index", "value max(batch, seq)"),
    ("divsi_maybe_negative",
     "%m = arith.subi %c0, %b : index\n %r = arith.divsi %m, %c2 : index", "index", ""),
    ("andi_opaque", "%r = arith.andi %b, %s : index", "index", ""),
    ("index_add", "%r = index.add %b, %s", "index", "value batch + seq"),
    ("index_floordivs", "%r = index.floordivs %b, %c2", "index", "value batch floordiv 2"),
    ("index_remu", "%r = index.remu %b, %c2", "index", "value batch mod 2"),
    ("index_maxu", "%r = index.maxu %b, %n", "index", "value max(batch, n)"),
    ("index_constant", "%r = index.constant 42", "index", "value 42"),
    ("index_casts",
     "%i = index.casts %b : index to i64\n %r = index.casts %i : i64 to index", "index",
     "value batch"),
    ("extsi_of_bool", "%t1 = arith.constant true\n %r = arith.extsi %t1 : i1 to i64", "i64",
     "value -1"),
    ("extui_of_bool", "%t1 = arith.constant true\n %r = arith.extui %t1 : i1 to i64", "i64",
     "value 1"),
    ("trunci_small", "%k = arith.constant 70000 : i64\n %r = arith.trunci %k : i64 to i32",
     "i32", "value 70000"),
    ("trunci_unbounded",
     "%i = arith.index_cast %b : index to i64\n %r = arith.trunci %i : i64 to i32", "i32", ""),
    ("cmpi_decided", "%r = arith.cmpi sle, %c0, %b : index", "i1", "value 1"),
    ("cmpi_undecided", "%r = arith.cmpi slt, %b, %s : index", "i1", ""),
    ("cmpi_unsigned", "%r = arith.cmpi ult, %b, %c0 : index", "i1", "value 0"),
    ("select_decided", "%t1 = arith.constant false\n %r = arith.select %t1, %b, %s : index",
     "index", "value seq"),
    ("select_undecided", "%r = arith.select %flag, %b, %s : index", "index", "value _d0"),
    ("select_of_bound", "%r = arith.select %flag, %u, %s : index", "index",
     "value ub(max(batch, seq))"),
    ("addi_of_bound", "%r = arith.addi %u, %c1 : index", "index", "value ub(batch + 1)"),
    ("muli_of_bound", "%r = arith.muli %u, %c2 : index", "index", "value ub(2 * batch)"),
    ("floordivsi_of_bound", "%r = arith.floordivsi %u, %c2 : index", "index",
     "value ub(batch floordiv 2)"),
    ("subi_from_bound", "%r = arith.subi %u, %c1 : index", "index", "value ub(batch - 1)"),
    ("subi_of_bound", "%r = arith.subi %c1, %u : index", "index", ""),
    ("divsi_of_bound", "%r = arith.divsi %u, %c2 : index", "index",
     "value ub(batch floordiv 2)"),
    ("remsi_of_bound", "%r = arith.remsi %u, %c2 : index", "index", "value ub(min(1, batch))"),
    ("divsi_by_bound", "%r = arith.divsi %c2, %u : index", "index", ""),
    ("tensor_rank", "%r = tensor.rank %x : tensor<?x?x64xf32>", "index", "value 3"),
    ("extract_argument_element", "%r = tensor.extract %t[%c1] : tensor<2xi64>", "i64",
     "value _d2 - _d3"),
]


@pytest.mark.parametrize(("body", "result_type", "expected"), [c[1:] for c in SCALAR_CASES],
                         ids=[c[0] for c in SCALAR_CASES])
def test_scalar_rules(context: ir.Context, body: str, result_type: str, expected: str) -> None:
    """Integer and index ops compute exact values where the semantics allow."""
    assert _text(_returned(body + f"\n return %r : {result_type}", result_type)) == expected


TENSOR_CASES = [
    ("from_elements", "%r = tensor.from_elements %b, %s : tensor<2xindex>",
     "tensor<2xindex>", "shape [2]; elements [batch, seq]"),
    ("splat_elements", "%r = tensor.splat %n : tensor<3xindex>", "tensor<3xindex>",
     "shape [3]; elements [n, n, n]"),
    ("shape_of", "%r = shape.shape_of %x : tensor<?x?x64xf32> -> tensor<3xindex>",
     "tensor<3xindex>", "shape [3]; elements [batch, seq, 64]"),
    ("slice_elements", "%e = shape.shape_of %x : tensor<?x?x64xf32> -> tensor<3xindex>\n"
                       " %r = tensor.extract_slice %e[1] [2] [1] : tensor<3xindex> to "
                       "tensor<2xindex>", "tensor<2xindex>", "shape [2]; elements [seq, 64]"),
    ("elementwise_elements", "%e = tensor.from_elements %b, %s : tensor<2xindex>\n"
                             " %r = arith.addi %e, %e : tensor<2xindex>", "tensor<2xindex>",
     "shape [2]; elements [2 * batch, 2 * seq]"),
    ("insert_element", "%e = tensor.from_elements %b, %s : tensor<2xindex>\n"
                       " %r = tensor.insert %n into %e[%c0] : tensor<2xindex>",
     "tensor<2xindex>", "shape [2]; elements [n, seq]"),
    ("insert_slice_elements", "%e = tensor.from_elements %b, %s, %n : tensor<3xindex>\n"
                              " %f = tensor.from_elements %c0, %c1 : tensor<2xindex>\n"
                              " %r = tensor.insert_slice %f into %e[1] [2] [1] : "
                              "tensor<2xindex> into tensor<3xindex>", "tensor<3xindex>",
     "shape [3]; elements [batch, 0, 1]"),
    ("reshape_rank_reduced", "%r = tensor.collapse_shape %x [[0, 1, 2]] : tensor<?x?x64xf32> "
                             "into tensor<?xf32>", "tensor<?xf32>", "shape [64 * batch * seq]"),
    ("extract_slice_rank_reducing",
     "%r = tensor.extract_slice %x[0, 0, 0] [1, %s, 1] [1, 1, 1] : tensor<?x?x64xf32> to "
     "tensor<?xf32>", "tensor<?xf32>", "shape [seq]"),
    ("pad_symbolic", "%z = arith.constant 0.0 : f32\n"
                     " %r = tensor.pad %v low[%b] high[%c2] {\n ^bb0(%i: index):\n"
                     " tensor.yield %z : f32\n } : tensor<?xf32> to tensor<?xf32>",
     "tensor<?xf32>", "shape [batch + n + 2]"),
    ("concat_symbolic", "%r = tensor.concat dim(0) %v, %v : (tensor<?xf32>, tensor<?xf32>) "
                        "-> tensor<?xf32>", "tensor<?xf32>", "shape [2 * n]"),
    ("cast_static", "%r = tensor.cast %x : tensor<?x?x64xf32> to tensor<?x?x?xf32>",
     "tensor<?x?x?xf32>", "shape [batch, seq, 64]"),
    ("transpose_generic_free", "%e = tensor.empty(%s, %b) : tensor<?x?xf32>\n"
                               " %r = tensor.cast %e : tensor<?x?xf32> to tensor<?x?xf32>",
     "tensor<?x?xf32>", "shape [seq, batch]"),
]


@pytest.mark.parametrize(("body", "result_type", "expected"), [c[1:] for c in TENSOR_CASES],
                         ids=[c[0] for c in TENSOR_CASES])
def test_tensor_rules(context: ir.Context, body: str, result_type: str, expected: str) -> None:
    """tensor ops give symbolic extents and propagate the elements of shape tensors."""
    facts = _returned(body + f"\n return %r : {result_type}", result_type)
    assert _text(facts) == expected


ERROR_CASES = [
    ("computed_dim_index", "%r = tensor.dim %x, %c2 : tensor<?x?x64xf32>\n"
                           " %q = arith.addi %r, %c2 : index\n %w = tensor.dim %v, %q : "
                           "tensor<?xf32>", "dimension index 66 is out of range for rank 1"),
    ("reshape_negative", "%sh = arith.constant dense<[-1, 64]> : tensor<2xi64>\n"
                         " %w = tensor.reshape %x(%sh) : (tensor<?x?x64xf32>, tensor<2xi64>) "
                         "-> tensor<?x64xf32>", "target extent 0 is -1"),
    ("elementwise_names", "%w = arith.addf %v, %v : tensor<?xf32>\n"
                          " %e = tensor.empty(%b) : tensor<?xf32>\n"
                          " %y = arith.addf %w, %e : tensor<?xf32>",
     "must be equal but name different axes 'n' and 'batch'"),
]


@pytest.mark.parametrize(("body", "message"), [c[1:] for c in ERROR_CASES],
                         ids=[c[0] for c in ERROR_CASES])
def test_semantic_errors(context: ir.Context, body: str, message: str) -> None:
    """Semantic problems raise ShapeInferenceError (never a log line)."""
    module = ir.Module.parse(f"func.func @f({ARGS}) {{{PRELUDE}{body}\n return\n}}")
    with pytest.raises(ShapeInferenceError, match=message):
        infer(module.operation)


def test_malformed_annotation_is_an_op_usage_error(context: ir.Context) -> None:
    """An annotation that is not a shape (set without verification) is malformed IR."""
    module = ir.Module.parse(
        f"func.func @f({ARGS}) -> tensor<?xf32> {{\n %e = math.exp %v : tensor<?xf32>\n"
        " return %e : tensor<?xf32>\n}")
    exp = module.body.operations[0].regions[0].blocks[0].operations[0]
    exp.attributes["symshape.shape"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 3)
    with pytest.raises(OpUsageError, match=r"'symshape\.shape' must be a #symshape\.shape"):
        infer(module.operation)


@pytest.mark.parametrize("stage, expected", [("upper_bound", "shape [ub(n)]"),
                                              ("exact", "shape [min(n, max(0, _d0 - _d1))]")],
                         ids=["upper_bound", "exact"])
def test_truncate_stage_option(context: ir.Context, stage: str, expected: str) -> None:
    """The truncate-stage option selects what dynamic_truncate reports."""
    body = ("%r = symshape.dynamic_truncate %v, %t0 axis 0 : (tensor<?xf32>, tensor<i64>) "
            "-> tensor<?xf32>\n return %r : tensor<?xf32>")
    module = ir.Module.parse(
        f"func.func @f({ARGS}, %t0: tensor<i64>) -> tensor<?xf32> {{{PRELUDE}{body}\n}}")
    state = infer(module.operation, InferenceOptions(truncate_stage=stage))
    block = module.body.operations[0].regions[0].blocks[0]
    facts = state.facts_of(block.operations[len(block.operations) - 1].operands[0])
    assert _text(facts) == expected
