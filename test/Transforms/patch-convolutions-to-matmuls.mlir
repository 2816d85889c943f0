// RUN: fx-opt %s --split-input-file --fx-patch-convolutions-to-matmuls | FileCheck %s

// 2x2 windows at stride 2: the patches [C][KH][KW][OH][OW] are copied out
// of the input (rows and columns past the last window unused), and the
// convolution is the filter [F, C*KH*KW] times the patches
// [C*KH*KW, OH*OW] into the output's [F, OH*OW] view.
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (0, d0, d3 * 2 + d1, d4 * 2 + d2)>
// CHECK-LABEL: func.func @patchify(
// CHECK-SAME: %[[X:.*]]: tensor<1x8x11x15xf32>, %[[W:.*]]: tensor<24x8x2x2xf32>, %[[INIT:.*]]: tensor<1x24x5x7xf32>)
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[$IN]], {{.*}}]{{.*}} ins(%[[X]] : tensor<1x8x11x15xf32>) outs(%{{.*}} : tensor<8x2x2x5x7xf32>)
// CHECK: %[[B:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1, 2], [3, 4]] : tensor<8x2x2x5x7xf32> into tensor<32x35xf32>
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<24x8x2x2xf32> into tensor<24x32xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[INIT]] {{\[}}[0, 1], [2, 3]] : tensor<1x24x5x7xf32> into tensor<24x35xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<24x32xf32>, tensor<32x35xf32>) outs(%[[C]] : tensor<24x35xf32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[M]] {{\[}}[0, 1], [2, 3]] output_shape [1, 24, 5, 7]
// CHECK: return %[[R]]
func.func @patchify(%x: tensor<1x8x11x15xf32>, %w: tensor<24x8x2x2xf32>, %init: tensor<1x24x5x7xf32>) -> tensor<1x24x5x7xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %w : tensor<1x8x11x15xf32>, tensor<24x8x2x2xf32>) outs(%init : tensor<1x24x5x7xf32>) -> tensor<1x24x5x7xf32>
  return %0 : tensor<1x24x5x7xf32>
}

// -----

// Left alone: overlapping windows (stride 1), a batch of two images, a 1x1
// window at stride 1, and a dilated window.
// CHECK-LABEL: func.func @unchanged(
// CHECK-COUNT-4: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.matmul
// CHECK-NOT: linalg.generic
func.func @unchanged(%x: tensor<1x8x12x12xf32>, %x2: tensor<2x8x12x12xf32>, %w: tensor<4x8x2x2xf32>, %w1: tensor<4x8x1x1xf32>,
                     %i0: tensor<1x4x11x11xf32>, %i1: tensor<2x4x6x6xf32>, %i2: tensor<1x4x12x12xf32>, %i3: tensor<1x4x5x5xf32>)
    -> (tensor<1x4x11x11xf32>, tensor<2x4x6x6xf32>, tensor<1x4x12x12xf32>, tensor<1x4x5x5xf32>) {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x8x12x12xf32>, tensor<4x8x2x2xf32>) outs(%i0 : tensor<1x4x11x11xf32>) -> tensor<1x4x11x11xf32>
  %1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x2, %w : tensor<2x8x12x12xf32>, tensor<4x8x2x2xf32>) outs(%i1 : tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w1 : tensor<1x8x12x12xf32>, tensor<4x8x1x1xf32>) outs(%i2 : tensor<1x4x12x12xf32>) -> tensor<1x4x12x12xf32>
  %3 = linalg.conv_2d_nchw_fchw {dilations = dense<2> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %w : tensor<1x8x12x12xf32>, tensor<4x8x2x2xf32>) outs(%i3 : tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
  return %0, %1, %2, %3 : tensor<1x4x11x11xf32>, tensor<2x4x6x6xf32>, tensor<1x4x12x12xf32>, tensor<1x4x5x5xf32>
}

// -----

// A 1x1 window at stride 2 (ResNet's downsampling), a batch of two: the
// pixels it reads are copied out ([N][C][OH][OW], every other row and
// column; the last row and column of the odd input unused), then
// convolved at stride 1.
// CHECK-DAG: #[[$EVERY2:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2, d3 * 2)>
// CHECK-LABEL: func.func @strided_pointwise(
// CHECK-SAME: %[[X:.*]]: tensor<2x8x13x13xf32>, %[[W:.*]]: tensor<16x8x1x1xf32>, %[[INIT:.*]]: tensor<2x16x7x7xf32>)
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[$EVERY2]], {{.*}}]{{.*}} ins(%[[X]] : tensor<2x8x13x13xf32>) outs(%{{.*}} : tensor<2x8x7x7xf32>)
// CHECK: %[[C:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%[[P]], %[[W]] : tensor<2x8x7x7xf32>, tensor<16x8x1x1xf32>) outs(%[[INIT]] : tensor<2x16x7x7xf32>)
// CHECK: return %[[C]]
func.func @strided_pointwise(%x: tensor<2x8x13x13xf32>, %w: tensor<16x8x1x1xf32>, %init: tensor<2x16x7x7xf32>) -> tensor<2x16x7x7xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %w : tensor<2x8x13x13xf32>, tensor<16x8x1x1xf32>) outs(%init : tensor<2x16x7x7xf32>) -> tensor<2x16x7x7xf32>
  return %0 : tensor<2x16x7x7xf32>
}
