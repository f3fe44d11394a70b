// RUN: symshape-opt --split-input-file --symshape-relayout-convolutions %s | FileCheck %s

// Between two static convolutions, the bias, the clamp and the padding run
// channels-last: the first convolution's transpose back to NCHW moves down
// through them and cancels against the second one's transpose to NHWC,
// which then needs no barrier. Only the function's input and result are
// transposed.
// CHECK-DAG: #[[NHWC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @bias_clamp_pad
// CHECK: %[[XT:.*]] = linalg.transpose ins(%arg0 : tensor<1x4x8x8xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK: %[[XB:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[XT]]
// CHECK: %[[C1:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[XB]], %{{.*}} : tensor<1x8x8x4xf32>, tensor<1x1x4x4xf32>)
// CHECK-NOT: linalg.transpose ins(%[[C1]]
// CHECK: %[[B:.*]] = linalg.generic {indexing_maps = [#[[NHWC]], #[[BIAS]], #[[NHWC]]]{{.*}} ins(%[[C1]], %{{.*}} : tensor<1x8x8x4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<1x8x8x4xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<1x8x8x4xf32>) outs(%{{.*}} : tensor<1x8x8x4xf32>)
// CHECK: %[[P:.*]] = tensor.pad %[[R]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
// CHECK-NOT: "iree_tensor_ext.compute_barrier.start"(%[[P]])
// CHECK: %[[C2:.*]] = linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[P]], %{{.*}} : tensor<1x10x10x4xf32>, tensor<3x3x4xf32>)
// CHECK: %[[Y:.*]] = linalg.transpose ins(%[[C2]] : tensor<1x8x8x4xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK: return %[[Y]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @bias_clamp_pad(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<1.0> : tensor<4x4x1x1xf32>
  %w2 = arith.constant dense<1.0> : tensor<4x3x3xf32>
  %b = arith.constant dense<0.5> : tensor<4xf32>
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) outs(%init : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %e1 = tensor.empty() : tensor<1x4x8x8xf32>
  %biased = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %b : tensor<1x4x8x8xf32>, tensor<4xf32>) outs(%e1 : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x8xf32>
  %e2 = tensor.empty() : tensor<1x4x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%biased : tensor<1x4x8x8xf32>) outs(%e2 : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  %p = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %c2 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w2 : tensor<1x4x10x10xf32>, tensor<4x3x3xf32>) outs(%init : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %c2 : tensor<1x4x8x8xf32>
}

// -----

// A residual addition of two convolutions reads both channels-last; a
// stride-2 padding's slice moves with it; a global average pool reads the
// channels-last tensor through its map (its transpose absorbed): no
// transpose is left but the input's.
// CHECK: #[[NHWC2:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @residual_slice_pool
// CHECK: linalg.transpose ins(%arg0
// CHECK: %[[C1:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK: %[[C2:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%[[C1]], %[[C2]] : tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) outs(%{{.*}} : tensor<1x8x8x4xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[A]][0, 0, 0, 0] [1, 7, 7, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> to tensor<1x7x7x4xf32>
// CHECK: %[[POOL:.*]] = linalg.generic {indexing_maps = [#[[NHWC2]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[S]] : tensor<1x7x7x4xf32>) outs(%{{.*}} : tensor<1x4xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return %[[POOL]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#pool = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @residual_slice_pool(%x: tensor<1x4x8x8xf32>) -> tensor<1x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<4x4x1x1xf32>
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) outs(%init : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%c1, %w : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) outs(%init : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %e1 = tensor.empty() : tensor<1x4x8x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %c2 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%e1 : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x8xf32>
  %sl = tensor.extract_slice %sum[0, 0, 0, 0] [1, 4, 7, 7] [1, 1, 1, 1] : tensor<1x4x8x8xf32> to tensor<1x4x7x7xf32>
  %e2 = tensor.empty() : tensor<1x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x4xf32>) -> tensor<1x4xf32>
  %pool = linalg.generic {indexing_maps = [#id, #pool], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%sl : tensor<1x4x7x7xf32>) outs(%f : tensor<1x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<1x4xf32>
  return %pool : tensor<1x4xf32>
}

// -----

// A transpose with a reader that cannot take it (a reshape) stays where it
// is, for its other readers too (it is never duplicated); so do those of a
// dynamic convolution.
// CHECK-LABEL: func.func @kept
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[C]] : tensor<1x8x8x4xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK: linalg.generic {{.*}} ins(%[[T]] : tensor<1x4x8x8xf32>)
// CHECK: tensor.collapse_shape %[[T]]
func.func @kept(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<4x4x1x1xf32>
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) outs(%init : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %e1 = tensor.empty() : tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x4x8x8xf32>) outs(%e1 : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  %flat = tensor.collapse_shape %c [[0], [1, 2, 3]] : tensor<1x4x8x8xf32> into tensor<1x256xf32>
  return %r, %flat : tensor<1x4x8x8xf32>, tensor<1x256xf32>
}

// -----

// Dynamic transposes move too: the activation between two convolutions
// runs channels-last over an init sized from the old one's sizes (a
// tensor.dim of a transpose reads the source's permuted axis), and the
// second convolution reads it directly.
// CHECK-DAG: #[[NHWC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK: tensor.dim %[[C]], %{{.*}} : tensor<?x?x?x4xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[NHWC]], #[[NHWC]]], {{.*}} ins(%[[C]] : tensor<?x?x?x4xf32>) outs(%{{.*}} : tensor<?x?x?x4xf32>)
// CHECK-NOT: linalg.transpose ins(%[[R]]
// CHECK: %[[C2:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[R]], %{{.*}} : tensor<?x?x?x4xf32>, tensor<1x1x4x4xf32>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[C2]] : tensor<?x?x?x4xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK: return %[[T]]
func.func @dynamic(%x: tensor<?x4x?x?xf32>, %init: tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %w = arith.constant dense<1.0> : tensor<4x4x1x1xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x4x?x?xf32>, tensor<4x4x1x1xf32>) outs(%init : tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  %n = tensor.dim %c, %c0 : tensor<?x4x?x?xf32>
  %h = tensor.dim %c, %c2 : tensor<?x4x?x?xf32>
  %wd = tensor.dim %c, %c3 : tensor<?x4x?x?xf32>
  %e1 = tensor.empty(%n, %h, %wd) : tensor<?x4x?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<?x4x?x?xf32>) outs(%e1 : tensor<?x4x?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x4x?x?xf32>
  %i2 = tensor.empty(%n, %h, %wd) : tensor<?x4x?x?xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%r, %w : tensor<?x4x?x?xf32>, tensor<4x4x1x1xf32>) outs(%i2 : tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  return %y : tensor<?x4x?x?xf32>
}

// -----

// A collapse that drops the unit axis an expand added (a grouped
// convolution's reshapes around a depthwise one) is folded, and a size
// read from the expansion reads its source: the transpose moves through.
// CHECK-LABEL: func.func @unit_round_trip
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<?x?x?x4xf32>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[R]] : tensor<?x?x?x4xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK: return %[[T]]
func.func @unit_round_trip(%x: tensor<?x4x?x?xf32>, %init: tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %w = arith.constant dense<1.0> : tensor<4x4x1x1xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x4x?x?xf32>, tensor<4x4x1x1xf32>) outs(%init : tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  %n = tensor.dim %c, %c0 : tensor<?x4x?x?xf32>
  %c2 = arith.constant 2 : index
  %h = tensor.dim %c, %c2 : tensor<?x4x?x?xf32>
  %wd = tensor.dim %c, %c3 : tensor<?x4x?x?xf32>
  %u = tensor.expand_shape %c [[0], [1], [2, 3], [4]] output_shape [%n, 4, 1, %h, %wd] : tensor<?x4x?x?xf32> into tensor<?x4x1x?x?xf32>
  %h2 = tensor.dim %u, %c3 : tensor<?x4x1x?x?xf32>
  %w2 = tensor.dim %u, %c4 : tensor<?x4x1x?x?xf32>
  %back = tensor.collapse_shape %u [[0], [1, 2], [3], [4]] : tensor<?x4x1x?x?xf32> into tensor<?x4x?x?xf32>
  %e1 = tensor.empty(%n, %h2, %w2) : tensor<?x4x?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%back : tensor<?x4x?x?xf32>) outs(%e1 : tensor<?x4x?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x4x?x?xf32>
  return %r : tensor<?x4x?x?xf32>
}

// -----

// A transposed convolution's input (zeros with the data inserted at a
// stride) is made channels-last from a channels-last copy of the data, not
// transposed at its four times larger size, and needs no barrier.
// CHECK-LABEL: func.func @inserted_into_zeros
// CHECK: %[[Z:.*]] = linalg.fill {{.*}} -> tensor<1x7x7x4xf32>
// CHECK: %[[XT:.*]] = linalg.transpose ins(%arg0 : tensor<1x4x3x3xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK: %[[I:.*]] = tensor.insert_slice %[[XT]] into %[[Z]][0, 1, 1, 0] [1, 3, 3, 4] [1, 2, 2, 1] : tensor<1x3x3x4xf32> into tensor<1x7x7x4xf32>
// CHECK-NOT: linalg.transpose ins(%[[I]]
// CHECK-NOT: "iree_tensor_ext.compute_barrier.start"(%[[I]])
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[I]], %{{.*}} : tensor<1x7x7x4xf32>, tensor<3x3x4x2xf32>)
func.func @inserted_into_zeros(%x: tensor<1x4x3x3xf32>) -> tensor<1x2x5x5xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<2x4x3x3xf32>
  %e = tensor.empty() : tensor<1x4x7x7xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  %i = tensor.insert_slice %x into %z[0, 0, 1, 1] [1, 4, 3, 3] [1, 1, 2, 2] : tensor<1x4x3x3xf32> into tensor<1x4x7x7xf32>
  %e2 = tensor.empty() : tensor<1x2x5x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%i, %w : tensor<1x4x7x7xf32>, tensor<2x4x3x3xf32>) outs(%init : tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  return %c : tensor<1x2x5x5xf32>
}

// -----

// An elementwise producer of a padded convolution input writes its result
// channels-last: no transpose is left before the convolution.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[NHWC:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @written_channels_last
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[NHWC]]]{{.*}} ins(%arg0 : tensor<1x4x6x6xf32>) outs(%{{.*}} : tensor<1x6x6x4xf32>)
// CHECK: %[[P:.*]] = tensor.pad %[[R]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK-NOT: linalg.transpose ins(%[[P]]
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[P]], %{{.*}} : tensor<1x8x8x4xf32>, tensor<3x3x4xf32>)
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @written_channels_last(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<4x3x3xf32>
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x4x6x6xf32>) outs(%e : tensor<1x4x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x6x6xf32>
  %p = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x6x6xf32> to tensor<1x4x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x4x8x8xf32>, tensor<4x3x3xf32>) outs(%init : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %c : tensor<1x4x6x6xf32>
}

// -----

// A stride-2 convolution's input trimmed after its padding (the last padded
// row and column no window reads): the transpose moves up past the slice and
// the pad to the unpadded argument, and the convolution reads the pad and
// the slice channels-last with no barrier (resnet's stem at 4x128x128: its
// input transpose went from 425 to 63 us).
// CHECK-LABEL: func.func @trimmed_after_padding
// CHECK: %[[XT:.*]] = linalg.transpose ins(%arg0 : tensor<1x3x8x8xf32>) outs(%{{.*}} : tensor<1x8x8x3xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[P:.*]] = tensor.pad %[[XT]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: } : tensor<1x8x8x3xf32> to tensor<1x10x10x3xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[P]][0, 0, 0, 0] [1, 9, 9, 3] [1, 1, 1, 1] : tensor<1x10x10x3xf32> to tensor<1x9x9x3xf32>
// CHECK-NOT: "iree_tensor_ext.compute_barrier.start"(%[[S]])
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[S]], %{{.*}} : tensor<1x9x9x3xf32>, tensor<3x3x3x2xf32>)
func.func @trimmed_after_padding(%x: tensor<1x3x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<2x3x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x8x8xf32> to tensor<1x3x10x10xf32>
  %s = tensor.extract_slice %p[0, 0, 0, 0] [1, 3, 9, 9] [1, 1, 1, 1] : tensor<1x3x10x10xf32> to tensor<1x3x9x9xf32>
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%s, %w : tensor<1x3x9x9xf32>, tensor<2x3x3x3xf32>) outs(%init : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %c : tensor<1x2x4x4xf32>
}
