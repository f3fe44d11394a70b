// RUN: symshape-opt --split-input-file --symshape-strip-annotations %s | FileCheck %s

// Annotations on operations and on function results are removed; the
// argument declaration `symshape.axes` is kept for the later passes.
// CHECK-LABEL: func.func @annotated
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>})
// CHECK-SAME:    -> tensor<?x4xf32> {
// CHECK:         %[[EXP:.*]] = math.exp %[[X]] : tensor<?x4xf32>
// CHECK-NEXT:    return %[[EXP]]
func.func @annotated(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>})
    -> (tensor<?x4xf32> {symshape.shape = #symshape.shape<[batch, 4]>}) {
  %0 = math.exp %x {symshape.shape = #symshape.shape<[batch, 4]>} : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Attributes of other dialects stay, on operations and on results, and so
// does a result attribute dictionary that still has entries.
// CHECK-LABEL: func.func @other_dialects
// CHECK-SAME:    -> (tensor<?xf32> {other.keep}, index)
// CHECK:         math.exp %{{.*}} {other.note = 1 : i64} : tensor<?xf32>
func.func @other_dialects(%x: tensor<?xf32>, %n: index)
    -> (tensor<?xf32> {other.keep, symshape.shape = #symshape.shape<[n]>}, index) {
  %0 = math.exp %x {other.note = 1, symshape.shape = #symshape.shape<[n]>} : tensor<?xf32>
  return %0, %n : tensor<?xf32>, index
}

// -----

// Operations nested in regions and the module itself lose their annotations.
// CHECK:       module {
// CHECK-LABEL: func.func @nested
// CHECK:         scf.if
// CHECK-NEXT:      %[[E:.*]] = math.exp %{{.*}} : tensor<?xf32>
// CHECK-NEXT:      scf.yield %[[E]] : tensor<?xf32>
// CHECK-NOT:     symshape.shape
module attributes {symshape.shape = []} {
  func.func @nested(%c: i1, %x: tensor<?xf32>) -> tensor<?xf32> {
    %0 = scf.if %c -> tensor<?xf32> {
      %1 = math.exp %x {symshape.shape = #symshape.shape<[n]>} : tensor<?xf32>
      scf.yield %1 : tensor<?xf32>
    } else {
      scf.yield %x : tensor<?xf32>
    } {symshape.shape = #symshape.shape<[n]>}
    return %0 : tensor<?xf32>
  }
}

// -----

// IR without annotations is left unchanged.
// CHECK-LABEL: func.func @plain
// CHECK-NEXT:    return %{{.*}} : index
func.func @plain(%n: index) -> index {
  return %n : index
}

// -----

// The value ranges inference writes on a function go too.
// CHECK-LABEL: func.func @ranged
// CHECK-SAME:    (%{{.*}}: tensor<?xf32>) {
// CHECK-NOT:     symshape.ranges
func.func @ranged(%x: tensor<?xf32>)
    attributes {symshape.ranges = {_d0 = #symshape.shape<[0, 4]>}} {
  return
}
