// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-resolve=target=iree %s | FileCheck %s

// One element spread over a 1 x 1 tensor: IREE 3.13 drops its unit loops and
// makes of it a slice it rejects. The op gets opaque sizes, and its result a
// barrier tied to them.
// CHECK-LABEL: func.func @spread_one_element
// CHECK:         %[[ONE:.*]]:2 = "util.optimization_barrier"(%{{.*}}, %{{.*}}) : (index, index) -> (index, index)
// CHECK:         %[[E:.*]] = tensor.empty(%[[ONE]]#0, %[[ONE]]#1) : tensor<?x?xf32>
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<?x?xf32>)
// CHECK:           tensor.extract
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[G]]) : (tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]], %[[ONE]]#0, %[[ONE]]#1)
// CHECK:         return %[[T]]
func.func @spread_one_element(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %corner = tensor.empty(%c1, %c1) : tensor<?x?xf32>
  %b = symshape.broadcast_in_dim %v, %corner dims [1] to [dim(1, 0), dim(1, 1)]
      : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %b : tensor<?x?xf32>
}

// -----

// The same over a 1 x 1 slice of a tensor with no rows, which lowering makes
// an empty tensor that inference never saw (fuzzer p105003021).
// CHECK-LABEL: func.func @spread_over_a_slice_of_nothing
// CHECK:         %[[ONE:.*]]:2 = "util.optimization_barrier"(%{{.*}}, %{{.*}}) : (index, index) -> (index, index)
// CHECK:         %[[E:.*]] = tensor.empty(%[[ONE]]#0, %[[ONE]]#1) : tensor<?x?xf32>
// CHECK:         linalg.generic {{.*}} outs(%[[E]] : tensor<?x?xf32>)
func.func @spread_over_a_slice_of_nothing(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                                          %y: tensor<0x?xf32>, %at: index) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %s = tensor.extract_slice %y[%at, 0] [%c1, %c1] [1, 1] : tensor<0x?xf32> to tensor<?x?xf32>
  %b = symshape.broadcast_in_dim %v, %s dims [1] to [dim(1, 0), dim(1, 1)]
      : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %b : tensor<?x?xf32>
}

// -----

// A static 1 x 1 result is cast back from the barrier.
// CHECK-LABEL: func.func @spread_one_element_static
// CHECK:         %[[G:.*]] = linalg.generic
// CHECK:         } -> tensor<?x?xf32>
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[G]])
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]], %{{.*}}, %{{.*}})
// CHECK:         %[[C:.*]] = tensor.cast %[[T]] : tensor<?x?xf32> to tensor<1x1xf32>
// CHECK:         return %[[C]]
func.func @spread_one_element_static(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<1x1xf32> {
  %b = symshape.broadcast_in_dim %v dims [1] to [1, 1]
      : (tensor<?xf32>) -> tensor<1x1xf32>
  return %b : tensor<1x1xf32>
}
