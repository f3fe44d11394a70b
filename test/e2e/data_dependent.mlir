// Data-dependent sizes the contract accepts in reject mode (`symshape-to-iree`).
//
// `@insert_truncated_rows` keeps the first k rows of %x (a stage-1
// truncation: only `ub(batch)` rows are known) and inserts them at the top of
// a zero buffer sized by their bound. The bound's value is exactly `batch`,
// so the buffer has exactly `batch` rows and the insertion is proven in
// bounds. `@chosen_rows` slices 1 row when k > 0, else all of them: a size
// chosen at run time between 1 and `batch`, exact, whose slice is checked at
// run time (n = 0 with k > 0 fails: test_contract_runtime.py).
//
// Reference: zeros(batch, 4) with its first max(min(k, batch), 0) rows from
// x; x[:1 if k > 0 else batch].reshape(-1). Bindings: batch, and the scalar k.
func.func @insert_truncated_rows(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                                 %k: tensor<i64>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %t = symshape.dynamic_truncate %x, %k axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %cap = symshape.bound %t, 0 : tensor<?x4xf32>
  %rows = symshape.to_index %cap
  %e = tensor.empty(%rows) : tensor<?x4xf32>
  %buf = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %kept = tensor.dim %t, %c0 : tensor<?x4xf32>
  %r = tensor.insert_slice %t into %buf[0, 0] [%kept, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

func.func @chosen_rows(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                       %k: tensor<i64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %kv = tensor.extract %k[] : tensor<i64>
  %some = arith.cmpi sgt, %kv, %zero : i64
  %all = tensor.dim %x, %c0 : tensor<?x4xf32>
  %rows = arith.select %some, %c1, %all : index
  %s = tensor.extract_slice %x[0, 0] [%rows, 4] [1, 1] : tensor<?x4xf32> to tensor<?x4xf32>
  %r = symshape.reshape %s to [dim(0, 0) * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
