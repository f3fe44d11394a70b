// Reshapes whose target reuses a source size: with a zero-size axis the
// element counts agree although the other sizes differ (0 x 4 holds as many
// elements as 0 x 0). IREE 3.13 re-derives such targets as if no size could
// be 0 and returned 0 x 4; symshape-resolve{target=iree} shields the sizes
// (see python/symshape_mlir/lowering/iree/reshapes.py).
//
// Reference: x.reshape(rows, rows) for @square and @square_upstream.
// Bindings: rows, cols (rows == cols, or rows == 0).

// A symbolic reshape: the element count is checked at run time.
func.func @square(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rows, cols]>})
    -> tensor<?x?xf32> {
  %r = symshape.reshape %x to [dim(0, 0), dim(0, 0)] : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// The same target in plain upstream form: flattened, then split again.
func.func @square_upstream(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rows, cols]>})
    -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %x, %c0 : tensor<?x?xf32>
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<?x?xf32> into tensor<?xf32>
  %r = tensor.expand_shape %flat [[0, 1]] output_shape [%rows, %rows] : tensor<?xf32> into tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
