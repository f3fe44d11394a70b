// A shape computation dividing by a run-time scalar.
//
// `@split_by` keeps the first `12 floordiv k` columns of `x`, with `k` read
// from a scalar tensor (`symshape.runtime_scalar ... clamp_nonneg`, so a
// negative `k` counts as 0). The division is guarded: `k = 0` fails the call
// with an error naming the division, never a signal.
//
// Reference: x[:, :12 // k]. Bindings: batch, and the scalar k.
func.func @split_by(%x: tensor<?x12xf32> {symshape.axes = #symshape.shape<[batch, 12]>},
                    %k: tensor<i64>) -> tensor<?x?xf32> {
  %width = symshape.dim %x, 1 : tensor<?x12xf32>
  %parts = symshape.runtime_scalar %k clamp_nonneg : tensor<i64>
  %cols = symshape.floordiv %width, %parts
  %ci = symshape.to_index %cols
  %n = symshape.dim %x, 0 : tensor<?x12xf32>
  %ni = symshape.to_index %n
  %r = tensor.extract_slice %x[0, 0] [%ni, %ci] [1, 1] : tensor<?x12xf32> to tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
