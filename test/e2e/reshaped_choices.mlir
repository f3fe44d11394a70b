// A choice between tensors of different run-time sizes, flattened at a
// run-time size and also truncated: IREE 3.13 fails to order the partitions
// around the choice (symshape-resolve{target=iree} reads it through a
// barrier for the reshape; see python/symshape_mlir/lowering/iree/).
// The flattening checks its element count at run time, so the file goes
// through symshape-to-iree with the contract in defer mode.
// Reference: `c.reshape(-1)` and `c[:max(k, 0)]`, `c = x if k > 2 else y`.

// A choice flattened to the length of %v (a run-time size) and truncated
// to its first %k rows.
func.func @flat_and_head_of_a_choice(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[fa, fb]>},
                                     %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[ga, gb]>},
                                     %v: tensor<?xf32> {symshape.axes = #symshape.shape<[fn]>},
                                     %k: tensor<i64>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %two = arith.constant 2 : i64
  %kv = tensor.extract %k[] : tensor<i64>
  %cond = arith.cmpi sgt, %kv, %two : i64
  %c = scf.if %cond -> (tensor<?x?xf32>) {
    scf.yield %x : tensor<?x?xf32>
  } else {
    scf.yield %y : tensor<?x?xf32>
  }
  %flat = symshape.reshape %c, %v to [dim(1, 0)] : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %head = symshape.dynamic_truncate %c, %k axis 0 stage exact
      : (tensor<?x?xf32>, tensor<i64>) -> tensor<?x?xf32>
  return %flat, %head : tensor<?xf32>, tensor<?x?xf32>
}
