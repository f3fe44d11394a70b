// RUN: symshape-opt --split-input-file --symshape-infer-shapes %s | FileCheck %s

// A callee is inferred once over its own symbols; each call substitutes the
// caller's operand extents for them.
// CHECK-LABEL: func.func @double
func.func @double(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: tensor.concat {{.*}}{symshape.shape = #symshape.shape<[2 * [[P:_d[0-9]+]], 4]>}
  %c = tensor.concat dim(0) %x, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %c : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @caller
func.func @caller(%a: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                  %b: tensor<?x4xf32> {symshape.axes = #symshape.shape<[seq, 4]>}) -> tensor<?x4xf32> {
  // CHECK: %[[A2:.*]] = call @double({{.*}}) {symshape.shape = #symshape.shape<[2 * batch, 4]>}
  %0 = func.call @double(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: call @double({{.*}}) {symshape.shape = #symshape.shape<[2 * seq, 4]>}
  %1 = func.call @double(%b) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: call @add(%[[A2]], %[[A2]]) {symshape.shape = #symshape.shape<[2 * batch, 4]>}
  %2 = call @add(%0, %0) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %three = tensor.empty() : tensor<3xf32>
  %k = tensor.cast %three : tensor<3xf32> to tensor<?xf32>
  // CHECK: call @scaled({{.*}}) {symshape.shape = #symshape.shape<[3 * batch, 4]>}
  %3 = call @scaled(%a, %k) : (tensor<?x4xf32>, tensor<?xf32>) -> tensor<?x4xf32>
  // A callee defined later is inferred when first called.
  // CHECK: call @later({{.*}}) {symshape.shape = #symshape.shape<[4 * batch]>}
  %4 = call @later(%a) : (tensor<?x4xf32>) -> tensor<?xf32>
  return %2 : tensor<?x4xf32>
}

// A callee with named axes: `n` is a parameter bound at each call.
// CHECK-LABEL: func.func @add
func.func @add(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[n, 4]>},
               %y: tensor<?x4xf32> {symshape.axes = #symshape.shape<[n, 4]>}) -> tensor<?x4xf32> {
  // CHECK: arith.addf {{.*}}{symshape.shape = #symshape.shape<[n, 4]>}
  %s = arith.addf %x, %y : tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}

// Each unnamed parameter axis is bound to the caller's extent. (A scalar
// index parameter is not: it may be negative, so its value is unknown.)
// CHECK-LABEL: func.func @scaled
func.func @scaled(%x: tensor<?x4xf32>, %k: tensor<?xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x4xf32>
  %f = tensor.dim %k, %c0 : tensor<?xf32>
  %n = arith.muli %d, %f : index
  // CHECK: tensor.empty({{.*}}) {symshape.shape = #symshape.shape<[{{_d[0-9]+}} * {{_d[0-9]+}}, 4]>}
  %e = tensor.empty(%n) : tensor<?x4xf32>
  return %e : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @later
func.func @later(%x: tensor<?x4xf32>) -> tensor<?xf32> {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  return %c : tensor<?xf32>
}

// -----

// A call to a declaration knows nothing of the callee: each dynamic result
// axis is a fresh symbol of the call site.
func.func private @external(tensor<?x4xf32>) -> tensor<?x4xf32>

// CHECK-LABEL: func.func @call_external
func.func @call_external(%a: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>})
    -> tensor<?x4xf32> {
  // CHECK: call @external({{.*}}) {symshape.shape = #symshape.shape<[_d0, 4]>}
  %0 = call @external(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: call @external({{.*}}) {symshape.shape = #symshape.shape<[_d1, 4]>}
  %1 = call @external(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// An upper bound passed in weakens exactly the results that depend on it.
// CHECK-LABEL: func.func @pass_bound
func.func @pass_bound(%x: tensor<?x8xf32> {symshape.axes = #symshape.shape<[batch, 8]>}, %n: tensor<i64>)
    -> tensor<?x8xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x8xf32>, tensor<i64>) -> tensor<?x8xf32>
  // CHECK: call @twice({{.*}}) {symshape.shape = #symshape.shape<[ub(2 * batch), 8]>}
  %r = call @twice(%t) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

func.func @twice(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c = tensor.concat dim(0) %x, %x : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %c : tensor<?x8xf32>
}

// -----

// Several returns are joined: the callee returns a size chosen at run time
// between its arguments', a fresh symbol whose range the call site keeps,
// over its own axes.
// CHECK-LABEL: func.func @caller_of_branchy
// CHECK-SAME: attributes {symshape.ranges = {[[R:_d[0-9]+]] = #symshape.shape<[min(batch, seq), max(batch, seq)]>}}
func.func @caller_of_branchy(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>},
                             %y: tensor<?xf32> {symshape.axes = #symshape.shape<[seq]>}, %c: i1)
    -> tensor<?xf32> {
  // CHECK: call @branchy({{.*}}) {symshape.shape = #symshape.shape<[[[R]]]>}
  %r = call @branchy(%x, %y, %c) : (tensor<?xf32>, tensor<?xf32>, i1) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @branchy(%x: tensor<?xf32>, %y: tensor<?xf32>, %c: i1) -> tensor<?xf32> {
  cf.cond_br %c, ^a, ^b
^a:
  return %x : tensor<?xf32>
^b:
  return %y : tensor<?xf32>
}
