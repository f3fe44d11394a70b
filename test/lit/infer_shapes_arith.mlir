// RUN: symshape-opt --split-input-file --symshape-infer-shapes %s | FileCheck %s

// Partial data propagation: a shape tensor built from tensor.dim and
// tensor.from_elements resolves the tensor.reshape target symbolically.
// CHECK-LABEL: func.func @reshape_from_dims
func.func @reshape_from_dims(%x: tensor<?x?x768xf32> {symshape.axes = #symshape.shape<[batch, seq, 768]>})
    -> tensor<?x768xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c768 = arith.constant 768 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x768xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x768xf32>
  // CHECK: %[[ROWS:.*]] = arith.muli {{.*}}{symshape.value = #symshape.extent<batch * seq>}
  %rows = arith.muli %b, %s : index
  // CHECK: %[[SHAPE:.*]] = tensor.from_elements %[[ROWS]], {{.*}}symshape.value = #symshape.shape<[batch * seq, 768]>
  %shape = tensor.from_elements %rows, %c768 : tensor<2xindex>
  // CHECK: tensor.reshape {{.*}}(%[[SHAPE]]) {symshape.shape = #symshape.shape<[batch * seq, 768]>}
  %r = tensor.reshape %x(%shape) : (tensor<?x?x768xf32>, tensor<2xindex>) -> tensor<?x768xf32>
  return %r : tensor<?x768xf32>
}

// -----

// shape_of, a slice with constant offsets, a concat with constants and a cast
// to i64 elements: [batch, seq] ++ [12, 64].
// CHECK-LABEL: func.func @slice_concat
func.func @slice_concat(%x: tensor<?x?x768xf32> {symshape.axes = #symshape.shape<[batch, seq, 768]>})
    -> tensor<?x?x12x64xf32> {
  %shape = shape.shape_of %x : tensor<?x?x768xf32> -> tensor<3xindex>
  // CHECK: arith.index_cast {{.*}}symshape.value = #symshape.shape<[batch, seq, 768]>
  %dims = arith.index_cast %shape : tensor<3xindex> to tensor<3xi64>
  // CHECK: %[[LEAD:.*]] = tensor.extract_slice {{.*}}symshape.value = #symshape.shape<[batch, seq]>
  %lead = tensor.extract_slice %dims[0] [2] [1] : tensor<3xi64> to tensor<2xi64>
  // CHECK: tensor.extract_slice {{.*}}symshape.value = #symshape.shape<[batch, 768]>
  %strided = tensor.extract_slice %dims[0] [2] [2] : tensor<3xi64> to tensor<2xi64>
  %heads = arith.constant dense<[12, 64]> : tensor<2xi64>
  // CHECK: %[[TARGET:.*]] = tensor.concat {{.*}}symshape.value = #symshape.shape<[batch, seq, 12, 64]>
  %target = tensor.concat dim(0) %lead, %heads : (tensor<2xi64>, tensor<2xi64>) -> tensor<4xi64>
  // CHECK: tensor.reshape {{.*}}(%[[TARGET]]) {symshape.shape = #symshape.shape<[batch, seq, 12, 64]>}
  %r = tensor.reshape %x(%target) : (tensor<?x?x768xf32>, tensor<4xi64>) -> tensor<?x?x12x64xf32>
  return %r : tensor<?x?x12x64xf32>
}

// -----

// Elementwise arithmetic on shape tensors: [batch, seq * 2] * [1, 384].
// CHECK-LABEL: func.func @elementwise_shape_tensors
func.func @elementwise_shape_tensors(%x: tensor<?x?x768xf32> {symshape.axes = #symshape.shape<[batch, seq, 768]>})
    -> tensor<?x?xf32> {
  %shape = shape.shape_of %x : tensor<?x?x768xf32> -> tensor<3xindex>
  %lead = tensor.extract_slice %shape[0] [2] [1] : tensor<3xindex> to tensor<2xindex>
  %scale = arith.constant dense<[1, 2]> : tensor<2xindex>
  // CHECK: arith.muli {{.*}}symshape.value = #symshape.shape<[batch, 2 * seq]>
  %doubled = arith.muli %lead, %scale : tensor<2xindex>
  %two = arith.constant dense<2> : tensor<2xindex>
  // CHECK: arith.floordivsi {{.*}}symshape.value = #symshape.shape<[batch floordiv 2, seq]>
  %halved = arith.floordivsi %doubled, %two : tensor<2xindex>
  // CHECK: tensor.reshape {{.*}}{symshape.shape = #symshape.shape<[batch floordiv 2, seq]>}
  %r = tensor.reshape %x(%halved) : (tensor<?x?x768xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// ONNX Reshape(x, [-1, 768]) lowered with arithmetic: the -1 entry is the
// element count floordiv the product of the other entries, chosen with
// arith.select. tensor.reshape itself has no -1 convention.
// CHECK-LABEL: func.func @onnx_minus_one
func.func @onnx_minus_one(%x: tensor<?x?x768xf32> {symshape.axes = #symshape.shape<[batch, seq, 768]>})
    -> tensor<?x768xf32> {
  %given = arith.constant dense<[-1, 768]> : tensor<2xi64>
  %shape = shape.shape_of %x : tensor<?x?x768xf32> -> tensor<3xindex>
  %dims = arith.index_cast %shape : tensor<3xindex> to tensor<3xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.extract %dims[%c0] : tensor<3xi64>
  %d1 = tensor.extract %dims[%c1] : tensor<3xi64>
  %d2 = tensor.extract %dims[%c2] : tensor<3xi64>
  %p01 = arith.muli %d0, %d1 : i64
  // CHECK: arith.muli {{.*}}{symshape.value = #symshape.extent<768 * batch * seq>}
  %numel = arith.muli %p01, %d2 : i64
  %minus1 = arith.constant dense<-1> : tensor<2xi64>
  %one = arith.constant dense<1> : tensor<2xi64>
  // CHECK: %[[FILL:.*]] = arith.cmpi eq, {{.*}}symshape.value = #symshape.shape<[1, 0]>
  %is_fill = arith.cmpi eq, %given, %minus1 : tensor<2xi64>
  // CHECK: arith.select %[[FILL]], {{.*}}symshape.value = #symshape.shape<[1, 768]>
  %known = arith.select %is_fill, %one, %given : tensor<2xi1>, tensor<2xi64>
  %k0 = tensor.extract %known[%c0] : tensor<2xi64>
  %k1 = tensor.extract %known[%c1] : tensor<2xi64>
  %kprod = arith.muli %k0, %k1 : i64
  // CHECK: arith.divsi {{.*}}{symshape.value = #symshape.extent<batch * seq>}
  %fill = arith.divsi %numel, %kprod : i64
  %fills = tensor.splat %fill : tensor<2xi64>
  // CHECK: %[[TARGET:.*]] = arith.select %[[FILL]], {{.*}}symshape.value = #symshape.shape<[batch * seq, 768]>
  %target = arith.select %is_fill, %fills, %given : tensor<2xi1>, tensor<2xi64>
  // CHECK: tensor.reshape {{.*}}(%[[TARGET]]) {symshape.shape = #symshape.shape<[batch * seq, 768]>}
  %r = tensor.reshape %x(%target) : (tensor<?x?x768xf32>, tensor<2xi64>) -> tensor<?x768xf32>
  return %r : tensor<?x768xf32>
}

// -----

// A target entry read from data is derived from the element count when it is
// the only unknown one (the reshape keeps the count); two unknown entries
// are fresh symbols.
// CHECK-LABEL: func.func @reshape_unknown_entries
func.func @reshape_unknown_entries(%x: tensor<?x64xf32> {symshape.axes = #symshape.shape<[batch, 64]>},
                                   %t: tensor<2xi64>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %u = arith.muli %t, %t : tensor<2xi64>
  %d = tensor.extract %u[%c0] : tensor<2xi64>
  %eight = arith.constant 8 : i64
  %target = tensor.from_elements %d, %eight : tensor<2xi64>
  // CHECK: tensor.reshape {{.*}}{symshape.shape = #symshape.shape<[8 * batch, 8]>}
  %r = tensor.reshape %x(%target) : (tensor<?x64xf32>, tensor<2xi64>) -> tensor<?x8xf32>
  // CHECK: tensor.reshape {{.*}}{symshape.shape = #symshape.shape<[_d0, _d1]>}
  %q = tensor.reshape %x(%u) : (tensor<?x64xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %q : tensor<?x?xf32>
}

// -----

// Entries of a short integer argument are its values, of unknown sign (each
// the difference of two fresh symbols, which a runtime binds from the
// argument before the call): a shape given as an input, read whole or by
// element, is exact.
// CHECK-LABEL: func.func @reshape_to_argument_entries
func.func @reshape_to_argument_entries(
    %x: tensor<?x64xf32> {symshape.axes = #symshape.shape<[batch, 64]>},
    %t: tensor<2xi64>) -> (tensor<?x?xf32>, tensor<?x8xf32>) {
  %c1 = arith.constant 1 : index
  // CHECK: tensor.reshape {{.*}}{symshape.shape = #symshape.shape<[[[A:_d[0-9]+ - _d[0-9]+]], [[B:_d[0-9]+ - _d[0-9]+]]]>}
  %q = tensor.reshape %x(%t) : (tensor<?x64xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  // CHECK: tensor.extract {{.*}}{symshape.value = #symshape.extent<[[B]]>}
  %d = tensor.extract %t[%c1] : tensor<2xi64>
  %eight = arith.constant 8 : i64
  %target = tensor.from_elements %d, %eight : tensor<2xi64>
  // CHECK: tensor.reshape {{.*}}{symshape.shape = #symshape.shape<[[[B]], 8]>}
  %r = tensor.reshape %x(%target) : (tensor<?x64xf32>, tensor<2xi64>) -> tensor<?x8xf32>
  return %q, %r : tensor<?x?xf32>, tensor<?x8xf32>
}

// -----

// index dialect ops compute extents like their arith counterparts; truncating
// division and remainder only on provably non-negative operands.
// CHECK-LABEL: func.func @index_ops
func.func @index_ops(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq]>}) -> index {
  // CHECK: index.constant {symshape.value = #symshape.extent<0>}
  %c0 = index.constant 0
  %c1 = index.constant 1
  %c4 = index.constant 4
  %b = tensor.dim %x, %c0 : tensor<?x?xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?xf32>
  // CHECK: %[[ADD:.*]] = index.add {{.*}}{symshape.value = #symshape.extent<batch + seq>}
  %add = index.add %b, %s
  // CHECK: %[[SUB:.*]] = index.sub %[[ADD]], {{.*}}{symshape.value = #symshape.extent<batch + seq - 1>}
  %sub = index.sub %add, %c1
  // CHECK: %[[MUL:.*]] = index.mul {{.*}}{symshape.value = #symshape.extent<4 * batch>}
  %mul = index.mul %b, %c4
  // CHECK: index.floordivs %[[MUL]], {{.*}}{symshape.value = #symshape.extent<batch>}
  %fd = index.floordivs %mul, %c4
  // CHECK: %[[CD:.*]] = index.ceildivs {{.*}}{symshape.value = #symshape.extent<seq ceildiv 4>}
  %cd = index.ceildivs %s, %c4
  // CHECK: index.divs {{.*}}{symshape.value = #symshape.extent<seq floordiv 4>}
  %dv = index.divs %s, %c4
  // CHECK: index.rems {{.*}}{symshape.value = #symshape.extent<seq mod 4>}
  %rm = index.rems %s, %c4
  // CHECK: %[[MIN:.*]] = index.mins {{.*}}{symshape.value = #symshape.extent<min(batch, seq)>}
  %mn = index.mins %b, %s
  // CHECK: %[[MAX:.*]] = index.maxs {{.*}}{symshape.value = #symshape.extent<max(batch, seq)>}
  %mx = index.maxs %b, %s
  // CHECK: index.divu {{.*}}{symshape.value = #symshape.extent<seq floordiv 4>}
  %du = index.divu %s, %c4
  // CHECK: %[[CASTS:.*]] = index.casts %[[MAX]] {symshape.value = #symshape.extent<max(batch, seq)>}
  %ci = index.casts %mx : index to i64
  // CHECK: index.castu %[[CASTS]] {symshape.value = #symshape.extent<max(batch, seq)>}
  %cu = index.castu %ci : i64 to index
  // The provers cannot decide min < max (they may be equal): no value.
  // CHECK: index.cmp slt(%[[MIN]], %[[MAX]])
  // CHECK-NOT: symshape.value
  // CHECK-SAME: {{$}}
  %lt = index.cmp slt(%mn, %mx)
  // CHECK: index.cmp sle(%[[MIN]], %[[MAX]]) {symshape.value = #symshape.extent<1>}
  %le = index.cmp sle(%mn, %mx)
  // CHECK: tensor.empty(%[[SUB]], %[[CD]]) {symshape.shape = #symshape.shape<[batch + seq - 1, seq ceildiv 4]>}
  %e = tensor.empty(%sub, %cd) : tensor<?x?xf32>
  return %cu : index
}

// -----

// arith on index values: truncating division of a possibly negative value is
// unknown, floor division is exact; a decided select picks its operand, an
// undecided one is a value chosen at run time: a fresh symbol ranging
// between its operands.
// CHECK-LABEL: func.func @arith_scalars
// CHECK-SAME: attributes {symshape.ranges = {_d0 = #symshape.shape<[min(2, n), max(2, n)]>}}
func.func @arith_scalars(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>}, %i: index) -> index {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %cm1 = arith.constant -1 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  // CHECK: %[[NEG:.*]] = arith.muli {{.*}}{symshape.value = #symshape.extent<0 - n>}
  %neg = arith.muli %n, %cm1 : index
  // CHECK: arith.divsi %[[NEG]], %{{[^ ]*}} : index
  %d = arith.divsi %neg, %c2 : index
  // CHECK: arith.floordivsi %[[NEG]], {{.*}}{symshape.value = #symshape.extent<(0 - n) floordiv 2>}
  %f = arith.floordivsi %neg, %c2 : index
  // CHECK: arith.ceildivsi {{.*}}{symshape.value = #symshape.extent<n ceildiv 2>}
  %c = arith.ceildivsi %n, %c2 : index
  // CHECK: arith.remsi {{.*}}{symshape.value = #symshape.extent<n mod 2>}
  %r = arith.remsi %n, %c2 : index
  %n64 = arith.index_cast %n : index to i64
  // CHECK: arith.trunci %{{[^ ]*}} : i64 to i32
  %t = arith.trunci %n64 : i64 to i32
  // CHECK: arith.andi %{{[^ ]*}}, %{{[^ ]*}} : index
  %bits = arith.andi %n, %c2 : index
  // CHECK: %[[GE:.*]] = arith.cmpi sge, {{.*}}{symshape.value = #symshape.extent<1>}
  %ge = arith.cmpi sge, %n, %c0 : index
  // CHECK: arith.select %[[GE]], {{.*}}{symshape.value = #symshape.extent<n>}
  %sel = arith.select %ge, %n, %c2 : index
  %lt = arith.cmpi slt, %n, %i : index
  // CHECK: arith.select {{.*}}{symshape.value = #symshape.extent<_d0>}
  %join = arith.select %lt, %n, %c2 : index
  return %sel : index
}

// -----

// Elementwise arith and math ops on tensors keep the shape and unify their
// operands: the unnamed %y adopts `batch`.
// CHECK-LABEL: func.func @elementwise_tensors
func.func @elementwise_tensors(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                               %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: arith.addf {{.*}}{symshape.shape = #symshape.shape<[batch, 4]>}
  %s = arith.addf %x, %y : tensor<?x4xf32>
  // CHECK: math.exp {{.*}}{symshape.shape = #symshape.shape<[batch, 4]>}
  %e = math.exp %y : tensor<?x4xf32>
  // CHECK: arith.cmpf {{.*}}{symshape.shape = #symshape.shape<[batch, 4]>}
  %m = arith.cmpf olt, %s, %e : tensor<?x4xf32>
  // CHECK: arith.select {{.*}}{symshape.shape = #symshape.shape<[batch, 4]>}
  %r = arith.select %m, %s, %e : tensor<?x4xi1>, tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
