// A stage-1 truncation feeding a reshape target: symshape-to-iree rejects it.
func.func @f(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?xf32> {
  %t = symshape.dynamic_truncate %x, %n axis 0 : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %r = symshape.reshape %t to [dim(0, 0) * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
