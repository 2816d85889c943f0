// Tensors with a zero-size dimension, per op family, against PyTorch: an
// empty batch, contractions and reductions over an empty dimension, and
// concatenation, splitting and padding with empty parts.
// REQUIRES: torch
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: {{[0-9]+}} passed, 0 failed

// REF: F.linear(a0, a1, a2)
func.func @linear_empty_batch(%a0: tensor<0x3xf32>, %a1: tensor<4x3xf32>, %a2: tensor<4xf32>) -> tensor<0x4xf32> {
  %0 = fx.linear %a0, %a1, %a2 : (tensor<0x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<0x4xf32>
  return %0 : tensor<0x4xf32>
}

// A contraction over nothing is zero (plus the bias): what the lowering must
// produce without reading the empty operands.
// REF: (F.linear(a0, a1, a2), a0 @ a1.t(), torch.bmm(a3, a4))
func.func @contractions_over_nothing(%a0: tensor<2x0xf32>, %a1: tensor<4x0xf32>, %a2: tensor<4xf32>, %a3: tensor<2x3x0xf32>, %a4: tensor<2x0x5xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x3x5xf32>) {
  %0 = fx.linear %a0, %a1, %a2 : (tensor<2x0xf32>, tensor<4x0xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %t = fx.t %a1 : (tensor<4x0xf32>) -> tensor<0x4xf32>
  %1 = fx.mm %a0, %t : (tensor<2x0xf32>, tensor<0x4xf32>) -> tensor<2x4xf32>
  %2 = fx.bmm %a3, %a4 : (tensor<2x3x0xf32>, tensor<2x0x5xf32>) -> tensor<2x3x5xf32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x3x5xf32>
}

// REF: (a0.sum(0), torch.softmax(a0, -1), torch.relu(a0) * 2)
func.func @reductions_and_elementwise(%a0: tensor<0x5xf32>) -> (tensor<5xf32>, tensor<0x5xf32>, tensor<0x5xf32>) {
  %0 = fx.sum %a0 {dim = array<i64: 0>} : (tensor<0x5xf32>) -> tensor<5xf32>
  %1 = fx.softmax %a0 {dim = -1 : i64} : (tensor<0x5xf32>) -> tensor<0x5xf32>
  %r = fx.relu %a0 : (tensor<0x5xf32>) -> tensor<0x5xf32>
  %c = fx.constant dense<2.0> : tensor<f32>
  %2 = fx.mul %r, %c : (tensor<0x5xf32>, tensor<f32>) -> tensor<0x5xf32>
  return %0, %1, %2 : tensor<5xf32>, tensor<0x5xf32>, tensor<0x5xf32>
}

// REF: (torch.cat([a0, a1]) * 2, torch.cat([a0, a0]), F.pad(a0, (1, 1)), torch.split(a1, [0, 3], 1)[1] + 1)
func.func @concatenation_and_padding(%a0: tensor<0x3xf32>, %a1: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<0x3xf32>, tensor<0x5xf32>, tensor<2x3xf32>) {
  %cat = fx.cat %a0, %a1 {dim = 0 : i64} : (tensor<0x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = fx.constant dense<2.0> : tensor<f32>
  %0 = fx.mul %cat, %c : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = fx.cat %a0, %a0 {dim = 0 : i64} : (tensor<0x3xf32>, tensor<0x3xf32>) -> tensor<0x3xf32>
  %z = fx.full {fill_value = 0.0 : f64} : tensor<0x1xf32>
  %2 = fx.cat %z, %a0, %z {dim = 1 : i64} : (tensor<0x1xf32>, tensor<0x3xf32>, tensor<0x1xf32>) -> tensor<0x5xf32>
  %s:2 = fx.split %a1 {split_sizes = array<i64: 0, 3>, dim = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2x0xf32>, tensor<2x3xf32>)
  %one = fx.constant dense<1.0> : tensor<f32>
  %3 = fx.add %s#1, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<0x3xf32>, tensor<0x5xf32>, tensor<2x3xf32>
}

// REF: F.conv2d(a0, a1, a2, padding=1)
func.func @convolution_empty_batch(%a0: tensor<0x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>, %a2: tensor<4xf32>) -> tensor<0x4x8x8xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<0x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<0x4x8x8xf32>
  return %0 : tensor<0x4x8x8xf32>
}
