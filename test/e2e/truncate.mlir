// Stage 2 of `symshape.dynamic_truncate`: the kept rows are an exact extent.
//
// `%t` keeps the first `n` rows of `x` (none when `n` is negative, all when it
// is past the end). With `stage exact` its row count is
// `min(scalar(1, truncate_size), batch)`, an exact extent, so the flattening
// reshape below may use it as its target (an upper bound would be rejected).
//
// Reference: (2 * x[:max(n, 0)]).reshape(-1). Bindings: batch, and the scalar n.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @truncate(%x: tensor<?x8xf32> {symshape.axes = #symshape.shape<[batch, 8]>},
                    %n: tensor<i64>) -> tensor<?xf32> {
  %two = arith.constant 2.0 : f32
  %t = symshape.dynamic_truncate %x, %n axis 0 stage exact
      : (tensor<?x8xf32>, tensor<i64>) -> tensor<?x8xf32>
  %kept = symshape.dim %t, 0 : tensor<?x8xf32>
  %rows = symshape.to_index %kept
  %init = tensor.empty(%rows) : tensor<?x8xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x8xf32>) outs(%init : tensor<?x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.mulf %a, %two : f32
    linalg.yield %r : f32
  } -> tensor<?x8xf32>
  %flat = symshape.reshape %scaled, %n to [min(scalar(1, truncate_size), batch) * 8]
      : (tensor<?x8xf32>, tensor<i64>) -> tensor<?xf32>
  return %flat : tensor<?xf32>
}

// The same truncation at stage 1: the kept rows are only bounded by `batch`
// (`ub(batch)`); the result is returned as is, so nothing needs them exact.
// Specializing `batch` makes `x` static but must leave the result dynamic.
//
// Reference: x[:max(n, 0)]. Bindings: batch, and the scalar n.
func.func @truncate_bound(%x: tensor<?x8xf32> {symshape.axes = #symshape.shape<[batch, 8]>},
                          %n: tensor<i64>) -> tensor<?x8xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 stage upper_bound
      : (tensor<?x8xf32>, tensor<i64>) -> tensor<?x8xf32>
  return %t : tensor<?x8xf32>
}
