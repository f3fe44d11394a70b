"""The inference engine: options, registry, unification, regions, calls and errors."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mlir import ir

from symshape_mlir.context import new_context
from symshape_mlir.extent import Exact, Sym, UpperBound, is_fresh_name, parse_extent, prove_le
from symshape_mlir.inference import (
    InferenceError,
    InferenceOptions,
    InferenceState,
    OpUsageError,
    ShapeInferenceError,
    annotate,
    infer,
    register,
)
from symshape_mlir.passes import run_pipeline
from symshape_mlir.pipeline import PipelineError


@pytest.fixture()
def context() -> Iterator[ir.Context]:
    context = new_context()
    with context, ir.Location.unknown():
        yield context


def _module(text: str) -> ir.Module:
    return ir.Module.parse(text)


def _op(module: ir.Module, name: str) -> ir.Operation:
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == name:
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found[0]


def _shape(state: InferenceState, value: ir.Value) -> str:
    return "[" + ", ".join(str(e) for e in state.shape(value)) + "]"


def _described(state: InferenceState, value: ir.Value) -> str:
    """The shape of ``value`` with each fresh symbol written as its range."""
    parts = []
    for extent in state.shape(value):
        expr = extent.expr
        if extent.is_exact and isinstance(expr, Sym) and is_fresh_name(expr.name):
            limits = state.extents.limits(expr.name)
            low, high = limits if limits is not None else state.extents.range_of(expr.name)
            parts.append(f"fresh in [{low}, {'?' if high is None else high}]")
        else:
            parts.append(str(extent))
    return "[" + ", ".join(parts) + "]"


# -- options and registry ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"policy": "lenient"}, "unknown policy 'lenient'"),
     ({"truncate_stage": "both"}, "unknown truncate stage 'both'")],
    ids=["policy", "truncate_stage"],
)
def test_options_reject_unknown_values(kwargs: dict[str, str], message: str) -> None:
    """Options outside the documented choices are refused when created."""
    with pytest.raises(ValueError, match=message):
        InferenceOptions(**kwargs)


def test_registering_a_name_twice_fails() -> None:
    """One op name has one rule."""
    with pytest.raises(ValueError, match=r"a shape rule for 'tensor\.empty' is already registered"):
        register("tensor.empty")(lambda op, state: [])


# -- unification -------------------------------------------------------------------------


@pytest.fixture()
def state_and_op(context: ir.Context) -> tuple[InferenceState, ir.Operation]:
    module = _module("func.func @f() { return }")
    return InferenceState(InferenceOptions()), _op(module, "func.return")


UNIFY_CASES = [
    ("fresh_adopts_named", "fresh0", "batch", "batch", {"_d0": "batch"}),
    ("named_adopts_nothing", "batch", "fresh0", "batch", {"_d0": "batch"}),
    ("later_fresh_binds_to_earlier", "fresh1", "fresh0", "_d0", {"_d1": "_d0"}),
    ("fresh_adopts_expression", "fresh0", "batch * seq", "batch * seq", {"_d0": "batch * seq"}),
    ("provably_equal", "2 * batch", "batch + batch", "2 * batch", {}),
    ("undecided_expressions", "batch * seq", "batch + seq", "batch * seq", {}),
    ("bound_is_left_alone", "fresh0", "ub(batch)", "_d0", {}),
]


@pytest.mark.parametrize(("a", "b", "agreed", "bound"), [c[1:] for c in UNIFY_CASES],
                         ids=[c[0] for c in UNIFY_CASES])
def test_unify(state_and_op, a: str, b: str, agreed: str, bound: dict[str, str]) -> None:
    """unify binds a fresh symbol to the other side and never upgrades a bound."""
    state, op = state_and_op
    fresh = [state.fresh(), state.fresh()]

    def extent(text: str):
        return fresh[int(text[-1])] if text.startswith("fresh") else parse_extent(text)

    result = state.unify(extent(a), extent(b), op, lambda: "x")
    assert str(result) == agreed
    assert {k: str(v) for k, v in state.substitution.items()} == bound


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [("batch", "batch + 1", "x must be equal: batch vs batch \\+ 1"),
     ("batch", "seq", "x must be equal but name different axes 'batch' and 'seq'")],
    ids=["provably_different", "different_names"],
)
def test_unify_conflicts(state_and_op, a: str, b: str, message: str) -> None:
    """Provably different extents and two different names are errors at the op."""
    state, op = state_and_op
    with pytest.raises(ShapeInferenceError, match=message) as info:
        state.unify(parse_extent(a), parse_extent(b), op, lambda: "x")
    assert info.value.location == op.location


# -- data-dependent sizes: fresh symbols with ranges ---------------------------------------

CHOICES = [
    ("equal", ["batch", "batch + 0"], "batch", None),
    ("different", ["batch", "4"], "_d0", "[min(4, batch), max(4, batch)]"),
    ("three", ["batch", "seq", "1"], "_d0",
     "[min(min(1, batch), seq), max(max(1, batch), seq)]"),
    ("may_be_negative", ["batch - 3", "seq"], "_d0 + min(seq, batch - 3)",
     "[0, max(seq, batch - 3) - min(seq, batch - 3)]"),
    ("with_a_bound", ["batch", "ub(seq)"], "ub(max(batch, seq))", None),
    ("with_unknown", ["batch", "?"], "?", None),
]


@pytest.mark.parametrize(("options", "chosen", "limits"), [c[1:] for c in CHOICES],
                         ids=[c[0] for c in CHOICES])
def test_choose(state_and_op, options: list[str], chosen: str, limits: str | None) -> None:
    """A size chosen at run time between exact sizes is a fresh exact symbol ranging
    between them; with an upper bound or an unknown extent it is what join gives."""
    state, _ = state_and_op
    result = state.choose([parse_extent(o) for o in options], "key")
    assert str(result) == chosen
    symbols = [n for n in result.free_symbols if is_fresh_name(n)]
    if limits is None:
        assert not symbols
    else:
        low, high = state.extents.limits(symbols[0]) or (None, None)
        assert f"[{low}, {high}]" == limits


def test_choose_local_alternatives(state_and_op) -> None:
    """An alternative made inside one branch means nothing outside: exact gives a
    fresh symbol without a range, an upper bound gives unknown."""
    state, _ = state_and_op
    mark = state.fresh_mark()
    local = state.fresh()
    exact = state.choose([local, parse_extent("batch")], "exact", mark)
    assert exact.is_exact and exact.expr is not local.expr
    assert state.extents.limits(str(exact)) is None
    bounded = state.choose([UpperBound(local.expr), parse_extent("batch")], "bound", mark)
    assert bounded.is_unknown


def test_fresh_range_is_renewed_for_the_same_key(state_and_op) -> None:
    """The same key gives the same symbol, with the range given last (a loop body
    inferred again), and the provers use the range."""
    state, _ = state_and_op
    first = state.fresh("rows", 0, Sym("batch"))
    assert prove_le(first.expr, Sym("batch"), state.extents) is True
    again = state.fresh("rows", 0, Sym("seq"))
    assert again is first
    assert prove_le(first.expr, Sym("batch"), state.extents) is None
    assert prove_le(first.expr, Sym("seq"), state.extents) is True


def test_substitution_applies_when_reading(context: ir.Context) -> None:
    """Facts stored before a binding are read with the binding applied."""
    module = _module("func.func @f(%x: tensor<?xf32>) { return }")
    state = infer(module.operation)
    arg = module.body.operations[0].regions[0].blocks[0].arguments[0]
    assert _shape(state, arg) == "[_d0]"
    state.unify(state.shape(arg)[0], Exact(Sym("batch")), _op(module, "func.return"), str)
    assert _shape(state, arg) == "[batch]"


def test_rollback_undoes_bindings(state_and_op) -> None:
    """A checkpoint restores the substitution of the time it was taken."""
    state, op = state_and_op
    a, b = state.fresh(), state.fresh()
    point = state.checkpoint()
    state.unify(a, Exact(Sym("batch")), op, str)
    state.unify(b, Exact(Sym("seq")), op, str)
    assert set(state.substitution) == {"_d0", "_d1"}
    state.rollback(point)
    assert state.substitution == {}
    assert state.resolve(a) == a


def test_region_floor_protects_outer_symbols(state_and_op) -> None:
    """Inside a region, only symbols made in it may be bound."""
    state, op = state_and_op
    outer = state.fresh()
    floor = state.enter_region()
    inner = state.fresh()
    assert str(state.unify(outer, Exact(Sym("batch")), op, str)) == "_d0"
    assert str(state.unify(inner, Exact(Sym("seq")), op, str)) == "seq"
    state.leave_region(floor)
    assert {k: str(v) for k, v in state.substitution.items()} == {"_d1": "seq"}


def test_bindings_stay_idempotent(state_and_op) -> None:
    """Binding a symbol that an earlier binding mentions rewrites that binding."""
    state, op = state_and_op
    a, b = state.fresh(), state.fresh()
    state.unify(a, b + 1, op, str)
    state.unify(b, Exact(Sym("n")), op, str)
    assert {k: str(v) for k, v in state.substitution.items()} == {"_d0": "n + 1", "_d1": "n"}


# -- loops: the fixed-point rule ---------------------------------------------------------

LOOP = """
func.func @f(%x: tensor<?xf32> {{symshape.axes = #symshape.shape<[batch]>}},
             %y: tensor<?xf32> {{symshape.axes = #symshape.shape<[seq]>}},
             %n: index, %c: i1, %sizes: tensor<?xindex>) -> tensor<?xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<?xf32> {{
    {body}
  }}
  return %r : tensor<?xf32>
}}
"""

LOOP_CASES = [
    ("invariant", "%e = math.exp %acc : tensor<?xf32>\n scf.yield %e : tensor<?xf32>", "[batch]"),
    ("replaced", "scf.yield %y : tensor<?xf32>", "[fresh in [min(batch, seq), max(batch, seq)]]"),
    ("growing", "%g = tensor.concat dim(0) %acc, %y : (tensor<?xf32>, tensor<?xf32>) -> "
                "tensor<?xf32>\n scf.yield %g : tensor<?xf32>", "[fresh in [0, ?]]"),
    ("shrinking", "%d = tensor.dim %acc, %c0 : tensor<?xf32>\n"
                  "%h = arith.floordivsi %d, %c1 : index\n"
                  "%m = arith.subi %d, %c1 : index\n %z = arith.maxsi %m, %c0 : index\n"
                  "%s = tensor.extract_slice %acc[0] [%z] [1] : tensor<?xf32> to tensor<?xf32>\n"
                  "scf.yield %s : tensor<?xf32>", "[fresh in [0, batch]]"),
    ("truncating", "%k = tensor.from_elements %i : tensor<index>\n"
                   "%s = symshape.dynamic_truncate %acc, %k axis 0 stage upper_bound\n"
                   "    : (tensor<?xf32>, tensor<index>) -> tensor<?xf32>\n"
                   "scf.yield %s : tensor<?xf32>", "[ub(batch)]"),
    ("conditional_replace", "%s = scf.if %c -> tensor<?xf32> {\n scf.yield %acc : tensor<?xf32>\n"
                            "} else {\n scf.yield %x : tensor<?xf32>\n}\n"
                            "scf.yield %s : tensor<?xf32>", "[batch]"),
]


@pytest.mark.parametrize(("body", "result"), [c[1:] for c in LOOP_CASES],
                         ids=[c[0] for c in LOOP_CASES])
def test_loop_fixed_point(context: ir.Context, body: str, result: str) -> None:
    """scf.for results: invariant exact; replaced, shrinking and growing a size known at
    run time (a fresh symbol with its range); shrinking by a truncation an upper bound."""
    module = _module(LOOP.format(body=body))
    state = infer(module.operation)
    assert _described(state, _op(module, "scf.for").results[0]) == result


def test_loop_bindings_of_discarded_passes_are_undone(context: ir.Context) -> None:
    """A unification made under the first pass's hypothesis does not survive it."""
    module = _module(LOOP.format(body=(
        "%k = tensor.extract %sizes[%i] : tensor<?xindex>\n"
        "%t = tensor.empty(%k) : tensor<?xf32>\n"
        "%s = arith.addf %acc, %t : tensor<?xf32>\n"
        "%g = tensor.concat dim(0) %s, %y : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>\n"
        "scf.yield %g : tensor<?xf32>")))
    state = infer(module.operation)
    assert _described(state, _op(module, "scf.for").results[0]) == "[fresh in [0, ?]]"
    assert _shape(state, _op(module, "tensor.concat").results[0]).endswith(" + seq]")
    assert "batch" not in _shape(state, _op(module, "arith.addf").results[0])


# -- calls -------------------------------------------------------------------------------


def test_callee_is_inferred_once(context: ir.Context) -> None:
    """Two calls reuse one summary; each call instantiates it."""
    module = _module("""
      func.func @callee(%x: tensor<?xf32>) -> tensor<?xf32> {
        %e = math.exp %x : tensor<?xf32>
        return %e : tensor<?xf32>
      }
      func.func @main(%a: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>},
                      %b: tensor<?xf32> {symshape.axes = #symshape.shape<[seq]>}) {
        %0 = call @callee(%a) : (tensor<?xf32>) -> tensor<?xf32>
        %1 = call @callee(%b) : (tensor<?xf32>) -> tensor<?xf32>
        return
      }""")
    state = infer(module.operation)
    assert sum(op.name == "math.exp" for op, _ in state.inferred_ops) == 1
    calls = [values[0] for op, values in state.inferred_ops if op.name == "func.call"]
    assert [_shape(state, v) for v in calls] == ["[batch]", "[seq]"]


def test_recursive_call_knows_nothing_of_itself(context: ir.Context) -> None:
    """A recursive call gets fresh extents instead of looping."""
    module = _module("""
      func.func @rec(%x: tensor<?xf32>) -> tensor<?xf32> {
        %0 = call @rec(%x) : (tensor<?xf32>) -> tensor<?xf32>
        return %0 : tensor<?xf32>
      }""")
    state = infer(module.operation)
    assert _shape(state, _op(module, "func.call").results[0]) == "[_d1]"


# -- errors ------------------------------------------------------------------------------


def test_errors_are_located_inference_errors(context: ir.Context) -> None:
    """A semantic problem is a ShapeInferenceError at the op's location."""
    module = ir.Module.parse("""
      func.func @f(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>},
                   %y: tensor<?xf32> {symshape.axes = #symshape.shape<[seq]>}) -> tensor<?xf32> {
        %s = arith.addf %x, %y : tensor<?xf32>
        return %s : tensor<?xf32>
      }""")
    with pytest.raises(ShapeInferenceError) as info:
        infer(module.operation)
    assert isinstance(info.value, InferenceError)
    assert not isinstance(info.value, OpUsageError)
    assert info.value.location == _op(module, "arith.addf").location


def test_pass_reports_the_error_as_a_diagnostic(context: ir.Context) -> None:
    """The pass turns the error into an MLIR diagnostic; nothing is swallowed."""
    module = ir.Module.parse("""
      func.func @f(%x: tensor<?x4xf32>) -> index {
        %c9 = arith.constant 9 : index
        %d = tensor.dim %x, %c9 : tensor<?x4xf32>
        return %d : index
      }""")
    with pytest.raises(PipelineError) as info:
        run_pipeline(module, "builtin.module(symshape-infer-shapes)")
    messages = [d.message for d in info.value.diagnostics]
    assert messages == ["'tensor.dim' op dimension index 9 is out of range for rank 2"]


# -- annotation --------------------------------------------------------------------------


def test_linalg_bodies_are_not_annotated(context: ir.Context) -> None:
    """Scalar payload code in linalg bodies is skipped (no facts, no attributes)."""
    module = _module("""
      #id = affine_map<(d0) -> (d0)>
      func.func @f(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<?xf32> {
        %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
            ins(%x : tensor<?xf32>) outs(%x : tensor<?xf32>) {
        ^bb0(%a: f32, %o: f32):
          %s = arith.addf %a, %a : f32
          linalg.yield %s : f32
        } -> tensor<?xf32>
        return %r : tensor<?xf32>
      }""")
    annotate(module.operation, infer(module.operation))
    assert "symshape.shape" in _op(module, "linalg.generic").attributes
    assert "symshape.shape" not in _op(module, "arith.addf").attributes


def test_upper_bound_origin_is_traced(context: ir.Context) -> None:
    """A weakened extent names the op that weakened it, through later ops."""
    module = _module("""
      func.func @f(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>)
          -> tensor<?xf32> {
        %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
        %e = math.exp %t : tensor<?xf32>
        return %e : tensor<?xf32>
      }""")
    state = infer(module.operation)
    facts = state.facts_of(_op(module, "math.exp").results[0])
    assert facts.shape == (UpperBound(Sym("n")),)
    assert facts.origin(0) is not None
    assert facts.origin(0).op_name == "symshape.dynamic_truncate"
