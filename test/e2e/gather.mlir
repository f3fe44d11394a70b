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
