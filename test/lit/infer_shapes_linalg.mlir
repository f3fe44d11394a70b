// RUN: symshape-opt --split-input-file --symshape-infer-shapes %s | FileCheck %s

// linalg.generic: results have the shape of their inits; the indexing maps tie
// operand axes to loops, so an elementwise op with a broadcast operand, a
// reduction and a transpose unify their unnamed operands with the named one.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @generic_maps
func.func @generic_maps(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[batch, seq]>},
                        %bias: tensor<?xf32>, %init: tensor<?x?xf32>, %acc: tensor<?xf32>,
                        %t: tensor<?x?xf32>) -> tensor<?xf32> {
  // CHECK: %[[ADD:.*]] = linalg.generic
  // CHECK-SAME: symshape.shape = #symshape.shape<[batch, seq]>
  %add = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%[[ADD]] :
  // CHECK-SAME: symshape.shape = #symshape.shape<[batch]>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%add : tensor<?x?xf32>) outs(%acc : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  // CHECK: linalg.generic
  // CHECK-SAME: symshape.shape = #symshape.shape<[seq, batch]>
  %tr = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%t : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  // The bias adopted `seq` through loop d1.
  // CHECK: tensor.dim {symshape.value = #symshape.extent<seq>}
  %n = tensor.dim %bias, %c0 : tensor<?xf32>
  return %sum : tensor<?xf32>
}

// -----

// Named ops follow their definitions: fill, matmul (K ties %w's rows to 64),
// transpose, reduce, broadcast, map, softmax and matvec.
// CHECK-LABEL: func.func @named_ops
func.func @named_ops(%x: tensor<?x64xf32> {symshape.axes = #symshape.shape<[batch, 64]>},
                     %w: tensor<?x?xf32> {symshape.axes = #symshape.shape<[64, hidden]>},
                     %v: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x64xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%b, %n) : tensor<?x?xf32>
  // CHECK: linalg.fill {symshape.shape = #symshape.shape<[batch, hidden]>}
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  // CHECK: %[[MM:.*]] = linalg.matmul {symshape.shape = #symshape.shape<[batch, hidden]>}
  %mm = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<?x?xf32>)
                      outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %et = tensor.empty(%n, %b) : tensor<?x?xf32>
  // CHECK: linalg.transpose ins(%[[MM]] {{.*}}{symshape.shape = #symshape.shape<[hidden, batch]>}
  %t = linalg.transpose ins(%mm : tensor<?x?xf32>) outs(%et : tensor<?x?xf32>) permutation = [1, 0]
  %er = tensor.empty(%b) : tensor<?xf32>
  // CHECK: linalg.reduce ins(%[[MM]] {{.*}}{symshape.shape = #symshape.shape<[batch]>}
  %r = linalg.reduce ins(%mm : tensor<?x?xf32>) outs(%er : tensor<?xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  // CHECK: %[[BC:.*]] = linalg.broadcast {{.*}}{symshape.shape = #symshape.shape<[batch, hidden]>}
  %bc = linalg.broadcast ins(%v : tensor<?xf32>) outs(%e : tensor<?x?xf32>) dimensions = [0]
  // CHECK: %[[MAP:.*]] = linalg.map {{.*}}{symshape.shape = #symshape.shape<[batch, hidden]>}
  %m = linalg.map ins(%mm, %bc : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>)
    (%l: f32, %rr: f32, %o: f32) {
      %s = arith.addf %l, %rr : f32
      linalg.yield %s : f32
    }
  // CHECK: linalg.softmax {symshape.shape = #symshape.shape<[batch, hidden]>}
  %sm = linalg.softmax dimension(1) ins(%m : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  // CHECK: linalg.matvec {symshape.shape = #symshape.shape<[batch]>}
  %mv = linalg.matvec ins(%mm, %v : tensor<?x?xf32>, tensor<?xf32>) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  // %v adopted `hidden` (broadcast dimensions, matvec K).
  // CHECK: tensor.dim {symshape.value = #symshape.extent<hidden>}
  %vn = tensor.dim %v, %c0 : tensor<?xf32>
  return %mv : tensor<?xf32>
}

// -----

// batch_matmul ties the batch loop and K; the unnamed operands adopt them.
// CHECK-LABEL: func.func @batch_matmul
func.func @batch_matmul(%q: tensor<?x?x64xf32> {symshape.axes = #symshape.shape<[batch, seq, 64]>},
                        %k: tensor<?x?x?xf32>, %o: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  // CHECK: linalg.batch_matmul {symshape.shape = #symshape.shape<[batch, seq, [[N:_d[0-9]+]]]>}
  %s = linalg.batch_matmul ins(%q, %k : tensor<?x?x64xf32>, tensor<?x?x?xf32>)
                           outs(%o : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  // CHECK: tensor.dim {symshape.value = #symshape.extent<64>}
  %kk = tensor.dim %k, %c1 : tensor<?x?x?xf32>
  return %s : tensor<?x?x?xf32>
}

// -----

// A map result that is not a plain loop dimension constrains nothing: a 1-D
// convolution reads %x at d0 + d1 (its extent n is not tied to m or k).
#in = affine_map<(d0, d1) -> (d0 + d1)>
#kernel = affine_map<(d0, d1) -> (d1)>
#out = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @convolution
func.func @convolution(%x: tensor<?xf32> {symshape.axes = #symshape.shape<[n]>},
                       %w: tensor<?xf32> {symshape.axes = #symshape.shape<[k]>},
                       %o: tensor<?xf32> {symshape.axes = #symshape.shape<[m]>}) -> tensor<?xf32> {
  // CHECK: linalg.generic
  // CHECK-SAME: symshape.shape = #symshape.shape<[m]>
  %r = linalg.generic {indexing_maps = [#in, #kernel, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<?xf32>, tensor<?xf32>) outs(%o : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %c : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
