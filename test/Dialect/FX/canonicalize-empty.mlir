// Zero-element tensors are canonicalized away at the FX level
// (lib/Dialect/FX/IR/EmptyTensors.cpp), so that no lowering sees them.
// RUN: fx-opt %s -canonicalize -split-input-file | FileCheck %s

// An empty result becomes fx.zeros; the op that computed it is gone.
// CHECK-LABEL: func.func @empty_batch(
// CHECK-NEXT: %[[Z:.*]] = fx.constant dense<0.000000e+00> : tensor<0x4xf32>
// CHECK-NEXT: return %[[Z]]
func.func @empty_batch(%x: tensor<0x3xf32>, %w: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<0x4xf32> {
  %0 = fx.linear %x, %w, %b : (tensor<0x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<0x4xf32>
  %1 = fx.relu %0 : (tensor<0x4xf32>) -> tensor<0x4xf32>
  return %1 : tensor<0x4xf32>
}

// -----

// Of a multi-result op only the empty result is replaced.
// CHECK-LABEL: func.func @split_of_size_zero(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>
// CHECK-NEXT: %[[Z:.*]] = fx.constant dense<0.000000e+00> : tensor<2x0xf32>
// CHECK-NEXT: %[[S:.*]]:2 = fx.split %[[X]]
// CHECK-NEXT: %[[C:.*]] = fx.cat %[[S]]#1, %[[S]]#1
// CHECK-NEXT: return %[[Z]], %[[C]]
func.func @split_of_size_zero(%x: tensor<2x3xf32>) -> (tensor<2x0xf32>, tensor<4x3xf32>) {
  %s:2 = fx.split %x {split_sizes = array<i64: 0, 3>, dim = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2x0xf32>, tensor<2x3xf32>)
  %c = fx.cat %s#1, %s#1 {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %s#0, %c : tensor<2x0xf32>, tensor<4x3xf32>
}

// -----

// cat drops empty operands; with one left of the result's type, it is that.
// CHECK-LABEL: func.func @cat_with_empty_parts(
// CHECK-SAME: %[[E:.*]]: tensor<0x3xf32>, %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<1x3xf32>
// CHECK-NEXT: %[[C:.*]] = fx.cat %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
// CHECK-NEXT: return %[[C]], %[[A]]
func.func @cat_with_empty_parts(%e: tensor<0x3xf32>, %a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> (tensor<3x3xf32>, tensor<2x3xf32>) {
  %0 = fx.cat %e, %a, %e, %b {dim = 0 : i64} : (tensor<0x3xf32>, tensor<2x3xf32>, tensor<0x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  %1 = fx.cat %a, %e {dim = 0 : i64} : (tensor<2x3xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<3x3xf32>, tensor<2x3xf32>
}

// -----

// Contractions and sums over an empty dimension: zero, plus linear's bias.
// CHECK-LABEL: func.func @over_nothing(
// CHECK-SAME: %[[B:[^:]*]]: tensor<4xf32>
// CHECK-DAG: %[[Z24:.*]] = fx.constant dense<0.000000e+00> : tensor<2x4xf32>
// CHECK-DAG: %[[Z5:.*]] = fx.constant dense<0.000000e+00> : tensor<5xf32>
// CHECK: %[[L:.*]] = fx.add %[[Z24]], %[[B]]
// CHECK: return %[[L]], %[[Z24]], %[[Z5]]
func.func @over_nothing(%x: tensor<2x0xf32>, %w: tensor<4x0xf32>, %b: tensor<4xf32>, %m: tensor<0x4xf32>, %e: tensor<0x5xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<5xf32>) {
  %0 = fx.linear %x, %w, %b : (tensor<2x0xf32>, tensor<4x0xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %1 = fx.mm %x, %m : (tensor<2x0xf32>, tensor<0x4xf32>) -> tensor<2x4xf32>
  %2 = fx.sum %e {dim = array<i64: 0>} : (tensor<0x5xf32>) -> tensor<5xf32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<5xf32>
}
