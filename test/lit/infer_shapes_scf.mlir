// RUN: symshape-opt --split-input-file --symshape-infer-shapes %s | FileCheck %s

// scf.if joins its branches: equal exact extents stay exact.
// CHECK-LABEL: func.func @if_equal
func.func @if_equal(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %c: i1)
    -> tensor<?x4xf32> {
  %r = scf.if %c -> tensor<?x4xf32> {
    // CHECK: math.exp {{.*}}{symshape.shape = #symshape.shape<[batch, 4]>}
    %n = math.exp %x : tensor<?x4xf32>
    scf.yield %n : tensor<?x4xf32>
  } else {
    scf.yield %x : tensor<?x4xf32>
  }
  // CHECK: } {symshape.shape = #symshape.shape<[batch, 4]>}
  return %r : tensor<?x4xf32>
}

// -----

// Different exact extents give a size chosen at run time: a fresh exact
// symbol ranging between them. An extent local to one branch (a size read
// from data there) means nothing outside it: a fresh symbol without a range.
// CHECK-LABEL: func.func @if_differ
// CHECK-SAME: attributes {symshape.ranges = {[[R:_d[0-9]+]] = #symshape.shape<[min(batch, seq), max(batch, seq)]>}}
func.func @if_differ(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>},
                     %y: tensor<?xf32> {symshape.axes = #symshape.shape<[seq]>},
                     %c: i1, %t: tensor<i64>) -> (tensor<?xf32>, tensor<?xf32>) {
  %r:2 = scf.if %c -> (tensor<?xf32>, tensor<?xf32>) {
    %k = tensor.extract %t[] : tensor<i64>
    %ki = arith.index_cast %k : i64 to index
    // CHECK: tensor.empty({{.*}}) {symshape.shape = #symshape.shape<[_d0 - _d1]>}
    %e = tensor.empty(%ki) : tensor<?xf32>
    scf.yield %x, %e : tensor<?xf32>, tensor<?xf32>
  } else {
    scf.yield %y, %y : tensor<?xf32>, tensor<?xf32>
  }
  // CHECK: } {symshape.shape = [#symshape.shape<[[[R]]]>, #symshape.shape<[{{_d[0-9]+}}]>]}
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xf32>
}

// -----

// A condition the provers decide selects its branch: batch >= 0 always holds.
// CHECK-LABEL: func.func @if_decided
func.func @if_decided(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>},
                      %y: tensor<?xf32> {symshape.axes = #symshape.shape<[seq]>}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  // CHECK: arith.cmpi sge, {{.*}}{symshape.value = #symshape.extent<1>}
  %always = arith.cmpi sge, %d, %c0 : index
  %r = scf.if %always -> tensor<?xf32> {
    scf.yield %x : tensor<?xf32>
  } else {
    scf.yield %y : tensor<?xf32>
  }
  // CHECK: } {symshape.shape = #symshape.shape<[batch]>}
  return %r : tensor<?xf32>
}

// -----

// scf.for: a loop-invariant carried extent stays exact; the induction
// variable is a fresh symbol with the loop's range.
// CHECK-LABEL: func.func @for_invariant
// CHECK-SAME: attributes {symshape.ranges = {_d0 = #symshape.shape<[0, 7]>}}
func.func @for_invariant(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>})
    -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %x) -> tensor<?x4xf32> {
    // CHECK: math.exp {{.*}}{symshape.shape = #symshape.shape<[batch, 4]>}
    %n = math.exp %acc : tensor<?x4xf32>
    // CHECK: tensor.empty({{.*}}) {symshape.shape = #symshape.shape<[_d0]>}
    %e = tensor.empty(%i) : tensor<?xf32>
    scf.yield %n : tensor<?x4xf32>
  }
  // CHECK: } {symshape.shape = #symshape.shape<[batch, 4]>}
  return %r : tensor<?x4xf32>
}

// -----

// A carried extent that grows every iteration is a size known only at run
// time after the loop (a fresh exact symbol, no range); inside the body it
// is a fresh exact symbol too (its size in this iteration).
// CHECK-LABEL: func.func @for_growing
func.func @for_growing(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>}, %n: index)
    -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<?xf32> {
    // CHECK: tensor.concat {{.*}}{symshape.shape = #symshape.shape<[[[ACC:_d[0-9]+]] + batch]>}
    %more = tensor.concat dim(0) %acc, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    scf.yield %more : tensor<?xf32>
  }
  // CHECK: } {symshape.shape = #symshape.shape<[{{_d[0-9]+}}]>}
  return %r : tensor<?xf32>
}

// -----

// A carried extent that never grows (yielded <= carried) is bounded by the
// init's extent: exact sizes give a fresh symbol ranging over [0, init].
// CHECK-LABEL: func.func @for_shrinking
// CHECK-SAME: attributes {symshape.ranges = {[[R:_d[0-9]+]] = #symshape.shape<[0, batch]>}}
func.func @for_shrinking(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>}, %n: index)
    -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<?xf32> {
    %len = tensor.dim %acc, %c0 : tensor<?xf32>
    %h = arith.subi %len, %c1 : index
    %m = arith.maxsi %h, %c0 : index
    // CHECK: tensor.extract_slice {{.*}}{symshape.shape = #symshape.shape<[max(0, [[ACC:_d[0-9]+]] - 1)]>}
    %s = tensor.extract_slice %acc[0] [%m] [1] : tensor<?xf32> to tensor<?xf32>
    scf.yield %s : tensor<?xf32>
  }
  // CHECK: } {symshape.shape = #symshape.shape<[[[R]]]>}
  return %r : tensor<?xf32>
}

// -----

// A carried value replaced by a loop-invariant one is the init (zero trips)
// or that value: a size chosen at run time between them. A counter is
// unknown after the loop.
// CHECK-LABEL: func.func @for_replaced
// CHECK-SAME: attributes {symshape.ranges = {[[R:_d[0-9]+]] = #symshape.shape<[min(batch, seq), max(batch, seq)]>}}
func.func @for_replaced(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>},
                        %y: tensor<?xf32> {symshape.axes = #symshape.shape<[seq]>},
                        %n: index) -> (tensor<?xf32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x, %k = %c0) -> (tensor<?xf32>, index) {
    // CHECK: arith.addi %{{[^ ]*}}, %{{[^ ]*}} : index
    %k1 = arith.addi %k, %c1 : index
    scf.yield %y, %k1 : tensor<?xf32>, index
  }
  // CHECK: } {symshape.shape = [#symshape.shape<[[[R]]]>, #symshape.shape<[]>]}
  return %r#0, %r#1 : tensor<?xf32>, index
}

// -----

// The fixed point widens only what changes: axis 1 is carried unchanged.
// CHECK-LABEL: func.func @for_partial
func.func @for_partial(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq]>},
                       %row: tensor<1x?xf32> {symshape.axes = #symshape.shape<[1, seq]>},
                       %n: index) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<?x?xf32> {
    // CHECK: tensor.concat {{.*}}{symshape.shape = #symshape.shape<[{{_d[0-9]+}} + 1, seq]>}
    %more = tensor.concat dim(0) %acc, %row : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
    scf.yield %more : tensor<?x?xf32>
  }
  // CHECK: } {symshape.shape = #symshape.shape<[{{_d[0-9]+}}, seq]>}
  return %r : tensor<?x?xf32>
}
