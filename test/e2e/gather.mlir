// An embedding lookup: `symshape.gather` with a symbolic slice size.
//
// Each index picks one row of `table`; the slice covers the whole row,
// `slice_sizes [1, dim(0, 1)]` (axis 1 of operand #0). Starts are clamped to
// `[0, vocab - 1]`, so out-of-range ids read the first or last row.
//
// Reference: table[clip(ids[:, 0], 0, vocab - 1)]. Bindings: vocab, width, n.
func.func @gather(%table: tensor<?x?xf32> {symshape.axes = #symshape.shape<[vocab, width]>},
                  %ids: tensor<?x1xi64> {symshape.axes = #symshape.shape<[n, 1]>})
    -> tensor<?x?xf32> {
  %g = symshape.gather %table[%ids] start_index_map [0] collapsed_slice_dims [0]
      slice_sizes [1, dim(0, 1)] : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}

// A lookup in the first column of the rows from %k on: a gather from a slice
// at a run-time offset (IREE 3.13 fails to compile the fused form;
// symshape-resolve{target=iree} makes the slice first).
// Reference: table[k:, :1][clip(ids[:, 0], 0, vocab - k - 1)]. Bindings: vocab,
// width, n, k.
func.func @gather_from_offset(%table: tensor<?x?xf32> {symshape.axes = #symshape.shape<[vocab, width]>},
                              %ids: tensor<?x1xi64> {symshape.axes = #symshape.shape<[n, 1]>},
                              %k: tensor<i64>) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %e = symshape.runtime_scalar %k index : tensor<i64>
  %off = symshape.to_index %e
  %c0 = arith.constant 0 : index
  %all = tensor.dim %table, %c0 : tensor<?x?xf32>
  %rows = arith.subi %all, %off : index
  %s = tensor.extract_slice %table[%off, 0] [%rows, %c1] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %g = symshape.gather %s[%ids] start_index_map [0] collapsed_slice_dims [0]
      slice_sizes [1, 1] : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}

// A lookup in the first column of the first %k rows: a gather from a column
// of a `?x?` table at offset 0 (IREE 3.13 reads the first element for every
// index when it fuses the strided column into the gather;
// symshape-resolve{target=iree} makes the slice first).
// Reference: table[:k, :1][clip(ids[:, 0], 0, k - 1)]. Bindings: vocab,
// width, n, k (1 <= k <= vocab).
func.func @gather_from_column(%table: tensor<?x?xf32> {symshape.axes = #symshape.shape<[vocab, width]>},
                              %ids: tensor<?x1xi64> {symshape.axes = #symshape.shape<[n, 1]>},
                              %k: tensor<i64>) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %e = symshape.runtime_scalar %k index : tensor<i64>
  %rows = symshape.to_index %e
  %s = tensor.extract_slice %table[0, 0] [%rows, %c1] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %g = symshape.gather %s[%ids] start_index_map [0] collapsed_slice_dims [0]
      slice_sizes [1, 1] : (tensor<?x?xf32>, tensor<?x1xi64>) -> tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}
