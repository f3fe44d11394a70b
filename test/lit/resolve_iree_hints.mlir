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
