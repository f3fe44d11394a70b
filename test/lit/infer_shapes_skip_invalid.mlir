// RUN: symshape-opt --split-input-file --symshape-infer-shapes='policy=skip' %s -verify-diagnostics

// policy=skip keeps existing annotations, but never one that contradicts a
// static dimension of the result type.
func.func @skip_static(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{result #0 dimension 0: annotation 'ub(2)' contradicts the static extent 4}}
  %e = math.exp %x {symshape.shape = #symshape.shape<[ub(2)]>} : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

func.func @skip_static_exact(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> tensor<?x4xf32> {
  // expected-error @below {{result #0 dimension 1: annotation 'n + 5' contradicts the static extent 4}}
  %e = math.exp %x {symshape.shape = #symshape.shape<[batch, n + 5]>} : tensor<?x4xf32>
  return %e : tensor<?x4xf32>
}
