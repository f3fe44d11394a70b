// RUN: %python -m symshape_mlir.frontend %S/Inputs/frontend_programs.py:bias_relu \
// RUN:   %S/Inputs/frontend_programs.py:runtime_broadcast \
// RUN:   %S/Inputs/frontend_programs.py:flatten %S/Inputs/frontend_programs.py:row_sum \
// RUN:   %S/Inputs/frontend_programs.py:project %S/Inputs/frontend_programs.py:truncate \
// RUN:   | FileCheck %s
// RUN: %python -m symshape_mlir.frontend %S/Inputs/frontend_programs.py:bias_relu \
// RUN:   %S/Inputs/frontend_programs.py:runtime_broadcast \
// RUN:   %S/Inputs/frontend_programs.py:flatten %S/Inputs/frontend_programs.py:row_sum \
// RUN:   %S/Inputs/frontend_programs.py:project %S/Inputs/frontend_programs.py:truncate \
// RUN:   | symshape-opt --symshape-infer-shapes --symshape-verify-contract \
// RUN:   | FileCheck %s --check-prefix=INFER
// RUN: not %python -m symshape_mlir.frontend %S/Inputs/frontend_programs.py:bad_reshape 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERROR
// RUN: not %python -m symshape_mlir.frontend %S/Inputs/frontend_programs.py:named_apart 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NAMED

// What the Python frontend emits for the programs of Inputs/frontend_programs.py,
// and the shapes inference derives from it (the same as the frontend's at trace
// time), through `python -m symshape_mlir.frontend FILE.py:FUNCTION`.

// Elementwise ops are linalg.generic; the bias is read through a projected map
// (static broadcast), the result sized from the batch axis of `x`.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_relu(
// CHECK-SAME:    %[[X:.*]]: tensor<?x8xf32> {symshape.axes = #symshape.shape<[batch, 8]>}
// CHECK-SAME:    %[[B:.*]]: tensor<8xf32>)
// CHECK:         %[[N:.*]] = symshape.dim %[[X]], 0
// CHECK:         %[[I:.*]] = symshape.to_index %[[N]]
// CHECK:         %[[E:.*]] = tensor.empty(%[[I]]) : tensor<?x8xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
// CHECK-SAME:      ins(%[[X]], %[[B]] : tensor<?x8xf32>, tensor<8xf32>) outs(%[[E]]
// CHECK:           arith.addf
// CHECK:           arith.maximumf
// INFER-LABEL: func.func @bias_relu(
// INFER:         linalg.generic {{.*}}symshape.shape = #symshape.shape<[batch, 8]>
// INFER:         linalg.generic {{.*}}symshape.shape = #symshape.shape<[batch, 8]>

// An unnamed axis meeting `batch` adopts the name (seed 004): the result is
// [batch, 8], and only `y` is broadcast at run time (its rows must be 1 or
// `batch`).
// CHECK-LABEL: func.func @runtime_broadcast(
// CHECK-SAME:    %[[X:.*]]: tensor<?x8xf32> {symshape.axes = #symshape.shape<[batch, 8]>}
// CHECK-SAME:    %[[Y:.*]]: tensor<?x8xf32>)
// CHECK:         %[[B:.*]] = symshape.broadcast_in_dim %[[Y]] dims [0, 1] to [batch, 8]
// CHECK-NOT:     symshape.broadcast_in_dim
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[B]] :
// CHECK:           arith.mulf
// INFER-LABEL: func.func @runtime_broadcast(
// INFER:         linalg.generic {{.*}}symshape.shape = #symshape.shape<[batch, 8]>

// A merge of axes is a collapse_shape; a reshape that is no split or merge
// keeps its symbolic target (-1 computed at trace time).
// CHECK-LABEL: func.func @flatten(
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<?x?x4xf32> into tensor<?x4xf32>
// CHECK:         symshape.reshape %{{.*}} to [2, 2 * batch * seq] : (tensor<?x?x4xf32>) -> tensor<2x?xf32>
// INFER-LABEL: func.func @flatten(
// INFER:         tensor.collapse_shape {{.*}}symshape.shape = #symshape.shape<[batch * seq, 4]>
// INFER:         symshape.reshape {{.*}}symshape.shape = #symshape.shape<[2, 2 * batch * seq]>

// A reduction with keepdims: a reduction generic into a filled accumulator,
// then expand_shape re-inserts the reduced axis.
// CHECK-LABEL: func.func @row_sum(
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [%{{.*}}, 1] : tensor<?xf32> into tensor<?x1xf32>
// INFER-LABEL: func.func @row_sum(
// INFER:         tensor.expand_shape {{.*}}symshape.shape = #symshape.shape<[batch, 1]>

// CHECK-LABEL: func.func @project(
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<8x4xf32>)
// INFER-LABEL: func.func @project(
// INFER:         linalg.matmul {{.*}}symshape.shape = #symshape.shape<[batch, 4]>

// CHECK-LABEL: func.func @truncate(
// CHECK:         symshape.dynamic_truncate %{{.*}}, %{{.*}} axis 0 stage upper_bound
// INFER-LABEL: func.func @truncate(
// INFER:         symshape.dynamic_truncate {{.*}}symshape.shape = #symshape.shape<[ub(batch), 8]>

// The contract at trace time: the error names the op, the Python line and
// where the upper bound came from.
// ERROR: error: reshape at frontend_programs.py:37 (return fe.dynamic_truncate(x, n, axis=0).reshape(-1)): input extent 0 is ub(batch), only an upper bound, and target extent 0 (-1) would be inferred from it; reshape needs an exact extent (the bound comes from dynamic_truncate at frontend_programs.py:37

// Two different named axes broadcast together are different axes unless
// proven equal (seed 004), an error at trace time.
// NAMED: error: multiply at frontend_programs.py:16 (return x * y): cannot broadcast dimension 0: batch (input 0 axis 0 'batch') vs seq (input 1 axis 0 'seq'): different axes unless proven equal
