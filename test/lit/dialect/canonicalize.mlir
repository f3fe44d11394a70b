// RUN: symshape-opt --canonicalize %s | FileCheck %s

// Upstream canonicalization folds constant extent arithmetic and identities
// through the ops' folders.

// CHECK-LABEL: func.func @constants
func.func @constants() -> index {
  // CHECK: %[[C:.*]] = symshape.const 2
  // CHECK-NEXT: %[[I:.*]] = symshape.to_index %[[C]]
  // CHECK-NEXT: return %[[I]]
  %a = symshape.const 7
  %b = symshape.const 3
  %c = symshape.const -2
  %sum = symshape.add %a, %b
  %prod = symshape.mul %sum, %c
  %q = symshape.floordiv %prod, %b
  %r = symshape.mod %q, %b
  %cd = symshape.ceildiv %a, %b
  %mn = symshape.min %r, %cd
  %mx = symshape.max %mn, %c
  %i = symshape.to_index %mx
  return %i : index
}

// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
func.func @identities(%x: tensor<?x4xf32>) -> (index, index) {
  // CHECK-DAG: %[[D:.*]] = symshape.dim %[[X]], 0
  // CHECK-DAG: %[[ZERO:.*]] = symshape.const 0
  // CHECK-DAG: %[[I:.*]] = symshape.to_index %[[D]]
  // CHECK-DAG: %[[Z:.*]] = symshape.to_index %[[ZERO]]
  // CHECK: return %[[I]], %[[Z]]
  %d = symshape.dim %x, 0 : tensor<?x4xf32>
  %four = symshape.dim %x, 1 : tensor<?x4xf32>
  %zero = symshape.const 0
  %one = symshape.const 1
  %a = symshape.add %d, %zero
  %m = symshape.mul %a, %one
  %q = symshape.floordiv %m, %one
  %mn = symshape.min %q, %q
  %s = symshape.sub %mn, %mn
  %e = symshape.mul %s, %four
  %i = symshape.to_index %mn
  %z = symshape.to_index %e
  return %i, %z : index, index
}

// A division by a constant zero is left for the runtime check, not folded.
// CHECK-LABEL: func.func @no_fold_division_by_zero
func.func @no_fold_division_by_zero() -> index {
  // CHECK: symshape.floordiv
  %a = symshape.const 7
  %z = symshape.const 0
  %q = symshape.floordiv %a, %z
  %i = symshape.to_index %q
  return %i : index
}

// Index round trips fold away.
// CHECK-LABEL: func.func @index_round_trip
// CHECK-SAME: (%[[I:.*]]: index)
// CHECK-NEXT: return %[[I]]
func.func @index_round_trip(%i: index) -> index {
  %e = symshape.from_index %i
  %j = symshape.to_index %e
  return %j : index
}

// Folding never wraps: an int64 overflow (a sum, a product, INT64_MIN
// floordiv -1) leaves the op in place.
// CHECK-LABEL: func.func @no_overflowing_folds
func.func @no_overflowing_folds() -> (index, index, index) {
  // CHECK-DAG: %[[MAX:.*]] = symshape.const 9223372036854775807
  // CHECK-DAG: %[[MIN:.*]] = symshape.const -9223372036854775808
  // CHECK-DAG: symshape.add %[[MAX]], %{{.*}}
  // CHECK-DAG: symshape.mul %[[MAX]], %{{.*}}
  // CHECK-DAG: symshape.floordiv %[[MIN]], %{{.*}}
  %max = symshape.const 9223372036854775807
  %min = symshape.const -9223372036854775808
  %one = symshape.const 1
  %two = symshape.const 2
  %minus_one = symshape.const -1
  %sum = symshape.add %max, %one
  %prod = symshape.mul %max, %two
  %quot = symshape.floordiv %min, %minus_one
  %i = symshape.to_index %sum
  %j = symshape.to_index %prod
  %k = symshape.to_index %quot
  return %i, %j, %k : index, index, index
}
