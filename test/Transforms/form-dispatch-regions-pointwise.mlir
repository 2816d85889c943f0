// A 1x1 convolution over a parameter filter with an epilogue: on a small
// image (7x7) whose rows fit a packed tile (packed-conv-tile-w >= 7, as
// AVX-512's 14), tiles of one row and a block of channels, marked for
// fx-cpu-pack-convolutions; with narrower packed tiles (AVX2's 6) or none,
// tiles of whole rows for the matmul over the pixels, unmarked.
// RUN: fx-opt %s --pass-pipeline='builtin.module(func.func(convert-fx-to-linalg),canonicalize,cse,func.func(linalg-fuse-elementwise-ops),canonicalize,cse,func.func(fx-form-dispatch-regions{threads=1 packed-conv-tile-f=32 packed-conv-tile-w=14}),canonicalize,cse)' | FileCheck %s --check-prefix=PACKED
// RUN: fx-opt %s --pass-pipeline='builtin.module(func.func(convert-fx-to-linalg),canonicalize,cse,func.func(linalg-fuse-elementwise-ops),canonicalize,cse,func.func(fx-form-dispatch-regions{threads=1 packed-conv-tile-f=16 packed-conv-tile-w=6}),canonicalize,cse)' | FileCheck %s --check-prefixes=AVX2,SMALL
// RUN: fx-opt %s --pass-pipeline='builtin.module(func.func(convert-fx-to-linalg),canonicalize,cse,func.func(linalg-fuse-elementwise-ops),canonicalize,cse,func.func(fx-form-dispatch-regions{threads=1 packed-conv-tile-f=32}),canonicalize,cse)' | FileCheck %s --check-prefixes=MATMUL,SMALL

// PACKED-LABEL: func.func @pointwise_7x7(
// PACKED: linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, fx.pack_pointwise, strides = dense<1> : vector<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x64x1x7xf32>, tensor<32x64x1x1xf32>) outs(%{{.*}} : tensor<1x32x1x7xf32>)
// SMALL-LABEL: func.func @pointwise_7x7(
// SMALL-NOT: fx.pack_pointwise
// SMALL: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x16x7x7xf32>)
func.func @pointwise_7x7(%x: tensor<1x64x7x7xf32>, %w: tensor<96x64x1x1xf32> {fx.param = "w"}) -> tensor<1x96x7x7xf32> {
  %c = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x64x7x7xf32>, tensor<96x64x1x1xf32>) -> tensor<1x96x7x7xf32>
  %r = fx.relu %c : (tensor<1x96x7x7xf32>) -> tensor<1x96x7x7xf32>
  return %r : tensor<1x96x7x7xf32>
}

// A lone 1x1 convolution (no epilogue): on a small image likewise marked
// and tiled; on a larger one left whole, without a region's loops, for
// fx-cpu-tile-and-vectorize's matmul over all its pixels.
// PACKED-LABEL: func.func @lone_7x7(
// PACKED: linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, fx.pack_pointwise, strides = dense<1> : vector<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x64x1x7xf32>, tensor<32x64x1x1xf32>) outs(%{{.*}} : tensor<1x32x1x7xf32>)
// PACKED-LABEL: func.func @lone_16x16(
// PACKED-NOT: scf.for
// PACKED-NOT: fx.pack_pointwise
// PACKED: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x96x16x16xf32>)
// SMALL-LABEL: func.func @lone_7x7(
// SMALL-NOT: fx.pack_pointwise
// SMALL: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x96x7x7xf32>)
func.func @lone_7x7(%x: tensor<1x64x7x7xf32>, %w: tensor<96x64x1x1xf32> {fx.param = "w"}) -> tensor<1x96x7x7xf32> {
  %c = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x64x7x7xf32>, tensor<96x64x1x1xf32>) -> tensor<1x96x7x7xf32>
  return %c : tensor<1x96x7x7xf32>
}
func.func @lone_16x16(%x: tensor<1x64x16x16xf32>, %w: tensor<96x64x1x1xf32> {fx.param = "w"}) -> tensor<1x96x16x16xf32> {
  %c = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x64x16x16xf32>, tensor<96x64x1x1xf32>) -> tensor<1x96x16x16xf32>
  return %c : tensor<1x96x16x16xf32>
}

// A stem convolution (7x7, stride 2) over a parameter filter with an
// epilogue, 112 output columns: tiles of whole rows, which
// fx-cpu-tile-and-vectorize splits evenly into register tiles of at most
// packed-conv-tile-w columns (8 of 14; 19 of 5 or 6 for AVX2's 6); without
// a packed tile, blocks of 16 columns as before.
// PACKED-LABEL: func.func @stem_112(
// PACKED: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x32x1x112xf32>)
// AVX2-LABEL: func.func @stem_112(
// AVX2: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x16x1x112xf32>)
// MATMUL-LABEL: func.func @stem_112(
// MATMUL: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x32x1x16xf32>)
func.func @stem_112(%x: tensor<1x3x229x229xf32>, %w: tensor<64x3x7x7xf32> {fx.param = "w"}) -> tensor<1x64x112x112xf32> {
  %c = fx.convolution %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x3x229x229xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
  %r = fx.relu %c : (tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
  return %r : tensor<1x64x112x112xf32>
}
