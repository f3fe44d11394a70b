// A single-head attention block over a dynamic batch and sequence.
//
// Projections flatten `[batch, seq, 64]` to `[batch * seq, 64]` with
// `symshape.reshape`, multiply by the weights and reshape back; scores are a
// `linalg.batch_matmul` of q and the transposed k, scaled by 1/sqrt(64); the
// softmax over the key axis is written as `linalg.generic` ops (max, exp-sum,
// divide); the output is a second `linalg.batch_matmul` with v.
//
// Reference: softmax(q @ k^T / 8) @ v with q, k, v = x @ wq, x @ wk, x @ wv.
// Bindings: batch, seq.
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @attention(%x: tensor<?x?x64xf32> {symshape.axes = #symshape.shape<[batch, seq, 64]>},
                     %wq: tensor<64x64xf32>, %wk: tensor<64x64xf32>, %wv: tensor<64x64xf32>)
    -> tensor<?x?x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %b = symshape.dim %x, 0 : tensor<?x?x64xf32>
  %bi = symshape.to_index %b
  %s = symshape.dim %x, 1 : tensor<?x?x64xf32>
  %si = symshape.to_index %s
  %rows = symshape.mul %b, %s
  %ri = symshape.to_index %rows

  // q, k, v: [batch * seq, 64] @ [64, 64], reshaped back to [batch, seq, 64].
  %flat = symshape.reshape %x to [batch * seq, 64] : (tensor<?x?x64xf32>) -> tensor<?x64xf32>
  %p0 = tensor.empty(%ri) : tensor<?x64xf32>
  %p1 = linalg.fill ins(%zero : f32) outs(%p0 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %q2 = linalg.matmul ins(%flat, %wq : tensor<?x64xf32>, tensor<64x64xf32>)
                      outs(%p1 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %k2 = linalg.matmul ins(%flat, %wk : tensor<?x64xf32>, tensor<64x64xf32>)
                      outs(%p1 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %v2 = linalg.matmul ins(%flat, %wv : tensor<?x64xf32>, tensor<64x64xf32>)
                      outs(%p1 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %q = symshape.reshape %q2 to [batch, seq, 64] : (tensor<?x64xf32>) -> tensor<?x?x64xf32>
  %k = symshape.reshape %k2 to [batch, seq, 64] : (tensor<?x64xf32>) -> tensor<?x?x64xf32>
  %v = symshape.reshape %v2 to [batch, seq, 64] : (tensor<?x64xf32>) -> tensor<?x?x64xf32>

  // scores = q @ k^T: [batch, seq, seq].
  %kt0 = tensor.empty(%bi, %si) : tensor<?x64x?xf32>
  %kt = linalg.transpose ins(%k : tensor<?x?x64xf32>) outs(%kt0 : tensor<?x64x?xf32>)
      permutation = [0, 2, 1]
  %sc0 = tensor.empty(%bi, %si, %si) : tensor<?x?x?xf32>
  %sc1 = linalg.fill ins(%zero : f32) outs(%sc0 : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %scores = linalg.batch_matmul ins(%q, %kt : tensor<?x?x64xf32>, tensor<?x64x?xf32>)
                                outs(%sc1 : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>

  // Softmax over the last axis: max, sum of exp((s - max) / 8), divide.
  %m0 = tensor.empty(%bi, %si) : tensor<?x?xf32>
  %m1 = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %max = linalg.generic {indexing_maps = [#m3, #row],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%scores : tensor<?x?x?xf32>) outs(%m1 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %e = linalg.generic {indexing_maps = [#m3, #row, #m3],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%scores, %max : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%sc0 : tensor<?x?x?xf32>) {
  ^bb0(%a: f32, %mx: f32, %out: f32):
    %d = arith.subf %a, %mx : f32
    %t = arith.mulf %d, %scale : f32
    %r = math.exp %t : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%m0 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sum = linalg.generic {indexing_maps = [#m3, #row],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : tensor<?x?x?xf32>) outs(%z1 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %probs = linalg.generic {indexing_maps = [#m3, #row, #m3],
                           iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%sc0 : tensor<?x?x?xf32>) {
  ^bb0(%a: f32, %total: f32, %out: f32):
    %r = arith.divf %a, %total : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>

  // out = probs @ v: [batch, seq, 64].
  %o0 = tensor.empty(%bi, %si) : tensor<?x?x64xf32>
  %o1 = linalg.fill ins(%zero : f32) outs(%o0 : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %out = linalg.batch_matmul ins(%probs, %v : tensor<?x?x?xf32>, tensor<?x?x64xf32>)
                             outs(%o1 : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  return %out : tensor<?x?x64xf32>
}
