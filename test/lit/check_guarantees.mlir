// RUN: symshape-opt --split-input-file --symshape-infer-shapes --canonicalize --cse --symshape-check-guarantees %s | FileCheck %s

// Upstream canonicalization keeps every recorded guarantee: the check passes
// and the IR is unchanged by it.

// CHECK-LABEL: func.func @canonicalize_keeps_bounds
// CHECK: symshape.dynamic_truncate {{.*}}symshape.shape = #symshape.shape<[ub(batch), 4]>
// CHECK: symshape.reshape {{.*}}symshape.shape = #symshape.shape<[4 * min(batch, max(0, _d0 - _d1))]>
func.func @canonicalize_keeps_bounds(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                                     %n: tensor<i64>) -> (tensor<?x4xf32>, tensor<?xf32>) {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %e = symshape.dynamic_truncate %x, %n axis 0 stage exact : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %r = symshape.reshape %e to [dim(0, 0) * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %t, %r : tensor<?x4xf32>, tensor<?xf32>
}
