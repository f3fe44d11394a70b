// A vector of one element (by a run-time check) spread over a 1 x 1 tensor:
// IREE 3.13 drops the unit loops, reads the element as a rank-reducing slice
// and rejects the slice it makes of it ('expected rank to be smaller or
// equal to the other rank'; symshape-resolve{target=iree} gives the op
// opaque sizes; see python/symshape_mlir/lowering/iree/broadcasts.py).
// Beside it %y as it is, which has the zero-size axes of the bindings.
// Reference: `full((1, 1), v[0])` and `y` for @spread_one_element
// (resolved with the contract deferred: `n` is 1 only at run time).

func.func @spread_one_element(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                              %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rows, cols]>})
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %corner = tensor.empty(%c1, %c1) : tensor<?x?xf32>
  %b = symshape.broadcast_in_dim %v, %corner dims [1] to [dim(1, 0), dim(1, 1)]
      : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %b, %y : tensor<?x?xf32>, tensor<?x?xf32>
}
