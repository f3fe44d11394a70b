// RUN: symshape-opt --split-input-file --verify-diagnostics %s

func.func @dim_axis(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.dim' op axis 2 is out of range for rank 2}}
  %0 = symshape.dim %x, 2 : tensor<?x4xf32>
  return
}

// -----

func.func @bound_axis(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.bound' op axis -1 is out of range for rank 2}}
  %0 = symshape.bound %x, -1 : tensor<?x4xf32>
  return
}

// -----

func.func @scalar_type(%n: tensor<2xi64>) {
  // expected-error @below {{'symshape.runtime_scalar' op operand #0 must be 0-d tensor of integer or index, but got 'tensor<2xi64>'}}
  %0 = symshape.runtime_scalar %n index : tensor<2xi64>
  return
}

// -----

func.func @reshape_rank(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.reshape' op reshape target has 1 extents but the result has rank 2}}
  %0 = symshape.reshape %x to [dim(0, 0) * 4] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

// A target extent must be exact: an upper bound is never a reshape target.
func.func @reshape_bound(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.reshape' op reshape target extent 0 must be exact, got 'ub(dim(0, 0))'}}
  %0 = symshape.reshape %x to [ub(dim(0, 0)), 4] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @reshape_unknown(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.reshape' op reshape target extent 1 must be exact, got '?'}}
  %0 = symshape.reshape %x to [dim(0, 0), ?] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @leaf_operand(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.reshape' op reshape target extent 0: 'dim(1, 0)' refers to operand #1 but the op has 1 operands}}
  %0 = symshape.reshape %x to [dim(1, 0), 4] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @leaf_axis(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.reshape' op reshape target extent 0: 'dim(0, 5)' is out of range for 'tensor<?x4xf32>'}}
  %0 = symshape.reshape %x to [dim(0, 5), 4] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @leaf_scalar_operand(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.reshape' op reshape target extent 0: 'scalar(3, index)' refers to operand #3 but the op has 1 operands}}
  %0 = symshape.reshape %x to [scalar(3, index), 4] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @leaf_scalar_type(%x: tensor<?x4xf32>, %s: tensor<4xi64>) {
  // expected-error @below {{'symshape.reshape' op reshape target extent 0: 'scalar(1, index)' needs a 0-d integer tensor operand, got 'tensor<4xi64>'}}
  %0 = symshape.reshape %x, %s to [scalar(1, index), 4] : (tensor<?x4xf32>, tensor<4xi64>) -> tensor<?x4xf32>
  return
}

// -----

func.func @division_by_zero(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.reshape' op reshape target extent 0: division by zero in 'dim(0, 0) floordiv (4 - 4)'}}
  %0 = symshape.reshape %x to [dim(0, 0) floordiv (4 - 4), 4] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @negative_extent(%x: tensor<8xf32>) {
  // expected-error @below {{'symshape.reshape' op reshape target extent 0 is negative (-1)}}
  %0 = symshape.reshape %x to [3 - 4, 8] : (tensor<8xf32>) -> tensor<?x8xf32>
  return
}

// -----

func.func @static_mismatch(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.reshape' op reshape target extent 1 is 3 but result dimension 1 is 4}}
  %0 = symshape.reshape %x to [dim(0, 0), 3] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @element_type(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.reshape' op result element type 'f16' differs from input element type 'f32'}}
  %0 = symshape.reshape %x to [dim(0, 0), 4] : (tensor<?x4xf32>) -> tensor<?x4xf16>
  return
}

// -----

func.func @element_count(%x: tensor<2x4xf32>) {
  // expected-error @below {{'symshape.reshape' op reshape changes the element count from 8 to 6}}
  %0 = symshape.reshape %x to [dim(0, 0), 3] : (tensor<2x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_dims_count(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.broadcast_in_dim' op dims has 1 entries but the input has rank 2}}
  %0 = symshape.broadcast_in_dim %x dims [0] to [dim(0, 0), 4] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @broadcast_dims_range(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.broadcast_in_dim' op dims entry 3 is out of range for rank 2}}
  %0 = symshape.broadcast_in_dim %x dims [0, 3] to [dim(0, 0), 4] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @broadcast_dims_repeat(%x: tensor<?x4xf32>) {
  // expected-error @below {{'symshape.broadcast_in_dim' op dims repeats axis 0}}
  %0 = symshape.broadcast_in_dim %x dims [0, 0] to [dim(0, 0), 4] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @broadcast_size(%x: tensor<3xf32>) {
  // expected-error @below {{'symshape.broadcast_in_dim' op input axis 0 has size 3 but broadcast_in_dim target extent 0 is 4}}
  %0 = symshape.broadcast_in_dim %x dims [0] to [4, 2] : (tensor<3xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @broadcast_bound(%x: tensor<1xf32>, %y: tensor<?xf32>) {
  // expected-error @below {{'symshape.broadcast_in_dim' op broadcast_in_dim target extent 1 must be exact, got 'ub(dim(1, 0))'}}
  %0 = symshape.broadcast_in_dim %x, %y dims [0] to [1, ub(dim(1, 0))] : (tensor<1xf32>, tensor<?xf32>) -> tensor<1x?xf32>
  return
}

// -----

func.func @truncate_axis(%x: tensor<?x4xf32>, %n: tensor<i64>) {
  // expected-error @below {{'symshape.dynamic_truncate' op axis 2 is out of range for rank 2}}
  %0 = symshape.dynamic_truncate %x, %n axis 2 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  return
}

// -----

func.func @truncate_rank(%x: tensor<?x4xf32>, %n: tensor<i64>) {
  // expected-error @below {{'symshape.dynamic_truncate' op result rank 1 differs from input rank 2}}
  %0 = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?xf32>
  return
}

// -----

func.func @truncate_grow(%x: tensor<?x4xf32>, %n: tensor<i64>) {
  // expected-error @below {{'symshape.dynamic_truncate' op result dimension 1 is 8 but the input dimension is 4}}
  %0 = symshape.dynamic_truncate %x, %n axis 1 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x8xf32>
  return
}

// -----

func.func @truncate_size_type(%x: tensor<?x4xf32>, %n: tensor<f32>) {
  // expected-error @below {{'symshape.dynamic_truncate' op operand #1 must be 0-d tensor of integer or index, but got 'tensor<f32>'}}
  %0 = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gather_index_type(%t: tensor<?x4xf32>, %i: tensor<?x1xf32>) {
  // expected-error @below {{'symshape.gather' op indices must have integer or index elements, got 'f32'}}
  %0 = symshape.gather %t[%i] start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, 4] : (tensor<?x4xf32>, tensor<?x1xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gather_index_rank(%t: tensor<?x4xf32>, %i: tensor<i64>) {
  // expected-error @below {{'symshape.gather' op indices must have rank >= 1 (the last axis holds the index vector)}}
  %0 = symshape.gather %t[%i] start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, 4] : (tensor<?x4xf32>, tensor<i64>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_start_map(%t: tensor<?x4xf32>, %i: tensor<?x1xi64>) {
  // expected-error @below {{'symshape.gather' op start_index_map entry 2 is out of range for rank 2}}
  %0 = symshape.gather %t[%i] start_index_map [2] collapsed_slice_dims [0] slice_sizes [1, 4] : (tensor<?x4xf32>, tensor<?x1xi64>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gather_collapsed_sorted(%t: tensor<?x4xf32>, %i: tensor<?x2xi64>) {
  // expected-error @below {{'symshape.gather' op collapsed_slice_dims must be sorted}}
  %0 = symshape.gather %t[%i] start_index_map [0, 1] collapsed_slice_dims [1, 0] slice_sizes [1, 1] : (tensor<?x4xf32>, tensor<?x2xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @gather_vector(%t: tensor<?x4xf32>, %i: tensor<?x2xi64>) {
  // expected-error @below {{'symshape.gather' op index vectors have 2 entries but start_index_map has 1}}
  %0 = symshape.gather %t[%i] start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, 4] : (tensor<?x4xf32>, tensor<?x2xi64>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gather_result_rank(%t: tensor<?x4xf32>, %i: tensor<?x1xi64>) {
  // expected-error @below {{'symshape.gather' op result rank 3 differs from the expected rank 2}}
  %0 = symshape.gather %t[%i] start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, 4] : (tensor<?x4xf32>, tensor<?x1xi64>) -> tensor<?x4x1xf32>
  return
}

// -----

func.func @gather_slice_count(%t: tensor<?x4xf32>, %i: tensor<?x1xi64>) {
  // expected-error @below {{'symshape.gather' op slice_sizes has 1 extents but the operand has rank 2}}
  %0 = symshape.gather %t[%i] start_index_map [0] collapsed_slice_dims [0] slice_sizes [1] : (tensor<?x4xf32>, tensor<?x1xi64>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gather_slice_size(%t: tensor<?x4xf32>, %i: tensor<?x1xi64>) {
  // expected-error @below {{'symshape.gather' op gather slice_sizes extent 1 is 9 but operand dimension 1 is 4}}
  %0 = symshape.gather %t[%i] start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, 9] : (tensor<?x4xf32>, tensor<?x1xi64>) -> tensor<?x9xf32>
  return
}

// -----

func.func @gather_collapsed_size(%t: tensor<?x4xf32>, %i: tensor<?x1xi64>) {
  // expected-error @below {{'symshape.gather' op collapsed axis 0 needs slice size 1}}
  %0 = symshape.gather %t[%i] start_index_map [0] collapsed_slice_dims [0] slice_sizes [dim(0, 0), 4] : (tensor<?x4xf32>, tensor<?x1xi64>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gather_slice_bound(%t: tensor<?x?xf32>, %i: tensor<?x1xi64>) {
  // expected-error @below {{'symshape.gather' op gather slice_sizes extent 1 must be exact, got 'ub(dim(0, 1))'}}
  %0 = symshape.gather %t[%i] start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, ub(dim(0, 1))] : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @gather_batch(%t: tensor<?x4xf32>, %i: tensor<4x1xi64>) {
  // expected-error @below {{'symshape.gather' op result dimension 0 is 5 but indices dimension 0 is 4}}
  %0 = symshape.gather %t[%i] start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, 4] : (tensor<?x4xf32>, tensor<4x1xi64>) -> tensor<5x4xf32>
  return
}

// -----

// Element counts are checked without wrapping: 3 * 6148914691236517206 is
// 2 modulo 2^64, yet the reshape does not keep 2 elements.
func.func @reshape_count_overflow(%x: tensor<2xf32>) {
  // expected-error @below {{'symshape.reshape' op reshape target element count overflows int64}}
  %0 = symshape.reshape %x to [3, 6148914691236517206] : (tensor<2xf32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @reshape_input_count_overflow(%x: tensor<4611686018427387904x4xf32>) {
  // expected-error @below {{'symshape.reshape' op reshape input element count overflows int64}}
  %0 = symshape.reshape %x to [1] : (tensor<4611686018427387904x4xf32>) -> tensor<1xf32>
  return
}

// -----

// Constant target arithmetic is int64: an overflow is an error, not a wrap.
func.func @reshape_extent_overflow(%x: tensor<?xf32>) {
  // expected-error @below {{'symshape.reshape' op reshape target extent 0 overflows int64 in '9223372036854775807 + 1'}}
  %0 = symshape.reshape %x to [9223372036854775807 + 1] : (tensor<?xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @reshape_division_overflow(%x: tensor<?xf32>) {
  // expected-error @below {{'symshape.reshape' op reshape target extent 0 overflows int64 in '-9223372036854775808 floordiv -1'}}
  %0 = symshape.reshape %x to [-9223372036854775808 floordiv -1] : (tensor<?xf32>) -> tensor<?xf32>
  return
}

// -----

// A constant is a signed int64: a literal beyond it is an error, not a value
// wrapped to INT64_MIN.
func.func @const_too_large() -> !symshape.extent {
  // expected-error @below {{integer literal is out of the int64 range}}
  %c = symshape.const 9223372036854775808
  return %c : !symshape.extent
}

// -----

func.func @const_too_small() -> !symshape.extent {
  // expected-error @below {{integer literal is out of the int64 range}}
  %c = symshape.const -9223372036854775809
  return %c : !symshape.extent
}

// -----

func.func @const_hexadecimal() -> !symshape.extent {
  // expected-error @below {{expected a decimal integer, not a hexadecimal one}}
  %c = symshape.const 0x10
  return %c : !symshape.extent
}

// -----

func.func @const_keyword() -> !symshape.extent {
  // expected-error @below {{expected a decimal integer}}
  %c = symshape.const true
  return %c : !symshape.extent
}
