// RUN: symshape-opt --split-input-file --symshape-infer-shapes='policy=strict' %s -verify-diagnostics

// Under policy=strict, an annotation must follow from what inference finds.

// More specific than inference: `batch` for a size read from a scalar argument.
func.func @strict_more_specific(%t: tensor<i64>) -> tensor<?x4xf32> {
  %raw = tensor.extract %t[] : tensor<i64>
  %n = arith.index_cast %raw : i64 to index
  // expected-error @below {{result #0 dimension 0: annotation 'batch' does not follow from the inferred extent '_d0 - _d1' (policy=strict)}}
  %e = tensor.empty(%n) {symshape.shape = #symshape.shape<[batch, 4]>} : tensor<?x4xf32>
  return %e : tensor<?x4xf32>
}

// -----

// A bound the inferred extent does not provably respect.
func.func @strict_bound(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>}) -> tensor<?xf32> {
  // expected-error @below {{result #0 dimension 0: annotation 'ub(batch - 1)' does not follow from the inferred extent 'batch' (policy=strict)}}
  %e = math.exp %x {symshape.shape = #symshape.shape<[ub(batch - 1)]>} : tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

// An exact annotation where inference only has an upper bound.
func.func @strict_exact_over_bound(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>},
                                   %n: tensor<i64>) -> tensor<?xf32> {
  // expected-error @below {{result #0 dimension 0: annotation 'batch' does not follow from the inferred extent 'ub(batch)' (policy=strict)}}
  %t = symshape.dynamic_truncate %x, %n axis 0 {symshape.shape = #symshape.shape<[batch]>}
      : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  return %t : tensor<?xf32>
}
