// RUN: fx-opt %s --convert-fx-to-linalg --split-input-file | FileCheck %s

// embedding reads table rows with tensor.extract, ids clamped into range.
// CHECK-LABEL: func.func @embedding(
// CHECK: arith.index_cast
// CHECK: arith.minsi
// CHECK: tensor.extract
func.func @embedding(%t: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  %0 = fx.embedding %t, %i : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Attention: q k^T as a batch matmul, scale and causal mask, softmax, @ v.
// CHECK-LABEL: func.func @attention(
// CHECK: linalg.transpose
// CHECK: linalg.batch_matmul
// CHECK: arith.cmpi ugt
// CHECK: math.exp
// CHECK: linalg.batch_matmul
func.func @attention(%q: tensor<2x3x5x8xf32>) -> tensor<2x3x5x8xf32> {
  %0 = fx.scaled_dot_product_attention %q, %q, %q {is_causal = true} : (tensor<2x3x5x8xf32>, tensor<2x3x5x8xf32>, tensor<2x3x5x8xf32>) -> tensor<2x3x5x8xf32>
  return %0 : tensor<2x3x5x8xf32>
}
