// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-verify-contract --symshape-check-guarantees %s | FileCheck %s
// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-verify-contract=mode=defer --symshape-check-guarantees %s | FileCheck %s --check-prefix=DEFER

// Programs that respect the contract pass unchanged in both modes (defer mode
// adds no check). Violations: verify_contract_invalid.mlir (reject) and
// verify_contract_defer.mlir (defer).

// A reshape target over an exact named axis.
// CHECK-LABEL: func.func @reshape_named_axis
// CHECK: symshape.reshape
// DEFER-LABEL: func.func @reshape_named_axis
// DEFER-NOT: cf.assert
// DEFER: symshape.reshape
func.func @reshape_named_axis(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> tensor<?xf32> {
  %r = symshape.reshape %x to [batch * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Stage 2 of dynamic_truncate is exact, so the reshape is accepted.
// CHECK-LABEL: func.func @reshape_after_exact_truncate
// CHECK: symshape.dynamic_truncate {{.*}}symshape.shape = #symshape.shape<[min(batch, max(0, _d0 - _d1)), 4]>
// CHECK: symshape.reshape
// DEFER-LABEL: func.func @reshape_after_exact_truncate
// DEFER-NOT: cf.assert
func.func @reshape_after_exact_truncate(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                                        %n: tensor<i64>) -> tensor<?xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 stage exact : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %r = symshape.reshape %t to [dim(0, 0) * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// The value of a bound is exactly the bound expression: an allocation it
// sizes has exact extents, while the truncated tensor's stay a bound.
// CHECK-LABEL: func.func @bound_sizes_allocation
// CHECK: symshape.bound {{.*}}symshape.value = #symshape.extent<batch>
// CHECK: tensor.empty{{.*}}symshape.shape = #symshape.shape<[batch, 4]>
// DEFER-LABEL: func.func @bound_sizes_allocation
// DEFER-NOT: cf.assert
func.func @bound_sizes_allocation(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                                  %n: tensor<i64>) -> tensor<?x4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %cap = symshape.bound %t, 0 : tensor<?x4xf32>
  %rows = symshape.to_index %cap
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%rows) : tensor<?x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %f : tensor<?x4xf32>
}

// -----

// A buffer sized by the bound, with the truncated rows inserted at the top:
// `dim(%t, 0) <= batch` is what `ub(batch)` says, and the buffer has exactly
// `batch` rows, so the insertion is proven in bounds (no remark, no check).
// CHECK-LABEL: func.func @insert_truncated_rows
// CHECK: tensor.insert_slice {{.*}}symshape.shape = #symshape.shape<[batch, 4]>
// DEFER-LABEL: func.func @insert_truncated_rows
// DEFER-NOT: cf.assert
func.func @insert_truncated_rows(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                                 %n: tensor<i64>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %cap = symshape.bound %t, 0 : tensor<?x4xf32>
  %rows = symshape.to_index %cap
  %e = tensor.empty(%rows) : tensor<?x4xf32>
  %buf = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %k = tensor.dim %t, %c0 : tensor<?x4xf32>
  %r = tensor.insert_slice %t into %buf[0, 0] [%k, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// A bound whose expression the arguments do not give (a size read from a
// signed scalar inside the function) is the axis size itself: a fresh exact
// symbol ranging over [0, bound].
// CHECK-LABEL: func.func @bound_over_data
// CHECK-SAME: attributes {symshape.ranges = {[[B:_d[0-9]+]] = #symshape.shape<[0, _d{{[0-9]+}} - _d{{[0-9]+}}]>}}
// CHECK: symshape.bound {{.*}}symshape.value = #symshape.extent<[[B]]>
// CHECK: tensor.empty{{.*}}symshape.shape = #symshape.shape<[[[B]]]>
// DEFER-LABEL: func.func @bound_over_data
// DEFER-NOT: cf.assert
func.func @bound_over_data(%s: tensor<index>, %n: tensor<i64>) -> tensor<?xf32> {
  %size = tensor.extract %s[] : tensor<index>
  %x = tensor.empty(%size) : tensor<?xf32>
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %cap = symshape.bound %t, 0 : tensor<?xf32>
  %rows = symshape.to_index %cap
  %e = tensor.empty(%rows) : tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

// Broadcast targets and gather slice sizes over exact extents.
// CHECK-LABEL: func.func @broadcast_and_gather
// CHECK: symshape.broadcast_in_dim {{.*}}symshape.shape = #symshape.shape<[batch, 4]>
// CHECK: symshape.gather {{.*}}symshape.shape = #symshape.shape<[ids, 4]>
// DEFER-LABEL: func.func @broadcast_and_gather
// DEFER-NOT: cf.assert
func.func @broadcast_and_gather(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                                %b: tensor<4xf32>,
                                %ids: tensor<?x1xi64> {symshape.axes = #symshape.shape<[ids, 1]>})
    -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %y = symshape.broadcast_in_dim %b, %x dims [1] to [dim(1, 0), 4] : (tensor<4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %g = symshape.gather %x[%ids] start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, dim(0, 1)] : (tensor<?x4xf32>, tensor<?x1xi64>) -> tensor<?x4xf32>
  return %y, %g : tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// A tensor.reshape whose shape is built from tensor.dim is exact.
// CHECK-LABEL: func.func @tensor_reshape_from_dims
// CHECK: tensor.reshape {{.*}}symshape.shape = #symshape.shape<[4 * batch]>
// DEFER-LABEL: func.func @tensor_reshape_from_dims
// DEFER-NOT: cf.assert
func.func @tensor_reshape_from_dims(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %d = tensor.dim %x, %c0 : tensor<?x4xf32>
  %n = arith.muli %d, %c4 : index
  %s = tensor.from_elements %n : tensor<1xindex>
  %r = tensor.reshape %x(%s) : (tensor<?x4xf32>, tensor<1xindex>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

