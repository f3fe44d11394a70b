// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-resolve %s | FileCheck %s

// symshape-resolve lowers every symshape op to arith/tensor/linalg/cf; the
// output holds no symshape op, type or attribute.

// Extent arithmetic becomes index arithmetic; runtime scalars are read with
// their semantics (clamp_nonneg: max with 0; index: as is).
// CHECK-LABEL: func.func @extent_ops
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x4xf32>, %[[N:[^:]*]]: tensor<i32>)
// CHECK-NOT: symshape
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4xf32>
// CHECK: %[[RAW:.*]] = tensor.extract %[[N]][] : tensor<i32>
// CHECK: %[[V:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK: %[[S:.*]] = arith.maxsi %[[V]], %{{.*}} : index
// CHECK: %[[SUM:.*]] = arith.addi %[[D]], %[[S]] : index
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %[[S]], %{{.*}} : index
// CHECK: cf.assert %[[NZ]], "symshape: division by zero in floordiv (symshape.floordiv at {{.*}}resolve.mlir:[[@LINE+9]]:{{[0-9]+}})"
// CHECK: %[[Q:.*]] = arith.floordivsi %[[SUM]], %[[S]] : index
// CHECK: %[[M:.*]] = arith.minsi %[[Q]], %[[D]] : index
// CHECK: return %[[M]]
func.func @extent_ops(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                      %n: tensor<i32>) -> index {
  %d = symshape.dim %x, 0 : tensor<?x4xf32>
  %s = symshape.runtime_scalar %n clamp_nonneg : tensor<i32>
  %sum = symshape.add %d, %s
  %q = symshape.floordiv %sum, %s
  %m = symshape.min %q, %d
  %i = symshape.to_index %m
  return %i : index
}

// -----

// A divisor that is provably non-zero (an axis plus one) needs no guard.
// CHECK-LABEL: func.func @provable_divisor
// CHECK-NOT: cf.assert
// CHECK: arith.floordivsi
func.func @provable_divisor(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> index {
  %d = symshape.dim %x, 0 : tensor<?xf32>
  %one = symshape.const 1
  %den = symshape.add %d, %one
  %q = symshape.floordiv %d, %den
  %i = symshape.to_index %q
  return %i : index
}

// -----

// Merging axes whose product provably matches becomes a collapse_shape.
// CHECK-LABEL: func.func @reshape_collapse
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
// CHECK-NEXT: return %[[C]]
func.func @reshape_collapse(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> tensor<?xf32> {
  %r = symshape.reshape %x to [batch * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Splitting an axis whose size provably factors becomes an expand_shape.
// CHECK-LABEL: func.func @reshape_expand
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x4xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[X]]
// CHECK: %[[E:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [%[[D]], 1, 4] : tensor<?x4xf32> into tensor<?x1x4xf32>
// CHECK-NEXT: return %[[E]]
func.func @reshape_expand(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> tensor<?x1x4xf32> {
  %r = symshape.reshape %x to [batch, 1, 4] : (tensor<?x4xf32>) -> tensor<?x1x4xf32>
  return %r : tensor<?x1x4xf32>
}

// -----

// Constant targets are static in the expanded type; a cast restores the
// op's (less static) result type.
// CHECK-LABEL: func.func @reshape_expand_constant_axis
// CHECK: %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [%{{.*}}, 1, 64] : tensor<?x64xf32> into tensor<?x1x64xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[E]] : tensor<?x1x64xf32> to tensor<?x?x64xf32>
// CHECK-NEXT: return %[[C]]
func.func @reshape_expand_constant_axis(%x: tensor<?x64xf32> {symshape.axes = #symshape.shape<[batch, 64]>}) -> tensor<?x?x64xf32> {
  %r = symshape.reshape %x to [batch, 1, 64] : (tensor<?x64xf32>) -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// -----

// Otherwise the element count is checked at run time and the reshape goes
// through an i64 shape tensor (IREE rejects index shape tensors).
// CHECK-LABEL: func.func @reshape_general
// CHECK: %[[OK:.*]] = arith.cmpi eq
// CHECK: cf.assert %[[OK]], "symshape: reshape target changes the element count (symshape.reshape at {{.*}})"
// CHECK: %[[S:.*]] = tensor.from_elements %{{.*}}, %{{.*}} : tensor<2xi64>
// CHECK: tensor.reshape %{{.*}}(%[[S]]) : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x8xf32>
func.func @reshape_general(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> tensor<?x8xf32> {
  %r = symshape.reshape %x to [batch floordiv 2, 8] : (tensor<?x4xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// A broadcast of statically known axes is a linalg.generic with a
// broadcasting indexing map.
// CHECK-DAG: #[[BMAP:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @broadcast_static_axes
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x4xf32>, %[[B:[^:]*]]: tensor<4xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]]
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[BMAP]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[B]] : tensor<4xf32>) outs(%[[E]] : tensor<?x4xf32>)
func.func @broadcast_static_axes(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                                 %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %y = symshape.broadcast_in_dim %b, %x dims [1] to [dim(1, 0), 4] : (tensor<4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// A dynamic input axis may be 1 at run time: it is checked to be 1 or the
// target, and the body selects index 0 when it is 1.
// CHECK-LABEL: func.func @broadcast_dynamic_axis
// CHECK: cf.assert %{{.*}}, "symshape: broadcast_in_dim input axis 0 is neither 1 nor the target extent (symshape.broadcast_in_dim at {{.*}})"
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[SEL:.*]] = arith.select %{{.*}}, %{{.*}}, %[[I]] : index
// CHECK: tensor.extract %{{.*}}[%[[SEL]], %{{.*}}] : tensor<?x4xf32>
func.func @broadcast_dynamic_axis(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = symshape.broadcast_in_dim %x, %y dims [0, 1] to [dim(1, 0), 4] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// dynamic_truncate keeps min(max(n, 0), dim) rows.
// CHECK-LABEL: func.func @truncate
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x4xf32>, %[[N:[^:]*]]: tensor<i64>)
// CHECK-DAG: %[[D:.*]] = tensor.dim %[[X]]
// CHECK-DAG: %[[RAW:.*]] = tensor.extract %[[N]][]
// CHECK-DAG: %[[V:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK-DAG: %[[C:.*]] = arith.maxsi %[[V]], %{{.*}} : index
// CHECK: %[[K:.*]] = arith.minsi %[[C]], %[[D]] : index
// CHECK: tensor.extract_slice %[[X]][0, 0] [%[[K]], 4] [1, 1] : tensor<?x4xf32> to tensor<?x4xf32>
func.func @truncate(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?x4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 stage exact : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  return %t : tensor<?x4xf32>
}

// -----

// A gather with symbolic slice sizes reads the operand inside a
// linalg.generic; starts are clamped to [0, dim - size].
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[T:[^:]*]]: tensor<?x?xf32>, %[[IDS:[^:]*]]: tensor<?x1xi64>)
// CHECK: %[[W:.*]] = tensor.dim %[[T]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[R:.*]] = tensor.dim %[[T]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[LIMIT:.*]] = arith.subi %[[R]], %{{.*}} : index
// CHECK: cf.assert %{{.*}}, "symshape: gather slice_sizes extent 0 exceeds the operand dimension (symshape.gather at {{.*}})"
// CHECK: %[[B:.*]] = tensor.dim %[[IDS]]
// CHECK: %[[E:.*]] = tensor.empty(%[[B]], %[[W]]) : tensor<?x?xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<?x?xf32>)
// CHECK: %[[ID:.*]] = tensor.extract %[[IDS]][%{{.*}}, %{{.*}}] : tensor<?x1xi64>
// CHECK: %[[START:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK: %[[POS:.*]] = arith.maxsi %[[START]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.minsi %[[POS]], %[[LIMIT]] : index
// CHECK: tensor.extract %[[T]][%[[ROW]], %{{.*}}] : tensor<?x?xf32>
func.func @gather(%table: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rows, width]>},
                  %ids: tensor<?x1xi64>) -> tensor<?x?xf32> {
  %g = symshape.gather %table[%ids] start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, dim(0, 1)] : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}

// -----

// symshape.bound lowers to the size of the axis, a sound upper bound.
// CHECK-LABEL: func.func @bound
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x4xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK: return %[[D]]
func.func @bound(%x: tensor<?x4xf32>) -> index {
  %b = symshape.bound %x, 0 : tensor<?x4xf32>
  %i = symshape.to_index %b
  return %i : index
}

// -----

// The user's scalar divisions get a guard when the divisor may be zero
// (an ONNX-style -1 reshape divides by a product of sizes).
// CHECK-LABEL: func.func @user_division
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %[[DEN:.*]], %{{.*}} : i64
// CHECK: cf.assert %[[NZ]], "symshape: division by zero in arith.divsi at {{.*}}resolve.mlir:[[@LINE+6]]:{{[0-9]+}}"
// CHECK: arith.divsi %{{.*}}, %[[DEN]] : i64
func.func @user_division(%x: tensor<?x?xf32>, %numel: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x?xf32>
  %den = arith.index_cast %d : index to i64
  %q = arith.divsi %numel, %den : i64
  return %q : i64
}

// -----

// The verifier rejects a static offset 0 into a static extent 0: that
// offset is a value.
// CHECK-LABEL: func.func @truncate_empty_axis
// CHECK:         tensor.extract_slice %{{.*}}[%{{c0(_[0-9]+)?}}, 0] [%{{.*}}, %{{.*}}] [1, 1] : tensor<0x?xf32> to tensor<?x?xf32>
func.func @truncate_empty_axis(%x: tensor<0x?xf32>, %n: tensor<i64>) -> tensor<?x?xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<0x?xf32>, tensor<i64>) -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}
