// RUN: not symshape-opt --split-input-file %s > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: not symshape-opt %s 2>&1 | FileCheck %s --check-prefix=WHOLE

// Each chunk is parsed and printed on its own and the outputs are joined by
// the split marker; a chunk that fails prints nothing.
// OUT-LABEL: func.func @first
// OUT:       {{^// -{5}$}}
// OUT-NEXT:  {{^// -{5}$}}
// OUT-NEXT:  module {
// OUT-NEXT:    func.func @third
// OUT-NOT:   func.func

// A marker with a dash too few or too many does not split and is warned about.
// ERR: opt_split_input_file.mlir:[[@LINE+4]]:7: warning: near miss with file split marker
func.func @first() {
  return
}
// ----

// -----

// Locations are relative to the whole input, not to the chunk; without
// --split-input-file the same error ends the run.
// ERR:   opt_split_input_file.mlir:[[@LINE+3]]:3: error: type of return operand 0 ('i32') doesn't match function result type ('i64') in function @second
// WHOLE: opt_split_input_file.mlir:[[@LINE+2]]:3: error: type of return operand 0 ('i32') doesn't match function result type ('i64') in function @second
func.func @second(%a: i32) -> i64 {
  return %a : i32
}

// -----

// A valid chunk after a failing one is processed.
// ERR-NOT: error
func.func @third() {
  return
}
