// RUN: symshape-opt --split-input-file -verify-diagnostics --symshape-specialize='bindings="batch=9223372036854775807"' %s

// An extent beyond int64 under the bindings is an error at the op, not in
// attribute text the user never wrote.
func.func @overflow(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> tensor<?xf32> {
  // expected-error @below {{'symshape.reshape' target under the bindings (batch = 9223372036854775807): the extent '36893488147419103228' holds 36893488147419103228, beyond the int64 range}}
  %r = symshape.reshape %x to [batch * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
