// RUN: fx-opt %s -canonicalize -split-input-file | FileCheck %s

// batch_first multi-head attention's in-projection: the transpose before
// the linear layer moves after it, the head split's view and unsqueeze move
// before it, and the two permutes merge into one.
// CHECK-LABEL: func.func @attention_in_projection(
// CHECK-SAME: %[[X:.*]]: tensor<8x128x256xf32>
// CHECK-NEXT: %[[L:.*]] = fx.linear %[[X]], %{{.*}}, %{{.*}} : (tensor<8x128x256xf32>, tensor<768x256xf32>, tensor<768xf32>) -> tensor<8x128x768xf32>
// CHECK-NEXT: %[[V:.*]] = fx.view %[[L]] {size = array<i64: 8, 1, 128, 3, 256>}
// CHECK-NEXT: %[[P:.*]] = fx.permute %[[V]] {dims = array<i64: 3, 2, 0, 1, 4>} : (tensor<8x1x128x3x256xf32>) -> tensor<3x128x8x1x256xf32>
// CHECK-NEXT: %[[S:.*]] = fx.view %[[P]] {size = array<i64: 3, 128, 8, 256>}
// CHECK-NEXT: return %[[S]]
func.func @attention_in_projection(%x: tensor<8x128x256xf32>, %w: tensor<768x256xf32>, %b: tensor<768xf32>) -> tensor<3x128x8x256xf32> {
  %0 = fx.permute %x {dims = array<i64: 1, 0, 2>} : (tensor<8x128x256xf32>) -> tensor<128x8x256xf32>
  %1 = fx.linear %0, %w, %b : (tensor<128x8x256xf32>, tensor<768x256xf32>, tensor<768xf32>) -> tensor<128x8x768xf32>
  %2 = fx.view %1 {size = array<i64: 128, 8, 3, 256>} : (tensor<128x8x768xf32>) -> tensor<128x8x3x256xf32>
  %3 = fx.unsqueeze %2 {dim = 0 : i64} : (tensor<128x8x3x256xf32>) -> tensor<1x128x8x3x256xf32>
  %4 = fx.permute %3 {dims = array<i64: 3, 1, 2, 0, 4>} : (tensor<1x128x8x3x256xf32>) -> tensor<3x128x8x1x256xf32>
  %5 = fx.view %4 {size = array<i64: 3, 128, 8, 256>} : (tensor<3x128x8x1x256xf32>) -> tensor<3x128x8x256xf32>
  return %5 : tensor<3x128x8x256xf32>
}

// -----

// A view that splits a dimension of a permute's result splits the input's
// matching dimension instead, and the permute merges with the one after.
// CHECK-LABEL: func.func @split_between_permutes(
// CHECK-SAME: %[[X:.*]]: tensor<6x4xf32>
// CHECK-NEXT: %[[V:.*]] = fx.view %[[X]] {size = array<i64: 2, 3, 4>} : (tensor<6x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[P:.*]] = fx.permute %[[V]] {dims = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
// CHECK-NEXT: return %[[P]]
func.func @split_between_permutes(%x: tensor<6x4xf32>) -> tensor<3x4x2xf32> {
  %0 = fx.permute %x {dims = array<i64: 1, 0>} : (tensor<6x4xf32>) -> tensor<4x6xf32>
  %1 = fx.view %0 {size = array<i64: 4, 2, 3>} : (tensor<4x6xf32>) -> tensor<4x2x3xf32>
  %2 = fx.permute %1 {dims = array<i64: 2, 0, 1>} : (tensor<4x2x3xf32>) -> tensor<3x4x2xf32>
  return %2 : tensor<3x4x2xf32>
}

// -----

// Views that merge dimensions or that no permute follows, permutes that
// move a linear layer's features, and permutes with other users stay where
// they are.
// CHECK-LABEL: func.func @negative_merge(
// CHECK-NEXT: fx.permute
// CHECK-NEXT: fx.view
func.func @negative_merge(%x: tensor<8x128x32xf32>) -> tensor<1024x32xf32> {
  %0 = fx.permute %x {dims = array<i64: 1, 0, 2>} : (tensor<8x128x32xf32>) -> tensor<128x8x32xf32>
  %1 = fx.view %0 {size = array<i64: 1024, 32>} : (tensor<128x8x32xf32>) -> tensor<1024x32xf32>
  return %1 : tensor<1024x32xf32>
}

// CHECK-LABEL: func.func @negative_features(
// CHECK-NEXT: fx.permute
// CHECK-NEXT: fx.linear
func.func @negative_features(%x: tensor<4x16xf32>, %w: tensor<8x4xf32>) -> tensor<16x8xf32> {
  %0 = fx.permute %x {dims = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
  %1 = fx.linear %0, %w : (tensor<16x4xf32>, tensor<8x4xf32>) -> tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// CHECK-LABEL: func.func @negative_shared(
// CHECK-NEXT: fx.permute
// CHECK-NEXT: fx.linear
func.func @negative_shared(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>) -> (tensor<3x2x5xf32>, tensor<3x2x4xf32>) {
  %0 = fx.permute %x {dims = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %1 = fx.linear %0, %w : (tensor<3x2x4xf32>, tensor<5x4xf32>) -> tensor<3x2x5xf32>
  return %1, %0 : tensor<3x2x5xf32>, tensor<3x2x4xf32>
}

// CHECK-LABEL: func.func @negative_no_permute_after(
// CHECK-NEXT: fx.permute
// CHECK-NEXT: fx.view
func.func @negative_no_permute_after(%x: tensor<6x4xf32>) -> tensor<4x2x3x1xf32> {
  %0 = fx.permute %x {dims = array<i64: 1, 0>} : (tensor<6x4xf32>) -> tensor<4x6xf32>
  %1 = fx.view %0 {size = array<i64: 4, 2, 3, 1>} : (tensor<4x6xf32>) -> tensor<4x2x3x1xf32>
  return %1 : tensor<4x2x3x1xf32>
}
