// RUN: fx-opt %s --convert-fx-to-linalg --split-input-file | FileCheck %s

// Splat constants become fills (a full-size global otherwise); arange is a
// generic on linalg.index computing in double for floating results.
// CHECK-LABEL: func.func @creation(
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1024xf32>)
// CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: linalg.index 0
// CHECK: arith.sitofp %{{.*}} : i64 to f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @creation() -> (tensor<1024xf32>, tensor<2xf32>, tensor<5xf32>) {
  %0 = fx.constant dense<0.5> : tensor<1024xf32>
  %1 = fx.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %2 = fx.arange {start = 0.5 : f64, end = 3.0 : f64, step = 0.5 : f64} : tensor<5xf32>
  return %0, %1, %2 : tensor<1024xf32>, tensor<2xf32>, tensor<5xf32>
}
