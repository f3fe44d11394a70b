// Slices that are empty at the very end of an axis of static extent: the
// offset equals the extent, which is valid only because nothing is read or
// written (IREE 3.13 rejects it once the offset is a folded constant;
// symshape-resolve{target=iree} shields it, see lowering/iree/slices.py),
// and a window of ones given a unit axis, at a run-time offset (IREE 3.13
// fails to distribute the copy of the window in the fill's dispatch).
// Then slices at an offset read from a tensor (IREE 3.13 collapses their
// axes as if they were contiguous), slices of a width read from a tensor
// (IREE collapses them as whole rows), an empty slice of a slice at the end
// (IREE composes the two and rejects the offset), a broadcast that
// reads a tensor with no columns (IREE rejects the slice it makes of each
// read), and a broadcast of a slice of a tensor with no elements (IREE puts
// the tensor.empty that slice becomes on the stack at a run-time extent).
// Reference: `x[2:]` and `x` for @past_end; `x[k:]` for @tail; `x[:, :n]`
// and `x[:n, :n]` (n clipped at 0) for @truncate_no_columns;
// `ones((rows // 2, 1, 2))` for @window_of_ones; `x[:r - k, k:] + x[k:, :c -
// k]` for @read_offsets; `2 * x + y[:, :w]` (w = cols(x)) for
// @slices_of_a_read_width; `x` and `x[1:1]` (n >= 1) for
// @empty_slice_of_a_slice; `zeros((rz, cz))` (cz = 0) for @spread_nothing;
// `v[k:]` and `zeros((rs, cs))` (k = cs = 0) for @spread_a_slice_of_nothing.

// The rows of %x after its 2 static rows (none), and an empty block written
// there.
func.func @past_end(%x: tensor<2x?xf32> {symshape.axes = #symshape.shape<[2, n]>})
    -> (tensor<?x?xf32>, tensor<2x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %rows = tensor.dim %x, %c0 : tensor<2x?xf32>
  %left = arith.subi %rows, %c2 : index
  %cols = tensor.dim %x, %c1 : tensor<2x?xf32>
  %s = tensor.extract_slice %x[%c2, 0] [%left, %cols] [1, 1] : tensor<2x?xf32> to tensor<?x?xf32>
  %w = tensor.insert_slice %s into %x[%c2, 0] [%left, %cols] [1, 1] : tensor<?x?xf32> into tensor<2x?xf32>
  return %s, %w : tensor<?x?xf32>, tensor<2x?xf32>
}

// The rows of %x from row %k on, %k in [0, 3].
func.func @tail(%x: tensor<3x?xf32> {symshape.axes = #symshape.shape<[3, n]>},
                %k: tensor<i64>) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %kv = tensor.extract %k[] : tensor<i64>
  %start = arith.index_cast %kv : i64 to index
  %left = arith.subi %c3, %start : index
  %cols = tensor.dim %x, %c1 : tensor<3x?xf32>
  %s = tensor.extract_slice %x[%start, 0] [%left, %cols] [1, 1] : tensor<3x?xf32> to tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// The first %n columns (there are none) of the first %n rows of %x.
func.func @truncate_no_columns(%x: tensor<?x0xf32> {symshape.axes = #symshape.shape<[r, 0]>},
                               %n: tensor<i64>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %cols = symshape.dynamic_truncate %x, %n axis 1 stage exact
      : (tensor<?x0xf32>, tensor<i64>) -> tensor<?x?xf32>
  %both = symshape.dynamic_truncate %cols, %n axis 0 stage exact
      : (tensor<?x?xf32>, tensor<i64>) -> tensor<?x?xf32>
  return %cols, %both : tensor<?x?xf32>, tensor<?x?xf32>
}

// Rows %at to %at + rows / 2 of ones spread over [rows, 1, 2], cast to
// ?x?x? (%at in [0, rows - rows / 2]).
func.func @window_of_ones(%x: tensor<?x2xf32> {symshape.axes = #symshape.shape<[rows, 2]>},
                          %at: tensor<i64>) -> tensor<?x?x?xf32> {
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %rows = tensor.dim %x, %c0 : tensor<?x2xf32>
  %half = arith.floordivsi %rows, %c2 : index
  %init = tensor.empty(%rows) : tensor<?x2xf32>
  %ones = linalg.fill ins(%one : f32) outs(%init : tensor<?x2xf32>) -> tensor<?x2xf32>
  %spread = tensor.expand_shape %ones [[0], [1, 2]] output_shape [%rows, 1, 2]
      : tensor<?x2xf32> into tensor<?x1x2xf32>
  %atv = tensor.extract %at[] : tensor<i64>
  %start = arith.index_cast %atv : i64 to index
  %window = tensor.extract_slice %spread[%start, 0, 0] [%half, 1, 2] [1, 1, 1]
      : tensor<?x1x2xf32> to tensor<?x1x2xf32>
  %r = tensor.cast %window : tensor<?x1x2xf32> to tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// The last r - k rows of the first columns plus the first rows of the last
// c - k columns, %k in [0, min(r, c)].
func.func @read_offsets(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[ro, co]>},
                        %k: tensor<i64>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %kv = tensor.extract %k[] : tensor<i64>
  %at = arith.index_cast %kv : i64 to index
  %rows = tensor.dim %x, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %n = arith.subi %rows, %at : index
  %m = arith.subi %cols, %at : index
  %a = tensor.extract_slice %x[0, %at] [%n, %m] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %b = tensor.extract_slice %x[%at, 0] [%n, %m] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %s = arith.addf %a, %b : tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// The sum of %x, its first %w columns and the first %w columns of %y, %w
// read from a tensor (valid for %w = cols(x) <= cols(y)).
func.func @slices_of_a_read_width(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rw, cw]>},
                                  %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rw, dw]>},
                                  %w: tensor<i64>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %wv = tensor.extract %w[] : tensor<i64>
  %m = arith.index_cast %wv : i64 to index
  %rows = tensor.dim %x, %c0 : tensor<?x?xf32>
  %a = tensor.extract_slice %x[0, 0] [%rows, %m] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %s = arith.addf %x, %a : tensor<?x?xf32>
  %b = tensor.extract_slice %y[0, 0] [%rows, %m] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %z = arith.addf %s, %b : tensor<?x?xf32>
  return %z : tensor<?x?xf32>
}

// The first l = min(max(n, 0), 1) elements of %x, and the l // 2 (none)
// after the first of those (valid for n >= 1: l = 1).
func.func @empty_slice_of_a_slice(%x: tensor<1xf32>, %n: tensor<i64>)
    -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nv = tensor.extract %n[] : tensor<i64>
  %ni = arith.index_cast %nv : i64 to index
  %pos = arith.maxsi %ni, %c0 : index
  %len = arith.minsi %pos, %c1 : index
  %a = tensor.extract_slice %x[0] [%len] [1] : tensor<1xf32> to tensor<?xf32>
  %half = arith.floordivsi %len, %c2 : index
  %b = tensor.extract_slice %a[1] [%half] [1] : tensor<?xf32> to tensor<?xf32>
  return %a, %b : tensor<?xf32>, tensor<?xf32>
}

// %x (no columns) broadcast to the shape of %y, which has as many rows and
// must have no columns either.
func.func @spread_nothing(%x: tensor<?x0xf32> {symshape.axes = #symshape.shape<[rz, 0]>},
                          %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rz, cz]>})
    -> tensor<?x?xf32> {
  %xc = tensor.cast %x : tensor<?x0xf32> to tensor<?x?xf32>
  %b = symshape.broadcast_in_dim %xc, %y dims [0, 1] to [dim(1, 0), dim(1, 1)]
      : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %b : tensor<?x?xf32>
}

// The elements of %v (there are none) from %k on, at an offset read from
// a tensor, and that slice broadcast to the shape of %y, which must have no
// columns (and %k must be 0).
func.func @spread_a_slice_of_nothing(%v: tensor<0xf32>, %k: tensor<i32>,
                                     %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rs, cs]>})
    -> (tensor<?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %kv = tensor.extract %k[] : tensor<i32>
  %start = arith.index_cast %kv : i32 to index
  %left = arith.subi %c0, %start : index
  %s = tensor.extract_slice %v[%start] [%left] [1] : tensor<0xf32> to tensor<?xf32>
  %b = symshape.broadcast_in_dim %s, %y dims [1] to [dim(1, 0), dim(1, 1)]
      : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %s, %b : tensor<?xf32>, tensor<?x?xf32>
}
