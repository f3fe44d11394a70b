// RUN: symshape-opt --split-input-file --symshape-resolve %s | FileCheck %s
// RUN: symshape-opt --split-input-file --symshape-resolve --canonicalize %s | FileCheck %s --check-prefix=CANON

// Two transposes that undo each other are folded by symshape-resolve: the
// upstream folder would return the inner input with a less static type once
// the canonicalizer has refined the outer result (its init sized by a
// constant), and abort the process.
// CHECK-LABEL: func.func @undone
// CHECK-SAME: (%[[A:[^:]*]]: tensor<?x?xf32>)
// CHECK: linalg.transpose ins(%[[A]]
// CHECK-NOT: linalg.transpose ins
// CHECK: return %[[A]]
// CANON-LABEL: func.func @undone
// CANON: return %arg0 : tensor<?x?xf32>
func.func @undone(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d1, %d0) : tensor<?x?xf32>
  %t = linalg.transpose ins(%a : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) permutation = [1, 0]
  %e2 = tensor.empty(%d0, %c1) : tensor<?x?xf32>
  %u = linalg.transpose ins(%t : tensor<?x?xf32>) outs(%e2 : tensor<?x?xf32>) permutation = [1, 0]
  return %u : tensor<?x?xf32>
}

// -----

// Through a cast, and to a more static type: the input is cast to it.
// CHECK-LABEL: func.func @through_a_cast
// CHECK-SAME: (%[[A:[^:]*]]: tensor<?x?x?xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[A]] : tensor<?x?x?xf32> to tensor<2x?x?xf32>
// CHECK: return %[[C]]
func.func @through_a_cast(%a: tensor<?x?x?xf32>, %e: tensor<?x?x?xf32>, %e2: tensor<2x?x?xf32>)
    -> tensor<2x?x?xf32> {
  %t = linalg.transpose ins(%a : tensor<?x?x?xf32>) outs(%e : tensor<?x?x?xf32>) permutation = [2, 0, 1]
  %s = tensor.cast %t : tensor<?x?x?xf32> to tensor<?x2x?xf32>
  %u = linalg.transpose ins(%s : tensor<?x2x?xf32>) outs(%e2 : tensor<2x?x?xf32>) permutation = [1, 2, 0]
  return %u : tensor<2x?x?xf32>
}

// -----

// Permutations that do not compose to the identity stay.
// CHECK-LABEL: func.func @kept
// CHECK: linalg.transpose
// CHECK: linalg.transpose
func.func @kept(%a: tensor<2x3x4xf32>, %e: tensor<4x2x3xf32>, %e2: tensor<3x4x2xf32>)
    -> tensor<3x4x2xf32> {
  %t = linalg.transpose ins(%a : tensor<2x3x4xf32>) outs(%e : tensor<4x2x3xf32>) permutation = [2, 0, 1]
  %u = linalg.transpose ins(%t : tensor<4x2x3xf32>) outs(%e2 : tensor<3x4x2xf32>) permutation = [2, 0, 1]
  return %u : tensor<3x4x2xf32>
}
