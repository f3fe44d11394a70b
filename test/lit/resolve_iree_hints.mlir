// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-resolve=target=iree %s | FileCheck %s

// With target=iree, a dynamic axis bounded by a constant gets IREE hints
// (util.assume.int, flow.tensor.tie_shape in generic form); the bound never
// becomes the shape.

// CHECK-LABEL: func.func @truncate_static_axis
// CHECK: %[[K:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: %[[S:.*]] = tensor.extract_slice %{{.*}}[0, 0] [%[[K]], 4] [1, 1] : tensor<128x4xf32> to tensor<?x4xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[S]], %{{.*}} : tensor<?x4xf32>
// CHECK: %[[H:.*]] = "util.assume.int"(%[[D]]) {assumptions = {{\[\[}}#util.int.assumption<umin = 0, umax = 128>]]} : (index) -> index
// CHECK: %[[T:.*]] = "flow.tensor.tie_shape"(%[[S]], %[[H]]) : (tensor<?x4xf32>, index) -> tensor<?x4xf32>
// CHECK: return %[[T]]
func.func @truncate_static_axis(%x: tensor<128x4xf32>, %n: tensor<i64>) -> tensor<?x4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<128x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  return %t : tensor<?x4xf32>
}

// -----

// A symbolic upper bound gives no hint.
// CHECK-LABEL: func.func @truncate_named_axis
// CHECK-NOT: util.assume.int
// CHECK: return
func.func @truncate_named_axis(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?x4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  return %t : tensor<?x4xf32>
}

// -----

// A cast to a static size whose run-time check reads its source: IREE takes
// the cast as a promise about the source and would fold the check's
// tensor.dim to the static size, so the cast reads the source through an
// optimization barrier (its sizes tied to the source's) and the check reads
// the source itself.
// CHECK-LABEL: func.func @checked_cast
// CHECK-SAME:    (%[[X:[^:]*]]: tensor<?xf32>)
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?xf32>
// CHECK:         %[[OK:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : index
// CHECK:         cf.assert %[[OK]], "symshape: check failed: source axis 0 and the static result extent 3 are equal (tensor.cast at {{.*}})"
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?xf32>
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[X]]) : (tensor<?xf32>) -> tensor<?xf32>
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]], %[[N]]) : (tensor<?xf32>, index) -> tensor<?xf32>
// CHECK:         tensor.cast %[[T]] : tensor<?xf32> to tensor<3xf32>
func.func @checked_cast(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<3xf32> {
  %c = tensor.cast %x : tensor<?xf32> to tensor<3xf32>
  return %c : tensor<3xf32>
}
