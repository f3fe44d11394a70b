// RUN: symshape-opt --split-input-file --symshape-infer-shapes %s -verify-diagnostics

// A declared axis that provably differs from the static size of its type.
// expected-error @below {{'symshape.axes' of argument #0 declares axis 1 as 'n + 5' but its type has the static extent 4}}
func.func @axes_against_static(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, n + 5]>}) {
  return
}

// -----

// The shape rule contradicts a static dimension of the result type.
func.func @result_against_static(%x: tensor<?x768xf32> {symshape.axes = #symshape.shape<[batch, 768]>})
    -> tensor<?x512xf32> {
  %c0 = arith.constant 0 : index
  %c768 = arith.constant 768 : index
  %b = tensor.dim %x, %c0 : tensor<?x768xf32>
  %c2 = arith.constant 2 : index
  %half = arith.floordivsi %b, %c2 : index
  %c1536 = arith.constant 1536 : index
  %shape = tensor.from_elements %half, %c1536 : tensor<2xindex>
  // expected-error @below {{result #0 dimension 1 is 512 but the inferred extent is 1536}}
  %r = tensor.reshape %x(%shape) : (tensor<?x768xf32>, tensor<2xindex>) -> tensor<?x512xf32>
  return %r : tensor<?x512xf32>
}

// -----

// An upper bound below a static dimension cannot describe it.
func.func @bound_against_static(%x: tensor<4xf32>, %n: tensor<i64>) -> tensor<8xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<4xf32>, tensor<i64>) -> tensor<?xf32>
  // expected-error @below {{'tensor.cast' op source axis 0 and the static result extent 8 must be equal: ub(4) vs 8}}
  %c = tensor.cast %t : tensor<?xf32> to tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// Under the default policy (refine), an annotation that provably contradicts
// inference is an error.
func.func @refine_contradiction(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>}) -> tensor<?xf32> {
  // expected-error @below {{result #0 dimension 0: annotation 'batch + 1' contradicts the inferred extent 'batch' (policy=refine)}}
  %e = math.exp %x {symshape.shape = #symshape.shape<[batch + 1]>} : tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

// Operand axes of one linalg loop that provably differ.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_loop_mismatch(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq]>},
                                 %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq + 1]>})
    -> tensor<?x?xf32> {
  // expected-error @below {{'linalg.generic' loop d1: operand #0 axis 1 and operand #1 axis 1 must be equal: seq vs seq + 1}}
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<?x?xf32>, tensor<?x?xf32>) outs(%x : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Two different named axes on one loop conflict unless proven equal.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @reduction_named_conflict(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq]>},
                                    %acc: tensor<?xf32> {symshape.axes = #symshape.shape<[seq]>})
    -> tensor<?xf32> {
  // expected-error @below {{'linalg.generic' loop d0: operand #0 axis 0 and operand #1 axis 0 must be equal but name different axes 'batch' and 'seq'}}
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%acc : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A matmul whose contraction extents K provably differ.
func.func @matmul_k_mismatch(%a: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, k]>},
                             %b: tensor<?x10xf32> {symshape.axes = #symshape.shape<[k + 1, 10]>},
                             %c: tensor<?x10xf32>) -> tensor<?x10xf32> {
  // expected-error @below {{'linalg.matmul' loop k: operand #0 axis 1 and operand #1 axis 0 must be equal: k vs k + 1}}
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x10xf32>)
                     outs(%c : tensor<?x10xf32>) -> tensor<?x10xf32>
  return %r : tensor<?x10xf32>
}

// -----

// A matmul whose K has two different names.
func.func @matmul_k_names(%a: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, hidden]>},
                          %b: tensor<?x10xf32> {symshape.axes = #symshape.shape<[width, 10]>},
                          %c: tensor<?x10xf32>) -> tensor<?x10xf32> {
  // expected-error @below {{'linalg.matmul' loop k: operand #0 axis 1 and operand #1 axis 0 must be equal but name different axes 'hidden' and 'width'}}
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x10xf32>)
                     outs(%c : tensor<?x10xf32>) -> tensor<?x10xf32>
  return %r : tensor<?x10xf32>
}

// -----

// batch_matmul: the batch loop of both operands.
func.func @batch_matmul_batch(%a: tensor<?x4x8xf32> {symshape.axes = #symshape.shape<[batch, 4, 8]>},
                              %b: tensor<?x8x4xf32> {symshape.axes = #symshape.shape<[2 * batch + 1, 8, 4]>},
                              %c: tensor<?x4x4xf32>) -> tensor<?x4x4xf32> {
  // expected-error @below {{'linalg.batch_matmul' loop batch: operand #0 axis 0 and operand #1 axis 0 must be equal: batch vs 2 * batch + 1}}
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x4x8xf32>, tensor<?x8x4xf32>)
                           outs(%c : tensor<?x4x4xf32>) -> tensor<?x4x4xf32>
  return %r : tensor<?x4x4xf32>
}

// -----

// Elementwise ops on tensors do not broadcast.
func.func @elementwise_names(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>},
                             %y: tensor<?xf32> {symshape.axes = #symshape.shape<[seq]>}) -> tensor<?xf32> {
  // expected-error @below {{axis 0 of operand #0 and operand #1 must be equal but name different axes 'batch' and 'seq'}}
  %s = arith.addf %x, %y : tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// tensor.concat: the axes it does not concatenate must agree.
func.func @concat_mismatch(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, n]>},
                           %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[seq, n + 1]>})
    -> tensor<?x?xf32> {
  // expected-error @below {{axis 1 of operand #0 and operand #1 must be equal: n vs n + 1}}
  %c = tensor.concat dim(0) %x, %y : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}

// -----

// tensor.insert_slice: the slice sizes are the source's extents.
func.func @insert_slice_size(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>},
                             %d: tensor<?xf32> {symshape.axes = #symshape.shape<[seq]>}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %d, %c0 : tensor<?xf32>
  // expected-error @below {{slice size 0 and source axis 0 must be equal but name different axes 'seq' and 'batch'}}
  %r = tensor.insert_slice %x into %d[0] [%n] [1] : tensor<?xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// tensor.expand_shape: a group's result extents multiply to the source extent.
func.func @expand_product(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n + 1]>},
                          %y: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<?x1xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %y, %c0 : tensor<?xf32>
  // expected-error @below {{source axis 0 and the product of result axes [0, 1] must be equal: n + 1 vs n}}
  %e = tensor.expand_shape %x [[0, 1]] output_shape [%n, 1] : tensor<?xf32> into tensor<?x1xf32>
  return %e : tensor<?x1xf32>
}

// -----

// tensor.reshape keeps the element count.
func.func @reshape_count(%x: tensor<?x64xf32> {symshape.axes = #symshape.shape<[batch, 64]>}) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %b = tensor.dim %x, %c0 : tensor<?x64xf32>
  %more = arith.addi %b, %c1 : index
  %shape = tensor.from_elements %more, %c64 : tensor<2xindex>
  // expected-error @below {{the element counts of source and result must be equal: 64 * batch vs 64 * batch + 64}}
  %r = tensor.reshape %x(%shape) : (tensor<?x64xf32>, tensor<2xindex>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// -----

// tensor.reshape has no ONNX-style -1 entry.
func.func @reshape_minus_one(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %shape = arith.constant dense<[-1, 64]> : tensor<2xi64>
  // expected-error @below {{target extent 0 is -1: tensor.reshape has no -1 or 0 convention (compute the extent from the element count)}}
  %r = tensor.reshape %x(%shape) : (tensor<?x64xf32>, tensor<2xi64>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// -----

// A constant dimension index past the rank.
func.func @dim_out_of_range(%x: tensor<?x4xf32>) -> index {
  %c2 = arith.constant 2 : index
  // expected-error @below {{dimension index 2 is out of range for rank 2}}
  %d = tensor.dim %x, %c2 : tensor<?x4xf32>
  return %d : index
}

// -----

// A constant position past the elements of a shape tensor.
func.func @extract_out_of_range(%x: tensor<?x4xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %d = tensor.dim %x, %c0 : tensor<?x4xf32>
  %t = tensor.from_elements %d, %d : tensor<2xindex>
  // expected-error @below {{index 3 is out of range for 2 elements}}
  %e = tensor.extract %t[%c3] : tensor<2xindex>
  return %e : index
}

// -----

// A callee naming one axis on two arguments needs equal extents at the call.
func.func @same_n(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                  %y: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

func.func @call_conflict(%a: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>},
                         %b: tensor<?xf32> {symshape.axes = #symshape.shape<[seq]>}) -> tensor<?xf32> {
  // expected-error @below {{call to @same_n: operand #1 axis 0 and an earlier operand (both 'n' in the callee) must be equal but name different axes 'batch' and 'seq'}}
  %r = call @same_n(%a, %b) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A broadcast input axis that is provably not 1 is copied: it must equal its
// target extent, and batch + 2 never equals batch.
func.func @broadcast_input_mismatch(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>}) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<?xf32> to tensor<?xf32>
  // expected-error @below {{input axis 0 and target extent 0 must be equal: batch vs batch + 2}}
  %b = symshape.broadcast_in_dim %p, %x dims [0] to [dim(1, 0)] : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %b : tensor<?xf32>
}

// -----

// Names of the form `_dN` denote fresh symbols (one value each); an argument
// axis cannot take one.
// expected-error @below {{'symshape.axes' of argument #0 names '_d0': names of the form '_dN' are reserved for fresh symbols}}
func.func @reserved_axis_name(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[_d0]>}) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

// Extent arithmetic beyond int64 is reported at the op that computes it.
func.func @overflow() -> index {
  %c = symshape.const 4611686018427387904
  // expected-error @below {{the extent '21267647932558653966460912964485513216' holds 21267647932558653966460912964485513216, beyond the int64 range}}
  %d = symshape.mul %c, %c
  %i = symshape.to_index %d
  return %i : index
}

// -----

// A declared axis that divides by zero declares nothing (the dialect's
// verifier catches a literal 0 divisor; this one is 0 once simplified).
// expected-error @below {{'symshape.axes' of argument #0 declares 'batch floordiv 0', which divides by zero}}
func.func @axis_divides_by_zero(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch floordiv (n - n)]>}) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

// A window that provably reads past its operand: out has n elements, so
// d0 * 2 + d1 reaches 2 * n + 1 > n.
#window_in = affine_map<(d0, d1) -> (d0 * 2 + d1)>
#window_k = affine_map<(d0, d1) -> (d1)>
#window_out = affine_map<(d0, d1) -> (d0)>
func.func @window_past_the_end(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %w: tensor<3xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  // expected-error @below {{'linalg.generic' op the window of operand #0 axis 0 (d0 * 2 + d1) lies within the operand extent: 2 * n + 1 exceeds n}}
  %r = linalg.generic {indexing_maps = [#window_in, #window_k, #window_out], iterator_types = ["parallel", "reduction"]} ins(%x, %w : tensor<?xf32>, tensor<3xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A window through a non-linear map is range-checked too: d0 floordiv 2 over
// 2 * n + 2 iterations reads indices 0 to n of an n-element operand.
#half_in = affine_map<(d0) -> (d0 floordiv 2)>
#half_out = affine_map<(d0) -> (d0)>
func.func @halved_window_past_the_end(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %twice = arith.muli %n, %c2 : index
  %m = arith.addi %twice, %c2 : index
  %init = tensor.empty(%m) : tensor<?xf32>
  // expected-error @below {{'linalg.generic' op the window of operand #0 axis 0 (d0 floordiv 2) lies within the operand extent: n + 1 exceeds n}}
  %r = linalg.generic {indexing_maps = [#half_in, #half_out], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A window with a negative coefficient reads backwards: -d0 + 2 over n + 4
// iterations reaches index -n - 1.
#back_in = affine_map<(d0) -> (-d0 + 2)>
#back_out = affine_map<(d0) -> (d0)>
func.func @reversed_window_before_the_start(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %m = arith.addi %n, %c4 : index
  %init = tensor.empty(%m) : tensor<?xf32>
  // expected-error @below {{'linalg.generic' op the window of operand #0 axis 0 (-d0 + 2) starts at index 0 or later: 0 exceeds -n - 1}}
  %r = linalg.generic {indexing_maps = [#back_in, #back_out], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A division by the constant 0 fails wherever it runs: an error, not a guard.
func.func @divide_by_constant_zero(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> !symshape.extent {
  %zero = symshape.const 0
  %d = symshape.dim %x, 0 : tensor<?x4xf32>
  // expected-error @below {{'symshape.floordiv' divides by the constant 0}}
  %q = symshape.floordiv %d, %zero
  return %q : !symshape.extent
}

// -----

func.func @remainder_by_constant_zero(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> !symshape.extent {
  %zero = symshape.const 0
  %d = symshape.dim %x, 0 : tensor<?x4xf32>
  // expected-error @below {{'symshape.mod' divides by the constant 0}}
  %q = symshape.mod %d, %zero
  return %q : !symshape.extent
}
