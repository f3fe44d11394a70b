// An ONNX-style `-1` reshape.
//
// The shape `[batch, -1, 4, 8]` is computed with upstream `arith` the way an
// ONNX importer writes it: the `-1` extent is `numel floordiv (batch * 4 * 8)`.
// At batch 0 that is 0 / 0: the resolved module guards the division, so the
// call fails with an error instead of a SIGFPE. That the element count is kept
// (`width` a multiple of 32) is only known at run time: an equation between
// exact extents that cannot be proven, so symshape-to-iree checks it at run
// time (with a remark).
//
// Reference: x.reshape(batch, -1, 4, 8). Bindings: batch, width.
func.func @onnx_minus_one(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, width]>})
    -> tensor<?x?x4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %numel = arith.muli %d0, %d1 : index
  %den = arith.muli %d0, %c32 : index
  %rest = arith.divsi %numel, %den : index
  %s0 = arith.index_cast %d0 : index to i64
  %s1 = arith.index_cast %rest : index to i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %shape = tensor.from_elements %s0, %s1, %c4, %c8 : tensor<4xi64>
  %r = tensor.reshape %x(%shape) : (tensor<?x?xf32>, tensor<4xi64>) -> tensor<?x?x4x8xf32>
  return %r : tensor<?x?x4x8xf32>
}
