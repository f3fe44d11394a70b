// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-verify-contract %s -verify-diagnostics

// Equations between exact extents that the provers cannot decide are not
// rejected: each gets a remark, and symshape-resolve checks it at run time
// (verify_contract_unproven_invalid.mlir: unproven=reject rejects them).

// Exact extents the provers cannot show equal: the element count of this
// reshape is kept only for an even batch.
func.func @element_count(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> tensor<?x8xf32> {
  // expected-remark @below {{'symshape.reshape' op cannot prove that the element counts of source and result are equal ('4 * batch' vs '8 * (batch floordiv 2)'): checked at run time}}
  %r = symshape.reshape %x to [batch floordiv 2, 8] : (tensor<?x4xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// Two different named axes are not provably broadcast-compatible.
func.func @broadcast_different_axes(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[a]>}, %y: tensor<?xf32> {symshape.axes = #symshape.shape<[b]>}) -> tensor<?xf32> {
  // expected-remark @below {{'symshape.broadcast_in_dim' op cannot prove that broadcast_in_dim input axis 0 is 1 or the target extent ('a' vs 'b'): checked at run time}}
  %r = symshape.broadcast_in_dim %x, %y dims [0] to [dim(1, 0)] : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Unnamed axes of two arguments: the second adopts the first's symbol, which
// only a run-time check establishes.
func.func @unnamed_operands(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  // expected-remark @below {{'arith.addf' op cannot prove that axis 0 of operand #0 and operand #1 are equal ('_d0' vs '_d1'): checked at run time}}
  %r = arith.addf %x, %y : tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// An ONNX-style `-1`: the element count is kept only when width is a
// multiple of 32.
func.func @onnx_minus_one(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, width]>}) -> tensor<?x?x4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %numel = arith.muli %d0, %d1 : index
  %den = arith.muli %d0, %c32 : index
  %rest = arith.divsi %numel, %den : index
  %s0 = arith.index_cast %d0 : index to i64
  %s1 = arith.index_cast %rest : index to i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %shape = tensor.from_elements %s0, %s1, %c4, %c8 : tensor<4xi64>
  // expected-remark @below {{'tensor.reshape' op cannot prove that the element counts of source and result are equal ('batch * width' vs '32 * batch * (batch * width floordiv (32 * batch))'): checked at run time}}
  %r = tensor.reshape %x(%shape) : (tensor<?x?xf32>, tensor<4xi64>) -> tensor<?x?x4x8xf32>
  return %r : tensor<?x?x4x8xf32>
}

// -----

// A row count chosen by a select between 1 and batch is exact, a fresh
// symbol ranging between them: its slice of %x is checked at run time (batch
// may be 0), and the reshape of the slice needs nothing.
func.func @chosen_rows(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %p: i1) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.dim %x, %c0 : tensor<?x4xf32>
  %rows = arith.select %p, %c1, %d : index
  // expected-remark @below {{'tensor.extract_slice' op cannot prove that the slice along axis 0 lies within the source extent ('_d0' vs 'batch'): checked at run time}}
  %s = tensor.extract_slice %x[0, 0] [%rows, 4] [1, 1] : tensor<?x4xf32> to tensor<?x4xf32>
  %r = symshape.reshape %s to [dim(0, 0) * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Between 1 and a size that is at least 1, the choice is proven within it.
func.func @chosen_rows_proven(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %p: i1) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.dim %x, %c0 : tensor<?x4xf32>
  %more = arith.addi %d, %c1 : index
  %y = tensor.empty(%more) : tensor<?x4xf32>
  %rows = arith.select %p, %c1, %more : index
  %s = tensor.extract_slice %y[0, 0] [%rows, 4] [1, 1] : tensor<?x4xf32> to tensor<?x4xf32>
  %r = symshape.reshape %s to [dim(0, 0) * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
