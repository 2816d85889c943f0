// fx-fuse-elementwise: upstream elementwise fusion that keeps contractions
// intact.
// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-fx-to-linalg),canonicalize,cse,func.func(fx-fuse-elementwise),canonicalize,cse)' | FileCheck %s

// An elementwise chain becomes one generic.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @chain(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %0 = fx.mul %x, %y : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %1 = fx.add %0, %x : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %2 = fx.relu %1 : (tensor<64xf32>) -> tensor<64xf32>
  return %2 : tensor<64xf32>
}

// -----

// A linear on a 3-d input stays a 2-d linalg.matmul between reshapes: the
// reshapes are not propagated into it (upstream's pass turns it into a
// generic with three m/n dimensions).
// CHECK-LABEL: func.func @linear_3d
// CHECK: tensor.collapse_shape
// CHECK: linalg.matmul {{.*}} -> tensor<32x8xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-NOT: reduction
func.func @linear_3d(%x: tensor<2x16x4xf32>, %w: tensor<8x4xf32>) -> tensor<2x16x2x4xf32> {
  %0 = fx.linear %x, %w : (tensor<2x16x4xf32>, tensor<8x4xf32>) -> tensor<2x16x8xf32>
  %1 = fx.view %0 {size = array<i64: 2, 16, 2, 4>} : (tensor<2x16x8xf32>) -> tensor<2x16x2x4xf32>
  %2 = fx.relu %1 : (tensor<2x16x2x4xf32>) -> tensor<2x16x2x4xf32>
  return %2 : tensor<2x16x2x4xf32>
}

// -----

// Softmax's division is not fused into the P x V contraction of attention.
// CHECK-LABEL: func.func @attention
// CHECK: arith.divf
// CHECK: linalg.batch_matmul
// CHECK-NOT: arith.divf
// CHECK: return
func.func @attention(%q: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %0 = fx.scaled_dot_product_attention %q, %k, %v : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}
