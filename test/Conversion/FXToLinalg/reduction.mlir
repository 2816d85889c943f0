// RUN: fx-opt %s --convert-fx-to-linalg --split-input-file | FileCheck %s

// Integer sums accumulate in i64; keepdim expands the result back.
// CHECK-LABEL: func.func @sum_i32_keepdim(
// CHECK: linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<4xi64>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.addi
// CHECK: tensor.expand_shape {{.*}} into tensor<4x1xi64>
func.func @sum_i32_keepdim(%x: tensor<4x6xi32>) -> tensor<4x1xi64> {
  %0 = fx.sum %x {dim = array<i64: 1>, keepdim = true} : (tensor<4x6xi32>) -> tensor<4x1xi64>
  return %0 : tensor<4x1xi64>
}

// -----

// mean divides by the element count; amax starts from -inf.
// CHECK-LABEL: func.func @mean_amax(
// CHECK: arith.divf
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
func.func @mean_amax(%x: tensor<4x6xf32>) -> (tensor<4xf32>, tensor<6xf32>) {
  %0 = fx.mean %x {dim = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4xf32>
  %1 = fx.amax %x {dim = array<i64: 0>} : (tensor<4x6xf32>) -> tensor<6xf32>
  return %0, %1 : tensor<4xf32>, tensor<6xf32>
}
