// RUN: symshape-opt --split-input-file --symshape-to-iree %s | FileCheck %s
// RUN: not symshape-opt --symshape-to-iree %S/Inputs/reshape_of_truncation.mlir 2>&1 | FileCheck %s --check-prefix=REJECT

// symshape-to-iree infers, verifies the contract, resolves and cleans up:
// what comes out is plain MLIR for iree-compile.

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x8xf32>, %[[W:[^:]*]]: tensor<8x4xf32>, %[[B:[^:]*]]: tensor<4xf32>) -> tensor<?xf32>
// CHECK-NOT: symshape
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x4xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x4xf32>)
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<?x8xf32>, tensor<8x4xf32>) outs(%[[F]] : tensor<?x4xf32>)
// CHECK: %[[BB:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<4xf32>) outs(%[[E]] : tensor<?x4xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[BB]] : tensor<?x4xf32>, tensor<?x4xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
// CHECK: return %[[C]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mlp(%x: tensor<?x8xf32> {symshape.axes = #symshape.shape<[batch, 8]>},
               %w: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %n = symshape.dim %x, 0 : tensor<?x8xf32>
  %rows = symshape.to_index %n
  %e = tensor.empty(%rows) : tensor<?x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x4xf32>) outs(%f : tensor<?x4xf32>) -> tensor<?x4xf32>
  %bb = symshape.broadcast_in_dim %b, %m dims [1] to [dim(1, 0), 4] : (tensor<4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bb : tensor<?x4xf32>, tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<?x4xf32>
  %flat = symshape.reshape %s to [batch * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %flat : tensor<?xf32>
}

// -----

// A stage-2 truncation resolves to an extract_slice of min(max(n, 0), rows).
// CHECK-LABEL: func.func @truncate_exact
// CHECK-NOT: symshape
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract_slice
func.func @truncate_exact(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                          %n: tensor<i64>) -> tensor<?xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 stage exact : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %r = symshape.reshape %t to [dim(0, 0) * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// REJECT: reshape_of_truncation.mlir:4:8: error: 'symshape.reshape' op reshape target extent 0 needs an exact extent, got upper bound '4 * batch'
// REJECT: reshape_of_truncation.mlir:3:8: note: the upper bound comes from 'symshape.dynamic_truncate' here
