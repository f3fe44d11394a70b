// RUN: not symshape-opt --split-input-file %s 2>&1 | FileCheck %s
// RUN: not symshape-opt - < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: not symshape-opt --allow-unregistered-dialect %s --split-input-file | FileCheck %s --check-prefix=ALLOW

// Malformed input never crashes: every chunk fails with a located error
// (exit status 1), printed with its source line.

// CHECK: opt_parse_errors.mlir:[[@LINE+3]]:12: error: expected ':'
// STDIN: <stdin>:[[@LINE+2]]:12: error: expected ':'
func.func @syntax(%a: i32) -> i32 {
  return %a   i32
}

// -----

// CHECK: opt_parse_errors.mlir:[[@LINE+4]]:8: error: custom op 'symshape.no_such_op' is unknown
// CHECK-NEXT: {{^}}  %0 = symshape.no_such_op : index
// CHECK-NEXT: {{^}}       ^
func.func @unknown_symshape_op() {
  %0 = symshape.no_such_op : index
  return
}

// -----

// CHECK: opt_parse_errors.mlir:[[@LINE+2]]:8: error: unregistered operation 'symshape.bogus' found in dialect ('symshape') that does not allow unknown operations
func.func @unknown_generic_symshape_op() {
  %0 = "symshape.bogus"() : () -> index
  return
}

// -----

// CHECK: opt_parse_errors.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected an extent expression
func.func @malformed_attribute() attributes {e = #symshape.expr<batch + >} {
  return
}

// -----

// CHECK: opt_parse_errors.mlir:[[@LINE+4]]:{{[0-9]+}}: error: operation being parsed with an unregistered dialect
// ALLOW-LABEL: func.func @unregistered_dialect
// ALLOW-NEXT:    "other.op"() : () -> ()
func.func @unregistered_dialect() {
  "other.op"() : () -> ()
  return
}

// -----

// A truncated input fails at its end.
// CHECK: opt_parse_errors.mlir:[[@LINE+2]]:9: error: expected operation name in quotes
func.func @truncated() {
  return
