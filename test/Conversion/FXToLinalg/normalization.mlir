// RUN: fx-opt %s --convert-fx-to-linalg --split-input-file | FileCheck %s

// batch_norm: one elementwise generic reading the statistics per channel.
// CHECK-DAG: #[[$CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm(
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #{{.*}}]
// CHECK: math.rsqrt
func.func @batch_norm(%x: tensor<2x4x3x3xf32>, %c: tensor<4xf32>) -> tensor<2x4x3x3xf32> {
  %0 = fx.batch_norm %x, %c, %c weight(%c) bias(%c) : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  return %0 : tensor<2x4x3x3xf32>
}

// -----

// layer_norm: mean and variance reductions, then normalize.
// CHECK-LABEL: func.func @layer_norm(
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: math.rsqrt
func.func @layer_norm(%x: tensor<4x16xf32>, %w: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = fx.layer_norm %x weight(%w) {normalized_shape = array<i64: 16>} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// softmax: max from -inf, exp(x - max) summed, divide.
// CHECK-LABEL: func.func @softmax(
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.divf
func.func @softmax(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = fx.softmax %x {dim = -1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
