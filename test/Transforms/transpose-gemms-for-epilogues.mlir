// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fx-transpose-gemms-for-epilogues))' | FileCheck %s
// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fx-transpose-gemms-for-epilogues))' | FileCheck %s --check-prefix=DEAD

// ConvNeXt's block end at batch 1: a linear layer over channels-last
// pixels, its bias, then the layer scale and the residual add in NCHW.
// The matmul runs channels by pixels (its operands swapped) and the add,
// with the bias fused in, over the same two dimensions, reading the
// matmul's result as it is.
// CHECK-LABEL: func.func @block_end
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x4x8xf32>, %[[W:.*]]: tensor<6x8xf32>, %[[B:.*]]: tensor<6xf32>, %[[S:.*]]: tensor<6x1x1xf32>, %[[R:.*]]: tensor<1x6x4x4xf32>)
// CHECK-DAG: %[[XC:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2], [3]]
// CHECK-DAG: %[[RC:.*]] = tensor.collapse_shape %[[R]] {{\[}}[0], [1], [2, 3]] : tensor<1x6x4x4xf32> into tensor<1x6x16xf32>
// CHECK: %[[MM:.*]] = linalg.matmul {{.*}}ins(%[[W]], %[[XC]] : tensor<6x8xf32>, tensor<16x8xf32>) outs(%{{.*}} : tensor<6x16xf32>)
// CHECK: %[[E:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[S]], %[[MM]], %[[B]], %[[RC]] : tensor<6x1x1xf32>, tensor<6x16xf32>, tensor<6xf32>, tensor<1x6x16xf32>)
// CHECK-NOT: linalg.generic
// CHECK: tensor.expand_shape %[[E]] {{\[}}[0, 1], [2, 3]] output_shape [1, 6, 4, 4]
// Nothing of the [pixels, channels] form is left, unused inits included.
// DEAD-LABEL: func.func @block_end
// DEAD-NOT: tensor<16x6xf32>
// DEAD-LABEL: func.func @h_alone
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @block_end(%x: tensor<1x4x4x8xf32>, %w: tensor<6x8xf32>, %b: tensor<6xf32>,
                     %s: tensor<6x1x1xf32>, %r: tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %xc = tensor.collapse_shape %x [[0, 1, 2], [3]] : tensor<1x4x4x8xf32> into tensor<16x8xf32>
  %e = tensor.empty() : tensor<16x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x6xf32>) -> tensor<16x6xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%xc, %w : tensor<16x8xf32>, tensor<6x8xf32>) outs(%f : tensor<16x6xf32>) -> tensor<16x6xf32>
  %biased = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<16x6xf32>, tensor<6xf32>) outs(%e : tensor<16x6xf32>) {
  ^bb0(%m: f32, %bb: f32, %o: f32):
    %a = arith.addf %m, %bb : f32
    linalg.yield %a : f32
  } -> tensor<16x6xf32>
  %ex = tensor.expand_shape %biased [[0, 1, 2], [3]] output_shape [1, 4, 4, 6] : tensor<16x6xf32> into tensor<1x4x4x6xf32>
  %out = tensor.empty() : tensor<1x6x4x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %ex, %r : tensor<6x1x1xf32>, tensor<1x4x4x6xf32>, tensor<1x6x4x4xf32>) outs(%out : tensor<1x6x4x4xf32>) {
  ^bb0(%sc: f32, %v: f32, %res: f32, %o: f32):
    %m = arith.mulf %sc, %v : f32
    %a = arith.addf %m, %res : f32
    linalg.yield %a : f32
  } -> tensor<1x6x4x4xf32>
  return %y : tensor<1x6x4x4xf32>
}

// -----

// An op reading h apart from w keeps the matmul as it is.
// CHECK-LABEL: func.func @h_alone
// CHECK: linalg.matmul {{.*}}ins(%{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<6x8xf32>)
func.func @h_alone(%x: tensor<16x8xf32>, %w: tensor<6x8xf32>, %r: tensor<4xf32>) -> tensor<1x6x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x6xf32>) -> tensor<16x6xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%x, %w : tensor<16x8xf32>, tensor<6x8xf32>) outs(%f : tensor<16x6xf32>) -> tensor<16x6xf32>
  %ex = tensor.expand_shape %mm [[0, 1, 2], [3]] output_shape [1, 4, 4, 6] : tensor<16x6xf32> into tensor<1x4x4x6xf32>
  %out = tensor.empty() : tensor<1x6x4x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex, %r : tensor<1x4x4x6xf32>, tensor<4xf32>) outs(%out : tensor<1x6x4x4xf32>) {
  ^bb0(%v: f32, %rr: f32, %o: f32):
    %a = arith.addf %v, %rr : f32
    linalg.yield %a : f32
  } -> tensor<1x6x4x4xf32>
  return %y : tensor<1x6x4x4xf32>
}
