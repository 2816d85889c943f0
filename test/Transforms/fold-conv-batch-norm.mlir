// Batch norms after convolutions with constant weights fold into them.
// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fx-fold-conv-batch-norm))' | FileCheck %s

// scale = gamma / sqrt(var + eps) = [1, 4]; W' = W * scale per output
// channel; b' = (0 - mean) * scale + beta (the convolution had no bias).
// CHECK-LABEL: func.func @fold
// CHECK-DAG: %[[W:.*]] = fx.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}1.000000e+00]]], {{\[\[\[}}8.000000e+00]], {{\[\[}}-4.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = fx.constant dense<[-5.000000e-01, -8.500000e+00]> : tensor<2xf32>
// CHECK: %[[C:.*]] = fx.convolution %arg0, %[[W]], %[[B]] {{.*}}stride = array<i64: 1, 1>}
// CHECK-NOT: fx.batch_norm
// CHECK: return %[[C]]
func.func @fold(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %cw = fx.constant dense<[[[[1.0]], [[1.0]]], [[[2.0]], [[-1.0]]]]> : tensor<2x2x1x1xf32>
  %m = fx.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %v = fx.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %g = fx.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %b = fx.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %0 = fx.convolution %x, %cw {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = fx.batch_norm %0, %m, %v weight(%g) bias(%b) {eps = 1.0 : f64} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// A depthwise convolution with a bias, batch norm without gamma and beta:
// b' = (b - mean) / sqrt(var + eps); strides and groups are kept.
// CHECK-LABEL: func.func @depthwise_bias
// CHECK-DAG: fx.constant dense<{{\[\[\[\[}}5.000000e-01]]], {{\[\[\[}}1.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG: fx.constant dense<[5.000000e-01, 1.000000e+00]> : tensor<2xf32>
// CHECK: fx.convolution {{.*}}groups = 2 : i64{{.*}}stride = array<i64: 2, 2>}
// CHECK-NOT: fx.batch_norm
func.func @depthwise_bias(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %w = fx.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %cb = fx.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %m = fx.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %v = fx.constant dense<[3.0, 3.0]> : tensor<2xf32>
  %0 = fx.convolution %x, %w, %cb {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %1 = fx.batch_norm %0, %m, %v {eps = 1.0 : f64} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %1 : tensor<1x2x2x2xf32>
}

// -----

// Not folded: statistics bound at run time (function arguments), a
// convolution whose result is used elsewhere too, a transposed convolution.
// CHECK-LABEL: func.func @not_folded
// CHECK-COUNT-3: fx.batch_norm
func.func @not_folded(%x: tensor<1x2x4x4xf32>, %m: tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = fx.constant dense<1.0> : tensor<2x2x1x1xf32>
  %c = fx.constant dense<1.0> : tensor<2xf32>
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = fx.batch_norm %0, %m, %c : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %3 = fx.batch_norm %2, %c, %c : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %4 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, transposed = true} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %5 = fx.batch_norm %4, %c, %c : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %1, %3, %2, %5 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
