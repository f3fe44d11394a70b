// RUN: symshape-opt --split-input-file --symshape-resolve %s | FileCheck %s

// Run-time checks emitted by symshape-resolve: entry checks of named axes,
// equations inference could not prove, sizes that may be negative, and
// signed divisions that may overflow.

// Two arguments share 'batch': the second is checked against the first on
// entry, so a call with 5 and 3 rows fails instead of reading garbage.
// CHECK-LABEL: func.func @shared_axis
// CHECK-SAME:    (%[[X:[^:]*]]: tensor<?x4xf32>, %[[Y:[^:]*]]: tensor<?x4xf32>)
// CHECK:         %[[DX:.*]] = tensor.dim %[[X]]
// CHECK:         %[[DY:.*]] = tensor.dim %[[Y]]
// CHECK:         %[[OK:.*]] = arith.cmpi eq, %[[DY]], %[[DX]] : index
// CHECK:         cf.assert %[[OK]], "symshape: argument #1 axis 0 is not 'batch' ('batch' is argument #0 axis 0) in @shared_axis at {{.*}}resolve_checks.mlir:{{[0-9]+}}:{{[0-9]+}}"
// CHECK-NEXT:    arith.addf
func.func @shared_axis(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                       %y: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> tensor<?x4xf32> {
  %r = arith.addf %x, %y : tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// A symbol declared only as `2 * batch` is derived from that axis, which
// must then be even: (dim floordiv 2) * 2 == dim, and batch >= 0.
// CHECK-LABEL: func.func @derived_axis
// CHECK-SAME:    (%[[X:[^:]*]]: tensor<?xf32>, %[[Y:[^:]*]]: tensor<?xf32>)
// CHECK:         cf.assert %{{.*}}, "symshape: argument #0 axis 0 gives a negative 'batch' in @derived_axis at {{.*}}"
// CHECK:         cf.assert %{{.*}}, "symshape: argument #0 axis 0 is not '2 * batch' ('batch' from argument #0 axis 0) in @derived_axis at {{.*}}"
// CHECK:         cf.assert %{{.*}}, "symshape: argument #1 axis 0 is not 'batch + 1' ('batch' from argument #0 axis 0) in @derived_axis at {{.*}}"
func.func @derived_axis(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[2 * batch]>},
                        %y: tensor<?xf32> {symshape.axes = #symshape.shape<[batch + 1]>}) -> tensor<?xf32> {
  return %y : tensor<?xf32>
}

// -----

// Unnamed axes of two elementwise operands: equal only if checked.
// CHECK-LABEL: func.func @unnamed_operands
// CHECK-SAME:    (%[[X:[^:]*]]: tensor<?xf32>, %[[Y:[^:]*]]: tensor<?xf32>)
// CHECK:         %[[DX:.*]] = tensor.dim %[[X]]
// CHECK:         %[[DY:.*]] = tensor.dim %[[Y]]
// CHECK:         %[[OK:.*]] = arith.cmpi eq, %[[DX]], %[[DY]] : index
// CHECK:         cf.assert %[[OK]], "symshape: check failed: axis 0 of operand #0 and operand #1 are equal (arith.addf at {{.*}}resolve_checks.mlir:[[@LINE+2]]:8)"
func.func @unnamed_operands(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %r = arith.addf %x, %y : tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// An `index` scalar used as a size may be negative: checked before the
// allocation (never a crash in the allocator).
// CHECK-LABEL: func.func @scalar_size
// CHECK:         %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         %[[OK:.*]] = arith.cmpi sle, %{{.*}}, %[[N]] : index
// CHECK:         cf.assert %[[OK]], "symshape: check failed: size of result axis 0 is non-negative (tensor.empty at {{.*}})"
// CHECK:         tensor.empty(%[[N]])
func.func @scalar_size(%k: tensor<i64>) -> tensor<?xf32> {
  %e = symshape.runtime_scalar %k index : tensor<i64>
  %n = symshape.to_index %e
  %t = tensor.empty(%n) : tensor<?xf32>
  return %t : tensor<?xf32>
}

// -----

// A signed division of values of any sign: a zero divisor and
// INT64_MIN / -1 both fail the call (each is a SIGFPE on CPU).
// CHECK-LABEL: func.func @signed_division
// CHECK-SAME:    (%[[A:[^:]*]]: index, %[[B:[^:]*]]: index)
// CHECK:         cf.assert %{{.*}}, "symshape: division by zero in arith.divsi at {{.*}}"
// CHECK-DAG:     %[[MIN:.*]] = arith.constant -9223372036854775808 : index
// CHECK-DAG:     %[[M1:.*]] = arith.constant -1 : index
// CHECK:         %[[IS_MIN:.*]] = arith.cmpi eq, %[[A]], %[[MIN]] : index
// CHECK:         %[[IS_M1:.*]] = arith.cmpi eq, %[[B]], %[[M1]] : index
// CHECK:         %[[BOTH:.*]] = arith.andi %[[IS_MIN]], %[[IS_M1]] : i1
// CHECK:         %[[OK:.*]] = arith.xori %[[BOTH]], %{{.*}} : i1
// CHECK:         cf.assert %[[OK]], "symshape: division overflow in arith.divsi at {{.*}}"
// CHECK:         arith.divsi %[[A]], %[[B]] : index
func.func @signed_division(%a: index, %b: index) -> index {
  %q = arith.divsi %a, %b : index
  return %q : index
}

// -----

// Extent arithmetic on scalars read from data may leave int64: each step is
// checked (a wrapped size would be a wrong answer), as is the division.
// CHECK-LABEL: func.func @scalar_arithmetic
// CHECK:         arith.addi %{{.*}}, %{{.*}} : index
// CHECK:         cf.assert %{{.*}}, "symshape: extent arithmetic overflows int64 ({{.*}}resolve_checks.mlir:[[@LINE+7]]:10)"
// CHECK:         cf.assert %{{.*}}, "symshape: division by zero in {{.*}}"
// CHECK:         cf.assert %{{.*}}, "symshape: division overflow in {{.*}}"
func.func @scalar_arithmetic(%a: tensor<i64>, %b: tensor<i64>) -> index {
  %sa = symshape.runtime_scalar %a index : tensor<i64>
  %sb = symshape.runtime_scalar %b index : tensor<i64>
  %one = symshape.const 1
  %den = symshape.add %sb, %one
  %q = symshape.floordiv %sa, %den
  %i = symshape.to_index %q
  return %i : index
}

// -----

// tensor.reshape to a static result dim: the shape operand must keep the
// promise, so its element is checked against the static size.
// CHECK-LABEL: func.func @reshape_static_result
// CHECK:         cf.assert %{{.*}}, "symshape: check failed: shape element 0 and the static result extent 4 are equal (tensor.reshape at {{.*}})"
// CHECK:         tensor.reshape
func.func @reshape_static_result(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  %i = arith.index_cast %d : index to i64
  %s = tensor.from_elements %i : tensor<1xi64>
  %r = tensor.reshape %x(%s) : (tensor<?xf32>, tensor<1xi64>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// An annotation more specific than inference, kept by policy=refine: the
// result's axis is checked against `batch` right after the op, and the
// addition with %x, whose axis the result then adopts, needs no check.
// CHECK-LABEL: func.func @refined_annotation
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x4xf32>
// CHECK:         %[[ROWS:.*]] = tensor.dim %[[E]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[BATCH:.*]] = tensor.dim %[[X:.*]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[SAME:.*]] = arith.cmpi eq, %[[ROWS]], %[[BATCH]] : index
// CHECK:         cf.assert %[[SAME]], "symshape: check failed: result #0 dimension 0 and its annotation are equal (tensor.empty at {{.*}})"
// CHECK-NOT:     cf.assert
// CHECK:         arith.addf
func.func @refined_annotation(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                              %t: tensor<i64>) -> tensor<?x4xf32> {
  %raw = tensor.extract %t[] : tensor<i64>
  %n = arith.index_cast %raw : i64 to index
  %e = tensor.empty(%n) {symshape.shape = #symshape.shape<[batch, 4]>} : tensor<?x4xf32>
  %f = arith.addf %e, %x : tensor<?x4xf32>
  return %f : tensor<?x4xf32>
}
