// A two-layer MLP over a dynamic batch, written with symshape ops.
//
// The batch axis is named by `symshape.axes`; the bias broadcast names its
// target by op-local expressions (`dim(1, 0)`: axis 0 of operand #1), and the
// flattened output is a reshape to the exact extent `batch * 10`.
//
//   symshape-opt --symshape-to-iree mlp.mlir | iree-compile ...
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mlp(%x: tensor<?x64xf32> {symshape.axes = #symshape.shape<[batch, 64]>},
               %w1: tensor<64x128xf32>, %b1: tensor<128xf32>,
               %w2: tensor<128x10xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %n = symshape.dim %x, 0 : tensor<?x64xf32>
  %rows = symshape.to_index %n

  %h0 = tensor.empty(%rows) : tensor<?x128xf32>
  %h1 = linalg.fill ins(%zero : f32) outs(%h0 : tensor<?x128xf32>) -> tensor<?x128xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<?x64xf32>, tensor<64x128xf32>)
                     outs(%h1 : tensor<?x128xf32>) -> tensor<?x128xf32>
  %bias = symshape.broadcast_in_dim %b1, %h dims [1] to [dim(1, 0), 128]
      : (tensor<128xf32>, tensor<?x128xf32>) -> tensor<?x128xf32>
  %act = linalg.generic {indexing_maps = [#id, #id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%h, %bias : tensor<?x128xf32>, tensor<?x128xf32>) outs(%h0 : tensor<?x128xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x128xf32>

  %y0 = tensor.empty(%rows) : tensor<?x10xf32>
  %y1 = linalg.fill ins(%zero : f32) outs(%y0 : tensor<?x10xf32>) -> tensor<?x10xf32>
  %y = linalg.matmul ins(%act, %w2 : tensor<?x128xf32>, tensor<128x10xf32>)
                     outs(%y1 : tensor<?x10xf32>) -> tensor<?x10xf32>
  %flat = symshape.reshape %y to [batch * 10] : (tensor<?x10xf32>) -> tensor<?xf32>
  return %flat : tensor<?xf32>
}
