// Programs that use an upper bound where a true size is needed, through
// every path the contract guards. Resolved with symshape-verify-contract in
// defer mode, each fails cleanly at run time when the truncation count k is
// below the axis (the bound is not the size) and matches numpy otherwise
// (test_contract_runtime.py).
//
// Reference: per function, the numpy expression in test_contract_runtime.py
// (2 * x, x, x.sum(axis=1), x[:4], ...). Bindings: n (rows of %x), k.

// x + truncate(x, k): the operands of an elementwise op.
func.func @elementwise(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %r = arith.addf %x, %t : tensor<?xf32>
  return %r : tensor<?xf32>
}

// A linalg.copy of the truncation into an init of the untruncated size.
func.func @copy_init(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%rows) : tensor<?xf32>
  %r = linalg.copy ins(%t : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// A linalg.reduce of the truncation into an init of the full size.
func.func @reduce_rows(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[n, 4]>}, %k: tensor<i64>) -> tensor<?xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %rows = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%rows) : tensor<?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%t : tensor<?x4xf32>) outs(%f : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
}

// A cast of the truncation to a static size.
func.func @cast_static(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<4xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %c = tensor.cast %t : tensor<?xf32> to tensor<4xf32>
  return %c : tensor<4xf32>
}

// A slice of the truncation as long as the untruncated axis.
func.func @slice_full(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %len = tensor.dim %x, %c0 : tensor<?xf32>
  %s = tensor.extract_slice %t[0] [%len] [1] : tensor<?xf32> to tensor<?xf32>
  return %s : tensor<?xf32>
}

// An insertion of the untruncated tensor into the truncation.
func.func @insert_full(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %len = tensor.dim %x, %c0 : tensor<?xf32>
  %s = tensor.insert_slice %x into %t[0] [%len] [1] : tensor<?xf32> into tensor<?xf32>
  return %s : tensor<?xf32>
}

// An expand_shape of the truncation into pairs of the untruncated count.
func.func @expand_pairs(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?x2xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %len = tensor.dim %x, %c0 : tensor<?xf32>
  %half = arith.floordivsi %len, %c2 : index
  %e = tensor.expand_shape %t [[0, 1]] output_shape [%half, 2] : tensor<?xf32> into tensor<?x2xf32>
  return %e : tensor<?x2xf32>
}

// A callee whose two arguments share the axis 'm', called with the tensor
// and its truncation.
func.func private @pair(%a: tensor<?xf32> {symshape.axes = #symshape.shape<[m]>},
                        %b: tensor<?xf32> {symshape.axes = #symshape.shape<[m]>}) -> tensor<?xf32> {
  %s = arith.addf %a, %b : tensor<?xf32>
  return %s : tensor<?xf32>
}

func.func @call_shared(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %r = func.call @pair(%x, %t) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// A scalar used as a size: ones(k), which fails for a negative k.
func.func @scalar_size(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  %one = arith.constant 1.0 : f32
  %e = symshape.runtime_scalar %k index : tensor<i64>
  %size = symshape.to_index %e
  %t = tensor.empty(%size) : tensor<?xf32>
  %r = linalg.fill ins(%one : f32) outs(%t : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// A sliding window (d0 + d1, width 2) over the truncation, sized by the
// untruncated extent.
#window_in = affine_map<(d0, d1) -> (d0 + d1)>
#window_w = affine_map<(d0, d1) -> (d1)>
#window_out = affine_map<(d0, d1) -> (d0)>
func.func @window_sum(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %ones = arith.constant dense<1.0> : tensor<2xf32>
  %len = tensor.dim %x, %c0 : tensor<?xf32>
  %out = arith.subi %len, %c1 : index
  %empty = tensor.empty(%out) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#window_in, #window_w, #window_out], iterator_types = ["parallel", "reduction"]} ins(%t, %ones : tensor<?xf32>, tensor<2xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %w: f32, %acc: f32):
    %p = arith.mulf %a, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// Elements 3, 2, 1, ... of %x read backwards through -d0 + 3, as many as %k
// says: the window must start at index 0 or later and end within %x.
#reverse_in = affine_map<(d0) -> (-d0 + 3)>
#reverse_out = affine_map<(d0) -> (d0)>
func.func @window_reverse(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?xf32> {
  %kv = tensor.extract %k[] : tensor<i64>
  %len = arith.index_cast %kv : i64 to index
  %init = tensor.empty(%len) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#reverse_in, #reverse_out], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// An expand_shape of the truncation whose output size is its bound: the
// sizes are exact (the bound is exactly n), and their product must be the
// truncated count, which holds only when nothing was cut.
func.func @expand_to_bound(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %k: tensor<i64>) -> tensor<?x1xf32> {
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %cap = symshape.bound %t, 0 : tensor<?xf32>
  %rows = symshape.to_index %cap
  %e = tensor.expand_shape %t [[0, 1]] output_shape [%rows, 1] : tensor<?xf32> into tensor<?x1xf32>
  return %e : tensor<?x1xf32>
}

// A row count chosen by a select: 1 when k > 0, else all n rows. It is a
// size known at run time between 1 and n (exact, with that range): the
// slice of that many rows is checked to lie within %x (n = 0 with k > 0
// fails), and the reshape after it needs no check.
func.func @chosen_rows(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[n, 4]>}, %k: tensor<i64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %kv = tensor.extract %k[] : tensor<i64>
  %some = arith.cmpi sgt, %kv, %zero : i64
  %all = tensor.dim %x, %c0 : tensor<?x4xf32>
  %rows = arith.select %some, %c1, %all : index
  %s = tensor.extract_slice %x[0, 0] [%rows, 4] [1, 1] : tensor<?x4xf32> to tensor<?x4xf32>
  %r = symshape.reshape %s to [dim(0, 0) * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
