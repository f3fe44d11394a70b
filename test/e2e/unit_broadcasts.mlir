// A vector of one element (by a run-time check) spread over a 1 x 1 tensor:
// IREE 3.13 drops the unit loops, reads the element as a rank-reducing slice
// and rejects the slice it makes of it ('expected rank to be smaller or
// equal to the other rank'; symshape-resolve{target=iree} gives the op
// opaque sizes; see python/symshape_mlir/lowering/iree/broadcasts.py).
// Beside it %y as it is, which has the zero-size axes of the bindings.
// Reference: `full((1, 1), v[0])` and `y` for @spread_one_element
// (resolved with the contract deferred: `n` is 1 only at run time); `2 * v`
// and `full((rows, 1), 2 * v[0])` for @spread_a_returned_sum, where IREE
// 3.13 computed the sum inside the spread's dispatch and, at 0 rows,
// returned it unwritten (`shield_gathered_sources` in
// python/symshape_mlir/lowering/iree/slices.py).

func.func @spread_one_element(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                              %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rows, cols]>})
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %corner = tensor.empty(%c1, %c1) : tensor<?x?xf32>
  %b = symshape.broadcast_in_dim %v, %corner dims [1] to [dim(1, 0), dim(1, 1)]
      : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %b, %y : tensor<?x?xf32>, tensor<?x?xf32>
}

// A sum returned and spread over the rows of %x (fuzzer p105004732).
func.func @spread_a_returned_sum(%v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                                 %x: tensor<?x1xf32> {symshape.axes = #symshape.shape<[rows, 1]>})
    -> (tensor<?xf32>, tensor<?x?xf32>) {
  %s = arith.addf %v, %v : tensor<?xf32>
  %b = symshape.broadcast_in_dim %s, %x dims [1] to [dim(1, 0), dim(1, 1)]
      : (tensor<?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %s, %b : tensor<?xf32>, tensor<?x?xf32>
}
