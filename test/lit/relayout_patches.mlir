// RUN: symshape-opt --split-input-file --symshape-relayout-convolutions %s | FileCheck %s

// A convolution whose output height and width are dynamic is computed as
// a matrix product: its windows copied out channels-last (one row per
// output pixel, the tap offsets scaled by the stride and the dilation)
// from its input behind the barrier, times the [KH*KW*C, F] kernel, into
// its init collapsed the same way.
// CHECK-DAG: #[[READ:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3 * 3, d2 + d4 * 3, d5)>
// CHECK-LABEL: func.func @dynamic_spatial
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x3x?x?xf32>, %[[W:[^:]*]]: tensor<8x3x2x2xf32>, %[[I:[^:]*]]: tensor<?x8x?x?xf32>)
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<8x3x2x2xf32>) {{.*}} permutation = [2, 3, 1, 0]
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<?x3x?x?xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK: %[[WB:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[WT]]) : (tensor<2x2x3x8xf32>) -> tensor<2x2x3x8xf32>
// CHECK: %[[IT:.*]] = linalg.transpose ins(%[[I]] : tensor<?x8x?x?xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK: %[[XB:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[XT]]
// CHECK: %[[N:.*]] = tensor.dim %[[IT]], %{{.*}}
// CHECK: %[[OH:.*]] = tensor.dim %[[IT]], %{{.*}}
// CHECK: %[[OW:.*]] = tensor.dim %[[IT]], %{{.*}}
// CHECK: %[[E:.*]] = tensor.empty(%[[N]], %[[OH]], %[[OW]]) : tensor<?x?x?x2x2x3xf32>
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[READ]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[XB]] : tensor<?x?x?x3xf32>) outs(%[[E]] : tensor<?x?x?x2x2x3xf32>)
// CHECK: %[[PM:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<?x?x?x2x2x3xf32> into tensor<?x12xf32>
// CHECK: %[[WM:.*]] = tensor.collapse_shape %[[WB]] {{\[}}[0, 1, 2], [3]] : tensor<2x2x3x8xf32> into tensor<12x8xf32>
// CHECK: %[[IM:.*]] = tensor.collapse_shape %[[IT]] {{\[}}[0, 1, 2], [3]] : tensor<?x?x?x8xf32> into tensor<?x8xf32>
// CHECK: %[[YM:.*]] = linalg.matmul ins(%[[PM]], %[[WM]] : tensor<?x12xf32>, tensor<12x8xf32>) outs(%[[IM]] : tensor<?x8xf32>)
// CHECK: %[[Y:.*]] = tensor.expand_shape %[[YM]] {{\[}}[0, 1, 2], [3]] output_shape [%[[N]], %[[OH]], %[[OW]], 8] : tensor<?x8xf32> into tensor<?x?x?x8xf32>
// CHECK: %[[R:.*]] = linalg.transpose ins(%[[Y]] : tensor<?x?x?x8xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK-NOT: linalg.conv
// CHECK: return %[[R]]
func.func @dynamic_spatial(%x: tensor<?x3x?x?xf32>, %w: tensor<8x3x2x2xf32>,
                           %init: tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32> {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<3> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
      ins(%x, %w : tensor<?x3x?x?xf32>, tensor<8x3x2x2xf32>)
      outs(%init : tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32>
  return %y : tensor<?x8x?x?xf32>
}

// -----

// A 1x1 convolution of stride 1 reads its input as the matrix: no copy.
// CHECK-LABEL: func.func @pointwise
// CHECK-NOT: linalg.generic
// CHECK: %[[XM:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<2x?x?x16xf32> into tensor<?x16xf32>
// CHECK: %[[WM:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<1x1x16x8xf32> into tensor<16x8xf32>
// CHECK: linalg.matmul ins(%[[XM]], %[[WM]] : tensor<?x16xf32>, tensor<16x8xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2], [3]] output_shape [2, %{{.*}}, %{{.*}}, 8] : tensor<?x8xf32> into tensor<2x?x?x8xf32>
// CHECK-NOT: linalg.conv
func.func @pointwise(%x: tensor<2x16x?x?xf32>, %init: tensor<2x8x?x?xf32>) -> tensor<2x8x?x?xf32> {
  %w = arith.constant dense<1.0> : tensor<8x16x1x1xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x16x?x?xf32>, tensor<8x16x1x1xf32>)
      outs(%init : tensor<2x8x?x?xf32>) -> tensor<2x8x?x?xf32>
  return %y : tensor<2x8x?x?xf32>
}

// -----

// A 1-D convolution over a dynamic length likewise: [N, L, K, C] windows.
// CHECK-DAG: #[[READ:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 * 2 + d2, d3)>
// CHECK-LABEL: func.func @dynamic_length
// CHECK: linalg.generic {indexing_maps = [#[[READ]], #{{.*}}], {{.*}} outs(%{{.*}} : tensor<?x?x3x4xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<?x?x3x4xf32> into tensor<?x12xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x12xf32>, tensor<12x8xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [%{{.*}}, %{{.*}}, 8] : tensor<?x8xf32> into tensor<?x?x8xf32>
// CHECK-NOT: linalg.conv
func.func @dynamic_length(%x: tensor<?x4x?xf32>, %init: tensor<?x8x?xf32>) -> tensor<?x8x?xf32> {
  %w = arith.constant dense<1.0> : tensor<8x4x3xf32>
  %y = linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>}
      ins(%x, %w : tensor<?x4x?xf32>, tensor<8x4x3xf32>)
      outs(%init : tensor<?x8x?xf32>) -> tensor<?x8x?xf32>
  return %y : tensor<?x8x?xf32>
}

// -----

// A depthwise convolution over dynamic sizes is a sum over its taps: a
// strided slice of the input (offset by the tap times the dilation) times
// the tap's row of the kernel, in one elementwise linalg.generic.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[XB:.*]] = "iree_tensor_ext.compute_barrier.start"({{.*}}) : (tensor<1x?x?x4xf32>, index, index)
// CHECK: %[[S00:.*]] = tensor.extract_slice %[[XB]][0, 0, 0, 0] [1, %{{.*}}, %{{.*}}, 4] [1, 2, 2, 1] : tensor<1x?x?x4xf32> to tensor<1x?x?x4xf32>
// CHECK: %[[W00:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0] [1, 1, 4] [1, 1, 1] : tensor<2x2x4xf32> to tensor<4xf32>
// CHECK: tensor.extract_slice %[[XB]][0, 0, 3, 0]
// CHECK: tensor.extract_slice %[[XB]][0, 3, 0, 0]
// CHECK: %[[S11:.*]] = tensor.extract_slice %[[XB]][0, 3, 3, 0]
// CHECK: %[[W11:.*]] = tensor.extract_slice %{{.*}}[1, 1, 0]
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]], #[[ID]], #[[ROW]], #[[ROW]], #[[ROW]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[S00]], %{{.*}}, %{{.*}}, %[[S11]], %[[W00]], %{{.*}}, %{{.*}}, %[[W11]] :
// CHECK: ^bb0(%[[A:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %[[B:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %[[OUT:.*]]: f32):
// CHECK: %[[M:.*]] = arith.mulf %[[A]], %[[B]]
// CHECK: arith.addf %[[OUT]], %[[M]]
// CHECK-NOT: linalg.depthwise
func.func @depthwise(%x: tensor<1x4x?x?xf32>, %w: tensor<4x2x2xf32>,
                     %i: tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32> {
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<3> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x?x?xf32>, tensor<4x2x2xf32>)
      outs(%i : tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  return %y : tensor<1x4x?x?xf32>
}

// -----

// Convolutions whose output is static but for its batch, and those with
// fewer than 8 output channels (the copy would cost more than the product
// saves) stay convolutions.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: linalg.matmul
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} outs(%{{.*}} : tensor<?x7x7x8xf32>)
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} outs(%{{.*}} : tensor<1x?x?x7xf32>)
// CHECK-NOT: linalg.matmul
func.func @kept(%x: tensor<1x4x?x?xf32>, %b: tensor<?x4x9x9xf32>,
                %j: tensor<?x8x7x7xf32>, %k: tensor<1x7x?x?xf32>)
    -> (tensor<?x8x7x7xf32>, tensor<1x7x?x?xf32>) {
  %w = arith.constant dense<1.0> : tensor<8x4x3x3xf32>
  %n = arith.constant dense<1.0> : tensor<7x4x3x3xf32>
  %z = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%b, %w : tensor<?x4x9x9xf32>, tensor<8x4x3x3xf32>)
      outs(%j : tensor<?x8x7x7xf32>) -> tensor<?x8x7x7xf32>
  %v = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %n : tensor<1x4x?x?xf32>, tensor<7x4x3x3xf32>)
      outs(%k : tensor<1x7x?x?xf32>) -> tensor<1x7x?x?xf32>
  return %z, %v : tensor<?x8x7x7xf32>, tensor<1x7x?x?xf32>
}

// -----

// A static convolution over a single input channel (a waveform, a grayscale
// image) is patches times the kernel too, whatever its output channels:
// IREE computes it nearly element by element.
// CHECK-DAG: #[[WAVE:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 * 5 + d2, d3)>
// CHECK-DAG: #[[IMAGE:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d3, d2 + d4, d5)>
// CHECK-LABEL: func.func @single_channel
// CHECK: linalg.generic {indexing_maps = [#[[WAVE]], #{{.*}}], {{.*}} outs(%{{.*}} : tensor<4x799x10x1xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3196x10xf32>, tensor<10x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[IMAGE]], #{{.*}}], {{.*}} outs(%{{.*}} : tensor<8x24x24x5x5x1xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4608x25xf32>, tensor<25x6xf32>)
// CHECK-NOT: linalg.conv
func.func @single_channel(%wave: tensor<4x1x4000xf32>, %i: tensor<4x16x799xf32>,
                          %image: tensor<8x1x28x28xf32>, %j: tensor<8x6x24x24xf32>)
    -> (tensor<4x16x799xf32>, tensor<8x6x24x24xf32>) {
  %w = arith.constant dense<1.0> : tensor<16x1x10xf32>
  %k = arith.constant dense<1.0> : tensor<6x1x5x5xf32>
  %y = linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<5> : tensor<1xi64>}
      ins(%wave, %w : tensor<4x1x4000xf32>, tensor<16x1x10xf32>)
      outs(%i : tensor<4x16x799xf32>) -> tensor<4x16x799xf32>
  %z = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%image, %k : tensor<8x1x28x28xf32>, tensor<6x1x5x5xf32>)
      outs(%j : tensor<8x6x24x24xf32>) -> tensor<8x6x24x24xf32>
  return %y, %z : tensor<4x16x799xf32>, tensor<8x6x24x24xf32>
}
