// RUN: fx-opt %s -split-input-file --fx-cpu-pack-convolutions=block=16 | FileCheck %s

// A one-row tile of the last 4 output channels (16 to 19) of a parameter
// filter of 20: the filter is padded to 32 channels and packed into 2
// blocks at the top of the function; the tile reads the first 4 channels
// of block 1, accumulates into 7 columns x 4 channels, then adds the
// transpose to its initial value.
// CHECK-DAG: #[[$PACK:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0 * 16 + d4, d1, d2, d3)>
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (0, d2, d3, d0 + d4)>
// CHECK-DAG: #[[$FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4, d1)>
// CHECK-DAG: #[[$ACC:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>
// CHECK-DAG: #[[$T:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d1)>
// CHECK-LABEL: func.func @tile(
// CHECK-SAME: %[[X:.*]]: tensor<1x8x3x9xf32>, %[[W:.*]]: tensor<20x8x3x3xf32> {fx.param = "w"}, %[[INIT:.*]]: tensor<1x4x1x7xf32>)
// CHECK: %[[PAD:.*]] = tensor.pad %[[W]] low[0, 0, 0, 0] high[12, 0, 0, 0]
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[$PACK]], {{.*}}]{{.*}} ins(%[[PAD]] : tensor<32x8x3x3xf32>) outs(%{{.*}} : tensor<2x8x3x3x16xf32>)
// CHECK: %[[B:.*]] = tensor.extract_slice %[[P]][1, 0, 0, 0, 0] [1, 8, 3, 3, 4] [1, 1, 1, 1, 1] : tensor<2x8x3x3x16xf32> to tensor<8x3x3x4xf32>
// CHECK: %[[Z:.*]] = linalg.fill {{.*}} -> tensor<7x4xf32>
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$FILTER]], #[[$ACC]]], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[X]], %[[B]] : {{.*}}) outs(%[[Z]] : tensor<7x4xf32>) attrs =  {fx.packed_conv = 1 : i64}
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$T]], {{.*}}]{{.*}} ins(%[[S]] : tensor<7x4xf32>) outs(%[[INIT]] : tensor<1x4x1x7xf32>)
// CHECK: return %[[R]]
func.func @tile(%x: tensor<1x8x3x9xf32>, %w: tensor<20x8x3x3xf32> {fx.param = "w"},
                %init: tensor<1x4x1x7xf32>) -> tensor<1x4x1x7xf32> {
  %s = tensor.extract_slice %w[16, 0, 0, 0] [4, 8, 3, 3] [1, 1, 1, 1] : tensor<20x8x3x3xf32> to tensor<4x8x3x3xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %s : tensor<1x8x3x9xf32>, tensor<4x8x3x3xf32>) outs(%init : tensor<1x4x1x7xf32>) -> tensor<1x4x1x7xf32>
  return %c : tensor<1x4x1x7xf32>
}

// -----

// A tile in a loop over blocks of the filter (step 16) at stride 2: the
// block index is the induction variable divided by 16.
// CHECK-DAG: #[[$DIV:.*]] = affine_map<()[s0] -> (s0 floordiv 16)>
// CHECK-DAG: #[[$IN2:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (0, d2, d3, d0 * 2 + d4)>
// CHECK-LABEL: func.func @loop(
// CHECK: scf.for %[[IV:.*]] = %c0 to %c64 step %c16
// CHECK: %[[BLK:.*]] = affine.apply #[[$DIV]]()[%[[IV]]]
// CHECK: tensor.extract_slice %{{.*}}[%[[BLK]], 0, 0, 0, 0] [1, 4, 3, 3, 16]
// CHECK: linalg.generic {indexing_maps = [#[[$IN2]], {{.*}} attrs = {fx.packed_conv = 2 : i64}
func.func @loop(%x: tensor<1x4x3x15xf32>, %w: tensor<64x4x3x3xf32> {fx.param = "w"},
                %out: tensor<1x64x1x7xf32>) -> tensor<1x64x1x7xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %f = %c0 to %c64 step %c16 iter_args(%acc = %out) -> (tensor<1x64x1x7xf32>) {
    %s = tensor.extract_slice %w[%f, 0, 0, 0] [16, 4, 3, 3] [1, 1, 1, 1] : tensor<64x4x3x3xf32> to tensor<16x4x3x3xf32>
    %o = tensor.extract_slice %acc[0, %f, 0, 0] [1, 16, 1, 7] [1, 1, 1, 1] : tensor<1x64x1x7xf32> to tensor<1x16x1x7xf32>
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
        ins(%x, %s : tensor<1x4x3x15xf32>, tensor<16x4x3x3xf32>) outs(%o : tensor<1x16x1x7xf32>) -> tensor<1x16x1x7xf32>
    %i = tensor.insert_slice %c into %acc[0, %f, 0, 0] [1, 16, 1, 7] [1, 1, 1, 1] : tensor<1x16x1x7xf32> into tensor<1x64x1x7xf32>
    scf.yield %i : tensor<1x64x1x7xf32>
  }
  return %r : tensor<1x64x1x7xf32>
}

// -----

// Left alone: a filter that is an input (packing it every run would cost
// more than it gains), an offset that is not known to be a multiple of the
// block, a 1x1 convolution (a matmul), and a tile of more than one block.
// CHECK-LABEL: func.func @keep(
// CHECK-NOT: fx.packed_conv
// CHECK-COUNT-4: linalg.conv_2d_nchw_fchw
// CHECK-NOT: fx.packed_conv
func.func @keep(%x: tensor<1x8x3x9xf32>, %input: tensor<16x8x3x3xf32>,
                %w: tensor<64x8x3x3xf32> {fx.param = "w"}, %at: index,
                %w1: tensor<16x8x1x1xf32> {fx.param = "w1"},
                %init: tensor<1x16x1x7xf32>, %init1: tensor<1x16x1x9xf32>,
                %init32: tensor<1x32x1x7xf32>)
    -> (tensor<1x16x1x7xf32>, tensor<1x16x1x7xf32>, tensor<1x16x1x9xf32>, tensor<1x32x1x7xf32>) {
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %input : tensor<1x8x3x9xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x1x7xf32>) -> tensor<1x16x1x7xf32>
  %s = tensor.extract_slice %w[%at, 0, 0, 0] [16, 8, 3, 3] [1, 1, 1, 1] : tensor<64x8x3x3xf32> to tensor<16x8x3x3xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %s : tensor<1x8x3x9xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x1x7xf32>) -> tensor<1x16x1x7xf32>
  %r = tensor.extract_slice %x[0, 0, 0, 0] [1, 8, 1, 9] [1, 1, 1, 1] : tensor<1x8x3x9xf32> to tensor<1x8x1x9xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%r, %w1 : tensor<1x8x1x9xf32>, tensor<16x8x1x1xf32>) outs(%init1 : tensor<1x16x1x9xf32>) -> tensor<1x16x1x9xf32>
  %s32 = tensor.extract_slice %w[0, 0, 0, 0] [32, 8, 3, 3] [1, 1, 1, 1] : tensor<64x8x3x3xf32> to tensor<32x8x3x3xf32>
  %d = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %s32 : tensor<1x8x3x9xf32>, tensor<32x8x3x3xf32>) outs(%init32 : tensor<1x32x1x7xf32>) -> tensor<1x32x1x7xf32>
  return %a, %b, %c, %d : tensor<1x16x1x7xf32>, tensor<1x16x1x7xf32>, tensor<1x16x1x9xf32>, tensor<1x32x1x7xf32>
}
