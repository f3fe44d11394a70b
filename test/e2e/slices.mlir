// Slices that are empty at the very end of an axis of static extent: the
// offset equals the extent, which is valid only because nothing is read or
// written (IREE 3.13 rejects it once the offset is a folded constant;
// symshape-resolve{target=iree} shields it, see lowering/hints.py), and a
// window of ones given a unit axis, at a run-time offset (IREE 3.13 fails
// to distribute the copy of the window in the fill's dispatch).
// Reference: `x[2:]` and `x` for @past_end; `x[k:]` for @tail; `x[:, :n]`
// and `x[:n, :n]` (n clipped at 0) for @truncate_no_columns;
// `ones((rows // 2, 1, 2))` for @window_of_ones.

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
