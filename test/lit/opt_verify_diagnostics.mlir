// RUN: symshape-opt -split-input-file -verify-diagnostics %s
// RUN: symshape-opt --split-input-file --verify-diagnostics=only-expected %s

// An expectation on the line of the diagnostic.
func.func @same_line(%a: i32) -> i64 {
  return %a : i32 // expected-error {{type of return operand 0 ('i32') doesn't match}}
}

// -----

// @+N and @-N count lines from the comment.
func.func @relative(%a: i32) -> i64 {
  // expected-error@+2 {{doesn't match function result type ('i64')}}

  return %a : i32
}

// -----

func.func @relative_above(%a: i32) -> i64 {
  return %a : i32
  // expected-error@-1 {{in function @relative_above}}
}

// -----

// @below applies to the next line without expectation, @above to the
// previous one; a note is matched like a diagnostic of its own.
// expected-note@below {{see existing symbol definition here}}
func.func @twice() {
  return
}
func.func @twice() {
  // expected-error@above {{redefinition of symbol named 'twice'}}
  return
}

// -----

// With -re, {{...}} blocks inside the text are regular expressions.
func.func @regex(%a: i32) -> i64 {
  // expected-error-re@below {{type of return operand {{[0-9]+}} ('i32') doesn't match function result type ('i{{(32|64)}}')}}
  return %a : i32
}

// -----

// @unknown matches a diagnostic without a file location.
// expected-error@unknown {{type of return operand 0}}
func.func @unknown_location(%a: i32) -> i64 {
  return %a : i32 loc(unknown)
}

