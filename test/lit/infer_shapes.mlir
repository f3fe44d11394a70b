// RUN: symshape-opt --split-input-file --symshape-infer-shapes %s | FileCheck %s

// Named axes seed the inference: every op result is annotated with extents
// over the function's symbols. Two arguments naming `batch` share it.
// CHECK-LABEL: func.func @named_axes
func.func @named_axes(%x: tensor<?x?x768xf32> {symshape.axes = #symshape.shape<[batch, seq, 768]>},
                      %m: tensor<?x?xi1> {symshape.axes = #symshape.shape<[batch, seq]>})
    -> tensor<?x?x768xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[B:.*]] = tensor.dim {symshape.value = #symshape.extent<batch>}
  %b = tensor.dim %x, %c0 : tensor<?x?x768xf32>
  // CHECK: %[[S:.*]] = tensor.dim {symshape.value = #symshape.extent<seq>}
  %s = tensor.dim %m, %c1 : tensor<?x?xi1>
  // CHECK: tensor.empty(%[[B]], %[[S]]) {symshape.shape = #symshape.shape<[batch, seq, 768]>}
  %e = tensor.empty(%b, %s) : tensor<?x?x768xf32>
  return %e : tensor<?x?x768xf32>
}

// -----

// Dynamic axes without a name get fresh symbols, one per axis. An integer
// argument may be negative, so its value is unknown; a size computed from it
// is some non-negative number: a fresh symbol.
// CHECK-LABEL: func.func @fresh_symbols
func.func @fresh_symbols(%x: tensor<?x?xf32>, %n: index) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[D0:.*]] = tensor.dim {symshape.value = #symshape.extent<_d0>}
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  // CHECK: %[[D1:.*]] = tensor.dim {symshape.value = #symshape.extent<_d1>}
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  // CHECK: arith.addi %[[D1]], %{{.*}} : index
  %sum = arith.addi %d1, %n : index
  // CHECK: tensor.empty({{.*}}) {symshape.shape = #symshape.shape<[_d0, _d2]>}
  %e = tensor.empty(%d0, %sum) : tensor<?x?xf32>
  return %e : tensor<?x?xf32>
}

// -----

// Unification: an elementwise linalg.generic requires equal extents per loop,
// so the unnamed axes of %y adopt `batch` and `seq`. Every reader sees the
// adopted names, also ops visited before the generic.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @unify_elementwise
func.func @unify_elementwise(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq]>},
                             %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  // CHECK: tensor.dim {symshape.value = #symshape.extent<batch>} %{{.*}}, %{{.*}}
  %d = tensor.dim %y, %c0 : tensor<?x?xf32>
  // CHECK: linalg.generic
  // CHECK-SAME: symshape.shape = #symshape.shape<[batch, seq]>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<?x?xf32>, tensor<?x?xf32>) outs(%y : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  %c1 = arith.constant 1 : index
  // CHECK: tensor.dim {symshape.value = #symshape.extent<seq>}
  %e = tensor.dim %y, %c1 : tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A matmul's K ties an unnamed axis to a static one; two fresh symbols that
// must be equal become the earlier one.
// CHECK-LABEL: func.func @unify_matmul
func.func @unify_matmul(%x: tensor<?x64xf32> {symshape.axes = #symshape.shape<[batch, 64]>},
                        %w: tensor<?x?xf32>, %init: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // CHECK: linalg.matmul {symshape.shape = #symshape.shape<[batch, _d1]>}
  %y = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<?x?xf32>)
                     outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  // CHECK: tensor.dim {symshape.value = #symshape.extent<64>}
  %k = tensor.dim %w, %c0 : tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// A cast to a static size makes that size a fact for the unnamed source axis.
// CHECK-LABEL: func.func @unify_cast
func.func @unify_cast(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // CHECK: tensor.cast {{.*}}symshape.shape = #symshape.shape<[_d0, 16]>
  %c = tensor.cast %x : tensor<?x?xf32> to tensor<?x16xf32>
  %c1 = arith.constant 1 : index
  // CHECK: %[[N:.*]] = tensor.dim {symshape.value = #symshape.extent<16>}
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  // CHECK: tensor.empty(%[[N]], %[[N]]) {symshape.shape = #symshape.shape<[16, 16]>}
  %e = tensor.empty(%n, %n) : tensor<?x?xf32>
  return %e : tensor<?x?xf32>
}

// -----

// Inside a branch that may not run, an outer unnamed axis is not unified:
// the branch's op proves nothing about the whole function. The result is
// either branch's: a size chosen at run time, exact, between the two.
// CHECK-LABEL: func.func @no_unify_in_branch
// CHECK-SAME: attributes {symshape.ranges = {_d1 = #symshape.shape<[min(_d0, batch), max(_d0, batch)]>}}
func.func @no_unify_in_branch(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[batch]>},
                              %y: tensor<?xf32>, %c: i1) -> tensor<?xf32> {
  // CHECK: scf.if
  %r = scf.if %c -> tensor<?xf32> {
    // CHECK: arith.addf {{.*}}symshape.shape = #symshape.shape<[batch]>
    %s = arith.addf %x, %y : tensor<?xf32>
    scf.yield %s : tensor<?xf32>
  } else {
    scf.yield %y : tensor<?xf32>
  }
  // CHECK: } {symshape.shape = #symshape.shape<[_d1]>}
  return %r : tensor<?xf32>
}

// -----

// A static result dimension is a fact: the inferred `batch` meets the
// static 4 of the cast result type, which wins.
// CHECK-LABEL: func.func @static_dims
func.func @static_dims(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq]>})
    -> tensor<4x?xf32> {
  // CHECK: tensor.cast {{.*}}symshape.shape = #symshape.shape<[4, seq]>
  %c = tensor.cast %x : tensor<?x?xf32> to tensor<4x?xf32>
  return %c : tensor<4x?xf32>
}

// -----

// Ops without a shape rule get what their result type states (unknown where
// dynamic); several results are annotated with a list of shapes.
// CHECK-LABEL: func.func @without_rule
func.func @without_rule(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                        %i: tensor<?x1xindex>) -> tensor<?x4xf32> {
  // CHECK: tensor.gather {{.*}}symshape.shape = #symshape.shape<[?, 1, 4]>
  %g = tensor.gather %x[%i] gather_dims([0]) : (tensor<?x4xf32>, tensor<?x1xindex>) -> tensor<?x1x4xf32>
  // CHECK: math.sincos {{.*}}symshape.shape = [#symshape.shape<[batch, 4]>, #symshape.shape<[batch, 4]>]
  %s, %c = math.sincos %x : tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}

// -----

// The MLP example: symshape ops, linalg named ops and a reshape to an
// exact symbolic target.
#map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @mlp
func.func @mlp(%x: tensor<?x64xf32> {symshape.axes = #symshape.shape<[batch, 64]>},
               %w1: tensor<64x128xf32>, %b1: tensor<128xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  // CHECK: %[[N:.*]] = symshape.dim {{.*}}{symshape.value = #symshape.extent<batch>}
  %n = symshape.dim %x, 0 : tensor<?x64xf32>
  %rows = symshape.to_index %n
  // CHECK: tensor.empty({{.*}}) {symshape.shape = #symshape.shape<[batch, 128]>}
  %h0 = tensor.empty(%rows) : tensor<?x128xf32>
  // CHECK: linalg.fill {symshape.shape = #symshape.shape<[batch, 128]>}
  %h1 = linalg.fill ins(%zero : f32) outs(%h0 : tensor<?x128xf32>) -> tensor<?x128xf32>
  // CHECK: linalg.matmul {symshape.shape = #symshape.shape<[batch, 128]>}
  %h = linalg.matmul ins(%x, %w1 : tensor<?x64xf32>, tensor<64x128xf32>)
                     outs(%h1 : tensor<?x128xf32>) -> tensor<?x128xf32>
  // CHECK: symshape.broadcast_in_dim {{.*}}symshape.shape = #symshape.shape<[batch, 128]>
  %bias = symshape.broadcast_in_dim %b1, %h dims [1] to [dim(1, 0), 128]
      : (tensor<128xf32>, tensor<?x128xf32>) -> tensor<?x128xf32>
  // CHECK: symshape.reshape {{.*}}symshape.shape = #symshape.shape<[128 * batch]>
  %flat = symshape.reshape %bias to [batch * 128] : (tensor<?x128xf32>) -> tensor<?xf32>
  return %flat : tensor<?xf32>
}
