// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-resolve=target=iree %s | FileCheck %s

// IREE 3.13 fails to compile a gather that reads a slice at a run-time
// offset when it fuses the slice into the gather: the slice is made first,
// behind a barrier.
// CHECK-LABEL: func.func @gather_from_offset
// CHECK:         %[[S:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, 0] [%{{.*}}, %{{.*}}] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
// CHECK:         %[[T:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[S]], %{{.*}}, %{{.*}}) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
// CHECK:         linalg.generic
// CHECK:           tensor.extract %[[T]][%{{.*}}, %{{.*}}] : tensor<?x?xf32>
func.func @gather_from_offset(%table: tensor<?x?xf32> {symshape.axes = #symshape.shape<[vocab, width]>},
                              %ids: tensor<?x1xi64> {symshape.axes = #symshape.shape<[n, 1]>},
                              %k: tensor<i64>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = symshape.runtime_scalar %k index : tensor<i64>
  %off = symshape.to_index %e
  %all = tensor.dim %table, %c0 : tensor<?x?xf32>
  %rows = arith.subi %all, %off : index
  %s = tensor.extract_slice %table[%off, 0] [%rows, %c1] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %g = symshape.gather %s[%ids] start_index_map [0] collapsed_slice_dims [0]
      slice_sizes [1, 1] : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}

// -----

// IREE 3.13 reads the first element for every index when it fuses a column
// of a `?x?` tensor (offset 0) into a gather: that slice is made first too.
// CHECK-LABEL: func.func @gather_from_column
// CHECK:         %[[S:.*]] = tensor.extract_slice %{{.*}}[0, 0] [%{{.*}}, %c1] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
// CHECK:         %[[T:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[S]], %{{.*}}, %{{.*}}) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
// CHECK:         linalg.generic
// CHECK:           tensor.extract %[[T]][%{{.*}}, %{{.*}}] : tensor<?x?xf32>
func.func @gather_from_column(%table: tensor<?x?xf32> {symshape.axes = #symshape.shape<[vocab, width]>},
                              %ids: tensor<?x1xi64> {symshape.axes = #symshape.shape<[n, 1]>},
                              %k: tensor<i64>) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %e = symshape.runtime_scalar %k index : tensor<i64>
  %rows = symshape.to_index %e
  %s = tensor.extract_slice %table[0, 0] [%rows, %c1] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %g = symshape.gather %s[%ids] start_index_map [0] collapsed_slice_dims [0]
      slice_sizes [1, 1] : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}

// -----

// An empty slice may start at the end of an axis; IREE 3.13 rejects it once
// the offset folds to a constant equal to a static extent. On a static axis
// a run-time offset becomes 0 where the slice is empty there, and a static
// size 0 takes the offset 0.
// CHECK-LABEL: func.func @empty_at_end
// CHECK-SAME:    (%[[X:.*]]: tensor<3x?xf32>, %[[K:.*]]: index, %[[L:.*]]: index, %[[J:.*]]: index)
// CHECK:         %[[EMPTY:.*]] = arith.cmpi eq, %[[L]], %[[Z:.*]] : index
// CHECK-NEXT:    %[[AT:.*]] = arith.select %[[EMPTY]], %[[Z]], %[[K]] : index
// CHECK-NEXT:    %[[S:.*]] = tensor.extract_slice %[[X]][%[[AT]], %[[J]]] [%[[L]], 2] [1, 1] : tensor<3x?xf32> to tensor<?x2xf32>
// CHECK:         %[[EMPTY2:.*]] = arith.cmpi eq, %[[L]], %[[Z2:.*]] : index
// CHECK-NEXT:    %[[AT2:.*]] = arith.select %[[EMPTY2]], %[[Z2]], %[[K]] : index
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<3x?xf32>)
// CHECK:           arith.subi %{{.*}}, %[[AT2]] : index
// CHECK:         tensor.extract_slice %[[X]][0, %[[J]]] [0, 2] [1, 1] : tensor<3x?xf32> to tensor<0x2xf32>
// CHECK:         return
func.func @empty_at_end(%x: tensor<3x?xf32> {symshape.axes = #symshape.shape<[3, n]>},
                        %k: index, %len: index, %j: index)
    -> (tensor<?x2xf32>, tensor<3x?xf32>, tensor<0x2xf32>) {
  %s = tensor.extract_slice %x[%k, %j] [%len, 2] [1, 1] : tensor<3x?xf32> to tensor<?x2xf32>
  %w = tensor.insert_slice %s into %x[%k, 0] [%len, 2] [1, 1] : tensor<?x2xf32> into tensor<3x?xf32>
  %none = tensor.extract_slice %x[%k, %j] [0, 2] [1, 1] : tensor<3x?xf32> to tensor<0x2xf32>
  return %s, %w, %none : tensor<?x2xf32>, tensor<3x?xf32>, tensor<0x2xf32>
}

// -----

// IREE 3.13 updates an insertion's destination in place although a loop
// also starts from it, or another insertion writes into it (a barrier is
// no copy): an insertion into anything but a fresh tensor.empty becomes a
// linalg.generic that reads the destination and writes a new tensor.
// CHECK-LABEL: func.func @insert_beside_loop
// CHECK-SAME:    (%[[X:.*]]: tensor<?xf32>)
// CHECK:         %[[COPY:.*]] = linalg.copy
// CHECK:         %[[EMPTY:.*]] = tensor.empty
// CHECK:         %[[FIRST:.*]] = tensor.insert_slice %{{.*}} into %[[EMPTY]][0] [%{{.*}}] [1]
// CHECK:         %[[CAT:.*]] = linalg.generic {{.*}} ins(%[[FIRST]] : tensor<?xf32>)
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK:           %[[AT:.*]] = arith.subi %[[I]], %{{.*}} : index
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[AT]], %{{.*}} : index
// CHECK:           scf.if %[[IN]] -> (f32) {
// CHECK:             tensor.extract %[[X]][%[[AT]]] : tensor<?xf32>
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[COPY]] : tensor<?xf32>)
// CHECK-NOT:     iree_tensor_ext.compute_barrier.start
// CHECK-NOT:     util.optimization_barrier
// CHECK:         return %[[CAT]], %[[R]]
func.func @insert_beside_loop(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>})
    -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %copy = linalg.copy ins(%x : tensor<?xf32>) outs(%init : tensor<?xf32>) -> tensor<?xf32>
  %twice = arith.addi %n, %n : index
  %e = tensor.empty(%twice) : tensor<?xf32>
  %first = tensor.insert_slice %x into %e[0] [%n] [1] : tensor<?xf32> into tensor<?xf32>
  %cat = tensor.insert_slice %x into %first[%n] [%n] [1] : tensor<?xf32> into tensor<?xf32>
  %r = tensor.insert_slice %x into %copy[0] [%n] [1] : tensor<?xf32> into tensor<?xf32>
  return %cat, %r : tensor<?xf32>, tensor<?xf32>
}

// -----

// A slice of a tensor with no columns: IREE 3.13 rejects it once it folds
// the offset (no offset is below an extent of 0). It is empty: a
// tensor.empty of its sizes.
// CHECK-LABEL: func.func @truncate_no_columns
// CHECK-NOT:     tensor.extract_slice
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// CHECK-NOT:     tensor.extract_slice
// CHECK:         return %[[E]]
func.func @truncate_no_columns(%x: tensor<?x0xf32> {symshape.axes = #symshape.shape<[r, 0]>},
                               %n: tensor<i64>) -> tensor<?x?xf32> {
  %cols = symshape.dynamic_truncate %x, %n axis 1 stage exact
      : (tensor<?x0xf32>, tensor<i64>) -> tensor<?x?xf32>
  return %cols : tensor<?x?xf32>
}

// -----

// A slice of a fill (here given a unit axis) is a fill of the slice's sizes:
// IREE 3.13 fails to distribute the copy of such a slice at a run-time
// offset in the fill's dispatch.
// CHECK-LABEL: func.func @window_of_ones
// CHECK-SAME:    (%{{[^:]*}}: index, %{{[^:]*}}: index, %[[LEN:[^:]*]]: index)
// CHECK-NOT:     tensor.extract_slice %
// CHECK:         %[[E:.*]] = tensor.empty(%[[LEN]]) : tensor<?x1x2xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x1x2xf32>) -> tensor<?x1x2xf32>
// CHECK-NOT:     tensor.extract_slice %
// CHECK:         return %[[F]]
func.func @window_of_ones(%n: index, %at: index, %len: index) -> tensor<?x1x2xf32> {
  %one = arith.constant 1.0 : f32
  %init = tensor.empty(%n) : tensor<?x2xf32>
  %ones = linalg.fill ins(%one : f32) outs(%init : tensor<?x2xf32>) -> tensor<?x2xf32>
  %spread = tensor.expand_shape %ones [[0], [1, 2]] output_shape [%n, 1, 2]
      : tensor<?x2xf32> into tensor<?x1x2xf32>
  %window = tensor.extract_slice %spread[%at, 0, 0] [%len, 1, 2] [1, 1, 1]
      : tensor<?x1x2xf32> to tensor<?x1x2xf32>
  return %window : tensor<?x1x2xf32>
}

// -----

// IREE 3.13 composes a slice of a slice into one slice of the first source:
// a static offset past a dynamic size is made 0 where that size is 0 when
// the first source's extent is static, as on a static axis.
// CHECK-LABEL: func.func @empty_in_a_slice
// CHECK-SAME:    (%[[X:.*]]: tensor<1xf32>, %[[N:.*]]: index, %[[M:.*]]: index)
// CHECK:         %[[A:.*]] = tensor.extract_slice %[[X]][0] [%[[N]]] [1]
// CHECK:         %[[EMPTY:.*]] = arith.cmpi eq, %[[M]], %[[Z:.*]] : index
// CHECK-NEXT:    %[[AT:.*]] = arith.select %[[EMPTY]], %[[Z]], %c1{{(_[0-9]+)?}} : index
// CHECK-NEXT:    tensor.extract_slice %[[A]][%[[AT]]] [%[[M]]] [1] : tensor<?xf32> to tensor<?xf32>
func.func @empty_in_a_slice(%x: tensor<1xf32>, %n: index, %m: index) -> tensor<?xf32> {
  %a = tensor.extract_slice %x[0] [%n] [1] : tensor<1xf32> to tensor<?xf32>
  %b = tensor.extract_slice %a[1] [%m] [1] : tensor<?xf32> to tensor<?xf32>
  return %b : tensor<?xf32>
}

// -----

// A slice offset read from a tensor goes through a barrier (one per value):
// IREE 3.13 clones the read into the consumer's dispatch and then collapses
// the axes of slices at [0, k] and [k, 0] as if they were contiguous.
// CHECK-LABEL: func.func @slices_at_a_read_offset
// CHECK:         %[[K:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[K]]) : (index) -> index
// CHECK-NOT:     util.optimization_barrier
// CHECK:         tensor.extract_slice %{{.*}}[0, %[[B]]]
// CHECK:         tensor.extract_slice %{{.*}}[%[[B]], 0]
func.func @slices_at_a_read_offset(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[r, c]>},
                                   %t: tensor<i64>, %n: index, %m: index) -> tensor<?x?xf32> {
  %e = symshape.runtime_scalar %t index : tensor<i64>
  %k = symshape.to_index %e
  %a = tensor.extract_slice %x[0, %k] [%n, %m] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %b = tensor.extract_slice %x[%k, 0] [%n, %m] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %s = arith.addf %a, %b : tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// -----

// A slice size cast to index goes through a barrier (one per value), the
// checks read the size itself: IREE 3.13 collapses the sums of slices of a
// cast width to one axis as if both slices were whole rows. Other sizes are
// left as they are (test/lit/resolve_iree_hints.mlir: a clamp of a cast).
// CHECK-LABEL: func.func @slices_of_a_read_width
// CHECK:         %[[M:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[M]]) : (index) -> index
// CHECK-NOT:     util.optimization_barrier
// CHECK:         arith.cmpi sle, %[[M]], %{{.*}} : index
// CHECK:         tensor.extract_slice %{{.*}}[0, 0] [%[[ROWS:.*]], %[[B]]] [1, 1]
// CHECK:         tensor.extract_slice %{{.*}}[0, 0] [%[[ROWS]], %[[B]]] [1, 1]
func.func @slices_of_a_read_width(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[r, c]>},
                                  %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[r, d]>},
                                  %t: tensor<i64>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %e = symshape.runtime_scalar %t index : tensor<i64>
  %m = symshape.to_index %e
  %rows = tensor.dim %x, %c0 : tensor<?x?xf32>
  %a = tensor.extract_slice %x[0, 0] [%rows, %m] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %s = arith.addf %x, %a : tensor<?x?xf32>
  %b = tensor.extract_slice %y[0, 0] [%rows, %m] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %z = arith.addf %s, %b : tensor<?x?xf32>
  return %z : tensor<?x?xf32>
}

// -----

// An element read of a tensor with an empty axis is out of bounds wherever
// it runs: it becomes a zero (IREE 3.13 makes a slice of it, which fails
// to verify once its offset folds).
// CHECK-LABEL: func.func @read_of_nothing
// CHECK-NOT:     tensor.extract %
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.yield %[[Z]] : f32
func.func @read_of_nothing(%x: tensor<?x0xf32> {symshape.axes = #symshape.shape<[r, 0]>},
                           %n: index, %m: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%n, %m) : tensor<?x?xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = tensor.extract %x[%i, %j] : tensor<?x0xf32>
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}

// -----

// A computed tensor that a gather reads element by element and the function
// also returns is made before the gather, behind a barrier: IREE 3.13 made
// it a second result of the gather's dispatch, unwritten when the gather has
// no elements. A computed tensor only the gather reads stays fused.
// CHECK-LABEL: func.func @spread_a_returned_sum
// CHECK:         %[[S:.*]] = arith.addf
// CHECK:         %[[T:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[S]], %{{.*}})
// CHECK:         linalg.generic
// CHECK:           tensor.extract %[[T]]
// CHECK:         %[[P:.*]] = arith.mulf
// CHECK-NOT:     iree_tensor_ext.compute_barrier.start
// CHECK-NOT:     util.optimization_barrier
// CHECK:         linalg.generic
// CHECK:           tensor.extract %[[P]]
// CHECK:         return %[[S]]
func.func @spread_a_returned_sum(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                                 %x: tensor<?x1xf32> {symshape.axes = #symshape.shape<[rows, 1]>})
    -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %s = arith.addf %v, %v : tensor<?xf32>
  %b = symshape.broadcast_in_dim %s, %x dims [1] to [dim(1, 0), dim(1, 1)]
      : (tensor<?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  %p = arith.mulf %v, %v : tensor<?xf32>
  %q = symshape.broadcast_in_dim %p, %x dims [1] to [dim(1, 0), dim(1, 1)]
      : (tensor<?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %s, %b, %q : tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// A spread of a tensor with no elements has no values: an op reading it
// element by element reads a zero (IREE 3.13 gave the tensor.empty such
// reads meet a stack allocation of 9007199254740991 x 9007199254740991
// elements, fuzzer p106007267).
// CHECK-LABEL: func.func @read_of_a_spread_of_nothing
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-NOT:       tensor.extract
// CHECK:           %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT:       tensor.extract
// CHECK:           linalg.yield %[[Z]] : f32
func.func @read_of_a_spread_of_nothing(%v: tensor<0xf32>,
                                       %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[r, c]>})
    -> tensor<3x?x?xf32> {
  %b = symshape.broadcast_in_dim %v, %y dims [1] to [dim(1, 0), dim(1, 1)]
      : (tensor<0xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = symshape.broadcast_in_dim %b dims [1, 2] to [3, dim(0, 0), dim(0, 1)]
      : (tensor<?x?xf32>) -> tensor<3x?x?xf32>
  return %c : tensor<3x?x?xf32>
}

// -----

// A column slice collapsed to a vector and spread over rows is made first,
// behind a barrier, like a slice a gather reads: IREE 3.13 fused it into the
// spread as a strided load and read its first element everywhere (fuzzer
// p107007316).
// CHECK-LABEL: func.func @spread_a_collapsed_column
// CHECK:         %[[S:.*]] = tensor.extract_slice
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[S]]
// CHECK:         %[[T:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[C]], %{{.*}})
// CHECK:         linalg.generic
// CHECK:           tensor.extract %[[T]]
func.func @spread_a_collapsed_column(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[a, b]>},
                                     %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[r, c]>})
    -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %s = tensor.extract_slice %x[0, 1] [%n, 1] [1, 1] : tensor<?x?xf32> to tensor<?x1xf32>
  %v = tensor.collapse_shape %s [[0, 1]] : tensor<?x1xf32> into tensor<?xf32>
  %b = symshape.broadcast_in_dim %v, %y dims [1] to [dim(1, 0), dim(1, 1)]
      : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %b : tensor<?x?xf32>
}

// -----

// A slice of a tensor with no elements is a tensor.empty, and so is a slice
// of that; a spread reading the last element by element reads a zero (IREE
// 3.13 put the tensor.empty such reads meet on the stack at its run-time
// extent and rejected it: 'expected no unbounded stack allocations', fuzzer
// p181001695).
// CHECK-LABEL: func.func @spread_a_slice_of_nothing
// CHECK-NOT:     = tensor.extract_slice
// CHECK:         %[[S:.*]] = tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK-NOT:     = tensor.extract_slice
// CHECK:         %[[T:.*]] = tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK:         %[[B:.*]] = linalg.generic
// CHECK-NOT:       tensor.extract
// CHECK:           %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT:       tensor.extract
// CHECK:           linalg.yield %[[Z]] : f32
// CHECK:         return %[[S]], %[[B]]
func.func @spread_a_slice_of_nothing(%v: tensor<0xf32>, %off: index, %len: index,
                                     %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[r, c]>})
    -> (tensor<?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %n = arith.subi %c0, %off : index
  %s = tensor.extract_slice %v[%off] [%n] [1] : tensor<0xf32> to tensor<?xf32>
  %t = tensor.extract_slice %s[0] [%len] [1] : tensor<?xf32> to tensor<?xf32>
  %b = symshape.broadcast_in_dim %t, %y dims [1] to [dim(1, 0), dim(1, 1)]
      : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %s, %b : tensor<?xf32>, tensor<?x?xf32>
}
