// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-resolve=target=iree %s | FileCheck %s

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
