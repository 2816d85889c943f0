// RUN: fx-opt %s --convert-fx-to-linalg --split-input-file | FileCheck %s

// Padding is a tensor.pad with zeros; the bias is added per output channel.
// CHECK-LABEL: func.func @conv2d_pad_bias(
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
// CHECK: linalg.generic
// CHECK: arith.addf
func.func @conv2d_pad_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = fx.convolution %x, %w, %b {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Depthwise: the [C, 1, kh, kw] weight collapses to [C, kh, kw].
// CHECK-LABEL: func.func @depthwise(
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : tensor<6x1x3x3xf32> into tensor<6x3x3xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func @depthwise(%x: tensor<1x6x8x8xf32>, %w: tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32> {
  %0 = fx.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 6 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x6x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// Other groups: input, weight and output get an explicit group dimension.
// CHECK-LABEL: func.func @grouped(
// CHECK: tensor.expand_shape {{.*}} into tensor<2x2x2x6x6xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<2x3x2x3x3xf32>
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK: tensor.collapse_shape {{.*}} into tensor<2x6x4x4xf32>
func.func @grouped(%x: tensor<2x4x6x6xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32> {
  %0 = fx.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x4x6x6xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32>
  return %0 : tensor<2x6x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @conv1d_and_3d(
// CHECK: linalg.conv_1d_ncw_fcw
// CHECK: linalg.conv_3d_ncdhw_fcdhw
func.func @conv1d_and_3d(%x: tensor<1x2x8xf32>, %w: tensor<3x2x3xf32>, %y: tensor<1x2x4x4x4xf32>, %v: tensor<3x2x3x3x3xf32>) -> (tensor<1x3x6xf32>, tensor<1x3x2x2x2xf32>) {
  %0 = fx.convolution %x, %w {dilation = array<i64: 1>, output_padding = array<i64: 0>, padding = array<i64: 0>, stride = array<i64: 1>} : (tensor<1x2x8xf32>, tensor<3x2x3xf32>) -> tensor<1x3x6xf32>
  %1 = fx.convolution %y, %v {dilation = array<i64: 1, 1, 1>, output_padding = array<i64: 0, 0, 0>, padding = array<i64: 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<1x2x4x4x4xf32>, tensor<3x2x3x3x3xf32>) -> tensor<1x3x2x2x2xf32>
  return %0, %1 : tensor<1x3x6xf32>, tensor<1x3x2x2x2xf32>
}
