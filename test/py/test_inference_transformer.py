"""Shape inference through a realistic transformer block with dynamic batch and seq.

The block: an embedding lookup (``symshape.gather``), a layer norm and a
softmax written as ``linalg.generic`` reductions, multi-head attention with
``linalg.batch_matmul`` (heads split and merged by ``tensor.reshape`` whose
targets are built from ``tensor.dim`` and ``tensor.from_elements``, i.e.
resolved by partial data propagation), and an MLP with bias and ReLU. Only
``batch`` and ``seq`` are dynamic; every tensor value must end up exact and
symbolic in them, with no fresh or unknown extent.
"""

from __future__ import annotations

import pytest
from mlir import ir

from symshape_mlir.context import new_context
from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.inference import POLICIES, InferenceOptions, InferenceState, annotate, infer

HIDDEN, HEADS, HEAD_DIM, FFN, VOCAB = 64, 4, 16, 128, 1000

TRANSFORMER = f"""
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col2 = affine_map<(d0, d1) -> (d1)>
func.func @block(%ids: tensor<?x?x1xi64> {{symshape.axes = #symshape.shape<[batch, seq, 1]>}},
                 %table: tensor<{VOCAB}x{HIDDEN}xf32>, %gamma: tensor<{HIDDEN}xf32>,
                 %wq: tensor<{HIDDEN}x{HIDDEN}xf32>, %wk: tensor<{HIDDEN}x{HIDDEN}xf32>,
                 %wv: tensor<{HIDDEN}x{HIDDEN}xf32>, %w1: tensor<{HIDDEN}x{FFN}xf32>,
                 %b1: tensor<{FFN}xf32>, %w2: tensor<{FFN}x{HIDDEN}xf32>)
    -> tensor<?x?x{HIDDEN}xf32> {{
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -1.0e30 : f32
  %inv = arith.constant 0.015625 : f32
  %eps = arith.constant 1.0e-5 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cH = arith.constant {HEADS} : index
  %cD = arith.constant {HEAD_DIM} : index
  %cHidden = arith.constant {HIDDEN} : index

  %emb = symshape.gather %table[%ids] start_index_map [0] collapsed_slice_dims [0]
      slice_sizes [1, {HIDDEN}] : (tensor<{VOCAB}x{HIDDEN}xf32>, tensor<?x?x1xi64>)
      -> tensor<?x?x{HIDDEN}xf32> loc("embedding")
  %b = tensor.dim %emb, %c0 : tensor<?x?x{HIDDEN}xf32> loc("batch")
  %s = tensor.dim %emb, %c1 : tensor<?x?x{HIDDEN}xf32> loc("seq")

  // Layer norm: mean and variance as reductions over the hidden axis.
  %e2 = tensor.empty(%b, %s) : tensor<?x?xf32>
  %sum0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sum = linalg.generic {{indexing_maps = [#id3, #row3],
                         iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%emb : tensor<?x?x{HIDDEN}xf32>) outs(%sum0 : tensor<?x?xf32>) {{
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  }} -> tensor<?x?xf32> loc("ln_sum")
  %e3 = tensor.empty(%b, %s) : tensor<?x?x{HIDDEN}xf32>
  %centered = linalg.generic {{indexing_maps = [#id3, #row3, #id3],
                              iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%emb, %sum : tensor<?x?x{HIDDEN}xf32>, tensor<?x?xf32>)
      outs(%e3 : tensor<?x?x{HIDDEN}xf32>) {{
  ^bb0(%x: f32, %t: f32, %o: f32):
    %m = arith.mulf %t, %inv : f32
    %r = arith.subf %x, %m : f32
    linalg.yield %r : f32
  }} -> tensor<?x?x{HIDDEN}xf32>
  %var0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %var = linalg.generic {{indexing_maps = [#id3, #row3],
                         iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%centered : tensor<?x?x{HIDDEN}xf32>) outs(%var0 : tensor<?x?xf32>) {{
  ^bb0(%x: f32, %acc: f32):
    %q = arith.mulf %x, %x : f32
    %r = arith.addf %q, %acc : f32
    linalg.yield %r : f32
  }} -> tensor<?x?xf32>
  %normed = linalg.generic {{indexing_maps = [#id3, #row3, #col3, #id3],
                            iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%centered, %var, %gamma : tensor<?x?x{HIDDEN}xf32>, tensor<?x?xf32>,
          tensor<{HIDDEN}xf32>) outs(%e3 : tensor<?x?x{HIDDEN}xf32>) {{
  ^bb0(%x: f32, %v: f32, %g: f32, %o: f32):
    %vm = arith.mulf %v, %inv : f32
    %ve = arith.addf %vm, %eps : f32
    %sd = math.sqrt %ve : f32
    %n = arith.divf %x, %sd : f32
    %r = arith.mulf %n, %g : f32
    linalg.yield %r : f32
  }} -> tensor<?x?x{HIDDEN}xf32> loc("layer_norm")

  // Projections on [batch * seq, hidden]: a reshape through tensor.dim.
  %rows = arith.muli %b, %s : index
  %flat_shape = tensor.from_elements %rows, %cHidden : tensor<2xindex>
  %flat = tensor.reshape %normed(%flat_shape)
      : (tensor<?x?x{HIDDEN}xf32>, tensor<2xindex>) -> tensor<?x{HIDDEN}xf32> loc("flat")
  %ep = tensor.empty(%rows) : tensor<?x{HIDDEN}xf32>
  %p0 = linalg.fill ins(%zero : f32) outs(%ep : tensor<?x{HIDDEN}xf32>)
      -> tensor<?x{HIDDEN}xf32>
  %q2 = linalg.matmul ins(%flat, %wq : tensor<?x{HIDDEN}xf32>, tensor<{HIDDEN}x{HIDDEN}xf32>)
      outs(%p0 : tensor<?x{HIDDEN}xf32>) -> tensor<?x{HIDDEN}xf32>
  %k2 = linalg.matmul ins(%flat, %wk : tensor<?x{HIDDEN}xf32>, tensor<{HIDDEN}x{HIDDEN}xf32>)
      outs(%p0 : tensor<?x{HIDDEN}xf32>) -> tensor<?x{HIDDEN}xf32>
  %v2 = linalg.matmul ins(%flat, %wv : tensor<?x{HIDDEN}xf32>, tensor<{HIDDEN}x{HIDDEN}xf32>)
      outs(%p0 : tensor<?x{HIDDEN}xf32>) -> tensor<?x{HIDDEN}xf32>

  // Split heads: [batch, seq, heads, head_dim] -> [batch, heads, seq, head_dim]
  // -> [batch * heads, seq, head_dim].
  %heads_shape = tensor.from_elements %b, %s, %cH, %cD : tensor<4xindex>
  %bh = arith.muli %b, %cH : index
  %q4 = tensor.reshape %q2(%heads_shape)
      : (tensor<?x{HIDDEN}xf32>, tensor<4xindex>) -> tensor<?x?x{HEADS}x{HEAD_DIM}xf32>
  %k4 = tensor.reshape %k2(%heads_shape)
      : (tensor<?x{HIDDEN}xf32>, tensor<4xindex>) -> tensor<?x?x{HEADS}x{HEAD_DIM}xf32>
  %v4 = tensor.reshape %v2(%heads_shape)
      : (tensor<?x{HIDDEN}xf32>, tensor<4xindex>) -> tensor<?x?x{HEADS}x{HEAD_DIM}xf32>
  %et = tensor.empty(%b, %s) : tensor<?x{HEADS}x?x{HEAD_DIM}xf32>
  %qt = linalg.transpose ins(%q4 : tensor<?x?x{HEADS}x{HEAD_DIM}xf32>)
      outs(%et : tensor<?x{HEADS}x?x{HEAD_DIM}xf32>) permutation = [0, 2, 1, 3]
  %vt = linalg.transpose ins(%v4 : tensor<?x?x{HEADS}x{HEAD_DIM}xf32>)
      outs(%et : tensor<?x{HEADS}x?x{HEAD_DIM}xf32>) permutation = [0, 2, 1, 3]
  %ekt = tensor.empty(%b, %s) : tensor<?x{HEADS}x{HEAD_DIM}x?xf32>
  %kt = linalg.transpose ins(%k4 : tensor<?x?x{HEADS}x{HEAD_DIM}xf32>)
      outs(%ekt : tensor<?x{HEADS}x{HEAD_DIM}x?xf32>) permutation = [0, 2, 3, 1]
  %q3 = tensor.collapse_shape %qt [[0, 1], [2], [3]]
      : tensor<?x{HEADS}x?x{HEAD_DIM}xf32> into tensor<?x?x{HEAD_DIM}xf32>
  %k3 = tensor.collapse_shape %kt [[0, 1], [2], [3]]
      : tensor<?x{HEADS}x{HEAD_DIM}x?xf32> into tensor<?x{HEAD_DIM}x?xf32>
  %v3 = tensor.collapse_shape %vt [[0, 1], [2], [3]]
      : tensor<?x{HEADS}x?x{HEAD_DIM}xf32> into tensor<?x?x{HEAD_DIM}xf32>

  // Scores and a softmax over the last axis (max, exp, sum, divide).
  %es = tensor.empty(%bh, %s, %s) : tensor<?x?x?xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%es : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %scores = linalg.batch_matmul ins(%q3, %k3 : tensor<?x?x{HEAD_DIM}xf32>,
                                   tensor<?x{HEAD_DIM}x?xf32>)
      outs(%s0 : tensor<?x?x?xf32>) -> tensor<?x?x?xf32> loc("scores")
  %er = tensor.empty(%bh, %s) : tensor<?x?xf32>
  %mx0 = linalg.fill ins(%ninf : f32) outs(%er : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mx = linalg.generic {{indexing_maps = [#id3, #row3],
                        iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%scores : tensor<?x?x?xf32>) outs(%mx0 : tensor<?x?xf32>) {{
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  }} -> tensor<?x?xf32> loc("softmax_max")
  %ex = linalg.generic {{indexing_maps = [#id3, #row3, #id3],
                        iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%scores, %mx : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%es : tensor<?x?x?xf32>) {{
  ^bb0(%x: f32, %m: f32, %o: f32):
    %d = arith.subf %x, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  }} -> tensor<?x?x?xf32>
  %sm0 = linalg.fill ins(%zero : f32) outs(%er : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sm = linalg.generic {{indexing_maps = [#id3, #row3],
                        iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%ex : tensor<?x?x?xf32>) outs(%sm0 : tensor<?x?xf32>) {{
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  }} -> tensor<?x?xf32>
  %probs = linalg.generic {{indexing_maps = [#id3, #row3, #id3],
                           iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%ex, %sm : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%es : tensor<?x?x?xf32>) {{
  ^bb0(%x: f32, %t: f32, %o: f32):
    %r = arith.divf %x, %t : f32
    linalg.yield %r : f32
  }} -> tensor<?x?x?xf32> loc("softmax")

  // Weighted values, heads merged back to [batch, seq, hidden].
  %ea = tensor.empty(%bh, %s) : tensor<?x?x{HEAD_DIM}xf32>
  %a0 = linalg.fill ins(%zero : f32) outs(%ea : tensor<?x?x{HEAD_DIM}xf32>)
      -> tensor<?x?x{HEAD_DIM}xf32>
  %att = linalg.batch_matmul ins(%probs, %v3 : tensor<?x?x?xf32>, tensor<?x?x{HEAD_DIM}xf32>)
      outs(%a0 : tensor<?x?x{HEAD_DIM}xf32>) -> tensor<?x?x{HEAD_DIM}xf32> loc("attention")
  %att4 = tensor.expand_shape %att [[0, 1], [2], [3]] output_shape [%b, {HEADS}, %s, {HEAD_DIM}]
      : tensor<?x?x{HEAD_DIM}xf32> into tensor<?x{HEADS}x?x{HEAD_DIM}xf32>
  %em = tensor.empty(%b, %s) : tensor<?x?x{HEADS}x{HEAD_DIM}xf32>
  %merged = linalg.transpose ins(%att4 : tensor<?x{HEADS}x?x{HEAD_DIM}xf32>)
      outs(%em : tensor<?x?x{HEADS}x{HEAD_DIM}xf32>) permutation = [0, 2, 1, 3]
  %out_shape = tensor.from_elements %b, %s, %cHidden : tensor<3xindex>
  %att3 = tensor.reshape %merged(%out_shape)
      : (tensor<?x?x{HEADS}x{HEAD_DIM}xf32>, tensor<3xindex>) -> tensor<?x?x{HIDDEN}xf32>
  %res = linalg.generic {{indexing_maps = [#id3, #id3, #id3],
                         iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%emb, %att3 : tensor<?x?x{HIDDEN}xf32>, tensor<?x?x{HIDDEN}xf32>)
      outs(%e3 : tensor<?x?x{HIDDEN}xf32>) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  }} -> tensor<?x?x{HIDDEN}xf32> loc("residual")

  // MLP: matmul, bias + ReLU, matmul, back to [batch, seq, hidden].
  %res_flat = tensor.reshape %res(%flat_shape)
      : (tensor<?x?x{HIDDEN}xf32>, tensor<2xindex>) -> tensor<?x{HIDDEN}xf32>
  %eh = tensor.empty(%rows) : tensor<?x{FFN}xf32>
  %h0 = linalg.fill ins(%zero : f32) outs(%eh : tensor<?x{FFN}xf32>) -> tensor<?x{FFN}xf32>
  %h = linalg.matmul ins(%res_flat, %w1 : tensor<?x{HIDDEN}xf32>, tensor<{HIDDEN}x{FFN}xf32>)
      outs(%h0 : tensor<?x{FFN}xf32>) -> tensor<?x{FFN}xf32>
  %act = linalg.generic {{indexing_maps = [#id2, #col2, #id2],
                         iterator_types = ["parallel", "parallel"]}}
      ins(%h, %b1 : tensor<?x{FFN}xf32>, tensor<{FFN}xf32>) outs(%eh : tensor<?x{FFN}xf32>) {{
  ^bb0(%x: f32, %bias: f32, %o: f32):
    %a = arith.addf %x, %bias : f32
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  }} -> tensor<?x{FFN}xf32> loc("mlp_hidden")
  %y0 = linalg.fill ins(%zero : f32) outs(%ep : tensor<?x{HIDDEN}xf32>)
      -> tensor<?x{HIDDEN}xf32>
  %y = linalg.matmul ins(%act, %w2 : tensor<?x{FFN}xf32>, tensor<{FFN}x{HIDDEN}xf32>)
      outs(%y0 : tensor<?x{HIDDEN}xf32>) -> tensor<?x{HIDDEN}xf32>
  %y3 = tensor.reshape %y(%out_shape)
      : (tensor<?x{HIDDEN}xf32>, tensor<3xindex>) -> tensor<?x?x{HIDDEN}xf32> loc("output")
  return %y3 : tensor<?x?x{HIDDEN}xf32>
}}
"""

EXPECTED = [
    ("embedding", f"[batch, seq, {HIDDEN}]"),
    ("ln_sum", "[batch, seq]"),
    ("layer_norm", f"[batch, seq, {HIDDEN}]"),
    ("flat", f"[batch * seq, {HIDDEN}]"),
    ("scores", f"[{HEADS} * batch, seq, seq]"),
    ("softmax_max", f"[{HEADS} * batch, seq]"),
    ("softmax", f"[{HEADS} * batch, seq, seq]"),
    ("attention", f"[{HEADS} * batch, seq, {HEAD_DIM}]"),
    ("residual", f"[batch, seq, {HIDDEN}]"),
    ("mlp_hidden", f"[batch * seq, {FFN}]"),
    ("output", f"[batch, seq, {HIDDEN}]"),
]


def _tensor_values(module: ir.Module) -> list[tuple[str, ir.Value]]:
    """Every ranked tensor result and block argument, with the op name."""
    found: list[tuple[str, ir.Value]] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        for region in op.regions:
            for block in region.blocks:
                found.extend((f"{op.name} argument", a) for a in block.arguments
                             if isinstance(a.type, ir.RankedTensorType))
        found.extend((op.name, r) for r in op.results if isinstance(r.type, ir.RankedTensorType))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _by_location(module: ir.Module, state: InferenceState) -> dict[str, str]:
    shapes: dict[str, str] = {}

    def visit(op: ir.Operation) -> ir.WalkResult:
        text = str(op.location)
        if text.startswith('loc("') and op.results and isinstance(
                op.results[0].type, ir.RankedTensorType):
            name = text[len('loc("'):text.index('"', len('loc("'))]
            shapes[name] = "[" + ", ".join(str(e) for e in state.shape(op.results[0])) + "]"
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return shapes


@pytest.fixture(scope="module")
def inferred() -> tuple[ir.Context, ir.Module, InferenceState]:
    context = new_context()
    with context:
        module = ir.Module.parse(TRANSFORMER)
        state = infer(module.operation)
    return context, module, state


def _is_symbolic_in_batch_seq(extent: ShapeExtent) -> bool:
    return extent.is_exact and extent.free_symbols <= {"batch", "seq"}


def test_every_tensor_value_is_exact_in_batch_and_seq(inferred) -> None:
    """No tensor value of the block has an unknown, bounded or fresh extent."""
    context, module, state = inferred
    with context:
        values = _tensor_values(module)
        assert len(values) > 60
        bad = [(name, [str(e) for e in state.shape(v)]) for name, v in values
               if not all(_is_symbolic_in_batch_seq(e) for e in state.shape(v))]
    assert bad == []


def test_batch_and_seq_both_appear(inferred) -> None:
    """Dynamic axes are named, not folded away: batch and seq both occur."""
    context, module, state = inferred
    with context:
        symbols = set()
        for _, value in _tensor_values(module):
            for extent in state.shape(value):
                symbols |= extent.free_symbols
    assert symbols == {"batch", "seq"}


@pytest.mark.parametrize(("name", "shape"), EXPECTED, ids=[name for name, _ in EXPECTED])
def test_named_value_shape(inferred, name: str, shape: str) -> None:
    """Each tagged op of the block has the expected symbolic shape."""
    context, module, state = inferred
    with context:
        assert _by_location(module, state)[name] == shape


@pytest.mark.parametrize(("name", "value"), [("batch", "batch"), ("seq", "seq")],
                         ids=["batch", "seq"])
def test_dims_of_the_embedding_are_the_named_axes(inferred, name: str, value: str) -> None:
    """tensor.dim of the gathered embedding reads the axes of the ids."""
    context, module, state = inferred
    with context:
        found = {}

        def visit(op: ir.Operation) -> ir.WalkResult:
            if str(op.location) == f'loc("{name}")':
                found[name] = str(state.value(op.results[0]))
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
    assert found == {name: value}


@pytest.mark.parametrize("policy", POLICIES, ids=list(POLICIES))
def test_same_result_under_every_policy(policy: str) -> None:
    """Without annotations in the input, the merge policy changes nothing."""
    context = new_context()
    with context:
        module = ir.Module.parse(TRANSFORMER)
        state = infer(module.operation, InferenceOptions(policy=policy))
        assert _by_location(module, state)["output"] == f"[batch, seq, {HIDDEN}]"


def test_annotations_round_trip_under_strict() -> None:
    """The annotated block re-infers under policy=strict without a conflict."""
    context = new_context()
    with context:
        module = ir.Module.parse(TRANSFORMER)
        annotate(module.operation, infer(module.operation))
        again = ir.Module.parse(module.operation.get_asm(enable_debug_info=True))
        state = infer(again.operation, InferenceOptions(policy="strict"))
        assert _by_location(again, state)["scores"] == f"[{HEADS} * batch, seq, seq]"
