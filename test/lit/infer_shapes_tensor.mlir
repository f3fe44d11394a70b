// RUN: symshape-opt --split-input-file --symshape-infer-shapes %s | FileCheck %s

// tensor.dim reads an extent, tensor.empty takes its sizes from index values,
// tensor.rank is the rank.
// CHECK-LABEL: func.func @dim_empty_rank
func.func @dim_empty_rank(%x: tensor<?x?x768xf32> {symshape.axes = #symshape.shape<[batch, seq, 768]>})
    -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[B:.*]] = tensor.dim {symshape.value = #symshape.extent<batch>}
  %b = tensor.dim %x, %c0 : tensor<?x?x768xf32>
  // CHECK: %[[S:.*]] = tensor.dim {symshape.value = #symshape.extent<seq>}
  %s = tensor.dim %x, %c1 : tensor<?x?x768xf32>
  // CHECK: tensor.empty(%[[S]], %[[B]]) {symshape.shape = #symshape.shape<[seq, batch]>}
  %e = tensor.empty(%s, %b) : tensor<?x?xf32>
  // CHECK: tensor.rank {{.*}}{symshape.value = #symshape.extent<3>}
  %r = tensor.rank %x : tensor<?x?x768xf32>
  return %e : tensor<?x?xf32>
}

// -----

// tensor.cast keeps the source extents; a cast to an unranked tensor has no
// shape and a cast back from one knows only the type.
// CHECK-LABEL: func.func @cast
func.func @cast(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq]>}) -> tensor<?x?xf32> {
  // CHECK: %[[U:.*]] = tensor.cast
  // CHECK-NOT: symshape.shape
  // CHECK-SAME: to tensor<*xf32>
  %u = tensor.cast %x : tensor<?x?xf32> to tensor<*xf32>
  // CHECK: tensor.cast %[[U]] {symshape.shape = #symshape.shape<[?, ?]>}
  %back = tensor.cast %u : tensor<*xf32> to tensor<?x?xf32>
  return %back : tensor<?x?xf32>
}

// -----

// Slices take their sizes, whatever the (symbolic) offsets and strides; a
// rank-reducing slice drops the unit axes the result type drops; an
// insert_slice has the shape of its destination.
// CHECK-LABEL: func.func @slices
func.func @slices(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq]>},
                  %off: index, %len: index, %stride: index) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %x, %c0 : tensor<?x?xf32>
  // CHECK: %[[HALF:.*]] = arith.floordivsi {{.*}}{symshape.value = #symshape.extent<batch floordiv 2>}
  %half = arith.floordivsi %b, %c2 : index
  // CHECK: tensor.extract_slice {{.*}}[%[[HALF]], 8] {{.*}}{symshape.shape = #symshape.shape<[batch floordiv 2, 8]>}
  %s1 = tensor.extract_slice %x[%off, 0] [%half, 8] [%stride, 1] : tensor<?x?xf32> to tensor<?x8xf32>
  // CHECK: tensor.extract_slice {{.*}}{symshape.shape = #symshape.shape<[{{_d[0-9]+}}]>} {{.*}} to tensor<?xf32>
  %s2 = tensor.extract_slice %x[0, %off] [1, %len] [1, 1] : tensor<?x?xf32> to tensor<?xf32>
  // CHECK: tensor.insert_slice {{.*}}{symshape.shape = #symshape.shape<[batch, seq]>}
  %i = tensor.insert_slice %s1 into %x[%off, 0] [%half, 8] [%stride, 1] : tensor<?x8xf32> into tensor<?x?xf32>
  return %i : tensor<?x?xf32>
}

// -----

// collapse_shape multiplies each group; expand_shape takes its output_shape.
// CHECK-LABEL: func.func @expand_collapse
func.func @expand_collapse(%x: tensor<?x?x64xf32> {symshape.axes = #symshape.shape<[batch, seq, 64]>})
    -> tensor<?x8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x64xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x64xf32>
  // CHECK: %[[FLAT:.*]] = tensor.collapse_shape {{.*}}{symshape.shape = #symshape.shape<[batch * seq, 64]>}
  %flat = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x64xf32> into tensor<?x64xf32>
  // CHECK: tensor.collapse_shape {{.*}}{symshape.shape = #symshape.shape<[64 * batch * seq]>}
  %all = tensor.collapse_shape %x [[0, 1, 2]] : tensor<?x?x64xf32> into tensor<?xf32>
  // CHECK: tensor.collapse_shape {{.*}}{symshape.shape = #symshape.shape<[]>}
  %one = tensor.collapse_shape %all [] : tensor<?xf32> into tensor<f32>
  %n = arith.muli %b, %s : index
  // CHECK: tensor.expand_shape %[[FLAT]] {{.*}}{symshape.shape = #symshape.shape<[batch * seq, 8, 8]>}
  %back = tensor.expand_shape %flat [[0], [1, 2]] output_shape [%n, 8, 8] : tensor<?x64xf32> into tensor<?x8x8xf32>
  return %back : tensor<?x8x8xf32>
}

// -----

// expand_shape unifies the source extent with the product of its group:
// the unnamed source axis adopts `batch * seq`.
// CHECK-LABEL: func.func @expand_unifies
func.func @expand_unifies(%x: tensor<?xf32>, %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq]>})
    -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %y, %c0 : tensor<?x?xf32>
  %s = tensor.dim %y, %c1 : tensor<?x?xf32>
  // CHECK: tensor.expand_shape {{.*}}{symshape.shape = #symshape.shape<[batch, seq]>}
  %e = tensor.expand_shape %x [[0, 1]] output_shape [%b, %s] : tensor<?xf32> into tensor<?x?xf32>
  // CHECK: tensor.dim {symshape.value = #symshape.extent<batch * seq>}
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  return %e : tensor<?x?xf32>
}

// -----

// concat adds the extents along its axis (and unifies the others); pad adds
// its low and high amounts.
// CHECK-LABEL: func.func @concat_pad
func.func @concat_pad(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                      %y: tensor<?x?xf32> {symshape.axes = #symshape.shape<[seq, 4]>},
                      %p: index) -> tensor<?x?xf32> {
  // CHECK: tensor.concat {{.*}}{symshape.shape = #symshape.shape<[2 * batch + seq, 4]>}
  %c = tensor.concat dim(0) %x, %y, %x : (tensor<?x4xf32>, tensor<?x?xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %zero = arith.constant 0.0 : f32
  // CHECK: tensor.pad
  // CHECK: } {symshape.shape = #symshape.shape<[2 * batch + seq + 3, _d0 + 7]>}
  %padded = tensor.pad %c low[1, %p] high[2, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<?x4xf32> to tensor<?x?xf32>
  return %padded : tensor<?x?xf32>
}

// -----

// A size read from a scalar argument is its value, of unknown sign: the
// difference of two fresh symbols (the same ones for the same argument, and
// bound from it by a runtime); generate and splat take their dynamic sizes in
// order.
// CHECK-LABEL: func.func @data_dependent_sizes
func.func @data_dependent_sizes(%n: tensor<i64>, %x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>})
    -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?xf32>
  %raw = tensor.extract %n[] : tensor<i64>
  %k = arith.index_cast %raw : i64 to index
  // CHECK: tensor.generate
  // CHECK: } {symshape.shape = #symshape.shape<[batch, [[K:_d[0-9]+ - _d[0-9]+]]]>}
  %g = tensor.generate %b, %k {
  ^bb0(%i: index, %j: index):
    %f = arith.constant 1.0 : f32
    tensor.yield %f : f32
  } : tensor<?x?xf32>
  %f = arith.constant 2.0 : f32
  // CHECK: tensor.splat {{.*}}{symshape.shape = #symshape.shape<[[[K]], batch]>}
  %s = tensor.splat %f[%k, %b] : tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}

// -----

// tensor.from_elements, tensor.extract and tensor.insert on a shape tensor.
// CHECK-LABEL: func.func @elements
func.func @elements(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq]>}) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %b = tensor.dim %x, %c0 : tensor<?x?xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?xf32>
  // CHECK: %[[T:.*]] = tensor.from_elements {{.*}}{symshape.shape = #symshape.shape<[2]>, symshape.value = #symshape.shape<[batch, seq]>}
  %t = tensor.from_elements %b, %s : tensor<2xindex>
  // CHECK: tensor.insert {{.*}}{symshape.shape = #symshape.shape<[2]>, symshape.value = #symshape.shape<[batch, 7]>}
  %u = tensor.insert %c7 into %t[%c1] : tensor<2xindex>
  // CHECK: tensor.extract %[[T]]{{.*}}{symshape.value = #symshape.extent<seq>}
  %e = tensor.extract %t[%c1] : tensor<2xindex>
  return %e : index
}

// -----

// shape.shape_of gives the extents as elements.
// CHECK-LABEL: func.func @shape_of
func.func @shape_of(%x: tensor<?x?x768xf32> {symshape.axes = #symshape.shape<[batch, seq, 768]>})
    -> tensor<3xindex> {
  // CHECK: shape.shape_of {{.*}}{symshape.shape = #symshape.shape<[3]>, symshape.value = #symshape.shape<[batch, seq, 768]>}
  %s = shape.shape_of %x : tensor<?x?x768xf32> -> tensor<3xindex>
  return %s : tensor<3xindex>
}

// -----

// bufferization.alloc_tensor: sized by its operands, or shaped like its copy.
// CHECK-LABEL: func.func @alloc_tensor
// CHECK: bufferization.alloc_tensor() copy(%{{.*}}) {symshape.shape = #symshape.shape<[n]>} : tensor<?xf32>
// CHECK: bufferization.alloc_tensor(%{{.*}}) {symshape.shape = #symshape.shape<[n, 4]>} : tensor<?x4xf32>
func.func @alloc_tensor(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}) -> (tensor<?xf32>, tensor<?x4xf32>) {
  %c = bufferization.alloc_tensor() copy(%x) : tensor<?xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  %t = bufferization.alloc_tensor(%d) : tensor<?x4xf32>
  return %c, %t : tensor<?xf32>, tensor<?x4xf32>
}
