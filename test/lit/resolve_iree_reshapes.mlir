// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-resolve=target=iree %s | FileCheck %s

// IREE 3.13 re-derives the sizes of a general reshape, or of a split after
// a reshape, as if no size could be 0: run-time target sizes go through a
// barrier; constant ones stay visible.
// CHECK-LABEL: func.func @reshape_sizes
// CHECK:         %[[N:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[N]]) : (i64) -> i64
// CHECK:         %[[S:.*]] = tensor.from_elements %[[B]], %{{.*}} : tensor<2xi64>
// CHECK:         tensor.reshape %{{.*}}(%[[S]])
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape
// CHECK:         %[[R:.*]] = "util.optimization_barrier"(%{{.*}}) : (index) -> index
// CHECK:         tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [%[[R]], 4]
func.func @reshape_sizes(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rows, cols]>},
                         %y: tensor<?x4xf32> {symshape.axes = #symshape.shape<[n, 4]>})
    -> (tensor<?x2xf32>, tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %r = symshape.reshape %x to [dim(0, 0) * dim(0, 1) floordiv 2, 2] : (tensor<?x?xf32>) -> tensor<?x2xf32>
  %n = tensor.dim %y, %c0 : tensor<?x4xf32>
  %flat = tensor.collapse_shape %y [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  %back = tensor.expand_shape %flat [[0, 1]] output_shape [%n, 4] : tensor<?xf32> into tensor<?x4xf32>
  return %r, %back : tensor<?x2xf32>, tensor<?x4xf32>
}

// -----

// A choice reshaped at a run-time size and also read: the reshape reads it
// through a barrier tied to its sizes (IREE 3.13 fails to order the
// partitions around it otherwise); the slice reads the choice itself.
// CHECK-LABEL: func.func @flat_and_head_of_a_choice
// CHECK:         %[[C:.*]] = scf.if
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[C]]) : (tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]], %{{.*}}, %{{.*}}) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
// CHECK:         tensor.reshape %[[T]](%{{.*}}) : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?xf32>
// CHECK:         tensor.extract_slice %[[C]][0, 0]
func.func @flat_and_head_of_a_choice(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[fa, fb]>},
                                     %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[fa, fb]>},
                                     %n: tensor<i64>, %k: index, %cond: i1)
    -> (tensor<?xf32>, tensor<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %c = scf.if %cond -> (tensor<?x?xf32>) {
    scf.yield %x : tensor<?x?xf32>
  } else {
    scf.yield %y : tensor<?x?xf32>
  }
  %e = symshape.runtime_scalar %n index : tensor<i64>
  %len = symshape.to_index %e
  %len64 = arith.index_cast %len : index to i64
  %shape = tensor.from_elements %len64 : tensor<1xi64>
  %flat = tensor.reshape %c(%shape) : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?xf32>
  %cols = tensor.dim %c, %c1 : tensor<?x?xf32>
  %head = tensor.extract_slice %c[0, 0] [%k, %cols] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  return %flat, %head : tensor<?xf32>, tensor<?x?xf32>
}
