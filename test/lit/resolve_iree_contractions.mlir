// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-resolve=target=iree %s | FileCheck %s

// Attention's head merge: IREE 3.13 fuses a transpose of a contraction's
// result into the contraction's output map, and the CPU kernel is slow. The
// transpose reads the result through a barrier (here 16 x 128 x 64 x 128
// multiply-adds).
// CHECK-LABEL: func.func @head_merge
// CHECK:         %[[C:.*]] = linalg.batch_matmul
// CHECK:         %[[B:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[C]]) : (tensor<16x128x64xf32>) -> tensor<16x128x64xf32>
// CHECK:         linalg.transpose ins(%[[B]] : tensor<16x128x64xf32>) {{.*}} permutation = [1, 0, 2]
func.func @head_merge(%p: tensor<16x128x128xf32>, %v: tensor<16x128x64xf32>) -> tensor<128x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x128x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x128x64xf32>) -> tensor<16x128x64xf32>
  %c = linalg.batch_matmul ins(%p, %v : tensor<16x128x128xf32>, tensor<16x128x64xf32>)
      outs(%z : tensor<16x128x64xf32>) -> tensor<16x128x64xf32>
  %e2 = tensor.empty() : tensor<128x16x64xf32>
  %t = linalg.transpose ins(%c : tensor<16x128x64xf32>) outs(%e2 : tensor<128x16x64xf32>)
      permutation = [1, 0, 2]
  return %t : tensor<128x16x64xf32>
}

// -----

// A projection written as a generic, a bias, the split into heads, then the
// heads' transpose: the barrier goes on the transpose's input, after the
// bias and the reshape (IREE still fuses those into the contraction).
// CHECK-LABEL: func.func @projected_heads
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         %[[BIAS:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:         %[[X:.*]] = tensor.expand_shape %[[BIAS]]
// CHECK:         %[[B:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[X]]) : (tensor<128x2x128xf32>) -> tensor<128x2x128xf32>
// CHECK:         linalg.transpose ins(%[[B]] : tensor<128x2x128xf32>) {{.*}} permutation = [1, 0, 2]
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @projected_heads(%x: tensor<128x256xf32>, %w: tensor<256x256xf32>, %b: tensor<256xf32>)
    -> tensor<2x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %m = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<128x256xf32>, tensor<256x256xf32>) outs(%z : tensor<128x256xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<128x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<128x256xf32>, tensor<256xf32>) outs(%e : tensor<128x256xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<128x256xf32>
  %h = tensor.expand_shape %y [[0], [1, 2]] output_shape [128, 2, 128]
      : tensor<128x256xf32> into tensor<128x2x128xf32>
  %e2 = tensor.empty() : tensor<2x128x128xf32>
  %t = linalg.transpose ins(%h : tensor<128x2x128xf32>) outs(%e2 : tensor<2x128x128xf32>)
      permutation = [1, 0, 2]
  return %t : tensor<2x128x128xf32>
}

// -----

// A dynamic result goes through the barrier with its sizes.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK:         %[[C:.*]] = linalg.matmul
// CHECK:         %[[N:.*]] = tensor.dim %[[C]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[B:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[C]], %[[N]]) : (tensor<?x4xf32>, index) -> tensor<?x4xf32>
// CHECK:         linalg.transpose ins(%[[B]] : tensor<?x4xf32>)
func.func @dynamic_rows(%x: tensor<?x3xf32> {symshape.axes = #symshape.shape<[n, 3]>},
                        %w: tensor<3x4xf32>) -> tensor<4x?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x3xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x3xf32>, tensor<3x4xf32>)
      outs(%z : tensor<?x4xf32>) -> tensor<?x4xf32>
  %e2 = tensor.empty(%n) : tensor<4x?xf32>
  %t = linalg.transpose ins(%m : tensor<?x4xf32>) outs(%e2 : tensor<4x?xf32>)
      permutation = [1, 0]
  return %t : tensor<4x?xf32>
}

// -----

// A transpose of an argument, of an elementwise result of one, of a
// reduction that is no contraction (a sum), or of a contraction of fewer
// than 2^20 multiply-adds (its own dispatch would cost more) stays as it is.
// CHECK-LABEL: func.func @no_contraction
// CHECK-NOT:     iree_tensor_ext.compute_barrier.start
// CHECK:         return
#rows = affine_map<(i, j, k) -> (i, j, k)>
#sum = affine_map<(i, j, k) -> (i, j)>
#id = affine_map<(i, j) -> (i, j)>
func.func @no_contraction(%x: tensor<2x3xf32>, %y: tensor<2x3x4xf32>)
    -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<32x4x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<2x3xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x3xf32>) outs(%e1 : tensor<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %u = linalg.transpose ins(%d : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [#rows, #sum],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%y : tensor<2x3x4xf32>) outs(%z : tensor<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %v = linalg.transpose ins(%r : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %p = tensor.empty() : tensor<4x32x32xf32>
  %pz = linalg.fill ins(%zero : f32) outs(%p : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %c = linalg.batch_matmul ins(%pz, %pz : tensor<4x32x32xf32>, tensor<4x32x32xf32>)
      outs(%pz : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %e2 = tensor.empty() : tensor<32x4x32xf32>
  %w = linalg.transpose ins(%c : tensor<4x32x32xf32>) outs(%e2 : tensor<32x4x32xf32>)
      permutation = [1, 0, 2]
  return %t, %u, %v, %w : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<32x4x32xf32>
}
