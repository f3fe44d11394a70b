// RUN: symshape-opt --split-input-file --symshape-specialize='bindings="batch=32"' %s | FileCheck %s
// RUN: symshape-opt --split-input-file --symshape-specialize='bindings="batch=32"' --symshape-to-iree %s | FileCheck %s --check-prefix=IREE
// RUN: symshape-opt --split-input-file --symshape-specialize='bindings="batch=0"' %s | FileCheck %s --check-prefix=ZERO
// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-specialize='bindings="batch=32"' --symshape-check-guarantees %s | FileCheck %s --check-prefix=GUARANTEES
// Without --split-input-file the whole file is one module, declaring both axes:
// RUN: symshape-opt --symshape-specialize='bindings=" batch = 2 , seq = 3 "' %s | FileCheck %s --check-prefix=BOTH

// The bound argument becomes static (a cast at entry keeps the body's
// types); symshape.dim and tensor.dim of it become constants; the reshape
// target `batch * 16` becomes 512, in place, with a static operand and
// result; the result type becomes static (a cast before the return).
// CHECK-LABEL: func.func @mlp
// CHECK-SAME:    (%[[X:.*]]: tensor<32x64xf32> {symshape.axes = #symshape.shape<[32, 64]>}, %[[W:.*]]: tensor<64x16xf32>)
// CHECK-SAME:    -> (tensor<512xf32>, index)
// CHECK:         %[[XD:.*]] = tensor.cast %[[X]] : tensor<32x64xf32> to tensor<?x64xf32>
// CHECK:         %[[N:.*]] = symshape.const 32
// CHECK:         symshape.to_index %[[N]]
// CHECK:         %[[ROWS:.*]] = arith.constant 32 : index
// CHECK:         %[[E:.*]] = tensor.empty(%[[ROWS]]) : tensor<?x16xf32>
// CHECK:         %[[ES:.*]] = tensor.cast %[[E]] : tensor<?x16xf32> to tensor<32x16xf32>
// CHECK:         %[[ED:.*]] = tensor.cast %[[ES]] : tensor<32x16xf32> to tensor<?x16xf32>
// CHECK:         linalg.fill ins({{.*}}) outs(%[[ED]] : tensor<?x16xf32>)
// CHECK:         %[[Y:.*]] = linalg.matmul ins(%[[XD]], %[[W]] : tensor<?x64xf32>, tensor<64x16xf32>)
// CHECK:         %[[YS:.*]] = tensor.cast %[[Y]] : tensor<?x16xf32> to tensor<32x16xf32>
// CHECK:         %[[FLAT:.*]] = symshape.reshape %[[YS]] to [512] : (tensor<32x16xf32>) -> tensor<512xf32>
// CHECK:         %[[FD:.*]] = tensor.cast %[[FLAT]] : tensor<512xf32> to tensor<?xf32>
// CHECK:         %[[RET:.*]] = tensor.cast %[[FD]] : tensor<?xf32> to tensor<512xf32>
// CHECK:         return %[[RET]], %{{.*}} : tensor<512xf32>, index

// What IREE receives: every shape static, no cast left.
// IREE-LABEL: func.func @mlp
// IREE-SAME:    (%[[X:.*]]: tensor<32x64xf32>, %[[W:.*]]: tensor<64x16xf32>) -> (tensor<512xf32>, index)
// IREE:         %[[C32:.*]] = arith.constant 32 : index
// IREE:         %[[E:.*]] = tensor.empty() : tensor<32x16xf32>
// IREE:         %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<32x16xf32>) -> tensor<32x16xf32>
// IREE:         %[[Y:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<32x64xf32>, tensor<64x16xf32>) outs(%[[ACC]] : tensor<32x16xf32>) -> tensor<32x16xf32>
// IREE:         %[[FLAT:.*]] = tensor.collapse_shape %[[Y]] {{\[\[}}0, 1]] : tensor<32x16xf32> into tensor<512xf32>
// IREE-NEXT:    return %[[FLAT]], %[[C32]] : tensor<512xf32>, index

// A zero binding gives zero-size static types.
// ZERO-LABEL: func.func @mlp
// ZERO-SAME:    tensor<0x64xf32> {symshape.axes = #symshape.shape<[0, 64]>}
// ZERO-SAME:    -> (tensor<0xf32>, index)
// ZERO:         symshape.reshape %{{.*}} to [0] : (tensor<0x16xf32>) -> tensor<0xf32>

// Specializing after inference does not upgrade a recorded guarantee.
// GUARANTEES-LABEL: func.func @mlp
// GUARANTEES-SAME:    tensor<32x64xf32>
func.func @mlp(%x: tensor<?x64xf32> {symshape.axes = #symshape.shape<[batch, 64]>},
               %w: tensor<64x16xf32>) -> (tensor<?xf32>, index) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = symshape.dim %x, 0 : tensor<?x64xf32>
  %ni = symshape.to_index %n
  %rows = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%rows) : tensor<?x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x16xf32>)
                     outs(%acc : tensor<?x16xf32>) -> tensor<?x16xf32>
  %flat = symshape.reshape %y to [batch * 16] : (tensor<?x16xf32>) -> tensor<?xf32>
  return %flat, %ni : tensor<?xf32>, index
}

// -----

// An upper bound is never made static: the truncated axis stays dynamic,
// and so does its tensor.dim, whatever the binding. The value of
// symshape.bound is exactly `batch`: the constant 32. The input is exact and
// becomes static.
// CHECK-LABEL: func.func @upper_bound
// CHECK-SAME:    (%[[X:.*]]: tensor<32x4xf32> {{.*}}, %[[N:.*]]: tensor<i64>)
// CHECK-SAME:    -> (tensor<?x4xf32>, index, index)
// CHECK:         %[[T:.*]] = symshape.dynamic_truncate %[[X]], %[[N]] axis 0 : (tensor<32x4xf32>, tensor<i64>) -> tensor<?x4xf32>
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[KEPT:.*]] = tensor.dim %[[T]], %[[C0]] : tensor<?x4xf32>
// CHECK:         %[[CAP:.*]] = arith.constant 32 : index
// CHECK:         return %[[T]], %[[KEPT]], %[[CAP]] : tensor<?x4xf32>, index, index

// IREE sees a dynamic slice of `min(max(n, 0), 32)` rows of a static input;
// the bound, now the constant 32, is only a hint.
// IREE-LABEL: func.func @upper_bound
// IREE-SAME:    (%[[X:.*]]: tensor<32x4xf32>, %[[N:.*]]: tensor<i64>) -> (tensor<?x4xf32>, index, index)
// IREE:         %[[C32:.*]] = arith.constant 32 : index
// IREE:         %[[ROWS:.*]] = arith.minsi %{{.*}}, %[[C32]] : index
// IREE:         %[[T:.*]] = tensor.extract_slice %[[X]][0, 0] [%[[ROWS]], 4] [1, 1] : tensor<32x4xf32> to tensor<?x4xf32>
// IREE:         "util.assume.int"(%[[ROWS]]) {{.*}}umax = 32
// IREE:         return %{{.*}} : tensor<?x4xf32>, index, index

// GUARANTEES-LABEL: func.func @upper_bound
// GUARANTEES-SAME:    tensor<32x4xf32>
// GUARANTEES:         symshape.dynamic_truncate
// GUARANTEES-SAME:      symshape.shape = #symshape.shape<[ub(batch), 4]>
// GUARANTEES-SAME:      -> tensor<?x4xf32>
func.func @upper_bound(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                       %n: tensor<i64>) -> (tensor<?x4xf32>, index, index) {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %kept = tensor.dim %t, %c0 : tensor<?x4xf32>
  %cap = symshape.bound %t, 0 : tensor<?x4xf32>
  %capi = symshape.to_index %cap
  return %t, %kept, %capi : tensor<?x4xf32>, index, index
}

// -----

// At stage exact the truncated extent is `min(scalar, batch)`: exact, but
// not a constant under the bindings, so it stays dynamic too.
// CHECK-LABEL: func.func @exact_not_constant
// CHECK-SAME:    (%[[X:.*]]: tensor<32x4xf32> {{.*}}, %[[N:.*]]: tensor<i64>) -> tensor<?x4xf32>
// CHECK:         %[[T:.*]] = symshape.dynamic_truncate %[[X]], %[[N]] axis 0 stage exact : (tensor<32x4xf32>, tensor<i64>) -> tensor<?x4xf32>
// CHECK:         return %[[T]] : tensor<?x4xf32>
func.func @exact_not_constant(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                              %n: tensor<i64>) -> tensor<?x4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 stage exact
      : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  return %t : tensor<?x4xf32>
}

// -----

// A reshape whose target is data (`tensor.dim` -> `tensor.from_elements`):
// the propagated target is exact and becomes the static result type.
// CHECK-LABEL: func.func @data_target
// CHECK-SAME:    -> tensor<32x24xf32>
// CHECK:         %[[R:.*]] = tensor.reshape %{{.*}}(%{{.*}}) : (tensor<?x6x4xf32>, tensor<2xi64>) -> tensor<?x24xf32>
// CHECK:         %[[RS:.*]] = tensor.cast %[[R]] : tensor<?x24xf32> to tensor<32x24xf32>

// IREE-LABEL: func.func @data_target
// IREE-SAME:    (%[[X:.*]]: tensor<32x6x4xf32>) -> tensor<32x24xf32>
// IREE:         %[[SHAPE:.*]] = arith.constant dense<[32, 24]> : tensor<2xi64>
// IREE:         %[[XD:.*]] = tensor.cast %[[X]] : tensor<32x6x4xf32> to tensor<?x6x4xf32>
// IREE:         %[[R:.*]] = tensor.reshape %[[XD]](%[[SHAPE]]) : (tensor<?x6x4xf32>, tensor<2xi64>) -> tensor<?x24xf32>
// IREE:         %[[RS:.*]] = tensor.cast %[[R]] : tensor<?x24xf32> to tensor<32x24xf32>
// IREE-NEXT:    return %[[RS]] : tensor<32x24xf32>
func.func @data_target(%x: tensor<?x6x4xf32> {symshape.axes = #symshape.shape<[batch, 6, 4]>})
    -> tensor<?x24xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x6x4xf32>
  %r0 = arith.index_cast %d0 : index to i64
  %r1 = arith.constant 24 : i64
  %shape = tensor.from_elements %r0, %r1 : tensor<2xi64>
  %r = tensor.reshape %x(%shape) : (tensor<?x6x4xf32>, tensor<2xi64>) -> tensor<?x24xf32>
  return %r : tensor<?x24xf32>
}

// -----

// An axis that is not bound stays dynamic; one that is becomes static even
// when the other axis of the same argument is not.
// CHECK-LABEL: func.func @partly_bound
// CHECK-SAME:    (%[[X:.*]]: tensor<32x?xf32> {symshape.axes = #symshape.shape<[32, seq]>})
// CHECK-SAME:    -> tensor<32x?xf32>
// CHECK:         %[[XD:.*]] = tensor.cast %[[X]] : tensor<32x?xf32> to tensor<?x?xf32>
// CHECK:         math.exp %[[XD]] : tensor<?x?xf32>

// Both axes bound: both static.
// BOTH-LABEL: func.func @partly_bound
// BOTH-SAME:    (%{{.*}}: tensor<2x3xf32> {symshape.axes = #symshape.shape<[2, 3]>}) -> tensor<2x3xf32>
func.func @partly_bound(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq]>})
    -> tensor<?x?xf32> {
  %e = math.exp %x : tensor<?x?xf32>
  return %e : tensor<?x?xf32>
}

// -----

// An ONNX-style `-1` extent, `16 * batch floordiv (8 * batch)`: inference
// knows it is 2 wherever the division succeeds, so it is static under every
// binding; under batch = 0 the division itself stays, and the resolved module
// guards it at run time (the call fails before the reshape).
// CHECK-LABEL: func.func @zero_divisor
// CHECK-SAME:    (%{{.*}}: tensor<32x16xf32> {{.*}}) -> tensor<32x2x8xf32>
// ZERO-LABEL: func.func @zero_divisor
// ZERO-SAME:    (%{{.*}}: tensor<0x16xf32> {{.*}}) -> tensor<0x2x8xf32>
// ZERO:         arith.divsi
func.func @zero_divisor(%x: tensor<?x16xf32> {symshape.axes = #symshape.shape<[batch, 16]>})
    -> tensor<?x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x16xf32>
  %numel = arith.muli %d0, %c16 : index
  %den = arith.muli %d0, %c8 : index
  %rest = arith.divsi %numel, %den : index
  %s0 = arith.index_cast %d0 : index to i64
  %s1 = arith.index_cast %rest : index to i64
  %s2 = arith.constant 8 : i64
  %shape = tensor.from_elements %s0, %s1, %s2 : tensor<3xi64>
  %r = tensor.reshape %x(%shape) : (tensor<?x16xf32>, tensor<3xi64>) -> tensor<?x?x8xf32>
  return %r : tensor<?x?x8xf32>
}

// -----

// A returned argument: both the argument and the result become static.
// CHECK-LABEL: func.func @identity
// CHECK-SAME:    (%[[X:.*]]: tensor<32x4xf32> {{.*}}) -> tensor<32x4xf32>
// CHECK:         %[[XD:.*]] = tensor.cast %[[X]] : tensor<32x4xf32> to tensor<?x4xf32>
// CHECK:         %[[XS:.*]] = tensor.cast %[[XD]] : tensor<?x4xf32> to tensor<32x4xf32>
// CHECK:         return %[[XS]] : tensor<32x4xf32>
// IREE-LABEL: func.func @identity
// IREE-SAME:    (%[[X:.*]]: tensor<32x4xf32>) -> tensor<32x4xf32>
// IREE-NEXT:    return %[[X]] : tensor<32x4xf32>
func.func @identity(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>})
    -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

// -----

// A function called inside the module is left as it is: its axis names are
// its own. Its caller, an entry point, is specialized.
// CHECK-LABEL: func.func private @callee
// CHECK-SAME:    (%{{.*}}: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>}) -> tensor<?xf32>
// CHECK:         symshape.dim %{{.*}}, 0 : tensor<?xf32>
// CHECK-LABEL: func.func @caller
// CHECK-SAME:    (%[[X:.*]]: tensor<32xf32> {symshape.axes = #symshape.shape<[32]>}) -> tensor<32xf32>
// CHECK:         %[[XD:.*]] = tensor.cast %[[X]] : tensor<32xf32> to tensor<?xf32>
// CHECK:         call @callee(%[[XD]]) : (tensor<?xf32>) -> tensor<?xf32>
func.func private @callee(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>})
    -> tensor<?xf32> {
  %n = symshape.dim %x, 0 : tensor<?xf32>
  %r = symshape.reshape %x to [batch] : (tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @caller(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>}) -> tensor<?xf32> {
  %r = func.call @callee(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A bound axis leaves `symshape.bucket` (a static axis has nothing to pad);
// the others stay.
// CHECK-LABEL: func.func @bucketed
// CHECK-SAME: attributes {symshape.bucket = ["seq"]}
// IREE-LABEL: func.func @bucketed
// IREE-NOT: symshape.bucket
// IREE: return
func.func @bucketed(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq]>})
    -> tensor<?x?xf32> attributes {symshape.bucket = ["batch", "seq"]} {
  return %x : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @all_bound
// CHECK-NOT: symshape.bucket
// CHECK: return
func.func @all_bound(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>})
    -> tensor<?xf32> attributes {symshape.bucket = ["batch"]} {
  return %x : tensor<?xf32>
}
