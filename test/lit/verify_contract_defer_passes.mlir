// RUN: symshape-opt --symshape-infer-shapes --symshape-verify-contract=mode=defer --symshape-resolve %s | FileCheck %s
// RUN: symshape-opt --symshape-infer-shapes --symshape-verify-contract=mode=defer --cse --symshape-resolve %s | FileCheck %s
// RUN: symshape-opt --symshape-infer-shapes --symshape-verify-contract=mode=defer --canonicalize --symshape-resolve %s | FileCheck %s
// RUN: symshape-opt --symshape-infer-shapes --symshape-verify-contract=mode=defer %s | FileCheck %s --check-prefix=MARKED

// A deferred check is in the IR, and the op names what it establishes in
// `symshape.checked`: an upstream pass between the contract and resolve
// drops the shared analysis, and resolve, inferring again, emits no second
// check for it. `symshape-resolve` removes the attribute.
// MARKED: cf.assert {{.*}}"symshape: check failed: axis 0 of operand #0 and operand #1 are equal (arith.addf
// MARKED-NEXT: arith.addf {{.*}}symshape.checked = ["axis 0 of operand #0 and operand #1 are equal"]
// CHECK-LABEL: func.func @deferred_once
// CHECK: cf.assert {{.*}}"symshape: check failed: axis 0 of operand #0 and operand #1 are equal (arith.addf
// CHECK-NOT: cf.assert
// CHECK-NOT: symshape.checked
// CHECK: return
func.func @deferred_once(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                         %n: tensor<i64>) -> tensor<?x4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %s = arith.addf %t, %x : tensor<?x4xf32>
  %u = arith.mulf %s, %t : tensor<?x4xf32>
  return %u : tensor<?x4xf32>
}
