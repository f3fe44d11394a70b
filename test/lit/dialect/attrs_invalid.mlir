// RUN: symshape-opt --split-input-file --verify-diagnostics %s

// An empty expression is rejected.
// expected-error @below {{expected an extent expression}}
func.func @empty() attributes {e = #symshape.expr<>} {
  return
}

// -----

// Scalar semantics are a closed set.
// expected-error @below {{unknown scalar semantics 'round' (expected index, clamp_nonneg or truncate_size)}}
func.func @semantics() attributes {e = #symshape.expr<scalar(1, round)>} {
  return
}

// -----

// expected-error @below {{dim() operand and axis must be non-negative}}
func.func @negative_axis() attributes {e = #symshape.expr<dim(0, -1)>} {
  return
}

// -----

// expected-error @below {{scalar() operand must be non-negative}}
func.func @negative_operand() attributes {e = #symshape.expr<scalar(-2, index)>} {
  return
}

// -----

// Reserved words cannot name symbols.
// expected-error @below {{'mod' is not a valid symbol name}}
func.func @reserved() attributes {e = #symshape.expr<mod + 1>} {
  return
}

// -----

// Symbol names are identifiers without dots.
// expected-error @below {{'batch.x' is not a valid symbol name}}
func.func @dotted() attributes {e = #symshape.expr<batch.x>} {
  return
}

// -----

// `ub(...)` needs its parentheses.
// expected-error @below {{expected '('}}
func.func @bare_ub() attributes {e = #symshape.extent<ub batch>} {
  return
}

// -----

// Unknown attributes in the symshape namespace are rejected.
// expected-error @below {{unknown symshape attribute 'symshape.foo'}}
func.func @unknown_attr() attributes {symshape.foo = 1} {
  return
}

// -----

func.func @annotation_rank(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.shape' has rank 1 but the result type is 'tensor<?x4xf32>'}}
  %0 = tensor.cast %x {symshape.shape = #symshape.shape<[batch]>} : tensor<?x4xf32> to tensor<?x4xf32>
  return
}

// -----

func.func private @two() -> (tensor<f32>, tensor<f32>)
func.func @annotation_results() {
  // expected-error @below {{'symshape.shape' must be a list of shapes for an op with 2 results}}
  %0:2 = func.call @two() {symshape.shape = #symshape.shape<[]>} : () -> (tensor<f32>, tensor<f32>)
  return
}

// -----

func.func private @two() -> (tensor<f32>, tensor<f32>)
func.func @annotation_list() {
  // expected-error @below {{'symshape.shape' must be a #symshape.shape or a list of one #symshape.shape per result}}
  %0:2 = func.call @two() {symshape.shape = [#symshape.shape<[]>]} : () -> (tensor<f32>, tensor<f32>)
  return
}

// -----

func.func @value_kind(%x: index) {
  // expected-error @below {{'symshape.value' must be a #symshape.extent (a scalar result) or a #symshape.shape (the elements of a 1-D result) on a single-result op}}
  %0 = arith.addi %x, %x {symshape.value = #symshape.expr<batch>} : index
  return
}

// -----

// expected-error @below {{unknown symshape argument attribute 'symshape.bar'}}
func.func @unknown_arg_attr(%x: tensor<?xf32> {symshape.bar = 1}) {
  return
}

// -----

// expected-error @below {{'symshape.axes' of argument 0 must be a #symshape.shape}}
func.func @axes_kind(%x: tensor<?xf32> {symshape.axes = ["batch"]}) {
  return
}

// -----

// expected-error @below {{'symshape.axes' on argument 0 of non-tensor type 'i32'}}
func.func @axes_non_tensor(%x: i32 {symshape.axes = #symshape.shape<[batch]>}) {
  return
}

// -----

// expected-error @below {{'symshape.axes' of argument 0 names 1 axes but the argument has rank 2}}
func.func @axes_rank(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch]>}) {
  return
}

// -----

// expected-error @below {{axis 0 of argument 0 must be exact, got 'ub(batch)'}}
func.func @axes_bound(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[ub(batch)]>}) {
  return
}

// -----

// A declared axis that divides by the constant 0 has no size.
// expected-error @below {{axis 1 of argument 0 divides by the constant 0 in 'n mod 0'}}
func.func @axes_zero_divisor(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, 2 * (n mod 0)]>}) {
  return
}

// -----

// expected-error @below {{axis 0 of argument 0 may only use constants and named symbols, got 'dim(0, 0)'}}
func.func @axes_local(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[dim(0, 0)]>}) {
  return
}

// -----

// expected-error @below {{axis 1 of argument 0 is declared 3 but the argument type is 'tensor<?x4xf32>'}}
func.func @axes_static(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 3]>}) {
  return
}

// -----

// A declaration has no entry block: the axes are checked against its type.
// expected-error @below {{'symshape.axes' of argument 0 names 1 axes but the argument has rank 2}}
func.func private @axes_rank_declaration(tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch]>})

// -----

// A generic-form function with fewer entry-block arguments than its type:
// the axes are checked against the type, then the function verifier rejects
// the mismatch.
// expected-error @below {{entry block must have 1 arguments to match function signature}}
"func.func"() <{function_type = (tensor<?xf32>) -> (), sym_name = "short_block",
                arg_attrs = [{symshape.axes = #symshape.shape<[b]>}]}> ({
  "func.return"() : () -> ()
}) : () -> ()

// -----

// Integer literals are decimal: MLIR's hexadecimal integers are not read.
// expected-error @below {{expected a decimal integer, not a hexadecimal one}}
func.func @hexadecimal() attributes {e = #symshape.expr<0x10>} {
  return
}

// -----

// expected-error @below {{expected a decimal integer, not a hexadecimal one}}
func.func @hexadecimal_axis() attributes {e = #symshape.expr<dim(0x1, 0)>} {
  return
}

// -----

// Literals stay within int64; only a negated literal may be 2^63.
// expected-error @below {{integer literal is out of the int64 range}}
func.func @too_large() attributes {e = #symshape.expr<9223372036854775808>} {
  return
}

// -----

// expected-error @below {{integer literal is out of the int64 range}}
func.func @too_small() attributes {e = #symshape.expr<-9223372036854775809>} {
  return
}

// -----

// `true` is a symbol name, never the integer 1 (MLIR's integer parser reads
// it as one): dim() needs a literal.
// expected-error @below {{expected a non-negative integer}}
func.func @boolean_axis() attributes {e = #symshape.expr<dim(true, 0)>} {
  return
}

// -----

// `//` starts an MLIR comment: it is not floor division, and a comment may
// not cut an expression short.
// expected-error @below {{'//' is not an operator (it starts a comment); write 'floordiv'}}
func.func @comment() attributes {e = #symshape.expr<seq // 2
  + 1>} {
  return
}

// -----

// expected-error @below {{'//' is not an operator (it starts a comment); write 'floordiv'}}
func.func @comment_in_shape() attributes {e = #symshape.shape<[seq, // 2
  1]>} {
  return
}

// -----

// expected-error @below {{'symshape.bucket' must be a non-empty list of axis names}}
func.func @bucket_kind(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>})
    attributes {symshape.bucket = "batch"} {
  return
}

// -----

// expected-error @below {{'symshape.bucket' must be a non-empty list of axis names}}
func.func @bucket_empty(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>})
    attributes {symshape.bucket = []} {
  return
}

// -----

// expected-error @below {{'symshape.bucket' names 'seq', which no argument's 'symshape.axes' declares}}
func.func @bucket_undeclared(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>})
    attributes {symshape.bucket = ["batch", "seq"]} {
  return
}

// -----

// expected-error @below {{'symshape.bucket' is only valid on a function}}
module attributes {symshape.bucket = ["batch"]} {
}

// -----

// expected-error @below {{'symshape.ranges' is only valid on a function}}
module attributes {symshape.ranges = {_d0 = #symshape.shape<[0, 4]>}} {
}

// -----

// expected-error @below {{'symshape.ranges' must be a dictionary from fresh symbols to #symshape.shape<[lo, hi]>}}
func.func @ranges_kind() attributes {symshape.ranges = [#symshape.shape<[0, 4]>]} {
  return
}

// -----

// expected-error @below {{'symshape.ranges' names 'batch', which is not a fresh symbol (_dN)}}
func.func @ranges_named() attributes {symshape.ranges = {batch = #symshape.shape<[0, 4]>}} {
  return
}

// -----

// expected-error @below {{'symshape.ranges' gives '_d1' a range that is not #symshape.shape<[lo, hi]> with an exact lo and an exact or unknown hi}}
func.func @ranges_bound() attributes {symshape.ranges = {_d1 = #symshape.shape<[0, ub(n)]>}} {
  return
}

// -----

// expected-error @below {{'symshape.ranges' gives '_d1' a range that is not #symshape.shape<[lo, hi]> with an exact lo and an exact or unknown hi}}
func.func @ranges_rank() attributes {symshape.ranges = {_d1 = #symshape.shape<[0]>}} {
  return
}

// -----

// expected-error @below {{'symshape.checked' must be a non-empty list of requirement names}}
%0 = arith.constant {symshape.checked = []} 0 : index

// -----

// expected-error @below {{'symshape.checked' must be a non-empty list of requirement names}}
%0 = arith.constant {symshape.checked = [1]} 0 : index
