// A choice between tensors of different run-time sizes, and a checked cast
// to a static size, each flattened at a run-time size and also read: IREE
// 3.13 fails to order the partitions around the choice and around the
// barrier behind the cast (symshape-resolve{target=iree} gives each
// reshape a barrier of its own; see python/symshape_mlir/lowering/iree/).
// The flattening checks its element count at run time, so the file goes
// through symshape-to-iree with the contract in defer mode.
// Reference: `c.reshape(-1)` and `c[:max(k, 0)]`, `c = x if k > 2 else y`,
// for @flat_and_head_of_a_choice; `y.reshape(-1)` and `2 * y` for
// @flat_and_double_of_a_cast.

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

// %y cast to two rows (checked at run time), flattened to the length of %v
// and doubled.
func.func @flat_and_double_of_a_cast(%y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[ra, rb]>},
                                     %v: tensor<?xf32> {symshape.axes = #symshape.shape<[rn]>})
    -> (tensor<?xf32>, tensor<2x?xf32>) {
  %c = tensor.cast %y : tensor<?x?xf32> to tensor<2x?xf32>
  %flat = symshape.reshape %c, %v to [dim(1, 0)] : (tensor<2x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %twice = arith.addf %c, %c : tensor<2x?xf32>
  return %flat, %twice : tensor<?xf32>, tensor<2x?xf32>
}
