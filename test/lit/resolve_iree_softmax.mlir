// RUN: symshape-opt --split-input-file --symshape-infer-shapes --symshape-resolve=target=iree --canonicalize %s | FileCheck %s

// The softmax chain over the last axis of a tensor of rank 4 (max, subtract,
// exp, sum, divide, as the frontend emits it) is one linalg.softmax over the
// rows: IREE splits a softmax by a divisor of each leading axis's extent, one
// row per workgroup where one is prime.
// CHECK-LABEL: func.func @heads
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<?x4x?x?xf32> into tensor<?x?xf32>
// CHECK:         %[[S:.*]] = linalg.softmax dimension(1) ins(%[[ROWS]] : tensor<?x?xf32>)
// CHECK:         %[[Y:.*]] = tensor.expand_shape %[[S]] {{\[}}[0, 1, 2], [3]]
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[Y]] : tensor<?x4x?x?xf32>
func.func @heads(%x: tensor<?x4x?x?xf32> {symshape.axes = #symshape.shape<[n, 4, h, w]>}) -> (tensor<?x4x?x?xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x?x?xf32>
  %h = tensor.dim %x, %c2 : tensor<?x4x?x?xf32>
  %w = tensor.dim %x, %c3 : tensor<?x4x?x?xf32>
  %r0 = tensor.empty(%n, %h) : tensor<?x4x?xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<?x4x?xf32>) -> tensor<?x4x?xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<?x4x?x?xf32>) outs(%mi : tensor<?x4x?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.maximumf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<?x4x?xf32>
  %mu = tensor.expand_shape %m [[0], [1], [2, 3]] output_shape [%n, 4, %h, 1] : tensor<?x4x?xf32> into tensor<?x4x?x1xf32>
  %f = tensor.empty(%n, %h, %w) : tensor<?x4x?x?xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mu : tensor<?x4x?x?xf32>, tensor<?x4x?x1xf32>) outs(%f : tensor<?x4x?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.subf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<?x4x?x?xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<?x4x?x?xf32>) outs(%f : tensor<?x4x?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<?x4x?x?xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%r0 : tensor<?x4x?xf32>) -> tensor<?x4x?xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%e : tensor<?x4x?x?xf32>) outs(%zi : tensor<?x4x?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<?x4x?xf32>
  %zu = tensor.expand_shape %z [[0], [1], [2, 3]] output_shape [%n, 4, %h, 1] : tensor<?x4x?xf32> into tensor<?x4x?x1xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e, %zu : tensor<?x4x?x?xf32>, tensor<?x4x?x1xf32>) outs(%f : tensor<?x4x?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.divf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<?x4x?x?xf32>
  return %y : tensor<?x4x?x?xf32>
}

// -----

// Static sizes: the rows are 2 * 3, and the tensor is small: the chain
// over the rows, the exponentials written once (behind a compute barrier)
// and read by the sum and the division.
// CHECK-LABEL: func.func @static_rows
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} : tensor<2x3x7xf32> into tensor<6x7xf32>
// CHECK:         %[[M:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[ROWS]] : tensor<6x7xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[E:.*]] = linalg.generic {{.*}} ins(%[[ROWS]], %[[M]] : tensor<6x7xf32>, tensor<6xf32>)
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:         %[[B:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[E]])
// CHECK:         %[[Z:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[B]] : tensor<6x7xf32>)
// CHECK:           arith.addf
// CHECK:         %[[S:.*]] = linalg.generic {{.*}} ins(%[[B]], %[[Z]] : tensor<6x7xf32>, tensor<6xf32>)
// CHECK:           arith.divf
// CHECK:         %[[Y:.*]] = tensor.expand_shape %[[S]] {{\[}}[0, 1], [2]] output_shape [2, 3, 7]
// CHECK-NOT:     math.exp
// CHECK:         return %[[Y]] : tensor<2x3x7xf32>
func.func @static_rows(%x: tensor<2x3x7xf32> {symshape.axes = #symshape.shape<[2, 3, 7]>}) -> (tensor<2x3x7xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32

  %r0 = tensor.empty() : tensor<2x3xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x3x7xf32>) outs(%mi : tensor<2x3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.maximumf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<2x3xf32>
  %mu = tensor.expand_shape %m [[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
  %f = tensor.empty() : tensor<2x3x7xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mu : tensor<2x3x7xf32>, tensor<2x3x1xf32>) outs(%f : tensor<2x3x7xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.subf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<2x3x7xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x3x7xf32>) outs(%f : tensor<2x3x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<2x3x7xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%r0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : tensor<2x3x7xf32>) outs(%zi : tensor<2x3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<2x3xf32>
  %zu = tensor.expand_shape %z [[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %zu : tensor<2x3x7xf32>, tensor<2x3x1xf32>) outs(%f : tensor<2x3x7xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.divf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<2x3x7xf32>
  return %y : tensor<2x3x7xf32>
}

// -----

// Static but over STORED_EXPONENTIALS bytes (28 MB): one linalg.softmax over
// the rows.
// CHECK-LABEL: func.func @static_large_rows
// CHECK:         tensor.collapse_shape %{{.*}} : tensor<48x384x384xf32> into tensor<18432x384xf32>
// CHECK:         linalg.softmax dimension(1) {{.*}} -> tensor<18432x384xf32>
// CHECK-NOT:     linalg.generic
func.func @static_large_rows(%x: tensor<48x384x384xf32> {symshape.axes = #symshape.shape<[48, 384, 384]>}) -> (tensor<48x384x384xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32

  %r0 = tensor.empty() : tensor<48x384xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<48x384xf32>) -> tensor<48x384xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<48x384x384xf32>) outs(%mi : tensor<48x384xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.maximumf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<48x384xf32>
  %mu = tensor.expand_shape %m [[0], [1, 2]] output_shape [48, 384, 1] : tensor<48x384xf32> into tensor<48x384x1xf32>
  %f = tensor.empty() : tensor<48x384x384xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mu : tensor<48x384x384xf32>, tensor<48x384x1xf32>) outs(%f : tensor<48x384x384xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.subf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<48x384x384xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<48x384x384xf32>) outs(%f : tensor<48x384x384xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<48x384x384xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%r0 : tensor<48x384xf32>) -> tensor<48x384xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : tensor<48x384x384xf32>) outs(%zi : tensor<48x384xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<48x384xf32>
  %zu = tensor.expand_shape %z [[0], [1, 2]] output_shape [48, 384, 1] : tensor<48x384xf32> into tensor<48x384x1xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %zu : tensor<48x384x384xf32>, tensor<48x384x1xf32>) outs(%f : tensor<48x384x384xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.divf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<48x384x384xf32>
  return %y : tensor<48x384x384xf32>
}

// -----

// A small static matrix: its rows, the exponentials written once.
// CHECK-LABEL: func.func @static_matrix
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         %[[E:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<5x7xf32>, tensor<5xf32>)
// CHECK:           math.exp
// CHECK:         "iree_tensor_ext.compute_barrier.start"(%[[E]])
// CHECK-NOT:     math.exp
// CHECK:         arith.divf
func.func @static_matrix(%x: tensor<5x7xf32> {symshape.axes = #symshape.shape<[5, 7]>}) -> (tensor<5x7xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %r0 = tensor.empty() : tensor<5xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<5xf32>) -> tensor<5xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<5x7xf32>) outs(%mi : tensor<5xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.maximumf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<5xf32>
  %mu = tensor.expand_shape %m [[0, 1]] output_shape [5, 1] : tensor<5xf32> into tensor<5x1xf32>
  %f = tensor.empty() : tensor<5x7xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mu : tensor<5x7xf32>, tensor<5x1xf32>) outs(%f : tensor<5x7xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.subf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<5x7xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<5x7xf32>) outs(%f : tensor<5x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<5x7xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%r0 : tensor<5xf32>) -> tensor<5xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<5x7xf32>) outs(%zi : tensor<5xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<5xf32>
  %zu = tensor.expand_shape %z [[0, 1]] output_shape [5, 1] : tensor<5xf32> into tensor<5x1xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%e, %zu : tensor<5x7xf32>, tensor<5x1xf32>) outs(%f : tensor<5x7xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.divf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<5x7xf32>
  return %y : tensor<5x7xf32>
}

// -----

// A dynamic matrix has its rows already: the chain stays (IREE raises it itself).
// CHECK-LABEL: func.func @matrix
// CHECK-NOT:     linalg.softmax
// CHECK:         arith.divf
func.func @matrix(%x: tensor<?x?xf32> {symshape.axes = #symshape.shape<[h, w]>}) -> (tensor<?x?xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %h = tensor.dim %x, %c0 : tensor<?x?xf32>
  %w = tensor.dim %x, %c1 : tensor<?x?xf32>
  %r0 = tensor.empty(%h) : tensor<?xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<?xf32>) -> tensor<?xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%mi : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.maximumf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %mu = tensor.expand_shape %m [[0, 1]] output_shape [%h, 1] : tensor<?xf32> into tensor<?x1xf32>
  %f = tensor.empty(%h, %w) : tensor<?x?xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mu : tensor<?x?xf32>, tensor<?x1xf32>) outs(%f : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.subf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%r0 : tensor<?xf32>) -> tensor<?xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<?x?xf32>) outs(%zi : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %zu = tensor.expand_shape %z [[0, 1]] output_shape [%h, 1] : tensor<?xf32> into tensor<?x1xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%e, %zu : tensor<?x?xf32>, tensor<?x1xf32>) outs(%f : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.divf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// The exponentials are also returned: the chain stays, so that nothing is
// computed twice.
// CHECK-LABEL: func.func @exponentials_returned
// CHECK-NOT:     linalg.softmax
// CHECK:         arith.divf
func.func @exponentials_returned(%x: tensor<?x4x?x?xf32> {symshape.axes = #symshape.shape<[n, 4, h, w]>}) -> (tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x?x?xf32>
  %h = tensor.dim %x, %c2 : tensor<?x4x?x?xf32>
  %w = tensor.dim %x, %c3 : tensor<?x4x?x?xf32>
  %r0 = tensor.empty(%n, %h) : tensor<?x4x?xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<?x4x?xf32>) -> tensor<?x4x?xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<?x4x?x?xf32>) outs(%mi : tensor<?x4x?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.maximumf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<?x4x?xf32>
  %mu = tensor.expand_shape %m [[0], [1], [2, 3]] output_shape [%n, 4, %h, 1] : tensor<?x4x?xf32> into tensor<?x4x?x1xf32>
  %f = tensor.empty(%n, %h, %w) : tensor<?x4x?x?xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mu : tensor<?x4x?x?xf32>, tensor<?x4x?x1xf32>) outs(%f : tensor<?x4x?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.subf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<?x4x?x?xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<?x4x?x?xf32>) outs(%f : tensor<?x4x?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<?x4x?x?xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%r0 : tensor<?x4x?xf32>) -> tensor<?x4x?xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%e : tensor<?x4x?x?xf32>) outs(%zi : tensor<?x4x?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<?x4x?xf32>
  %zu = tensor.expand_shape %z [[0], [1], [2, 3]] output_shape [%n, 4, %h, 1] : tensor<?x4x?xf32> into tensor<?x4x?x1xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e, %zu : tensor<?x4x?x?xf32>, tensor<?x4x?x1xf32>) outs(%f : tensor<?x4x?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.divf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<?x4x?x?xf32>
  return %y, %e : tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>
}
