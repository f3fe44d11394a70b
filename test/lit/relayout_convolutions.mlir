// RUN: symshape-opt --split-input-file --symshape-relayout-convolutions %s | FileCheck %s

// An NCHW convolution is computed channels-last: its input transposed to
// NHWC behind a barrier (with its dynamic sizes tied again), its kernel
// transposed to HWCF behind a barrier (a function argument), its init
// transposed, and its NHWC result transposed back to NCHW.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x3x9x9xf32>, %[[W:[^:]*]]: tensor<8x3x3x3xf32>, %[[I:[^:]*]]: tensor<?x8x4x4xf32>)
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<8x3x3x3xf32>) outs(%{{.*}} : tensor<3x3x3x8xf32>) permutation = [2, 3, 1, 0]
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<?x3x9x9xf32>) outs(%{{.*}} : tensor<?x9x9x3xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[WB:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[WT]]) : (tensor<3x3x3x8xf32>) -> tensor<3x3x3x8xf32>
// CHECK: %[[IT:.*]] = linalg.transpose ins(%[[I]] : tensor<?x8x4x4xf32>) outs(%{{.*}} : tensor<?x4x4x8xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[XB:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[XT]]
// CHECK: %[[Y:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[XB]], %[[WB]] : tensor<?x9x9x3xf32>, tensor<3x3x3x8xf32>) outs(%[[IT]] : tensor<?x4x4x8xf32>)
// CHECK: %[[R:.*]] = linalg.transpose ins(%[[Y]] : tensor<?x4x4x8xf32>) outs(%{{.*}} : tensor<?x8x4x4xf32>) permutation = [0, 3, 1, 2]
// CHECK: return %[[R]]
func.func @dynamic_batch(%x: tensor<?x3x9x9xf32>, %w: tensor<8x3x3x3xf32>,
                        %init: tensor<?x8x4x4xf32>) -> tensor<?x8x4x4xf32> {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<?x3x9x9xf32>, tensor<8x3x3x3xf32>)
      outs(%init : tensor<?x8x4x4xf32>) -> tensor<?x8x4x4xf32>
  return %y : tensor<?x8x4x4xf32>
}

// -----

// A kernel computed from constants gets no barrier: IREE folds its
// transpose when compiling.
// CHECK-LABEL: func.func @constant_kernel
// CHECK: %[[K:.*]] = arith.constant dense<1.000000e+00> : tensor<8x3x3x3xf32>
// CHECK: %[[KT:.*]] = linalg.transpose ins(%[[K]] : tensor<8x3x3x3xf32>)
// CHECK-NOT: "iree_tensor_ext.compute_barrier.start"(%[[KT]])
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %[[KT]] : tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>)
func.func @constant_kernel(%x: tensor<1x3x9x9xf32>) -> tensor<1x8x4x4xf32> {
  %w = arith.constant dense<1.0> : tensor<8x3x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x9x9xf32>, tensor<8x3x3x3xf32>)
      outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// A depthwise convolution becomes linalg.depthwise_conv_2d_nhwc_hwc, its
// [C, KH, KW] kernel transposed to [KH, KW, C].
// CHECK-LABEL: func.func @depthwise
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x3x3xf32>) outs(%{{.*}} : tensor<3x3x4xf32>) permutation = [1, 2, 0]
// CHECK: %[[Y:.*]] = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x9x9x4xf32>, tensor<3x3x4xf32>) outs(%{{.*}} : tensor<1x7x7x4xf32>)
// CHECK: linalg.transpose ins(%[[Y]] : tensor<1x7x7x4xf32>) outs(%{{.*}} : tensor<1x4x7x7xf32>) permutation = [0, 3, 1, 2]
func.func @depthwise(%x: tensor<1x4x9x9xf32>, %w: tensor<4x3x3xf32>,
                     %init: tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32> {
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x9x9xf32>, tensor<4x3x3xf32>)
      outs(%init : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  return %y : tensor<1x4x7x7xf32>
}

// -----

// Poolings are computed channels-last too (NCHW, a stride-2 window reads
// strided gathers along the width): the window tensor keeps its shape.
// CHECK-LABEL: func.func @pool
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x4x8x8xf32>, %[[K:[^:]*]]: tensor<2x2xf32>
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<1x4x8x8xf32>) outs(%{{.*}} : tensor<1x8x8x4xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[KB:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[K]]) : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK: %[[XB:.*]] = "iree_tensor_ext.compute_barrier.start"(%[[XT]]
// CHECK: %[[Y:.*]] = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[XB]], %[[KB]] : tensor<1x8x8x4xf32>, tensor<2x2xf32>)
// CHECK: linalg.transpose ins(%[[Y]] : tensor<1x4x4x4xf32>) outs(%{{.*}} : tensor<1x4x4x4xf32>) permutation = [0, 3, 1, 2]
func.func @pool(%x: tensor<1x4x8x8xf32>, %k: tensor<2x2xf32>,
                %init: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %y = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %k : tensor<1x4x8x8xf32>, tensor<2x2xf32>)
      outs(%init : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// 1-D convolutions are computed channels-last too: linalg.conv_1d_nwc_wcf
// with the [F, C, K] kernel transposed to [K, C, F], and
// linalg.depthwise_conv_1d_nwc_wc with [C, K] transposed to [K, C].
// CHECK-LABEL: func.func @conv_1d
// CHECK: linalg.transpose ins(%{{.*}} : tensor<8x3x3xf32>) outs(%{{.*}} : tensor<3x3x8xf32>) permutation = [2, 1, 0]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<?x3x9xf32>) outs(%{{.*}} : tensor<?x9x3xf32>) permutation = [0, 2, 1]
// CHECK: %[[Y:.*]] = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%{{.*}}, %{{.*}} : tensor<?x9x3xf32>, tensor<3x3x8xf32>) outs(%{{.*}} : tensor<?x4x8xf32>)
// CHECK: linalg.transpose ins(%[[Y]] : tensor<?x4x8xf32>) outs(%{{.*}} : tensor<?x8x4xf32>) permutation = [0, 2, 1]
func.func @conv_1d(%x: tensor<?x3x9xf32>, %w: tensor<8x3x3xf32>,
                   %init: tensor<?x8x4xf32>) -> tensor<?x8x4xf32> {
  %y = linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>}
      ins(%x, %w : tensor<?x3x9xf32>, tensor<8x3x3xf32>)
      outs(%init : tensor<?x8x4xf32>) -> tensor<?x8x4xf32>
  return %y : tensor<?x8x4xf32>
}

// -----

// CHECK-LABEL: func.func @depthwise_1d
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x3xf32>) outs(%{{.*}} : tensor<3x4xf32>) permutation = [1, 0]
// CHECK: %[[Y:.*]] = linalg.depthwise_conv_1d_nwc_wc {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x9x4xf32>, tensor<3x4xf32>) outs(%{{.*}} : tensor<1x7x4xf32>)
// CHECK: linalg.transpose ins(%[[Y]] : tensor<1x7x4xf32>) outs(%{{.*}} : tensor<1x4x7xf32>) permutation = [0, 2, 1]
func.func @depthwise_1d(%x: tensor<1x4x9xf32>, %w: tensor<4x3xf32>,
                        %init: tensor<1x4x7xf32>) -> tensor<1x4x7xf32> {
  %y = linalg.depthwise_conv_1d_ncw_cw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
      ins(%x, %w : tensor<1x4x9xf32>, tensor<4x3xf32>)
      outs(%init : tensor<1x4x7xf32>) -> tensor<1x4x7xf32>
  return %y : tensor<1x4x7xf32>
}
