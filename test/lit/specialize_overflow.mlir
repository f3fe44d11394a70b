// RUN: symshape-opt --symshape-specialize='bindings="batch=32"' %s | FileCheck %s
// RUN: not symshape-opt --symshape-specialize='bindings="batch=32"' --symshape-to-iree %s 2>&1 | FileCheck %s --check-prefix=IREE

// A scalar extent that leaves int64 under the bindings is no constant: it
// stays computed (no crash building an i64 attribute), and lowering reports
// the overflow at the user's op.
// CHECK-LABEL: func.func @beyond_int64
// CHECK: %[[BIG:.*]] = symshape.const 9223372036854775807
// CHECK: %[[BATCH:.*]] = symshape.const 32
// CHECK: symshape.add %[[BATCH]], %[[BIG]]
// IREE: specialize_overflow.mlir:[[@LINE+4]]:8: error: the extent '9223372036854775839' holds 9223372036854775839, beyond the int64 range
func.func @beyond_int64(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> index {
  %c = symshape.const 9223372036854775807
  %d = symshape.dim %x, 0 : tensor<?x4xf32>
  %a = symshape.add %d, %c
  %i = symshape.to_index %a
  return %i : index
}
