// RUN: fx-opt %s --split-input-file --fx-convs-channels-last --canonicalize | FileCheck %s

// A padded 3x3 convolution, its bias and ReLU, a 1x1 convolution and a
// residual add: the input moves to NHWC once (the pad permuted with it),
// the 3x3 filter is transposed, the 1x1 one reshaped into a matmul's
// [F][C], the elementwise ops compute over NHWC loops (the bias through
// (n, h, w, c) -> (c)), and the only transpose back is the result's.
// CHECK-LABEL: func.func @block
// CHECK-SAME: %[[X:.*]]: tensor<2x8x6x6xf32>, %[[W:.*]]: tensor<8x8x3x3xf32>, %[[B:.*]]: tensor<8xf32>, %[[P:.*]]: tensor<16x8x1x1xf32>
// CHECK: %[[XT:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x8x6x6xf32>) outs(%{{.*}} : tensor<2x6x6x8xf32>)
// CHECK: tensor.pad %[[XT]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[WT:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<8x8x3x3xf32>) outs(%{{.*}} : tensor<8x3x3x8xf32>)
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%{{.*}}, %[[WT]] : tensor<2x8x8x8xf32>, tensor<8x3x3x8xf32>) outs(%{{.*}} : tensor<2x6x6x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID:.*]], #[[CH:.*]], #[[ID]]], {{.*}} ins(%[[C]], %[[B]] : tensor<2x6x6x8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<2x6x6x8xf32>)
// CHECK: arith.maximumf
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[R]] {{\[\[}}0, 1, 2], [3]] : tensor<2x6x6x8xf32> into tensor<72x8xf32>
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0], [1, 2, 3]] : tensor<16x8x1x1xf32> into tensor<16x8xf32>
// CHECK: %[[M:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[F]] : tensor<72x8xf32>, tensor<16x8xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1, 2], [3]] output_shape [2, 6, 6, 16]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[E]], %[[R]], %[[R]] : tensor<2x6x6x16xf32>, tensor<2x6x6x8xf32>, tensor<2x6x6x8xf32>) outs(%{{.*}} : tensor<2x6x6x16xf32>)
// CHECK: %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<2x6x6x16xf32>) outs(%{{.*}} : tensor<2x16x6x6xf32>)
// CHECK: return %[[OUT]]
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
#half = affine_map<(n, c, h, w) -> (n, c floordiv 2, h, w)>
func.func @block(%x: tensor<2x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %b: tensor<8xf32>, %p: tensor<16x8x1x1xf32>) -> tensor<2x16x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %pad = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x8x6x6xf32> to tensor<2x8x8x8xf32>
  %e = tensor.empty() : tensor<2x8x6x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%pad, %w : tensor<2x8x8x8xf32>, tensor<8x8x3x3xf32>) outs(%z : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<2x8x6x6xf32>, tensor<8xf32>) outs(%e : tensor<2x8x6x6xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x6x6xf32>
  %e2 = tensor.empty() : tensor<2x16x6x6xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x16x6x6xf32>) -> tensor<2x16x6x6xf32>
  %q = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%r, %p : tensor<2x8x6x6xf32>, tensor<16x8x1x1xf32>) outs(%z2 : tensor<2x16x6x6xf32>) -> tensor<2x16x6x6xf32>
  // Each output channel adds the input channel c / 2 (twice: a broadcast
  // through a non-permutation map survives the layout change).
  %sum = linalg.generic {indexing_maps = [#id, #half, #half, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q, %r, %r : tensor<2x16x6x6xf32>, tensor<2x8x6x6xf32>, tensor<2x8x6x6xf32>) outs(%e2 : tensor<2x16x6x6xf32>) {
  ^bb0(%u: f32, %v: f32, %v2: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    %t = arith.addf %s, %v2 : f32
    linalg.yield %t : f32
  } -> tensor<2x16x6x6xf32>
  return %sum : tensor<2x16x6x6xf32>
}

// -----

// A strided 1x1 convolution (ResNet's downsampling) keeps a convolution,
// its filter reshaped to [F][1][1][C] (the same memory), and a max
// pooling pads with its -inf in NHWC.
// CHECK-LABEL: func.func @strided_and_pool
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] output_shape [16, 1, 1, 8] : tensor<16x8xf32> into tensor<16x1x1x8xf32>
// CHECK: linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} {{.*}} -> tensor<2x3x3x16xf32>
// CHECK: tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tensor.yield %{{.*}} : f32
// CHECK: linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} {{.*}} -> tensor<2x2x2x16xf32>
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.pooling_nchw_max
func.func @strided_and_pool(%x: tensor<2x8x6x6xf32>, %p: tensor<16x8x1x1xf32>) -> tensor<2x16x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x16x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x3x3xf32>) -> tensor<2x16x3x3xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %p : tensor<2x8x6x6xf32>, tensor<16x8x1x1xf32>) outs(%z : tensor<2x16x3x3xf32>) -> tensor<2x16x3x3xf32>
  %pad = tensor.pad %c low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<2x16x3x3xf32> to tensor<2x16x5x5xf32>
  %e2 = tensor.empty() : tensor<2x16x2x2xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x16x2x2xf32>) -> tensor<2x16x2x2xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%pad, %win : tensor<2x16x5x5xf32>, tensor<3x3xf32>) outs(%init : tensor<2x16x2x2xf32>) -> tensor<2x16x2x2xf32>
  return %m : tensor<2x16x2x2xf32>
}
