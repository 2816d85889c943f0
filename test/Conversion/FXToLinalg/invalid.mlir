// RUN: fx-opt %s --convert-fx-to-linalg -split-input-file -verify-diagnostics

// Ops the lowering does not handle yet fail with a diagnostic at the op.

func.func @transposed_convolution(%x: tensor<1x3x8x8xf32>, %w: tensor<3x4x3x3xf32>) -> tensor<1x4x10x10xf32> {
  // expected-error @+2 {{transposed convolution is not supported by the linalg lowering yet}}
  // expected-error @+1 {{failed to legalize operation 'fx.convolution'}}
  %0 = fx.convolution %x, %w {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = true} : (tensor<1x3x8x8xf32>, tensor<3x4x3x3xf32>) -> tensor<1x4x10x10xf32>
  return %0 : tensor<1x4x10x10xf32>
}

// -----

// Grouped 1-d convolutions lower as 2-d ones of a unit height
// (test/Integration/CPU/convolution.mlir); grouped 3-d ones do not lower.
func.func @grouped_conv3d(%x: tensor<1x4x4x4x4xf32>, %w: tensor<4x2x3x3x3xf32>) -> tensor<1x4x2x2x2xf32> {
  // expected-error @+2 {{grouped convolution is only supported in 1-d and 2-d}}
  // expected-error @+1 {{failed to legalize operation 'fx.convolution'}}
  %0 = fx.convolution %x, %w {dilation = array<i64: 1, 1, 1>, groups = 2 : i64, output_padding = array<i64: 0, 0, 0>, padding = array<i64: 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<1x4x4x4x4xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x4x2x2x2xf32>
  return %0 : tensor<1x4x2x2x2xf32>
}

// -----

func.func @conv_dynamic_spatial(%x: tensor<1x3x?x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x?x6xf32> {
  // expected-error @+2 {{dynamic spatial dimensions are not supported by the linalg lowering yet}}
  // expected-error @+1 {{failed to legalize operation 'fx.convolution'}}
  %0 = fx.convolution %x, %w {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x6xf32>
  return %0 : tensor<1x4x?x6xf32>
}

// -----

func.func @pool_dynamic_spatial(%x: tensor<1x3x?x8xf32>) -> tensor<1x3x?x4xf32> {
  // expected-error @+2 {{dynamic spatial dimensions are not supported by the linalg lowering yet}}
  // expected-error @+1 {{failed to legalize operation 'fx.max_pool2d'}}
  %0 = fx.max_pool2d %x {dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x3x?x8xf32>) -> tensor<1x3x?x4xf32>
  return %0 : tensor<1x3x?x4xf32>
}

// -----

func.func @attention_dynamic_embedding(%q: tensor<2x4x?xf32>) -> tensor<2x4x?xf32> {
  // expected-error @+2 {{a dynamic embedding size needs an explicit scale in the linalg lowering}}
  // expected-error @+1 {{failed to legalize operation 'fx.scaled_dot_product_attention'}}
  %0 = fx.scaled_dot_product_attention %q, %q, %q : (tensor<2x4x?xf32>, tensor<2x4x?xf32>, tensor<2x4x?xf32>) -> tensor<2x4x?xf32>
  return %0 : tensor<2x4x?xf32>
}
