// RUN: fx-opt %s --convert-fx-to-linalg --split-input-file | FileCheck %s

// Views are collapse/expand (no copies); transposes are linalg.transpose.
// CHECK-LABEL: func.func @view_permute(
// CHECK: tensor.collapse_shape
// CHECK: tensor.expand_shape {{.*}} into tensor<6x4xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x2x3xf32>) permutation = [2, 0, 1]
func.func @view_permute(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<4x2x3xf32>) {
  %0 = fx.view %x {size = array<i64: -1, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = fx.permute %x {dims = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0, %1 : tensor<6x4xf32>, tensor<4x2x3xf32>
}

// -----

// Slices and selects are extract_slices; cat inserts slices.
// CHECK-LABEL: func.func @slice_select_cat(
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [5, 4] [1, 2] : tensor<5x10xf32> to tensor<5x4xf32>
// CHECK: tensor.extract_slice %{{.*}}[2, 0] [1, 10] [1, 1] : tensor<5x10xf32> to tensor<10xf32>
// CHECK: tensor.insert_slice
// CHECK: tensor.insert_slice
func.func @slice_select_cat(%x: tensor<5x10xf32>, %y: tensor<5x2xf32>) -> (tensor<5x4xf32>, tensor<10xf32>, tensor<5x12xf32>) {
  %0 = fx.slice %x {dim = 1 : i64, start = 1 : i64, end = -1 : i64, step = 2 : i64} : (tensor<5x10xf32>) -> tensor<5x4xf32>
  %1 = fx.select %x {dim = 0 : i64, index = 2 : i64} : (tensor<5x10xf32>) -> tensor<10xf32>
  %2 = fx.cat %x, %y {dim = 1 : i64} : (tensor<5x10xf32>, tensor<5x2xf32>) -> tensor<5x12xf32>
  return %0, %1, %2 : tensor<5x4xf32>, tensor<10xf32>, tensor<5x12xf32>
}

// -----

// A dynamic slice computes its bounds at run time.
// CHECK-LABEL: func.func @dynamic_slice(
// CHECK: arith.minsi
// CHECK: tensor.extract_slice {{.*}} : tensor<?x4xf32> to tensor<?x4xf32>
func.func @dynamic_slice(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = fx.slice %x {start = 1 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
