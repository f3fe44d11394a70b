// RUN: symshape-opt --split-input-file --symshape-relayout-convolutions %s | FileCheck %s

// A static convolution whose output width (13) leaves a remainder of half
// the vector step or more is computed 16 columns wide: the pad that makes
// its input grows by the columns the wider windows read, its init is
// filled again at the wider shape, and the 13 columns asked for are sliced
// out of the result.
// CHECK-LABEL: func.func @widened
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[X:.*]] = tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 4, 0]
// CHECK: } : tensor<1x13x13x4xf32> to tensor<1x15x18x4xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x13x16x8xf32>
// CHECK: %[[I:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<1x13x16x8xf32>)
// CHECK: %[[Y:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[X]], %{{.*}} : tensor<1x15x18x4xf32>, tensor<3x3x4x8xf32>) outs(%[[I]] : tensor<1x13x16x8xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[Y]][0, 0, 0, 0] [1, 13, 13, 8] [1, 1, 1, 1] : tensor<1x13x16x8xf32> to tensor<1x13x13x8xf32>
// CHECK: %[[R:.*]] = linalg.transpose ins(%[[S]] : tensor<1x13x13x8xf32>) outs(%{{.*}} : tensor<1x8x13x13xf32>) permutation = [0, 3, 1, 2]
// CHECK: return %[[R]]
func.func @widened(%x: tensor<1x4x13x13xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x13x13xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x13x13xf32> to tensor<1x4x15x15xf32>
  %e = tensor.empty() : tensor<1x8x13x13xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x13x13xf32>) -> tensor<1x8x13x13xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x4x15x15xf32>, tensor<8x4x3x3xf32>)
      outs(%init : tensor<1x8x13x13xf32>) -> tensor<1x8x13x13xf32>
  return %y : tensor<1x8x13x13xf32>
}

// -----

// With stride 2, 16 output columns read 33 input columns: the pad grows by 2.
// CHECK-LABEL: func.func @strided
// CHECK: tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 3, 0]
// CHECK: } : tensor<1x29x29x4xf32> to tensor<1x31x33x4xf32>
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} strides = dense<2> {{.*}} outs(%{{.*}} : tensor<1x15x16x8xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 15, 15, 8] [1, 1, 1, 1]
func.func @strided(%x: tensor<1x4x29x29xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x15x15xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x29x29xf32> to tensor<1x4x31x31xf32>
  %e = tensor.empty() : tensor<1x8x15x15xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x15x15xf32>) -> tensor<1x8x15x15xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<1x4x31x31xf32>, tensor<8x4x3x3xf32>)
      outs(%init : tensor<1x8x15x15xf32>) -> tensor<1x8x15x15xf32>
  return %y : tensor<1x8x15x15xf32>
}

// -----

// A transposed convolution's input, spread into a zero fill with strides:
// the fill grows (15 -> 18 columns) instead of a pad.
// CHECK-LABEL: func.func @spread_input
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x9x18x4xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<1x9x18x4xf32>)
// CHECK: %[[S:.*]] = tensor.insert_slice %{{.*}} into %[[Z]][0, 2, 2, 0] [1, 3, 5, 4] [1, 2, 2, 1] : tensor<1x3x5x4xf32> into tensor<1x9x18x4xf32>
// CHECK-NOT: tensor.pad
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[S]], %{{.*}} : tensor<1x9x18x4xf32>, tensor<3x3x4x8xf32>) outs(%{{.*}} : tensor<1x7x16x8xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 7, 13, 8] [1, 1, 1, 1]
func.func @spread_input(%x: tensor<1x4x3x5xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x7x13xf32> {
  %zero = arith.constant 0.0 : f32
  %ze = tensor.empty() : tensor<1x4x9x15xf32>
  %z = linalg.fill ins(%zero : f32) outs(%ze : tensor<1x4x9x15xf32>) -> tensor<1x4x9x15xf32>
  %s = tensor.insert_slice %x into %z[0, 0, 2, 2] [1, 4, 3, 5] [1, 1, 2, 2] : tensor<1x4x3x5xf32> into tensor<1x4x9x15xf32>
  %e = tensor.empty() : tensor<1x8x7x13xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x7x13xf32>) -> tensor<1x8x7x13xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%s, %w : tensor<1x4x9x15xf32>, tensor<8x4x3x3xf32>)
      outs(%init : tensor<1x8x7x13xf32>) -> tensor<1x8x7x13xf32>
  return %y : tensor<1x8x7x13xf32>
}

// -----

// An init that is no fill, or an input with no pad to grow, leaves the
// convolution as it is.
// CHECK-LABEL: func.func @init_argument
// CHECK-NOT: tensor.extract_slice
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} outs(%{{.*}} : tensor<1x13x13x8xf32>)
// CHECK-NOT: tensor.extract_slice
// CHECK-LABEL: func.func @unpadded_input
// CHECK-NOT: tensor.pad
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} outs(%{{.*}} : tensor<1x13x13x8xf32>)
// CHECK-NOT: tensor.extract_slice
func.func @init_argument(%x: tensor<1x4x13x13xf32>, %w: tensor<8x4x3x3xf32>, %init: tensor<1x8x13x13xf32>) -> tensor<1x8x13x13xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x13x13xf32> to tensor<1x4x15x15xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x4x15x15xf32>, tensor<8x4x3x3xf32>)
      outs(%init : tensor<1x8x13x13xf32>) -> tensor<1x8x13x13xf32>
  return %y : tensor<1x8x13x13xf32>
}
func.func @unpadded_input(%x: tensor<1x4x15x15xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x13x13xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x13x13xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x13x13xf32>) -> tensor<1x8x13x13xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x15x15xf32>, tensor<8x4x3x3xf32>)
      outs(%init : tensor<1x8x13x13xf32>) -> tensor<1x8x13x13xf32>
  return %y : tensor<1x8x13x13xf32>
}

// -----

// A remainder of one column (9 wide), and a width below the step (7 wide),
// are computed as they are.
// CHECK-LABEL: func.func @remainder_of_one
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} outs(%{{.*}} : tensor<1x9x9x8xf32>)
// CHECK-NOT: tensor.extract_slice
// CHECK-LABEL: func.func @narrow
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} outs(%{{.*}} : tensor<1x7x7x8xf32>)
// CHECK-NOT: tensor.extract_slice
func.func @remainder_of_one(%x: tensor<1x4x9x9xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x9x9xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x9x9xf32> to tensor<1x4x11x11xf32>
  %e = tensor.empty() : tensor<1x8x9x9xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x9x9xf32>) -> tensor<1x8x9x9xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x4x11x11xf32>, tensor<8x4x3x3xf32>)
      outs(%init : tensor<1x8x9x9xf32>) -> tensor<1x8x9x9xf32>
  return %y : tensor<1x8x9x9xf32>
}
func.func @narrow(%x: tensor<1x4x7x7xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x7x7xf32> to tensor<1x4x9x9xf32>
  %e = tensor.empty() : tensor<1x8x7x7xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x4x9x9xf32>, tensor<8x4x3x3xf32>)
      outs(%init : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  return %y : tensor<1x8x7x7xf32>
}
