// RUN: symshape-opt --verify-diagnostics=only-expected %s
// RUN: not symshape-opt --verify-diagnostics %s 2>&1 | FileCheck %s

// In only-expected mode, diagnostics nobody expects are not failures; the
// default mode reports them.
// CHECK: opt_verify_diagnostics_only_expected.mlir:[[@LINE+6]]:1: error: unexpected error: redefinition of symbol named 'twice'
// CHECK-NOT: error
// expected-note@below {{see existing symbol definition here}}
func.func @twice() {
  return
}
func.func @twice() {
  return
}
