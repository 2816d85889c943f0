// RUN: fx-opt %s --convert-fx-to-linalg --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @mm(
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x16xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[Z]] : tensor<4x16xf32>)
func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = fx.mm %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// f16 matmuls accumulate in f32.
// CHECK-LABEL: func.func @bmm_f16(
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x4x8xf16>, tensor<2x8x5xf16>) outs(%{{.*}} : tensor<2x4x5xf32>)
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @bmm_f16(%a: tensor<2x4x8xf16>, %b: tensor<2x8x5xf16>) -> tensor<2x4x5xf16> {
  %0 = fx.bmm %a, %b : (tensor<2x4x8xf16>, tensor<2x8x5xf16>) -> tensor<2x4x5xf16>
  return %0 : tensor<2x4x5xf16>
}

// -----

// linear: leading dims collapse to M, the weight is read transposed by the
// matmul's indexing maps, the bias is added in the rounding generic.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @linear(
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<2x5x8xf32> into tensor<80xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<10x8xf32>
// CHECK: linalg.matmul indexing_maps = [#[[$A]], #[[$W]], #[[$C]]]
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: tensor.expand_shape {{.*}} into tensor<2x5x16xf32>
func.func @linear(%x: tensor<2x5x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<2x5x16xf32> {
  %0 = fx.linear %x, %w, %b : (tensor<2x5x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  return %0 : tensor<2x5x16xf32>
}
