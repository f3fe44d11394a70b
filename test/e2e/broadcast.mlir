// `symshape.broadcast_in_dim` to a named axis.
//
// The bias `[8]` is broadcast to `[batch, 8]`, the target naming the batch
// axis of `x` directly; the single row `[1, 8]` is broadcast along the same
// named axis (its size-1 axis is static, so every row reads row 0).
//
// Reference: x + bias + row (numpy broadcasting). Bindings: batch.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @broadcast(%x: tensor<?x8xf32> {symshape.axes = #symshape.shape<[batch, 8]>},
                     %bias: tensor<8xf32>, %row: tensor<1x8xf32>) -> tensor<?x8xf32> {
  %b = symshape.broadcast_in_dim %bias dims [1] to [batch, 8]
      : (tensor<8xf32>) -> tensor<?x8xf32>
  %r = symshape.broadcast_in_dim %row dims [0, 1] to [batch, 8]
      : (tensor<1x8xf32>) -> tensor<?x8xf32>
  %n = symshape.dim %x, 0 : tensor<?x8xf32>
  %rows = symshape.to_index %n
  %init = tensor.empty(%rows) : tensor<?x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x, %b, %r : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>)
      outs(%init : tensor<?x8xf32>) {
  ^bb0(%a: f32, %c: f32, %d: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    %t = arith.addf %s, %d : f32
    linalg.yield %t : f32
  } -> tensor<?x8xf32>
  return %sum : tensor<?x8xf32>
}
