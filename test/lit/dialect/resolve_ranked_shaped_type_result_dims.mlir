// RUN: symshape-opt --split-input-file --pass-pipeline='builtin.module(func.func(resolve-ranked-shaped-type-result-dims))' %s | FileCheck %s

// The shape-sensitive ops reify their result sizes from their operands
// (ReifyRankedShapedTypeOpInterface): upstream passes replace `tensor.dim` of
// their results by `index` arithmetic on the operands' sizes and scalars.

// A reshape's target extents: a product of input sizes, and a constant in a
// dynamic result dimension; a static result dimension is its constant.
// CHECK-LABEL: func.func @reshape_product
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?x768xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C768:.*]] = arith.constant 768 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK:         %[[D0:.*]] = tensor.dim %[[X]], %[[C0]]
// CHECK:         %[[D1:.*]] = tensor.dim %[[X]], %[[C1]]
// CHECK:         %[[ROWS:.*]] = arith.muli %[[D0]], %[[D1]] : index
// CHECK-NOT:     symshape.reshape
// CHECK:         return %[[ROWS]], %[[C768]], %[[C3]]
func.func @reshape_product(%x: tensor<?x?x768xf32>) -> (index, index, index) {
  %r = symshape.reshape %x to [dim(0, 0) * dim(0, 1), 768, 1]
      : (tensor<?x?x768xf32>) -> tensor<?x?x?xf32>
  %s = symshape.reshape %x to [dim(0, 0), dim(0, 1), 3, 256]
      : (tensor<?x?x768xf32>) -> tensor<?x?x3x256xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %rows = tensor.dim %r, %c0 : tensor<?x?x?xf32>
  %cols = tensor.dim %r, %c1 : tensor<?x?x?xf32>
  %three = tensor.dim %s, %c2 : tensor<?x?x3x256xf32>
  return %rows, %cols, %three : index, index, index
}

// -----

// Runtime scalars: `index` semantics takes the value as it is (an index
// element needs no cast), `clamp_nonneg` clamps at 0 after the cast.
// CHECK-LABEL: func.func @reshape_scalars
// CHECK-SAME:    (%[[X:.*]]: tensor<?xf32>, %[[I:.*]]: tensor<index>, %[[N:.*]]: tensor<i64>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[A:.*]] = tensor.extract %[[I]][] : tensor<index>
// CHECK:         %[[B:.*]] = tensor.extract %[[N]][] : tensor<i64>
// CHECK:         %[[BI:.*]] = arith.index_cast %[[B]] : i64 to index
// CHECK:         %[[BC:.*]] = arith.maxsi %[[BI]], %[[C0]] : index
// CHECK:         return %[[A]], %[[BC]]
func.func @reshape_scalars(%x: tensor<?xf32>, %i: tensor<index>, %n: tensor<i64>)
    -> (index, index) {
  %r = symshape.reshape %x, %i, %n to [scalar(1, index), scalar(2, clamp_nonneg)]
      : (tensor<?xf32>, tensor<index>, tensor<i64>) -> tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tensor.dim %r, %c0 : tensor<?x?xf32>
  %b = tensor.dim %r, %c1 : tensor<?x?xf32>
  return %a, %b : index, index
}

// -----

// A named axis (`batch`) is bound by the function's arguments, not by the
// op's operands: that dimension stays a `tensor.dim`; the other one is
// reified.
// CHECK-LABEL: func.func @reshape_named_axis
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[R:.*]] = symshape.reshape %[[X]] to [batch, dim(0, 1)]
// CHECK:         %[[B:.*]] = tensor.dim %[[R]], %[[C0]]
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %[[C1]]
// CHECK:         return %[[B]], %[[D]]
func.func @reshape_named_axis(%x: tensor<?x?xf32>) -> (index, index) {
  %r = symshape.reshape %x to [batch, dim(0, 1)]
      : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %r, %c0 : tensor<?x?xf32>
  %d = tensor.dim %r, %c1 : tensor<?x?xf32>
  return %b, %d : index, index
}

// -----

// A dimension index out of the result's range is left alone.
// CHECK-LABEL: func.func @out_of_range
// CHECK:         %[[C5:.*]] = arith.constant 5 : index
// CHECK:         %[[R:.*]] = symshape.reshape
// CHECK:         %[[D:.*]] = tensor.dim %[[R]], %[[C5]] : tensor<?xf32>
// CHECK:         return %[[D]]
func.func @out_of_range(%x: tensor<?xf32>) -> index {
  %r = symshape.reshape %x to [dim(0, 0)] : (tensor<?xf32>) -> tensor<?xf32>
  %c5 = arith.constant 5 : index
  %d = tensor.dim %r, %c5 : tensor<?xf32>
  return %d : index
}

// -----

// broadcast_in_dim: the target extents, here from a shape-only operand, with
// `min`, `max`, `-` and `ceildiv`.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME:    (%[[B:.*]]: tensor<512xf32>, %[[S:.*]]: tensor<?x?xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[S0:.*]] = tensor.dim %[[S]], %[[C0]]
// CHECK:         %[[S1:.*]] = tensor.dim %[[S]], %[[C1]]
// CHECK:         %[[MIN:.*]] = arith.minsi %[[S0]], %[[S1]] : index
// CHECK:         %[[S1B:.*]] = tensor.dim %[[S]], %[[C1]]
// CHECK:         %[[DIFF:.*]] = arith.subi %[[S1B]], %[[C1]] : index
// CHECK:         %[[HALF:.*]] = arith.ceildivsi %[[DIFF]], %[[C2]] : index
// CHECK:         %[[MAX:.*]] = arith.maxsi %[[MIN]], %[[HALF]] : index
// CHECK:         return %[[MAX]]
func.func @broadcast(%bias: tensor<512xf32>, %s: tensor<?x?xf32>) -> index {
  %b = symshape.broadcast_in_dim %bias, %s dims [1]
      to [max(min(dim(1, 0), dim(1, 1)), (dim(1, 1) - 1) ceildiv 2), 512]
      : (tensor<512xf32>, tensor<?x?xf32>) -> tensor<?x512xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %b, %c0 : tensor<?x512xf32>
  return %d : index
}

// -----

// dynamic_truncate: the truncated axis is `min(scalar(1, truncate_size),
// dim(0, axis))` (a negative size keeps nothing), whatever the stage says;
// the other axes are the input's. A narrow size is sign-extended first.
// CHECK-LABEL: func.func @truncate
// CHECK-SAME:    (%[[X:.*]]: tensor<4x?xf32>, %[[N:.*]]: tensor<i8>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[V:.*]] = tensor.extract %[[N]][] : tensor<i8>
// CHECK:         %[[W:.*]] = arith.extsi %[[V]] : i8 to i64
// CHECK:         %[[I:.*]] = arith.index_cast %[[W]] : i64 to index
// CHECK:         %[[K:.*]] = arith.maxsi %[[I]], %[[C0]] : index
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %[[C1]]
// CHECK:         %[[T:.*]] = arith.minsi %[[K]], %[[D]] : index
// CHECK:         return %[[C4]], %[[T]]
func.func @truncate(%x: tensor<4x?xf32>, %n: tensor<i8>) -> (index, index) {
  %t = symshape.dynamic_truncate %x, %n axis 1 stage upper_bound
      : (tensor<4x?xf32>, tensor<i8>) -> tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %t, %c0 : tensor<?x?xf32>
  %kept = tensor.dim %t, %c1 : tensor<?x?xf32>
  return %rows, %kept : index, index
}

// -----

// gather: batch dimensions are the indices' leading sizes; the other
// dimensions are the slice sizes of the kept operand axes (the collapsed
// axis 0 produces none), here with `mod` (the sign of the divisor) and
// `floordiv`.
// CHECK-LABEL: func.func @gather
// CHECK-SAME:    (%[[T:.*]]: tensor<?x?x?xf32>, %[[IDS:.*]]: tensor<?x1xi64>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK:         %[[BATCH:.*]] = tensor.dim %[[IDS]], %[[C0]]
// CHECK:         %[[A:.*]] = tensor.dim %[[T]], %[[C1]]
// CHECK:         %[[Q:.*]] = arith.floordivsi %[[A]], %[[C3]] : index
// CHECK:         %[[P:.*]] = arith.muli %[[Q]], %[[C3]] : index
// CHECK:         %[[MOD:.*]] = arith.subi %[[A]], %[[P]] : index
// CHECK:         %[[B:.*]] = tensor.dim %[[T]], %[[C2]]
// CHECK:         %[[HALF:.*]] = arith.floordivsi %[[B]], %[[C2]] : index
// CHECK:         return %[[BATCH]], %[[MOD]], %[[HALF]]
func.func @gather(%t: tensor<?x?x?xf32>, %ids: tensor<?x1xi64>) -> (index, index, index) {
  %g = symshape.gather %t[%ids] start_index_map [0]
      collapsed_slice_dims [0] slice_sizes [1, dim(0, 1) mod 3, dim(0, 2) floordiv 2]
      : (tensor<?x?x?xf32>, tensor<?x1xi64>) -> tensor<?x?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %batch = tensor.dim %g, %c0 : tensor<?x?x?xf32>
  %mod = tensor.dim %g, %c1 : tensor<?x?x?xf32>
  %half = tensor.dim %g, %c2 : tensor<?x?x?xf32>
  return %batch, %mod, %half : index, index, index
}
