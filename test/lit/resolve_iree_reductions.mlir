// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-resolve=target=iree %s | FileCheck %s

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

// A reduction of a transpose (fuzzer p142003437: of a broadcast, all three
// returned): IREE 3.13 fuses the transpose into the reduction's dispatch as
// a dead second result and puts it on the stack at 2^53 - 1 rows. The
// reduction reads the transpose's source, over the source's axis.
// CHECK-LABEL: func.func @row_sums_of_a_transpose
// CHECK-SAME:    (%[[X:[^:]*]]: tensor<?x?xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<?x?xf32>)
// CHECK:         %[[S:.*]] = linalg.reduce ins(%[[X]] : tensor<?x?xf32>) outs(%{{.*}} : tensor<?xf32>) dimensions = [0]
// CHECK:         return %[[T]], %[[S]]
func.func @row_sums_of_a_transpose(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[a, b]>})
    -> (tensor<?x?xf32>, tensor<?xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tensor.dim %x, %c0 : tensor<?x?xf32>
  %b = tensor.dim %x, %c1 : tensor<?x?xf32>
  %te = tensor.empty(%b, %a) : tensor<?x?xf32>
  %t = linalg.transpose ins(%x : tensor<?x?xf32>) outs(%te : tensor<?x?xf32>) permutation = [1, 0]
  %e = tensor.empty(%b) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce ins(%t : tensor<?x?xf32>) outs(%z : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %q = arith.addf %in, %acc : f32
      linalg.yield %q : f32
    }
  return %t, %s : tensor<?x?xf32>, tensor<?xf32>
}

// -----

// Two kept axes that the transpose swaps: read from the source, the result
// would have them in the other order, so the reduction stays on the
// transpose.
// CHECK-LABEL: func.func @sums_of_a_swap
// CHECK:         %[[T:.*]] = linalg.transpose
// CHECK:         linalg.reduce ins(%[[T]] : tensor<?x?x?xf32>) outs(%{{.*}} : tensor<?x?xf32>) dimensions = [2]
func.func @sums_of_a_swap(%x: tensor<?x?x?xf32> {symshape.axes = #symshape.shape<[a, b, c]>})
    -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %b = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %c = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %te = tensor.empty(%b, %a, %c) : tensor<?x?x?xf32>
  %t = linalg.transpose ins(%x : tensor<?x?x?xf32>) outs(%te : tensor<?x?x?xf32>) permutation = [1, 0, 2]
  %e = tensor.empty(%b, %a) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.reduce ins(%t : tensor<?x?x?xf32>) outs(%z : tensor<?x?xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %q = arith.addf %in, %acc : f32
      linalg.yield %q : f32
    }
  return %s : tensor<?x?xf32>
}

// -----

// Reducing the first two axes of a transpose [2, 0, 1]: the kept axis is the
// source's axis 1, the reduced ones its axes 2 and 0.
// CHECK-LABEL: func.func @sums_over_two_axes
// CHECK-SAME:    (%[[X:[^:]*]]: tensor<?x?x?xf32>
// CHECK:         linalg.reduce ins(%[[X]] : tensor<?x?x?xf32>) outs(%{{.*}} : tensor<?xf32>) dimensions = [0, 2]
func.func @sums_over_two_axes(%x: tensor<?x?x?xf32> {symshape.axes = #symshape.shape<[a, b, c]>})
    -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %b = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %c = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %te = tensor.empty(%c, %a, %b) : tensor<?x?x?xf32>
  %t = linalg.transpose ins(%x : tensor<?x?x?xf32>) outs(%te : tensor<?x?x?xf32>) permutation = [2, 0, 1]
  %e = tensor.empty(%b) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce ins(%t : tensor<?x?x?xf32>) outs(%z : tensor<?xf32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %q = arith.addf %in, %acc : f32
      linalg.yield %q : f32
    }
  return %s : tensor<?xf32>
}
