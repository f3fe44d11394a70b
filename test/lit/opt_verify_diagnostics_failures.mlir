// RUN: not symshape-opt --split-input-file --verify-diagnostics %s 2>&1 | FileCheck %s

// An expectation that no diagnostic meets is reported at the comment.
// CHECK: opt_verify_diagnostics_failures.mlir:[[@LINE+1]]:4: error: expected error "no such error" was not produced
// expected-error@below {{no such error}}
func.func @missing() {
  return
}

// -----

// A diagnostic without expectation is reported where it was emitted.
// CHECK: opt_verify_diagnostics_failures.mlir:[[@LINE+2]]:3: error: unexpected error: type of return operand 0 ('i32') doesn't match function result type ('i64') in function @unexpected
func.func @unexpected(%a: i32) -> i64 {
  return %a : i32
}

// -----

// Only the kind differs: reported at the comment as a near miss.
// CHECK: opt_verify_diagnostics_failures.mlir:[[@LINE+2]]:6: error: 'error' diagnostic emitted when expecting a 'warning'
func.func @wrong_kind(%a: i32) -> i64 {
  // expected-warning@below {{type of return operand 0}}
  return %a : i32
}

// -----

// The expectation is on the wrong line.
// CHECK: opt_verify_diagnostics_failures.mlir:[[@LINE+4]]:3: error: unexpected error: type of return operand 0
// CHECK: opt_verify_diagnostics_failures.mlir:[[@LINE+2]]:6: error: expected error "type of return operand 0" was not produced
func.func @wrong_line(%a: i32) -> i64 {
  // expected-error@+2 {{type of return operand 0}}
  return %a : i32
}

// -----

// Malformed -re expectations are errors.
// CHECK: opt_verify_diagnostics_failures.mlir:[[@LINE+2]]:4: error: found start of regex with no end '}}'
// CHECK: opt_verify_diagnostics_failures.mlir:[[@LINE+2]]:4: error: invalid regex: {{.+}}
// expected-error-re {{unterminated {{regex}}
// expected-error-re {{bad {{[}}}}
func.func @malformed() {
  return
}
