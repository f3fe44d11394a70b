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
  // expected-remark @below {{'symshape.gather' op cannot prove that gather slice_sizes[0] lies within the operand extent ('1' vs 'rows'): checked at run time}}
  %g = symshape.gather %table[%ids], %t start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, dim(2, 1)] : (tensor<?x?xf32>, tensor<?x1xi64>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}

// -----

// A shape element that is the truncated size, known only as a bound.
func.func @tensor_reshape_shape(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?x4xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %t, %c0 : tensor<?x4xf32>
  %c4 = arith.constant 4 : index
  %s = tensor.from_elements %rows, %c4 : tensor<2xindex>
  // expected-error @below {{'tensor.reshape' op reshape shape element 0 needs an exact extent, got upper bound 'batch'}}
  %r = tensor.reshape %t(%s) : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// The bound is an exact size, but not the truncated tensor's: its rows
// cannot be reshaped to it.
func.func @tensor_reshape_to_bound(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?x4xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %cap = symshape.bound %t, 0 : tensor<?x4xf32>
  %rows = symshape.to_index %cap
  %c4 = arith.constant 4 : index
  %s = tensor.from_elements %rows, %c4 : tensor<2xindex>
  // expected-error @below {{'tensor.reshape' op cannot establish that the element counts of source and result are equal: it needs exact extents, got upper bound '4 * batch' and exact '4 * batch'}}
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
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %t, %c0 : tensor<?xf32>
  // expected-error @below {{'tensor.expand_shape' op expand_shape output size 0 needs an exact extent, got upper bound 'n'}}
  %e = tensor.expand_shape %t [[0, 1]] output_shape [%rows, 1] : tensor<?xf32> into tensor<?x1xf32>
  return %e : tensor<?x1xf32>
}

// -----

// Output sizes given by the bound are exact, but the truncated source is not
// provably of that size (mode=defer checks it at run time).
func.func @expand_shape_to_bound(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %n: tensor<i64>) -> tensor<?x1xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %cap = symshape.bound %t, 0 : tensor<?xf32>
  %rows = symshape.to_index %cap
  // expected-error @below {{'tensor.expand_shape' op cannot establish that source axis 0 and the product of result axes [0, 1] are equal: it needs exact extents, got upper bound 'n' and exact 'n'}}
  %e = tensor.expand_shape %t [[0, 1]] output_shape [%rows, 1] : tensor<?xf32> into tensor<?x1xf32>
  return %e : tensor<?x1xf32>
}

// -----

// The added axis of a linalg.broadcast is a broadcast target: a size known
// only as a bound is rejected (mode=defer runs it: the axis is the init's).
func.func @linalg_broadcast_init(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>, %v: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %t, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%rows) : tensor<?x4xf32>
  // expected-error @below {{'linalg.broadcast' op broadcast init extent 0 needs an exact extent, got upper bound 'batch'}}
  %b = linalg.broadcast ins(%v : tensor<4xf32>) outs(%e : tensor<?x4xf32>) dimensions = [0]
  return %b : tensor<?x4xf32>
}

// -----

// bufferization.alloc_tensor is sized like tensor.empty.
func.func @alloc_tensor_init(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %kept = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %size = tensor.dim %kept, %c0 : tensor<?xf32>
  %t = bufferization.alloc_tensor(%size) : tensor<?xf32>
  // expected-error @below {{'linalg.copy' op cannot establish that 'linalg.copy' loop d0: operand #0 axis 0 and operand #1 axis 0 are equal: it needs exact extents, got exact 'n' and upper bound 'n'}}
  %r = linalg.copy ins(%x : tensor<?xf32>) outs(%t : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// The truncated rows and an init of as many rows as the bound: the loop
// extents need not agree.
func.func @generic_init(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?x4xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %cap = symshape.bound %t, 0 : tensor<?x4xf32>
  %rows = symshape.to_index %cap
  %e = tensor.empty(%rows) : tensor<?x4xf32>
  // expected-error @below {{'linalg.generic' op cannot establish that 'linalg.generic' loop d0: operand #0 axis 0 and operand #1 axis 0 are equal: it needs exact extents, got upper bound 'batch' and exact 'batch'}}
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?x4xf32>
  return %g : tensor<?x4xf32>
}

// -----

// Exact targets from another tensor do not make a truncated input compatible:
// the element count cannot be proven.
func.func @reshape_truncated_input(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  // expected-error @below {{'symshape.reshape' op cannot establish that the element counts of source and result are equal: it needs exact extents, got upper bound '4 * batch' and exact '4 * batch'}}
  %r = symshape.reshape %t, %x to [dim(1, 0) * 4] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A broadcast target taken from the untruncated tensor is exact, but the
// truncated input axis is not provably equal to it.
func.func @broadcast_truncated_input(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?x4xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  // expected-error @below {{'symshape.broadcast_in_dim' op cannot establish that broadcast_in_dim input axis 0 is 1 or the target extent: it needs exact extents, got upper bound 'batch' and exact 'batch'}}
  %b = symshape.broadcast_in_dim %t, %x dims [0, 1] to [dim(1, 0), 4] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %b : tensor<?x4xf32>
}

// -----

// A linalg.transpose init sized by the truncated size: its axes share loops
// with the input's, so they must be equal (not only for linalg.generic).
func.func @transpose_init(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<4x?xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %t, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%rows) : tensor<4x?xf32>
  // expected-error @below {{'linalg.transpose' op cannot establish that 'linalg.transpose' loop d1: operand #0 axis 0 and operand #1 axis 1 are equal: it needs exact extents, got exact 'batch' and upper bound 'batch'}}
  %r = linalg.transpose ins(%x : tensor<?x4xf32>) outs(%e : tensor<4x?xf32>) permutation = [1, 0]
  return %r : tensor<4x?xf32>
}

// -----

// A linalg.reduce whose truncated input shares its kept loop with an exact
// init: the rows would be read past the input's end.
func.func @reduce_input(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%rows) : tensor<?xf32>
  // expected-error @below {{'linalg.reduce' op cannot establish that 'linalg.reduce' loop d0: operand #0 axis 0 and operand #1 axis 0 are equal: it needs exact extents, got upper bound 'batch' and exact 'batch'}}
  %r = linalg.reduce ins(%t : tensor<?x4xf32>) outs(%e : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
}

// -----

// linalg.copy of a truncated tensor into an init sized by the bound.
func.func @copy_init(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %cap = symshape.bound %t, 0 : tensor<?xf32>
  %rows = symshape.to_index %cap
  %e = tensor.empty(%rows) : tensor<?xf32>
  // expected-error @below {{'linalg.copy' op cannot establish that 'linalg.copy' loop d0: operand #0 axis 0 and operand #1 axis 0 are equal: it needs exact extents, got upper bound 'n' and exact 'n'}}
  %r = linalg.copy ins(%t : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Elementwise operands must have equal extents: an exact one and a bound
// do not, unless proven.
func.func @elementwise_operands(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  // expected-error @below {{'arith.addf' op cannot establish that axis 0 of operand #0 and operand #1 are equal: it needs exact extents, got exact 'n' and upper bound 'n'}}
  %r = arith.addf %x, %t : tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Two arguments of the callee share the axis 'n': a call passing an exact
// and a bounded tensor uses the bound as 'n'.
func.func private @pair(%a: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %b: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<?xf32> {
  %s = arith.addf %a, %b : tensor<?xf32>
  return %s : tensor<?xf32>
}

func.func @call_shared_axis(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  // expected-error @below {{'func.call' op cannot establish that call to @pair: operand #1 axis 0 and an earlier operand (both 'n' in the callee) are equal: it needs exact extents, got exact 'n' and upper bound 'n'}}
  %r = func.call @pair(%x, %t) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A cast to a static size turns a bound into a true size.
func.func @cast_to_static(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<4xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  // expected-error @below {{'tensor.cast' op cannot establish that source axis 0 and the static result extent 4 are equal: it needs exact extents, got upper bound 'n' and exact '4'}}
  %c = tensor.cast %t : tensor<?xf32> to tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// A slice of exact size from a bounded source may read past its end.
func.func @slice_of_bounded(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %len = tensor.dim %x, %c0 : tensor<?xf32>
  // expected-error @below {{'tensor.extract_slice' op cannot establish that the slice along axis 0 lies within the source extent: it needs exact extents, got exact 'n' and upper bound 'n'}}
  %s = tensor.extract_slice %t[0] [%len] [1] : tensor<?xf32> to tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// An insertion of exact size into a bounded destination may write past its end.
func.func @insert_into_bounded(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %len = tensor.dim %x, %c0 : tensor<?xf32>
  // expected-error @below {{'tensor.insert_slice' op cannot establish that the inserted slice along axis 0 lies within the destination extent: it needs exact extents, got exact 'n' and upper bound 'n'}}
  %s = tensor.insert_slice %x into %t[0] [%len] [1] : tensor<?xf32> into tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// expand_shape: the output sizes must multiply to the source size, which is
// only a bound.
func.func @expand_bounded_source(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?x2xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %len = tensor.dim %x, %c0 : tensor<?xf32>
  %half = arith.floordivsi %len, %c2 : index
  // expected-error @below {{'tensor.expand_shape' op cannot establish that source axis 0 and the product of result axes [0, 1] are equal: it needs exact extents, got upper bound 'n' and exact '2 * (n floordiv 2)'}}
  %e = tensor.expand_shape %t [[0, 1]] output_shape [%half, 2] : tensor<?xf32> into tensor<?x2xf32>
  return %e : tensor<?x2xf32>
}

// -----

// A hand-written exact annotation on a stage-1 truncation is output, not
// input: the reshape still sees the upper bound.
func.func @annotation_not_trusted(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 {symshape.shape = #symshape.shape<[batch, 4]>} : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  // expected-error @below {{'symshape.reshape' op cannot establish that the element counts of source and result are equal: it needs exact extents, got upper bound '4 * batch' and exact '4 * batch'}}
  %r = symshape.reshape %t to [batch * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A gather slice size on an axis not in start_index_map must fit in the
// operand, which is truncated along that axis.
func.func @gather_unmapped_axis(%table: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rows, width]>}, %ids: tensor<?x1xi64>, %n: tensor<i64>) -> tensor<?x?xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %table, %n axis 1 : (tensor<?x?xf32>, tensor<i64>) -> tensor<?x?xf32>
  // expected-remark @below {{'symshape.gather' op cannot prove that gather slice_sizes[0] lies within the operand extent ('1' vs 'rows'): checked at run time}}
  // expected-error @below {{'symshape.gather' op cannot establish that gather slice_sizes[1] lies within the operand extent: it needs exact extents, got exact 'width' and upper bound 'width'}}
  %g = symshape.gather %t[%ids], %table start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, dim(2, 1)] : (tensor<?x?xf32>, tensor<?x1xi64>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}

// -----

// A window read through an affine map (d0 * 2 + d1: stride 2, kernel 3)
// reaches index 2 * (out - 1) + 2: the operand's extent must be a true size.
#window_in = affine_map<(d0, d1) -> (d0 * 2 + d1)>
#window_k = affine_map<(d0, d1) -> (d1)>
#window_out = affine_map<(d0, d1) -> (d0)>
func.func @window_over_bound(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>, %w: tensor<3xf32>, %init: tensor<?xf32> {symshape.axes = #symshape.shape<[m]>}) -> tensor<?xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  // expected-error @below {{'linalg.generic' op cannot establish that the window of operand #0 axis 0 (d0 * 2 + d1) lies within the operand extent: it needs exact extents, got exact '2 * m + 1' and upper bound 'n'}}
  %r = linalg.generic {indexing_maps = [#window_in, #window_k, #window_out], iterator_types = ["parallel", "reduction"]} ins(%t, %w : tensor<?xf32>, tensor<3xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A window through a non-linear map (d0 mod 4, 8 iterations) reads indices 0
// to 3: the operand needs a true extent of at least 4.
#mod_in = affine_map<(d0) -> (d0 mod 4)>
#mod_out = affine_map<(d0) -> (d0)>
func.func @modular_read_over_bound(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>, %init: tensor<8xf32>) -> tensor<8xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  // expected-error @below {{'linalg.generic' op cannot establish that the window of operand #0 axis 0 (d0 mod 4) lies within the operand extent: it needs exact extents, got exact '4' and upper bound 'n'}}
  %r = linalg.generic {indexing_maps = [#mod_in, #mod_out], iterator_types = ["parallel"]} ins(%t : tensor<?xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A constant map result reads that index: index 2 needs an operand extent of
// at least 3, a true size.
#const_in = affine_map<(d0) -> (d0, 2)>
#const_out = affine_map<(d0) -> (d0)>
func.func @constant_read_over_bound(%x: tensor<4x?xf32> {symshape.axes = #symshape.shape<[4, n]>}, %k: tensor<i64>, %init: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %k axis 1 : (tensor<4x?xf32>, tensor<i64>) -> tensor<4x?xf32>
  // expected-error @below {{'linalg.generic' op cannot establish that the window of operand #0 axis 1 (2) lies within the operand extent: it needs exact extents, got exact '3' and upper bound 'n'}}
  %r = linalg.generic {indexing_maps = [#const_in, #const_out], iterator_types = ["parallel"]} ins(%t : tensor<4x?xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Arithmetic on a size known only as a bound stays a bound: a size computed
// from it by a difference, a product or a division (floor or ceiling) by
// exact values sizes a tensor by an upper bound (here (2 * batch - 1)
// ceildiv 2 = batch), not by a fresh data-dependent extent.
func.func @arith_on_a_bound(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?x4xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %t, %c0 : tensor<?x4xf32>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %twice = arith.muli %rows, %c2 : index
  %less = arith.subi %twice, %c1 : index
  %half = arith.ceildivsi %less, %c2 : index
  %e = tensor.empty(%half) : tensor<?x4xf32>
  // expected-error @below {{'linalg.copy' op cannot establish that 'linalg.copy' loop d0: operand #0 axis 0 and operand #1 axis 0 are equal: it needs exact extents, got exact 'batch' and upper bound 'batch'}}
  %r = linalg.copy ins(%x : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// Truncating division and remainder of a bound (>= 0) stay bounds too.
func.func @truncating_division_of_a_bound(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?x4xf32> {
  // expected-note @below {{the upper bound comes from 'symshape.dynamic_truncate' here}}
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %t, %c0 : tensor<?x4xf32>
  %c3 = arith.constant 3 : index
  %third = arith.divsi %rows, %c3 : index
  %e = tensor.empty(%third) : tensor<?x4xf32>
  // expected-error @below {{'linalg.copy' op cannot establish that 'linalg.copy' loop d0: operand #0 axis 0 and operand #1 axis 0 are equal: it needs exact extents, got exact 'batch' and upper bound 'batch floordiv 3'}}
  %r = linalg.copy ins(%x : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
