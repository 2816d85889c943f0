// RUN: fx-opt %s --convert-fx-to-linalg --split-input-file | FileCheck %s

// Max pooling pads with -inf; ceil mode pads the right side further.
// CHECK-LABEL: func.func @max_pool_ceil(
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NEG]]
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
func.func @max_pool_ceil(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32> {
  %0 = fx.max_pool2d %x {ceil_mode = true, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// Indices come from a generic with two outputs and window reduction loops.
// CHECK-LABEL: func.func @max_pool_indices(
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: linalg.index 4
// CHECK: arith.cmpf uno
func.func @max_pool_indices(%x: tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>) {
  %0:2 = fx.max_pool2d_with_indices %x {dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
  return %0#0, %0#1 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>
}

// -----

// Average pooling: a sum pool, then a divide by the per-position divisor.
// CHECK-LABEL: func.func @avg_pool(
// CHECK: linalg.pooling_nchw_sum
// CHECK: linalg.generic
// CHECK: arith.divf
func.func @avg_pool(%x: tensor<2x5x5xf32>) -> tensor<2x3x3xf32> {
  %0 = fx.avg_pool2d %x {count_include_pad = false, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x5x5xf32>) -> tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}

// -----

// Adaptive pooling with uneven windows reads the input with tensor.extract.
// CHECK-LABEL: func.func @adaptive(
// CHECK: linalg.generic
// CHECK: tensor.extract
// CHECK: arith.divf
func.func @adaptive(%x: tensor<1x2x7x5xf32>) -> tensor<1x2x3x2xf32> {
  %0 = fx.adaptive_avg_pool2d %x {output_size = array<i64: 3, 2>} : (tensor<1x2x7x5xf32>) -> tensor<1x2x3x2xf32>
  return %0 : tensor<1x2x3x2xf32>
}
