// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-resolve=target=iree %s | FileCheck %s

// IREE 3.13 sizes a scalar-condition select between dynamic tensors from one
// operand whichever is chosen, and canonicalize folds an scf.if yielding
// values from outside into such a select; once tensors are stream resources,
// IREE also folds such a branch into a select of resources that can break
// partitioning. The select becomes an scf.if; a branch that computes no
// tensor it yields yields a copy (a dispatch), tied to its own sizes; the
// condition goes through a barrier, so that IREE merges no two branches
// (nor then their copies). A choice the function returns leaves through a
// barrier tied to its sizes (IREE sized a returned choice that a later choice
// also read by the wrong branch).
// CHECK-LABEL: func.func @choose
// CHECK-SAME:    (%[[C:[^:]*]]: i1, %[[A:[^:]*]]: tensor<?xf32>, %[[B:[^:]*]]: tensor<?xf32>)
// CHECK-NOT:     arith.select
// CHECK:         %[[CB:.*]] = "util.optimization_barrier"(%[[C]]) : (i1) -> i1
// CHECK:         %[[R:.*]] = scf.if %[[CB]] -> (tensor<?xf32>) {
// CHECK:           %[[DA:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?xf32>
// CHECK:           %[[EA:.*]] = tensor.empty(%[[DA]]) : tensor<?xf32>
// CHECK:           %[[CA:.*]] = linalg.generic {{.*}} outs(%[[EA]] : tensor<?xf32>)
// CHECK:             %[[IA:.*]] = linalg.index 0 : index
// CHECK:             %[[XA:.*]] = tensor.extract %[[A]][%[[IA]]] : tensor<?xf32>
// CHECK:             linalg.yield %[[XA]] : f32
// CHECK:           %[[DCA:.*]] = tensor.dim %[[CA]], %{{.*}} : tensor<?xf32>
// CHECK:           %[[TA:.*]] = "flow.tensor.tie_shape"(%[[CA]], %[[DCA]]) : (tensor<?xf32>, index) -> tensor<?xf32>
// CHECK:           scf.yield %[[TA]] : tensor<?xf32>
// CHECK:         } else {
// CHECK:           tensor.extract %[[B]]
// CHECK:           %[[TB:.*]] = "flow.tensor.tie_shape"
// CHECK:           scf.yield %[[TB]] : tensor<?xf32>
// CHECK:         %[[DR:.*]] = tensor.dim %[[R]], %{{.*}} : tensor<?xf32>
// CHECK:         %[[BR:.*]] = "util.optimization_barrier"(%[[R]]) : (tensor<?xf32>) -> tensor<?xf32>
// CHECK:         %[[TR:.*]] = "flow.tensor.tie_shape"(%[[BR]], %[[DR]]) : (tensor<?xf32>, index) -> tensor<?xf32>
// CHECK:         return %[[TR]]
func.func @choose(%c: i1, %a: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                  %b: tensor<?xf32> {symshape.axes = #symshape.shape<[m]>}) -> tensor<?xf32> {
  %r = arith.select %c, %a, %b : tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Static tensors of one type cannot differ in size: the select stays.
// CHECK-LABEL: func.func @choose_static
// CHECK:         arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NOT:     scf.if
func.func @choose_static(%c: i1, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.select %c, %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A branch that computes its tensor (then a view of it) yields it tied; one
// that only views an argument (a view is metadata on the buffer in IREE)
// yields a copy of the view.
// CHECK-LABEL: func.func @branch
// CHECK-SAME:    (%{{[^:]*}}: i1, %[[A:[^:]*]]: tensor<?xf32>, %[[B:[^:]*]]: tensor<?xf32>)
// CHECK:         scf.if %{{.*}} -> (tensor<?x1xf32>) {
// CHECK:           %[[S:.*]] = arith.addf %[[A]], %[[B]] : tensor<?xf32>
// CHECK:           %[[ES:.*]] = tensor.expand_shape %[[S]]
// CHECK-NOT:       linalg.generic
// CHECK:           %[[TS:.*]] = "flow.tensor.tie_shape"(%[[ES]], %{{.*}})
// CHECK:           scf.yield %[[TS]] : tensor<?x1xf32>
// CHECK:         } else {
// CHECK:           %[[EB:.*]] = tensor.expand_shape %[[B]]
// CHECK:           %[[CB:.*]] = linalg.generic
// CHECK:             tensor.extract %[[EB]]
// CHECK:           %[[TB:.*]] = "flow.tensor.tie_shape"(%[[CB]], %{{.*}})
// CHECK:           scf.yield %[[TB]] : tensor<?x1xf32>
func.func @branch(%c: i1, %a: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                  %b: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<?x1xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %r = scf.if %c -> (tensor<?x1xf32>) {
    %s = arith.addf %a, %b : tensor<?xf32>
    %e = tensor.expand_shape %s [[0, 1]] output_shape [%n, 1] : tensor<?xf32> into tensor<?x1xf32>
    scf.yield %e : tensor<?x1xf32>
  } else {
    %e = tensor.expand_shape %b [[0, 1]] output_shape [%n, 1] : tensor<?xf32> into tensor<?x1xf32>
    scf.yield %e : tensor<?x1xf32>
  }
  return %r : tensor<?x1xf32>
}

// -----

// A tensor both branches yield is the result: no choice, no copy.
// CHECK-LABEL: func.func @same_either_way
// CHECK-SAME:    (%{{[^:]*}}: i1, %[[A:[^:]*]]: tensor<?xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[A]] : tensor<?xf32>
func.func @same_either_way(%c: i1, %a: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>})
    -> tensor<?xf32> {
  %r = scf.if %c -> (tensor<?xf32>) {
    scf.yield %a : tensor<?xf32>
  } else {
    scf.yield %a : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
