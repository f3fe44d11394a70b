// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-verify-contract --verify-diagnostics %s

// Each consumer that needs an exact extent rejects an upper bound or an
// unknown extent, naming the op, the field and what it saw, with a note at
// the op that weakened the guarantee.

func.func @reshape_target(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  // expected-error @below {{'symshape.reshape' op reshape target extent 0 needs an exact extent, got upper bound '4 * batch'}}
  %r = symshape.reshape %t to [dim(0, 0) * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A per-op stage overrides the pass option: stage upper_bound is rejected too.
func.func @reshape_target_stage(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?x2xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 stage upper_bound : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  // expected-error @below {{'symshape.reshape' op reshape target extent 0 needs an exact extent, got upper bound '2 * batch'}}
  %r = symshape.reshape %t to [dim(0, 0) * 2, 2] : (tensor<?x4xf32>) -> tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}

// -----

func.func @broadcast_target(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  // expected-error @below {{'symshape.broadcast_in_dim' op broadcast_in_dim target extent 0 needs an exact extent, got upper bound 'batch'}}
  %y = symshape.broadcast_in_dim %b, %t dims [1] to [dim(1, 0), 4] : (tensor<4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

func.func @gather_slice_size(%table: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rows, width]>}, %ids: tensor<?x1xi64>, %n: tensor<i64>) -> tensor<?x?xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %table, %n axis 1 : (tensor<?x?xf32>, tensor<i64>) -> tensor<?x?xf32>
  // expected-error @below {{'symshape.gather' op gather slice_sizes[1] needs an exact extent, got upper bound 'width'}}
  %g = symshape.gather %table[%ids], %t start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, dim(2, 1)] : (tensor<?x?xf32>, tensor<?x1xi64>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}

// -----

func.func @tensor_reshape_shape(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?x4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  // expected-note @below {{the upper bound comes from 'symshape.bound' here}}
  %cap = symshape.bound %t, 0 : tensor<?x4xf32>
  %rows = symshape.to_index %cap
  %c4 = arith.constant 4 : index
  %s = tensor.from_elements %rows, %c4 : tensor<2xindex>
  // expected-error @below {{'tensor.reshape' op reshape shape element 0 needs an exact extent, got upper bound 'batch'}}
  %r = tensor.reshape %t(%s) : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// An unknown element: a truncating division of a value that may be negative.
func.func @tensor_reshape_unknown(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  %neg = arith.subi %c0, %d : index
  %q = arith.divsi %neg, %c2 : index
  %s = tensor.from_elements %q : tensor<1xindex>
  // expected-error @below {{'tensor.reshape' op reshape shape element 0 needs an exact extent, got unknown}}
  %r = tensor.reshape %x(%s) : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

func.func @expand_shape_size(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %n: tensor<i64>) -> tensor<?x1xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  // expected-note @below {{the upper bound comes from 'symshape.bound' here}}
  %cap = symshape.bound %t, 0 : tensor<?xf32>
  %rows = symshape.to_index %cap
  // expected-error @below {{'tensor.expand_shape' op expand_shape output size 0 needs an exact extent, got upper bound 'n'}}
  %e = tensor.expand_shape %t [[0, 1]] output_shape [%rows, 1] : tensor<?xf32> into tensor<?x1xf32>
  return %e : tensor<?x1xf32>
}

// -----

// The added axis of a linalg.broadcast has no input axis to check against.
func.func @linalg_broadcast_init(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>, %v: tensor<4xf32>) -> tensor<?x4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  // expected-note @below {{the upper bound comes from 'symshape.bound' here}}
  %cap = symshape.bound %t, 0 : tensor<?x4xf32>
  %rows = symshape.to_index %cap
  %e = tensor.empty(%rows) : tensor<?x4xf32>
  // expected-error @below {{'linalg.broadcast' op broadcast init extent 0 needs an exact extent, got upper bound 'batch'; no runtime check can establish it}}
  %b = linalg.broadcast ins(%v : tensor<4xf32>) outs(%e : tensor<?x4xf32>) dimensions = [0]
  return %b : tensor<?x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_init(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?x4xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  // expected-note @below {{the upper bound comes from 'symshape.bound' here}}
  %cap = symshape.bound %t, 0 : tensor<?x4xf32>
  %rows = symshape.to_index %cap
  %e = tensor.empty(%rows) : tensor<?x4xf32>
  // expected-error @below {{'linalg.generic' op generic init #0 extent 0 needs an exact extent, got upper bound 'batch'}}
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?x4xf32>
  return %g : tensor<?x4xf32>
}

// -----

// Exact extents are not enough for a reshape: the element count must be
// provably preserved (here it is not for an odd batch).
func.func @element_count(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> tensor<?x8xf32> {
  // expected-error @below {{'symshape.reshape' op cannot prove that the reshape keeps the element count ('4 * batch' elements in, '8 * (batch floordiv 2)' out)}}
  %r = symshape.reshape %x to [batch floordiv 2, 8] : (tensor<?x4xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// Exact targets from another tensor do not make a truncated input compatible:
// the element count cannot be proven.
func.func @reshape_truncated_input(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?xf32> {
  // expected-note @below {{an extent involved is weakened by 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  // expected-error @below {{'symshape.reshape' op cannot prove that the reshape keeps the element count ([ub(batch), 4] elements in, '4 * batch' out)}}
  %r = symshape.reshape %t, %x to [dim(1, 0) * 4] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A broadcast target taken from the untruncated tensor is exact, but the
// truncated input axis is not provably equal to it.
func.func @broadcast_truncated_input(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?x4xf32> {
  // expected-note @below {{an extent involved is weakened by 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  // expected-error @below {{'symshape.broadcast_in_dim' op cannot prove that input axis 0 ('ub(batch)') is 1 or the target extent 'batch'}}
  %b = symshape.broadcast_in_dim %t, %x dims [0, 1] to [dim(1, 0), 4] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %b : tensor<?x4xf32>
}

// -----

// Two different named axes are not provably compatible.
func.func @broadcast_different_axes(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[a]>}, %y: tensor<?xf32> {symshape.axes = #symshape.shape<[b]>}) -> tensor<?xf32> {
  // expected-error @below {{'symshape.broadcast_in_dim' op cannot prove that input axis 0 ('a') is 1 or the target extent 'b'}}
  %r = symshape.broadcast_in_dim %x, %y dims [0] to [dim(1, 0)] : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
