"""IREE shields on resolved IR that holds IREE's own hints (generic-form
``util`` and ``flow`` ops), where no symshape pass can run."""

from __future__ import annotations

from mlir import ir

from symshape_mlir.context import new_context
from symshape_mlir.lowering.iree.folding import folded
from symshape_mlir.lowering.iree.reductions import shield_empty_reductions
from symshape_mlir.lowering.iree.reshapes import shield_reshape_sources
from symshape_mlir.walk import collect_ops

# Column sums of a fill whose column count is hinted to be 0 (as
# `insert_upper_bound_hints` hints a bound of 0): the reduction never runs.
SUM_OVER_HINTED_COLUMNS = """
func.func @f(%rows: index) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %none = "util.assume.int"(%c0) {assumptions = [[#util.int.assumption<umin = 0, umax = 0>]]}
      : (index) -> index
  %e = tensor.empty(%rows, %none) : tensor<?x?xf32>
  %t = "flow.tensor.tie_shape"(%e, %rows, %none)
      : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%t : tensor<?x?xf32>) -> tensor<?x?xf32>
  %cols = tensor.dim %t, %c1 : tensor<?x?xf32>
  %hinted = "util.assume.int"(%cols) {assumptions = [[#util.int.assumption<umin = 0, umax = 0>]]}
      : (index) -> index
  %g = "flow.tensor.tie_shape"(%f, %rows, %hinted)
      : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
  %o = tensor.empty(%hinted) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%o : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce ins(%g : tensor<?x?xf32>) outs(%z : tensor<?xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %s : tensor<?xf32>
}
"""


def test_sizes_fold_through_hints() -> None:
    """A size hinted by ``util.assume.int`` folds to the value it hints, so a
    reduction over an axis hinted empty gives its init (IREE 3.13 crashed in
    ``getDefaultDistributedLevelTileSizes`` on it, fuzzer p103001420)."""
    with new_context(allow_unregistered_dialects=True):
        module = ir.Module.parse(SUM_OVER_HINTED_COLUMNS)
        func = module.body.operations[0].operation
        hinted = collect_ops(func, lambda op: op.name == "util.assume.int")[1]
        assert folded(hinted.results[0]) == 0
        assert shield_empty_reductions(func, None) == 1
        (ret,) = collect_ops(func, lambda op: op.name == "func.return")
        assert ret.operands[0].owner.name == "linalg.fill"


# A checked cast to a static size behind its barrier (as `shield_static_casts`
# makes it), flattened at a run-time size and also added to itself.
CAST_FLATTENED_AND_READ = """
func.func @f(%y: tensor<?x?xf32>, %n: index) -> (tensor<?xf32>, tensor<2x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %y, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %y, %c1 : tensor<?x?xf32>
  %b = "util.optimization_barrier"(%y) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %t = "flow.tensor.tie_shape"(%b, %rows, %cols)
      : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
  %c = tensor.cast %t : tensor<?x?xf32> to tensor<2x?xf32>
  %n64 = arith.index_cast %n : index to i64
  %shape = tensor.from_elements %n64 : tensor<1xi64>
  %flat = tensor.reshape %c(%shape) : (tensor<2x?xf32>, tensor<1xi64>) -> tensor<?xf32>
  %twice = arith.addf %c, %c : tensor<2x?xf32>
  return %flat, %twice : tensor<?xf32>, tensor<2x?xf32>
}
"""


def test_reshape_of_a_barrier_reads_its_own_barrier() -> None:
    """A reshape at a run-time size of a barrier's result that other ops read
    too reads it through a barrier of its own (IREE 3.13 failed to order the
    partitions, fuzzer p103001552); the other readers keep the original."""
    with new_context(allow_unregistered_dialects=True):
        module = ir.Module.parse(CAST_FLATTENED_AND_READ)
        func = module.body.operations[0].operation
        assert shield_reshape_sources(func) == 1
        (reshape,) = collect_ops(func, lambda op: op.name == "tensor.reshape")
        tie = reshape.operands[0].owner
        assert tie.name == "flow.tensor.tie_shape"
        assert tie.operands[0].owner.name == "util.optimization_barrier"
        (add,) = collect_ops(func, lambda op: op.name == "arith.addf")
        assert add.operands[0].owner.name == "tensor.cast"
