// A broadcast decided at run time (needs `symshape-verify-contract{mode=defer}`).
//
// `rows` has a dynamic first axis that is 1 or `batch` only at run time: the
// broadcast to `[batch, 8]` cannot be proven, so it is resolved with a runtime
// check (any other size fails the call) and picks row 0 or row i per element.
//
// Reference: x + rows (numpy broadcasting). Bindings: batch, and the row
// count r in {1, batch}.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @broadcast_rows(%x: tensor<?x8xf32> {symshape.axes = #symshape.shape<[batch, 8]>},
                          %rows: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %r = symshape.broadcast_in_dim %rows dims [0, 1] to [batch, 8]
      : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %n = symshape.dim %x, 0 : tensor<?x8xf32>
  %ni = symshape.to_index %n
  %init = tensor.empty(%ni) : tensor<?x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : tensor<?x8xf32>, tensor<?x8xf32>) outs(%init : tensor<?x8xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  return %sum : tensor<?x8xf32>
}
