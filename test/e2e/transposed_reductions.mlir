// A reduction of a transpose of a broadcast, all three returned (soundness
// fuzzer p142003437): IREE 3.13 fuses the transpose into the reduction's
// dispatch as a dead result and fails to compile it (a stack allocation of
// 2^58 bytes); symshape-resolve{target=iree} makes the reduction read the
// transpose's source (see python/symshape_mlir/lowering/iree/reductions.py).
// Reference: `b = broadcast_to(v, x.shape)`, `b.T`, `b.T.sum(axis=1)`.
func.func @row_sums_of_a_transposed_spread(
    %x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[a, b]>},
    %v: tensor<?xf32> {symshape.axes = #symshape.shape<[b]>})
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %spread = symshape.broadcast_in_dim %v, %x dims [1] to [dim(1, 0), dim(1, 1)]
      : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %eb = symshape.dim %spread, 1 : tensor<?x?xf32>
  %b = symshape.to_index %eb
  %ea = symshape.dim %spread, 0 : tensor<?x?xf32>
  %a = symshape.to_index %ea
  %te = tensor.empty(%b, %a) : tensor<?x?xf32>
  %t = linalg.transpose ins(%spread : tensor<?x?xf32>) outs(%te : tensor<?x?xf32>)
      permutation = [1, 0]
  %n = tensor.dim %t, %c0 : tensor<?x?xf32>
  %se = tensor.empty(%n) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%se : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce ins(%t : tensor<?x?xf32>) outs(%z : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %q = arith.addf %in, %acc : f32
      linalg.yield %q : f32
    }
  return %spread, %t, %s : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>
}
