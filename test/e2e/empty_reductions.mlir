// Reductions over an axis of extent 0: IREE 3.13 crashes on a dispatch that
// holds one once it sees the 0 (symshape-resolve{target=iree} returns the
// op's inits instead; see python/symshape_mlir/lowering/iree/reductions.py).
// Reference: `zeros((r, m))` for @matmul_over_no_columns; `zeros(r)` (the
// row sums of `x[:, :1 // 2]`) for @sum_over_half_a_row and
// @sum_over_half_a_bound; `zeros(nz)` for @sums_of_a_call_on_nothing (IREE
// finds its 0 inlining the callee; the operand reaches the call behind a
// barrier).

// A matrix with no columns times one with no rows.
func.func @matmul_over_no_columns(%x: tensor<?x0xf32> {symshape.axes = #symshape.shape<[r, 0]>},
                                  %w: tensor<0x?xf32> {symshape.axes = #symshape.shape<[0, m]>})
    -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x0xf32>
  %m = tensor.dim %w, %c1 : tensor<0x?xf32>
  %e = tensor.empty(%r, %m) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x0xf32>, tensor<0x?xf32>)
      outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %mm : tensor<?x?xf32>
}

// The row sums of the first `rows(y) // 2` columns of %x, %y having one row:
// inference knows the extent is 0 where the types do not say so.
func.func @sum_over_half_a_row(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[r, n]>},
                               %y: tensor<1x?xf32> {symshape.axes = #symshape.shape<[1, n]>})
    -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %one = tensor.dim %y, %c0 : tensor<1x?xf32>
  %k = arith.floordivsi %one, %c2 : index
  %a = tensor.extract_slice %x[0, 0] [%r, %k] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %e = tensor.empty(%r) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce ins(%a : tensor<?x?xf32>) outs(%z : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  return %s : tensor<?xf32>
}

// The row sums of the first `b // 2` columns of %x, `b` the bound of a slice
// of one element: inference knows only a bound, the lowered sizes fold to 0.
func.func @sum_over_half_a_bound(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[r, n]>},
                                 %v: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>})
    -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %one = tensor.extract_slice %v[0] [%c1] [1] : tensor<?xf32> to tensor<?xf32>
  %b = symshape.bound %one, 0 : tensor<?xf32>
  %bi = symshape.to_index %b
  %k = arith.floordivsi %bi, %c2 : index
  %a = tensor.extract_slice %x[0, 0] [%r, %k] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %e = tensor.empty(%r) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce ins(%a : tensor<?x?xf32>) outs(%z : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  return %s : tensor<?xf32>
}

// The column sums of a called sum of %x and %y, %y with no rows cast to
// dynamic rows (valid for %x with no rows).
func.func @sums_of_a_call_on_nothing(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[rz, nz]>},
                                     %y: tensor<0x?xf32> {symshape.axes = #symshape.shape<[0, nz]>})
    -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %none = tensor.cast %y : tensor<0x?xf32> to tensor<?x?xf32>
  %s = func.call @sum_of_two(%x, %none) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %cols = tensor.dim %s, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%cols) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%s : tensor<?x?xf32>) outs(%z : tensor<?xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  return %r : tensor<?xf32>
}

func.func private @sum_of_two(%p: tensor<?x?xf32> {symshape.axes = #symshape.shape<[p, q]>},
                              %q: tensor<?x?xf32> {symshape.axes = #symshape.shape<[p, q]>})
    -> tensor<?x?xf32> {
  %s = arith.addf %p, %q : tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}
