// RUN: fx-opt %s --pass-pipeline='builtin.module(func.func(fx-prepare-linalg-for-gpu))' | FileCheck %s

// A sum over dim 0 (reduction before parallel) is interchanged so that the
// parallel loop comes first; the maps follow the permutation.
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$IN3:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[$OUT3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$DWIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
// CHECK-DAG: #[[$DWW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)>
// CHECK-DAG: #[[$DWOUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @sum_dim0
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["parallel", "reduction"]}
func.func @sum_dim0(%x: tensor<4x7xf32>, %init: tensor<7xf32>) -> tensor<7xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<4x7xf32>) outs(%init : tensor<7xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// (parallel, reduction, parallel) keeps the parallel loops in order:
// (d0, d2, d1).
// CHECK-LABEL: func.func @amax_middle
// CHECK: linalg.generic {indexing_maps = [#[[$IN3]], #[[$OUT3]]], iterator_types = ["parallel", "parallel", "reduction"]}
func.func @amax_middle(%x: tensor<4x5x3xf32>, %init: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>],
                       iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<4x5x3xf32>) outs(%init : tensor<4x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// Already parallel-first: unchanged.
// CHECK-LABEL: func.func @rows
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$OUT]]], iterator_types = ["parallel", "reduction"]}
func.func @rows(%x: tensor<4x7xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x7xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A depthwise convolution iterates (n, oh, ow, c, kh, kw): generalized and
// interchanged into the output's order (n, c, oh, ow), so that neighbouring
// threads own neighbouring output columns instead of channels.
// CHECK-LABEL: func.func @depthwise
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
// CHECK: linalg.generic {indexing_maps = [#[[$DWIN]], #[[$DWW]], #[[$DWOUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
func.func @depthwise(%x: memref<1x8x6x6xf32>, %w: memref<8x3x3xf32>, %y: memref<1x8x4x4xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%x, %w : memref<1x8x6x6xf32>, memref<8x3x3xf32>) outs(%y : memref<1x8x4x4xf32>)
  return
}

// Already in the output's order (a pooling's (n, c, oh, ow, kh, kw)): the
// named op stays.
// CHECK-LABEL: func.func @pooling
// CHECK: linalg.pooling_nchw_max
func.func @pooling(%x: memref<1x8x6x6xf32>, %k: memref<3x3xf32>, %y: memref<1x8x4x4xf32>) {
  linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%x, %k : memref<1x8x6x6xf32>, memref<3x3xf32>) outs(%y : memref<1x8x4x4xf32>)
  return
}
