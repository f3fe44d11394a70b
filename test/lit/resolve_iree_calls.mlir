// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-resolve=target=iree %s | FileCheck %s

// A call operand with an extent 0 its type does not show goes through a
// barrier with its sizes, tied to the sizes the barrier gives: IREE 3.13
// inlines the callee, carries the 0 into its sum and crashes on the
// reduction over it. The other operand is left as it is.
// CHECK-LABEL: func.func @sums_of_a_call_on_nothing
// CHECK-SAME:      (%[[X:.*]]: tensor<?x?xf32>, %[[Y:.*]]: tensor<0x?xf32>)
// CHECK:         %[[NONE:.*]] = tensor.cast %[[Y]] : tensor<0x?xf32> to tensor<?x?xf32>
// CHECK:         cf.assert
// CHECK:         %[[R:.*]] = tensor.dim %[[NONE]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[C:.*]] = tensor.dim %[[NONE]], %{{.*}} : tensor<?x?xf32>
// CHECK-NEXT:    %[[B:.*]]:3 = "util.optimization_barrier"(%[[NONE]], %[[R]], %[[C]]) : (tensor<?x?xf32>, index, index) -> (tensor<?x?xf32>, index, index)
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]]#0, %[[B]]#1, %[[B]]#2) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
// CHECK:         %[[S:.*]] = call @sum_of_two(%[[X]], %[[T]])
// CHECK:         linalg.reduce ins(%[[S]] : tensor<?x?xf32>)
func.func @sums_of_a_call_on_nothing(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[r, n]>},
                                     %y: tensor<0x?xf32> {symshape.axes = #symshape.shape<[0, n]>})
    -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %none = tensor.cast %y : tensor<0x?xf32> to tensor<?x?xf32>
  %s = func.call @sum_of_two(%x, %none) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %cols = tensor.dim %s, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%cols) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%s : tensor<?x?xf32>) outs(%z : tensor<?xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  return %r : tensor<?xf32>
}

func.func private @sum_of_two(%p: tensor<?x?xf32> {symshape.axes = #symshape.shape<[p, q]>},
                              %q: tensor<?x?xf32> {symshape.axes = #symshape.shape<[p, q]>})
    -> tensor<?x?xf32> {
  %s = arith.addf %p, %q : tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// -----

// One barrier for an operand passed twice, whose 0 only a size that folds
// shows; a tensor whose type shows its 0 is passed as it is (the callee
// sees that 0 without inlining).
// CHECK-LABEL: func.func @twice_nothing
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x?xf32>
// CHECK:         %[[B:.*]]:3 = "util.optimization_barrier"(%[[E]], %{{.*}}, %{{.*}})
// CHECK-NOT:     util.optimization_barrier
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]]#0, %[[B]]#1, %[[B]]#2)
// CHECK-NOT:     util.optimization_barrier
// CHECK:         call @sum_of_two(%[[T]], %[[T]])
// CHECK:         call @sum_of_two_static(%{{.*}}, %{{.*}}) : (tensor<0x?xf32>, tensor<0x?xf32>)
func.func @twice_nothing(%y: tensor<0x?xf32> {symshape.axes = #symshape.shape<[0, n]>})
    -> (tensor<?x?xf32>, tensor<0x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cols = tensor.dim %y, %c1 : tensor<0x?xf32>
  %e = tensor.empty(%c0, %cols) : tensor<?x?xf32>
  %s = func.call @sum_of_two(%e, %e) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %t = func.call @sum_of_two_static(%y, %y) : (tensor<0x?xf32>, tensor<0x?xf32>) -> tensor<0x?xf32>
  return %s, %t : tensor<?x?xf32>, tensor<0x?xf32>
}

func.func private @sum_of_two(%p: tensor<?x?xf32> {symshape.axes = #symshape.shape<[p, q]>},
                              %q: tensor<?x?xf32> {symshape.axes = #symshape.shape<[p, q]>})
    -> tensor<?x?xf32> {
  %s = arith.addf %p, %q : tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

func.func private @sum_of_two_static(%p: tensor<0x?xf32> {symshape.axes = #symshape.shape<[0, q]>},
                                     %q: tensor<0x?xf32> {symshape.axes = #symshape.shape<[0, q]>})
    -> tensor<0x?xf32> {
  %s = arith.addf %p, %q : tensor<0x?xf32>
  return %s : tensor<0x?xf32>
}
