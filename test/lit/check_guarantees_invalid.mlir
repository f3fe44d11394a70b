// RUN: symshape-opt --split-input-file --symshape-check-guarantees --verify-diagnostics %s

// The annotations record what symshape-infer-shapes knew; a pass that later
// claims more (here: a static truncated axis, an annotation that knew
// nothing) is caught.

func.func @bound_became_static(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<8x4xf32> {
  // expected-error @below {{'symshape.dynamic_truncate' result #0 dimension 0: the guarantee was upgraded from 'ub(batch)' to '8'}}
  %t = symshape.dynamic_truncate %x, %n axis 0 {symshape.shape = #symshape.shape<[ub(batch), 4]>} : (tensor<?x4xf32>, tensor<i64>) -> tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// -----

func.func @unknown_became_known(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> tensor<?x4xf32> {
  // expected-error @below {{'tensor.cast' result #0 dimension 0: the guarantee was upgraded from '?' to 'batch'}}
  %c = tensor.cast %x {symshape.shape = #symshape.shape<[?, 4]>} : tensor<?x4xf32> to tensor<?x4xf32>
  return %c : tensor<?x4xf32>
}

// -----

func.func @exact_changed(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> tensor<?x4xf32> {
  // expected-error @below {{'tensor.cast' result #0 dimension 0: the extent changed from 'batch + 1' to 'batch'}}
  %c = tensor.cast %x {symshape.shape = #symshape.shape<[batch + 1, 4]>} : tensor<?x4xf32> to tensor<?x4xf32>
  return %c : tensor<?x4xf32>
}

// -----

// An annotation edited to claim an exact extent where inference only knows a
// bound is caught: guarantees are compared with an independent re-inference,
// never read back from the annotations.
func.func @edited_annotation(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?x4xf32> {
  // expected-error @below {{'symshape.dynamic_truncate' result #0 dimension 0: the annotation 'batch' claims more than inference establishes ('ub(batch)')}}
  %t = symshape.dynamic_truncate %x, %n axis 0 {symshape.shape = #symshape.shape<[batch, 4]>} : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  return %t : tensor<?x4xf32>
}
