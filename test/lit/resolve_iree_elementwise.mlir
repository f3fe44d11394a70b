// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-resolve=target=iree %s | FileCheck %s

// Elementwise tensors that compute the same (here v + 2v, its operands
// swapped, as a linalg.map and an arith.addf): IREE 3.13 fuses them into
// one dispatch and returns its first result for the second. The later one
// is replaced by the earlier.
// CHECK-LABEL: func.func @sums_beside_their_operand
// CHECK:         %[[TWO:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<?xf32>
// CHECK:         %[[THREE:.*]] = arith.addf %{{.*}}, %[[TWO]] : tensor<?xf32>
// CHECK:         return %[[TWO]], %[[THREE]], %[[THREE]]
func.func @sums_beside_their_operand(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>})
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %two = arith.addf %v, %v : tensor<?xf32>
  %three = arith.addf %v, %two : tensor<?xf32>
  %n = tensor.dim %two, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %also = linalg.map { arith.addf } ins(%two, %v : tensor<?xf32>, tensor<?xf32>)
      outs(%init : tensor<?xf32>)
  return %two, %three, %also : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// The same through a call, which IREE inlines: the call's result is keyed
// by what its callee returns.
// CHECK-LABEL: func.func @sum_beside_a_call
// CHECK:         %[[S:.*]] = call @add
// CHECK:         return %[[S]], %[[S]]
func.func private @add(%p: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                       %q: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<?xf32> {
  %s = arith.addf %p, %q : tensor<?xf32>
  return %s : tensor<?xf32>
}
func.func @sum_beside_a_call(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                             %w: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>})
    -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %s = func.call @add(%v, %w) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %n = tensor.dim %v, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %also = linalg.map { arith.addf } ins(%w, %v : tensor<?xf32>, tensor<?xf32>)
      outs(%init : tensor<?xf32>)
  return %s, %also : tensor<?xf32>, tensor<?xf32>
}
