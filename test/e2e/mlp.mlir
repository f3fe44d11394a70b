// A two-layer MLP over a dynamic batch, flattened at the end.
//
// The batch axis is named by `symshape.axes`; the hidden bias is broadcast to
// `[dim(1, 0), 512]` (axis 0 of the shape operand, the matmul result), and the
// output is reshaped to the exact extent `batch * 128`.
//
// Reference: relu(x @ w1 + b1) @ w2, flattened. Bindings: batch.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mlp(%x: tensor<?x256xf32> {symshape.axes = #symshape.shape<[batch, 256]>},
               %w1: tensor<256x512xf32>, %b1: tensor<512xf32>,
               %w2: tensor<512x128xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %n = symshape.dim %x, 0 : tensor<?x256xf32>
  %rows = symshape.to_index %n

  %h0 = tensor.empty(%rows) : tensor<?x512xf32>
  %h1 = linalg.fill ins(%zero : f32) outs(%h0 : tensor<?x512xf32>) -> tensor<?x512xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<?x256xf32>, tensor<256x512xf32>)
                     outs(%h1 : tensor<?x512xf32>) -> tensor<?x512xf32>
  %bias = symshape.broadcast_in_dim %b1, %h dims [1] to [dim(1, 0), 512]
      : (tensor<512xf32>, tensor<?x512xf32>) -> tensor<?x512xf32>
  %act = linalg.generic {indexing_maps = [#id, #id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%h, %bias : tensor<?x512xf32>, tensor<?x512xf32>) outs(%h0 : tensor<?x512xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x512xf32>

  %y0 = tensor.empty(%rows) : tensor<?x128xf32>
  %y1 = linalg.fill ins(%zero : f32) outs(%y0 : tensor<?x128xf32>) -> tensor<?x128xf32>
  %y = linalg.matmul ins(%act, %w2 : tensor<?x512xf32>, tensor<512x128xf32>)
                     outs(%y1 : tensor<?x128xf32>) -> tensor<?x128xf32>
  %flat = symshape.reshape %y to [batch * 128] : (tensor<?x128xf32>) -> tensor<?xf32>
  return %flat : tensor<?xf32>
}
