// Reshape targets computed as data: partial data propagation.
//
// `@flatten_rows` builds the target of a `tensor.reshape` as an i64 shape
// tensor from `tensor.dim` (`[batch, 6 * 4]`): inference resolves the
// `tensor.from_elements` elements to the exact target `[batch, 24]`.
// `@split_rows` uses `symshape.reshape` with `dim()` targets to go back from
// `[batch, 24]` to `[batch * 6, 4]`.
//
// Reference: x.reshape(batch, 24) * 3 and y.reshape(batch * 6, 4).
// Bindings: batch.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @flatten_rows(%x: tensor<?x6x4xf32> {symshape.axes = #symshape.shape<[batch, 6, 4]>})
    -> tensor<?x24xf32> {
  %c0 = arith.constant 0 : index
  %c6 = arith.constant 6 : index
  %c4 = arith.constant 4 : index
  %three = arith.constant 3.0 : f32
  %d0 = tensor.dim %x, %c0 : tensor<?x6x4xf32>
  %inner = arith.muli %c6, %c4 : index
  %r0 = arith.index_cast %d0 : index to i64
  %r1 = arith.index_cast %inner : index to i64
  %shape = tensor.from_elements %r0, %r1 : tensor<2xi64>
  %flat = tensor.reshape %x(%shape) : (tensor<?x6x4xf32>, tensor<2xi64>) -> tensor<?x24xf32>
  %init = tensor.empty(%d0) : tensor<?x24xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%flat : tensor<?x24xf32>) outs(%init : tensor<?x24xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.mulf %a, %three : f32
    linalg.yield %r : f32
  } -> tensor<?x24xf32>
  return %y : tensor<?x24xf32>
}

func.func @split_rows(%y: tensor<?x24xf32> {symshape.axes = #symshape.shape<[batch, 24]>})
    -> tensor<?x4xf32> {
  %r = symshape.reshape %y to [dim(0, 0) * 6, dim(0, 1) floordiv 6]
      : (tensor<?x24xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
