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

// -----

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

// IREE 3.13 can give a loop's initial tensor the buffer of another result
// of the same dispatch group; behind a barrier it keeps its own. Its size
// is an opaque copy: IREE renumbers a dispatch's second copy of one size
// (here the carried tensor's and %a's) as its first workload.
// CHECK-LABEL: func.func @loop
// CHECK-SAME:    (%[[A:[^:]*]]: tensor<?xf32>, %[[K:[^:]*]]: index)
// CHECK:         %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?xf32>
// CHECK:         %[[S:.*]] = "util.optimization_barrier"(%[[D]]) : (index) -> index
// CHECK:         %[[BA:.*]] = "util.optimization_barrier"(%[[A]]) : (tensor<?xf32>) -> tensor<?xf32>
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[BA]], %[[S]]) : (tensor<?xf32>, index) -> tensor<?xf32>
// CHECK:         %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %[[K]] step %{{.*}} iter_args(%{{.*}} = %[[T]]) -> (tensor<?xf32>)
// CHECK:           arith.addf %{{.*}}, %[[A]] : tensor<?xf32>
// The barrier hides the start's size: the result, proved the same size, is
// tied to it.
// CHECK:         %[[TR:.*]] = "flow.tensor.tie_shape"(%[[R]], %[[S]]) : (tensor<?xf32>, index) -> tensor<?xf32>
// CHECK:         return %[[TR]]
func.func @loop(%a: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %a) -> (tensor<?xf32>) {
    %s = arith.addf %acc, %a : tensor<?xf32>
    scf.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// IREE 3.13 fails to compile a gather that reads a slice at a run-time
// offset when it fuses the slice into the gather: the slice is made first,
// behind a barrier.
// CHECK-LABEL: func.func @gather_from_offset
// CHECK:         %[[S:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, 0] [%{{.*}}, %{{.*}}] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[S]]) : (tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]], %{{.*}}, %{{.*}}) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
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
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[S]]) : (tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]], %{{.*}}, %{{.*}}) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
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

// IREE 3.13 re-derives the sizes of a general reshape, or of a split after
// a reshape, as if no size could be 0: run-time target sizes go through a
// barrier; constant ones stay visible.
// CHECK-LABEL: func.func @reshape_sizes
// CHECK:         %[[N:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[N]]) : (i64) -> i64
// CHECK:         %[[S:.*]] = tensor.from_elements %[[B]], %{{.*}} : tensor<2xi64>
// CHECK:         tensor.reshape %{{.*}}(%[[S]])
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape
// CHECK:         %[[R:.*]] = "util.optimization_barrier"(%{{.*}}) : (index) -> index
// CHECK:         tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [%[[R]], 4]
func.func @reshape_sizes(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rows, cols]>},
                         %y: tensor<?x4xf32> {symshape.axes = #symshape.shape<[n, 4]>})
    -> (tensor<?x2xf32>, tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %r = symshape.reshape %x to [dim(0, 0) * dim(0, 1) floordiv 2, 2] : (tensor<?x?xf32>) -> tensor<?x2xf32>
  %n = tensor.dim %y, %c0 : tensor<?x4xf32>
  %flat = tensor.collapse_shape %y [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  %back = tensor.expand_shape %flat [[0, 1]] output_shape [%n, 4] : tensor<?xf32> into tensor<?x4xf32>
  return %r, %back : tensor<?x2xf32>, tensor<?x4xf32>
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

// Elementwise tensors that compute the same (here v + 2v, its operands
// swapped, as a linalg.map and an arith.addf): IREE 3.13 fuses them into
// one dispatch and returns its first result for the second. The later one
// is replaced by the earlier.
// CHECK-LABEL: func.func @sums_beside_their_operand
// CHECK:         %[[TWO:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<?xf32>
// CHECK:         %[[THREE:.*]] = arith.addf %{{.*}}, %[[TWO]] : tensor<?xf32>
// CHECK:         return %[[TWO]], %[[THREE]], %[[THREE]]
func.func @sums_beside_their_operand(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>})
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %two = arith.addf %v, %v : tensor<?xf32>
  %three = arith.addf %v, %two : tensor<?xf32>
  %n = tensor.dim %two, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %also = linalg.map { arith.addf } ins(%two, %v : tensor<?xf32>, tensor<?xf32>)
      outs(%init : tensor<?xf32>)
  return %two, %three, %also : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// The same through a call, which IREE inlines: the call's result is keyed
// by what its callee returns.
// CHECK-LABEL: func.func @sum_beside_a_call
// CHECK:         %[[S:.*]] = call @add
// CHECK:         return %[[S]], %[[S]]
func.func private @add(%p: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                       %q: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<?xf32> {
  %s = arith.addf %p, %q : tensor<?xf32>
  return %s : tensor<?xf32>
}
func.func @sum_beside_a_call(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                             %w: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>})
    -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %s = func.call @add(%v, %w) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %n = tensor.dim %v, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %also = linalg.map { arith.addf } ins(%w, %v : tensor<?xf32>, tensor<?xf32>)
      outs(%init : tensor<?xf32>)
  return %s, %also : tensor<?xf32>, tensor<?xf32>
}

// -----

// A reduction over an axis of extent 0 (1 // 2 columns, which inference
// knows where the types do not): IREE 3.13 dies naming its dispatch. Its
// uses get its init; the op stays, dead.
// CHECK-LABEL: func.func @sum_over_half_a_row
// CHECK:         %[[Z:.*]] = linalg.fill
// CHECK:         linalg.reduce
// CHECK:         return %[[Z]] : tensor<?xf32>
func.func @sum_over_half_a_row(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[r, n]>},
                               %y: tensor<1x?xf32> {symshape.axes = #symshape.shape<[1, n]>})
    -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %one = tensor.dim %y, %c0 : tensor<1x?xf32>
  %k = arith.floordivsi %one, %c2 : index
  %a = tensor.extract_slice %x[0, 0] [%r, %k] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %e = tensor.empty(%r) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce ins(%a : tensor<?x?xf32>) outs(%z : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  return %s : tensor<?xf32>
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

// One element spread over a 1 x 1 tensor: IREE 3.13 drops its unit loops and
// makes of it a slice it rejects. The op gets opaque sizes, and its result a
// barrier tied to them.
// CHECK-LABEL: func.func @spread_one_element
// CHECK:         %[[ONE:.*]]:2 = "util.optimization_barrier"(%{{.*}}, %{{.*}}) : (index, index) -> (index, index)
// CHECK:         %[[E:.*]] = tensor.empty(%[[ONE]]#0, %[[ONE]]#1) : tensor<?x?xf32>
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<?x?xf32>)
// CHECK:           tensor.extract
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[G]]) : (tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]], %[[ONE]]#0, %[[ONE]]#1)
// CHECK:         return %[[T]]
func.func @spread_one_element(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %corner = tensor.empty(%c1, %c1) : tensor<?x?xf32>
  %b = symshape.broadcast_in_dim %v, %corner dims [1] to [dim(1, 0), dim(1, 1)]
      : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %b : tensor<?x?xf32>
}

// -----

// The same over a 1 x 1 slice of a tensor with no rows, which lowering makes
// an empty tensor that inference never saw (fuzzer p105003021).
// CHECK-LABEL: func.func @spread_over_a_slice_of_nothing
// CHECK:         %[[ONE:.*]]:2 = "util.optimization_barrier"(%{{.*}}, %{{.*}}) : (index, index) -> (index, index)
// CHECK:         %[[E:.*]] = tensor.empty(%[[ONE]]#0, %[[ONE]]#1) : tensor<?x?xf32>
// CHECK:         linalg.generic {{.*}} outs(%[[E]] : tensor<?x?xf32>)
func.func @spread_over_a_slice_of_nothing(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                                          %y: tensor<0x?xf32>, %at: index) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %s = tensor.extract_slice %y[%at, 0] [%c1, %c1] [1, 1] : tensor<0x?xf32> to tensor<?x?xf32>
  %b = symshape.broadcast_in_dim %v, %s dims [1] to [dim(1, 0), dim(1, 1)]
      : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %b : tensor<?x?xf32>
}

// -----

// A static 1 x 1 result is cast back from the barrier.
// CHECK-LABEL: func.func @spread_one_element_static
// CHECK:         %[[G:.*]] = linalg.generic
// CHECK:         } -> tensor<?x?xf32>
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[G]])
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]], %{{.*}}, %{{.*}})
// CHECK:         %[[C:.*]] = tensor.cast %[[T]] : tensor<?x?xf32> to tensor<1x1xf32>
// CHECK:         return %[[C]]
func.func @spread_one_element_static(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<1x1xf32> {
  %b = symshape.broadcast_in_dim %v dims [1] to [1, 1]
      : (tensor<?xf32>) -> tensor<1x1xf32>
  return %b : tensor<1x1xf32>
}

// -----

// A fill a loop body reads from outside and that is read outside the loop
// too: IREE 3.13 clones the splat it makes of it into the partitions around
// the loop and leaves the original, read in the body, outside any. Every
// reader reads it through a barrier made right after it; other tensors (%a)
// are read as they are.
// CHECK-LABEL: func.func @captured_fill
// CHECK-SAME:    (%[[A:[^:]*]]: tensor<?xf32>, %[[K:[^:]*]]: index)
// CHECK:         %[[ONES:.*]] = linalg.fill
// CHECK:         %[[D:.*]] = tensor.dim %[[ONES]], %{{.*}} : tensor<?xf32>
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[ONES]]) : (tensor<?xf32>) -> tensor<?xf32>
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]], %[[D]]) : (tensor<?xf32>, index) -> tensor<?xf32>
// CHECK:         scf.for
// CHECK:           %[[S:.*]] = arith.addf %{{.*}}, %[[T]] : tensor<?xf32>
// CHECK:           arith.addf %[[S]], %[[A]] : tensor<?xf32>
// CHECK:         %[[O:.*]] = arith.addf %{{.*}}, %[[T]] : tensor<?xf32>
// CHECK:         %[[P:.*]] = arith.addf %[[O]], %[[A]] : tensor<?xf32>
// CHECK:         return %[[P]]
func.func @captured_fill(%a: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %ones = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %a) -> (tensor<?xf32>) {
    %s = arith.addf %acc, %ones : tensor<?xf32>
    %t = arith.addf %s, %a : tensor<?xf32>
    scf.yield %t : tensor<?xf32>
  }
  %o = arith.addf %r, %ones : tensor<?xf32>
  %p = arith.addf %o, %a : tensor<?xf32>
  return %p : tensor<?xf32>
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

// The same over `b // 2` columns, `b` the bound of a one-element slice:
// inference knows only a bound, but the lowered sizes fold to 0 (as they do
// in IREE), so the lowered reduction's uses get its init.
// CHECK-LABEL: func.func @sum_over_half_a_bound
// CHECK:         %[[Z:.*]] = linalg.fill
// CHECK:         linalg.reduce
// CHECK:         return %[[Z]] : tensor<?xf32>
func.func @sum_over_half_a_bound(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[r, n]>},
                                 %v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>})
    -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %one = tensor.extract_slice %v[0] [%c1] [1] : tensor<?xf32> to tensor<?xf32>
  %b = symshape.bound %one, 0 : tensor<?xf32>
  %bi = symshape.to_index %b
  %k = arith.floordivsi %bi, %c2 : index
  %a = tensor.extract_slice %x[0, 0] [%r, %k] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %e = tensor.empty(%r) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce ins(%a : tensor<?x?xf32>) outs(%z : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  return %s : tensor<?xf32>
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

// A choice reshaped at a run-time size and also read: the reshape reads it
// through a barrier tied to its sizes (IREE 3.13 fails to order the
// partitions around it otherwise); the slice reads the choice itself.
// CHECK-LABEL: func.func @flat_and_head_of_a_choice
// CHECK:         %[[C:.*]] = scf.if
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[C]]) : (tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]], %{{.*}}, %{{.*}}) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
// CHECK:         tensor.reshape %[[T]](%{{.*}}) : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?xf32>
// CHECK:         tensor.extract_slice %[[C]][0, 0]
func.func @flat_and_head_of_a_choice(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[fa, fb]>},
                                     %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[fa, fb]>},
                                     %n: tensor<i64>, %k: index, %cond: i1)
    -> (tensor<?xf32>, tensor<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %c = scf.if %cond -> (tensor<?x?xf32>) {
    scf.yield %x : tensor<?x?xf32>
  } else {
    scf.yield %y : tensor<?x?xf32>
  }
  %e = symshape.runtime_scalar %n index : tensor<i64>
  %len = symshape.to_index %e
  %len64 = arith.index_cast %len : index to i64
  %shape = tensor.from_elements %len64 : tensor<1xi64>
  %flat = tensor.reshape %c(%shape) : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?xf32>
  %cols = tensor.dim %c, %c1 : tensor<?x?xf32>
  %head = tensor.extract_slice %c[0, 0] [%k, %cols] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  return %flat, %head : tensor<?xf32>, tensor<?x?xf32>
}

// -----

// A reduction into an init that only inference knows is empty (sized by the
// bound of columns, which a cast to no columns makes exactly 0): its uses get
// the init. IREE 3.13 crashed choosing its tile sizes.
// CHECK-LABEL: func.func @sum_into_no_columns
// CHECK:         %[[E:.*]] = tensor.empty(%[[ZERO:.*]]) : tensor<?xf32>
// CHECK:         %[[Z:.*]] = linalg.fill {{.*}} outs(%[[E]] : tensor<?xf32>)
// CHECK:         linalg.reduce
// CHECK:         return %{{.*}}, %[[Z]]
func.func @sum_into_no_columns(%y: tensor<?x?xf32>, %n: tensor<i32>)
    -> (tensor<?x0xf32>, tensor<?xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = symshape.dynamic_truncate %y, %n axis 1 stage upper_bound
      : (tensor<?x?xf32>, tensor<i32>) -> tensor<?x?xf32>
  %none = tensor.cast %y : tensor<?x?xf32> to tensor<?x0xf32>
  %b = symshape.bound %t, 1 : tensor<?x?xf32>
  %bi = symshape.to_index %b
  %e = tensor.empty(%bi) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce ins(%t : tensor<?x?xf32>) outs(%z : tensor<?xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %none, %s : tensor<?x0xf32>, tensor<?xf32>
}

// -----

// Named ops whose operand axes are all loops count too: a linalg.map over
// a truncation whose bound inference knows is 0 gives its init (IREE 3.13
// crashed choosing its tile sizes).
// CHECK-LABEL: func.func @add_to_nothing
// CHECK:         %[[E:.*]] = tensor.empty
// CHECK:         linalg.map
// CHECK:         return %{{.*}}, %[[E]]
func.func @add_to_nothing(%v: tensor<?xf32>, %n: tensor<i64>) -> (tensor<0xf32>, tensor<?xf32>) {
  %none = tensor.cast %v : tensor<?xf32> to tensor<0xf32>
  %t = symshape.dynamic_truncate %v, %n axis 0 stage upper_bound
      : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %v, %c0 : tensor<?xf32>
  %e = tensor.empty(%d) : tensor<?xf32>
  %m = linalg.map { arith.addf } ins(%v, %t : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>)
  return %none, %m : tensor<0xf32>, tensor<?xf32>
}

// -----

// A computed tensor that a gather reads element by element and the function
// also returns is made before the gather, behind a barrier: IREE 3.13 made
// it a second result of the gather's dispatch, unwritten when the gather has
// no elements. A computed tensor only the gather reads stays fused.
// CHECK-LABEL: func.func @spread_a_returned_sum
// CHECK:         %[[S:.*]] = arith.addf
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[S]])
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]], %{{.*}})
// CHECK:         linalg.generic
// CHECK:           tensor.extract %[[T]]
// CHECK:         %[[P:.*]] = arith.mulf
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

// An elementwise op on tensors with an operand of no rows gives an empty
// tensor of its sizes: IREE makes it a linalg.generic after resolve, and
// crashed choosing its tile sizes (fuzzer p106005574).
// CHECK-LABEL: func.func @add_to_no_rows
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<0x?xf32>
// CHECK:         return %[[E]]
func.func @add_to_no_rows(%x: tensor<0x?xf32>, %y: tensor<0x?xf32>) -> tensor<0x?xf32> {
  %s = arith.addf %x, %y : tensor<0x?xf32>
  return %s : tensor<0x?xf32>
}

// -----

// A column slice collapsed to a vector and spread over rows is made first,
// behind a barrier, like a slice a gather reads: IREE 3.13 fused it into the
// spread as a strided load and read its first element everywhere (fuzzer
// p107007316).
// CHECK-LABEL: func.func @spread_a_collapsed_column
// CHECK:         %[[S:.*]] = tensor.extract_slice
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[S]]
// CHECK:         %[[B:.*]] = "util.optimization_barrier"(%[[C]])
// CHECK:         %[[T:.*]] = "flow.tensor.tie_shape"(%[[B]], %{{.*}})
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
