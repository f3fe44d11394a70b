// RUN: symshape-opt %s | symshape-opt | FileCheck %s
// RUN: symshape-opt --mlir-print-op-generic %s | symshape-opt | FileCheck %s

// Every symshape op and attribute round-trips through the custom syntax and
// through the generic form.

// CHECK-LABEL: func.func @extent_ops
// CHECK-SAME: (%[[X:.*]]: tensor<?x512xf32> {symshape.axes = #symshape.shape<[batch, 512]>}, %[[N:.*]]: tensor<i64>)
func.func @extent_ops(%x: tensor<?x512xf32> {symshape.axes = #symshape.shape<[batch, 512]>},
                      %n: tensor<i64>) -> index {
  // CHECK: %[[D:.*]] = symshape.dim %[[X]], 0 : tensor<?x512xf32>
  %d = symshape.dim %x, 0 : tensor<?x512xf32>
  // CHECK: %[[C:.*]] = symshape.const 4
  %c = symshape.const 4
  // CHECK: %[[S:.*]] = symshape.runtime_scalar %[[N]] truncate_size : tensor<i64>
  %s = symshape.runtime_scalar %n truncate_size : tensor<i64>
  // CHECK: %[[B:.*]] = symshape.bound %[[X]], 0 : tensor<?x512xf32>
  %b = symshape.bound %x, 0 : tensor<?x512xf32>
  // CHECK: %[[A:.*]] = symshape.add %[[D]], %[[C]]
  %a = symshape.add %d, %c
  // CHECK: %[[SB:.*]] = symshape.sub %[[A]], %[[S]]
  %sb = symshape.sub %a, %s
  // CHECK: %[[M:.*]] = symshape.mul %[[SB]], %[[C]]
  %m = symshape.mul %sb, %c
  // CHECK: %[[FD:.*]] = symshape.floordiv %[[M]], %[[C]]
  %fd = symshape.floordiv %m, %c
  // CHECK: %[[CD:.*]] = symshape.ceildiv %[[FD]], %[[C]]
  %cd = symshape.ceildiv %fd, %c
  // CHECK: %[[MD:.*]] = symshape.mod %[[CD]], %[[C]]
  %md = symshape.mod %cd, %c
  // CHECK: %[[MN:.*]] = symshape.min %[[MD]], %[[B]]
  %mn = symshape.min %md, %b
  // CHECK: %[[MX:.*]] = symshape.max %[[MN]], %[[D]]
  %mx = symshape.max %mn, %d
  // CHECK: %[[I:.*]] = symshape.to_index %[[MX]]
  %i = symshape.to_index %mx
  // CHECK: %[[E:.*]] = symshape.from_index %[[I]]
  %e = symshape.from_index %i
  // CHECK: symshape.to_index %[[E]]
  %r = symshape.to_index %e
  return %r : index
}

// CHECK-LABEL: func.func @tensor_ops
func.func @tensor_ops(%x: tensor<?x?x768xf32>, %n: tensor<i32>, %table: tensor<?x?xf32>,
                      %ids: tensor<?x1xi64>, %bias: tensor<768xf32>) {
  // CHECK: symshape.reshape %{{.*}} to [dim(0, 0) * dim(0, 1), 768] : (tensor<?x?x768xf32>) -> tensor<?x768xf32>
  %r = symshape.reshape %x to [dim(0, 0) * dim(0, 1), 768] : (tensor<?x?x768xf32>) -> tensor<?x768xf32>
  // CHECK: symshape.reshape %{{.*}}, %{{.*}} to [scalar(1, index), dim(0, 0) * dim(0, 1) * 768 floordiv scalar(1, index)] : (tensor<?x?x768xf32>, tensor<i32>) -> tensor<?x?xf32>
  %r2 = symshape.reshape %x, %n to [scalar(1, index), dim(0, 0) * dim(0, 1) * 768 floordiv scalar(1, index)] : (tensor<?x?x768xf32>, tensor<i32>) -> tensor<?x?xf32>
  // CHECK: symshape.broadcast_in_dim %{{.*}}, %{{.*}} dims [2] to [dim(1, 0), dim(1, 1), 768] : (tensor<768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
  %b = symshape.broadcast_in_dim %bias, %x dims [2] to [dim(1, 0), dim(1, 1), 768] : (tensor<768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
  // CHECK: symshape.dynamic_truncate %{{.*}}, %{{.*}} axis 1 : (tensor<?x?x768xf32>, tensor<i32>) -> tensor<?x?x768xf32>
  %t1 = symshape.dynamic_truncate %x, %n axis 1 : (tensor<?x?x768xf32>, tensor<i32>) -> tensor<?x?x768xf32>
  // CHECK: symshape.dynamic_truncate %{{.*}}, %{{.*}} axis 1 stage exact : (tensor<?x?x768xf32>, tensor<i32>) -> tensor<?x?x768xf32>
  %t2 = symshape.dynamic_truncate %x, %n axis 1 stage exact : (tensor<?x?x768xf32>, tensor<i32>) -> tensor<?x?x768xf32>
  // CHECK: symshape.dynamic_truncate %{{.*}}, %{{.*}} axis 1 stage upper_bound : (tensor<?x?x768xf32>, tensor<i32>) -> tensor<?x?x768xf32>
  %t3 = symshape.dynamic_truncate %x, %n axis 1 stage upper_bound : (tensor<?x?x768xf32>, tensor<i32>) -> tensor<?x?x768xf32>
  // CHECK: symshape.gather %{{.*}}[%{{.*}}] start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, dim(0, 1)] : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x?xf32>
  %g = symshape.gather %table[%ids] start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, dim(0, 1)] : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x?xf32>
  // CHECK: symshape.gather %{{.*}}[%{{.*}}] start_index_map [0] collapsed_slice_dims [] slice_sizes [2, 3] : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x2x3xf32>
  %g2 = symshape.gather %table[%ids] start_index_map [0] collapsed_slice_dims [] slice_sizes [2, 3] : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x2x3xf32>
  return
}

// CHECK-LABEL: func.func @annotations
func.func @annotations(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: symshape.shape = #symshape.shape<[ub(batch - 1), 4]>
  %0 = tensor.cast %x {symshape.shape = #symshape.shape<[ub(batch - 1), 4]>} : tensor<?x4xf32> to tensor<?x4xf32>
  // CHECK: call @two_results() {symshape.shape = [#symshape.shape<[?, 4]>, #symshape.shape<[]>]}
  %1:2 = func.call @two_results() {symshape.shape = [#symshape.shape<[?, 4]>, #symshape.shape<[]>]} : () -> (tensor<?x4xf32>, tensor<f32>)
  // CHECK: symshape.value = #symshape.extent<ub(batch)>
  %c0 = arith.constant 0 : index
  %2 = arith.addi %c0, %c0 {symshape.value = #symshape.extent<ub(batch)>} : index
  // CHECK: symshape.value = #symshape.shape<[batch, 4]>
  %3 = tensor.from_elements %2, %c0 {symshape.value = #symshape.shape<[batch, 4]>} : tensor<2xindex>
  return %0 : tensor<?x4xf32>
}
func.func private @two_results() -> (tensor<?x4xf32>, tensor<f32>)

// The int64 extremes round-trip.
// CHECK-LABEL: func.func @const_extremes
func.func @const_extremes() -> (!symshape.extent, !symshape.extent) {
  // CHECK: symshape.const -9223372036854775808
  %lo = symshape.const -9223372036854775808
  // CHECK: symshape.const 9223372036854775807
  %hi = symshape.const 9223372036854775807
  return %lo, %hi : !symshape.extent, !symshape.extent
}
