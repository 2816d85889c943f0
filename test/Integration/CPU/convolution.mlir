// Convolutions on the CPU against PyTorch.
// REQUIRES: torch
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s | FileCheck %s
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s -- --cpu x86-64-v3 | FileCheck %s
// Temporaries filled with NaNs first (FX_POISON_ALLOCATIONS): a pad border
// or tile the code reads without writing shows up as a wrong answer.
// RUN: env FX_POISON_ALLOCATIONS=1 %python %fx_src_root/utils/fx-check.py fx-run %s | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: {{[0-9]+}} passed, 0 failed

// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv2d(a0, a1, a2, stride=1, padding=1)
func.func @conv2d_3x3_pad1_bias(%a0: tensor<2x3x9x9xf32>, %a1: tensor<8x3x3x3xf32>, %a2: tensor<8xf32>) -> tensor<2x8x9x9xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x3x9x9xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x9x9xf32>
  return %0 : tensor<2x8x9x9xf32>
}

// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv2d(a0, a1, stride=2, padding=(1, 2), dilation=(2, 1))
func.func @conv2d_stride2_dilation(%a0: tensor<1x4x11x10xf32>, %a1: tensor<6x4x3x3xf32>) -> tensor<1x6x5x6xf32> {
  %0 = fx.convolution %a0, %a1 {dilation = array<i64: 2, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 2>, stride = array<i64: 2, 2>} : (tensor<1x4x11x10xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x5x6xf32>
  return %0 : tensor<1x6x5x6xf32>
}

// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv2d(a0, a1, a2, stride=2, padding=1, groups=6)
func.func @conv2d_depthwise(%a0: tensor<1x6x8x8xf32>, %a1: tensor<6x1x3x3xf32>, %a2: tensor<6xf32>) -> tensor<1x6x4x4xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, groups = 6 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x6x8x8xf32>, tensor<6x1x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32>
  return %0 : tensor<1x6x4x4xf32>
}

// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv2d(a0, a1, padding=1, groups=2)
func.func @conv2d_grouped(%a0: tensor<2x4x6x6xf32>, %a1: tensor<6x2x3x3xf32>) -> tensor<2x6x6x6xf32> {
  %0 = fx.convolution %a0, %a1 {dilation = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x4x6x6xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x6x6xf32>
  return %0 : tensor<2x6x6x6xf32>
}

// Grouped 1-d convolutions (wav2vec2's positional convolution: 16 groups,
// padding of half the kernel), lowered as 2-d ones of a unit height; one
// depthwise, one with a dilation, a stride and no bias.
// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv1d(a0, a1, a2, padding=4, groups=4)
func.func @conv1d_grouped(%a0: tensor<2x8x12xf32>, %a1: tensor<8x2x8xf32>, %a2: tensor<8xf32>) -> tensor<2x8x13xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1>, output_padding = array<i64: 0>, padding = array<i64: 4>, stride = array<i64: 1>, groups = 4 : i64} : (tensor<2x8x12xf32>, tensor<8x2x8xf32>, tensor<8xf32>) -> tensor<2x8x13xf32>
  return %0 : tensor<2x8x13xf32>
}

// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv1d(a0, a1, a2, padding=1, groups=6)
func.func @conv1d_depthwise(%a0: tensor<1x6x20xf32>, %a1: tensor<6x1x3xf32>, %a2: tensor<6xf32>) -> tensor<1x6x20xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1>, output_padding = array<i64: 0>, padding = array<i64: 1>, stride = array<i64: 1>, groups = 6 : i64} : (tensor<1x6x20xf32>, tensor<6x1x3xf32>, tensor<6xf32>) -> tensor<1x6x20xf32>
  return %0 : tensor<1x6x20xf32>
}

// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv1d(a0, a1, stride=2, padding=2, dilation=2, groups=2)
func.func @conv1d_grouped_strided(%a0: tensor<3x4x17xf32>, %a1: tensor<6x2x3xf32>) -> tensor<3x6x9xf32> {
  %0 = fx.convolution %a0, %a1 {dilation = array<i64: 2>, output_padding = array<i64: 0>, padding = array<i64: 2>, stride = array<i64: 2>, groups = 2 : i64} : (tensor<3x4x17xf32>, tensor<6x2x3xf32>) -> tensor<3x6x9xf32>
  return %0 : tensor<3x6x9xf32>
}

// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv1d(a0, a1, a2, stride=2, padding=1)
func.func @conv1d(%a0: tensor<2x3x10xf32>, %a1: tensor<5x3x3xf32>, %a2: tensor<5xf32>) -> tensor<2x5x5xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1>, output_padding = array<i64: 0>, padding = array<i64: 1>, stride = array<i64: 2>} : (tensor<2x3x10xf32>, tensor<5x3x3xf32>, tensor<5xf32>) -> tensor<2x5x5xf32>
  return %0 : tensor<2x5x5xf32>
}

// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv3d(a0, a1, padding=1)
func.func @conv3d(%a0: tensor<1x2x4x5x6xf32>, %a1: tensor<3x2x3x3x3xf32>) -> tensor<1x3x4x5x6xf32> {
  %0 = fx.convolution %a0, %a1 {dilation = array<i64: 1, 1, 1>, output_padding = array<i64: 0, 0, 0>, padding = array<i64: 1, 1, 1>, stride = array<i64: 1, 1, 1>} : (tensor<1x2x4x5x6xf32>, tensor<3x2x3x3x3xf32>) -> tensor<1x3x4x5x6xf32>
  return %0 : tensor<1x3x4x5x6xf32>
}

// TOL: rtol=1e-4 atol=1e-4
// INPUT a0: np.random.default_rng(4).standard_normal((3, 3, 8, 8))
// REF: F.conv2d(a0, a1, padding=1)
func.func @conv2d_dynamic_batch(%a0: tensor<?x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %0 = fx.convolution %a0, %a1 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// Many tiles of a GPU implicit-GEMM kernel: 80 output channels are two row
// tiles of 64, 2 x 20 x 20 output pixels thirteen column tiles, and the
// reduction (16 x 3 x 3 = 144) runs nine k steps; 64 channels of 2 x 128 x
// 128 pixels are enough columns for 64 x 128 tiles.
// TOL: rtol=1e-4 atol=1e-4
// REF: (F.conv2d(a0, a1, a2, padding=1), F.conv2d(a3, a4, padding=1))
func.func @conv2d_tiles(%a0: tensor<2x16x20x20xf32>, %a1: tensor<80x16x3x3xf32>, %a2: tensor<80xf32>, %a3: tensor<2x8x128x128xf32>, %a4: tensor<64x8x3x3xf32>) -> (tensor<2x80x20x20xf32>, tensor<2x64x128x128xf32>) {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x16x20x20xf32>, tensor<80x16x3x3xf32>, tensor<80xf32>) -> tensor<2x80x20x20xf32>
  %1 = fx.convolution %a3, %a4 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x8x128x128xf32>, tensor<64x8x3x3xf32>) -> tensor<2x64x128x128xf32>
  return %0, %1 : tensor<2x80x20x20xf32>, tensor<2x64x128x128xf32>
}

// A ResNet's last stage in small: 96 channels x 49 pixels per image and a
// reduction of 64 x 3 x 3 = 576, split 9 ways on the GPU.
// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv2d(a0, a1, a2, padding=1)
func.func @conv2d_split_k(%a0: tensor<1x64x7x7xf32>, %a1: tensor<96x64x3x3xf32>, %a2: tensor<96xf32>) -> tensor<1x96x7x7xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x64x7x7xf32>, tensor<96x64x3x3xf32>, tensor<96xf32>) -> tensor<1x96x7x7xf32>
  return %0 : tensor<1x96x7x7xf32>
}

// A batch-1 1x1 convolution: 672 channels x 196 pixels in 64x64 tiles of
// the GPU's SIMT kernel, the last row and column of tiles partial.
// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv2d(a0, a1, a2)
func.func @conv2d_1x1_small_tiles(%a0: tensor<1x112x14x14xf32>, %a1: tensor<672x112x1x1xf32>, %a2: tensor<672xf32>) -> tensor<1x672x14x14xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x112x14x14xf32>, tensor<672x112x1x1xf32>, tensor<672xf32>) -> tensor<1x672x14x14xf32>
  return %0 : tensor<1x672x14x14xf32>
}

// The CPU's convolution tiles (F output channels x one vector of output
// columns, one FMA per input channel): 40 input channels in steps of 10,
// 20 output channels in a full tile and a partial one (16 + 4 with AVX-512
// tiles, 12 + 8 with AVX2 ones), a column stride of 2 (every other lane of a
// contiguous read) and a column dilation of 2; then a 1x1 convolution whose
// 37 columns are two full vectors and a remainder of 5; then depthwise
// convolutions (one FMA per channel) of 20 channels, one with 37 columns at
// stride 1, one at stride 2.
// TOL: rtol=1e-4 atol=1e-4
// REF: (F.conv2d(a0, a1, a2, stride=2, padding=(1, 2), dilation=(1, 2)), F.conv2d(a3, a4), F.conv2d(a5, a6, a7, padding=1, groups=20), F.conv2d(a5, a6, stride=2, padding=1, groups=20))
func.func @conv2d_cpu_tiles(%a0: tensor<1x40x23x23xf32>, %a1: tensor<20x40x3x3xf32>, %a2: tensor<20xf32>, %a3: tensor<2x8x5x37xf32>, %a4: tensor<24x8x1x1xf32>, %a5: tensor<1x20x6x37xf32>, %a6: tensor<20x1x3x3xf32>, %a7: tensor<20xf32>) -> (tensor<1x20x12x12xf32>, tensor<2x24x5x37xf32>, tensor<1x20x6x37xf32>, tensor<1x20x3x19xf32>) {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 2>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 2>, stride = array<i64: 2, 2>} : (tensor<1x40x23x23xf32>, tensor<20x40x3x3xf32>, tensor<20xf32>) -> tensor<1x20x12x12xf32>
  %1 = fx.convolution %a3, %a4 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x8x5x37xf32>, tensor<24x8x1x1xf32>) -> tensor<2x24x5x37xf32>
  %2 = fx.convolution %a5, %a6, %a7 {dilation = array<i64: 1, 1>, groups = 20 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x20x6x37xf32>, tensor<20x1x3x3xf32>, tensor<20xf32>) -> tensor<1x20x6x37xf32>
  %3 = fx.convolution %a5, %a6 {dilation = array<i64: 1, 1>, groups = 20 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x20x6x37xf32>, tensor<20x1x3x3xf32>) -> tensor<1x20x3x19xf32>
  return %0, %1, %2, %3 : tensor<1x20x12x12xf32>, tensor<2x24x5x37xf32>, tensor<1x20x6x37xf32>, tensor<1x20x3x19xf32>
}

// 1x1 convolutions computed as matmuls over the pixels: a 7x7 image (49
// pixels: three 16-column register tiles and one column) with a bias and
// ReLU epilogue in tiles of whole rows, and a batch of 2 with 20 output
// channels (no full channel tile) at 6x11.
// TOL: rtol=1e-4 atol=1e-4
// REF: (F.relu(F.conv2d(a0, a1, a2)), F.conv2d(a3, a4) * 2.0)
func.func @conv2d_1x1_as_matmul(%a0: tensor<1x48x7x7xf32>, %a1: tensor<32x48x1x1xf32>, %a2: tensor<32xf32>, %a3: tensor<2x12x6x11xf32>, %a4: tensor<20x12x1x1xf32>) -> (tensor<1x32x7x7xf32>, tensor<2x20x6x11xf32>) {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x48x7x7xf32>, tensor<32x48x1x1xf32>, tensor<32xf32>) -> tensor<1x32x7x7xf32>
  %1 = fx.relu %0 : (tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %2 = fx.convolution %a3, %a4 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x12x6x11xf32>, tensor<20x12x1x1xf32>) -> tensor<2x20x6x11xf32>
  %3 = fx.add %2, %2 : (tensor<2x20x6x11xf32>, tensor<2x20x6x11xf32>) -> tensor<2x20x6x11xf32>
  return %1, %3 : tensor<1x32x7x7xf32>, tensor<2x20x6x11xf32>
}

// Filters that are parameters: the CPU packs them once per binding
// (fx-cpu-pack-convolutions, in the prepare function) and the tiles read
// the packed blocks of 16, vectors along the output channels. 12 output
// channels: one block, padded with zeros.
// TOL: rtol=1e-4 atol=1e-4
// REF: F.relu(F.conv2d(a0, a1, a2, stride=1, padding=1))
func.func @conv2d_param_filter(%a0: tensor<1x8x9x9xf32>, %a1: tensor<12x8x3x3xf32> {fx.param = "conv.weight"}, %a2: tensor<12xf32> {fx.param = "conv.bias"}) -> tensor<1x12x9x9xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x9x9xf32>, tensor<12x8x3x3xf32>, tensor<12xf32>) -> tensor<1x12x9x9xf32>
  %1 = fx.relu %0 : (tensor<1x12x9x9xf32>) -> tensor<1x12x9x9xf32>
  return %1 : tensor<1x12x9x9xf32>
}

// Stride 2 and dilation 2, 48 output channels over 30 columns (packed
// tiles of 28 and 2 columns with AVX-512), a parameter filter without bias.
// TOL: rtol=1e-4 atol=1e-4
// REF: F.relu(F.conv2d(a0, a1, stride=(1, 2), padding=(2, 1), dilation=(2, 1)))
func.func @conv2d_param_filter_strided(%a0: tensor<1x16x12x60xf32>, %a1: tensor<48x16x3x3xf32> {fx.param = "w"}) -> tensor<1x48x12x30xf32> {
  %0 = fx.convolution %a0, %a1 {dilation = array<i64: 2, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 2, 1>, stride = array<i64: 1, 2>} : (tensor<1x16x12x60xf32>, tensor<48x16x3x3xf32>) -> tensor<1x48x12x30xf32>
  %1 = fx.relu %0 : (tensor<1x48x12x30xf32>) -> tensor<1x48x12x30xf32>
  return %1 : tensor<1x48x12x30xf32>
}

// A large 7x7 image, as ResNet's last stage: whole rows of 7 columns.
// TOL: rtol=1e-4 atol=1e-4
// REF: F.relu(F.conv2d(a0, a1, a2, padding=1) + a3)
func.func @conv2d_param_filter_residual(%a0: tensor<1x64x7x7xf32>, %a1: tensor<64x64x3x3xf32> {fx.param = "w"}, %a2: tensor<64xf32> {fx.param = "b"}, %a3: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x64x7x7xf32>, tensor<64x64x3x3xf32>, tensor<64xf32>) -> tensor<1x64x7x7xf32>
  %1 = fx.add %0, %a3 : (tensor<1x64x7x7xf32>, tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  %2 = fx.relu %1 : (tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %2 : tensor<1x64x7x7xf32>
}

// Window rows over the zero padding are left out of packed tiles: a 7x7
// stride-2 stem with a padding of 3 (its first output row skips 3 window
// rows, its last 2), and a 1x3 window with 2 rows of padding, whose first
// two and last two output rows read padding only (their kh loops run no
// step: the bias alone).
// TOL: rtol=1e-4 atol=1e-4
// REF: F.relu(F.conv2d(a0, a1, a2, stride=2, padding=3))
func.func @conv2d_param_filter_stem(%a0: tensor<1x3x23x23xf32>, %a1: tensor<16x3x7x7xf32> {fx.param = "w"}, %a2: tensor<16xf32> {fx.param = "b"}) -> tensor<1x16x12x12xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 3, 3>, stride = array<i64: 2, 2>} : (tensor<1x3x23x23xf32>, tensor<16x3x7x7xf32>, tensor<16xf32>) -> tensor<1x16x12x12xf32>
  %1 = fx.relu %0 : (tensor<1x16x12x12xf32>) -> tensor<1x16x12x12xf32>
  return %1 : tensor<1x16x12x12xf32>
}

// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv2d(a0, a1, a2, padding=(2, 1))
func.func @conv2d_param_filter_padding_rows(%a0: tensor<1x8x5x9xf32>, %a1: tensor<16x8x1x3xf32> {fx.param = "w"}, %a2: tensor<16xf32> {fx.param = "b"}) -> tensor<1x16x9x9xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 2, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x5x9xf32>, tensor<16x8x1x3xf32>, tensor<16xf32>) -> tensor<1x16x9x9xf32>
  return %0 : tensor<1x16x9x9xf32>
}

// A lone convolution over a parameter filter (no epilogue): its region is
// tiled like an epilogue's so that the tiles read the packed filter.
// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv2d(a0, a1, padding=1)
func.func @conv2d_param_filter_alone(%a0: tensor<1x32x14x14xf32>, %a1: tensor<32x32x3x3xf32> {fx.param = "w"}) -> tensor<1x32x14x14xf32> {
  %0 = fx.convolution %a0, %a1 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x32x14x14xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x14x14xf32>
  return %0 : tensor<1x32x14x14xf32>
}

// Packed convolutions of narrow images (a register tile narrower than
// the register budget): a 7x7 one with a bias and ReLU epilogue, a lone
// strided one over a batch of 2, and one of 6 rows of 5 columns.
// TOL: rtol=1e-4 atol=1e-4
// REF: (F.relu(F.conv2d(a0, a1, a2, padding=1)), F.conv2d(a3, a4, stride=2, padding=1), F.conv2d(a5, a6, padding=1))
func.func @conv2d_param_narrow(%a0: tensor<1x48x7x7xf32>, %a1: tensor<64x48x3x3xf32> {fx.param = "w"}, %a2: tensor<64xf32> {fx.param = "b"}, %a3: tensor<2x32x13x13xf32>, %a4: tensor<32x32x3x3xf32> {fx.param = "w2"}, %a5: tensor<1x16x6x5xf32>, %a6: tensor<32x16x3x3xf32> {fx.param = "w3"}) -> (tensor<1x64x7x7xf32>, tensor<2x32x7x7xf32>, tensor<1x32x6x5xf32>) {
  %0 = fx.convolution %a0, %a1, %a2 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x48x7x7xf32>, tensor<64x48x3x3xf32>, tensor<64xf32>) -> tensor<1x64x7x7xf32>
  %1 = fx.relu %0 : (tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  %2 = fx.convolution %a3, %a4 {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<2x32x13x13xf32>, tensor<32x32x3x3xf32>) -> tensor<2x32x7x7xf32>
  %3 = fx.convolution %a5, %a6 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x16x6x5xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x6x5xf32>
  return %1, %2, %3 : tensor<1x64x7x7xf32>, tensor<2x32x7x7xf32>, tensor<1x32x6x5xf32>
}

// Non-overlapping windows (stride = window, a patchify layer): the patches
// are copied out and multiplied by the filter as a matmul
// (fx-patch-convolutions-to-matmuls), bias and ReLU fused as its epilogue.
// 2x2 windows over a 10x14 input (the last rows and columns of a 11x15
// one unused), then 4x4 windows of 3 channels (ConvNeXt's stem).
// TOL: rtol=1e-4 atol=1e-4
// REF: F.relu(F.conv2d(a0, a1, a2, stride=2))
func.func @conv2d_patchify(%a0: tensor<1x8x11x15xf32>, %a1: tensor<24x8x2x2xf32> {fx.param = "w"}, %a2: tensor<24xf32> {fx.param = "b"}) -> tensor<1x24x5x7xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x11x15xf32>, tensor<24x8x2x2xf32>, tensor<24xf32>) -> tensor<1x24x5x7xf32>
  %1 = fx.relu %0 : (tensor<1x24x5x7xf32>) -> tensor<1x24x5x7xf32>
  return %1 : tensor<1x24x5x7xf32>
}

// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv2d(a0, a1, a2, stride=4)
func.func @conv2d_patchify_stem(%a0: tensor<1x3x32x32xf32>, %a1: tensor<16x3x4x4xf32>, %a2: tensor<16xf32>) -> tensor<1x16x8x8xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 4, 4>} : (tensor<1x3x32x32xf32>, tensor<16x3x4x4xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  return %0 : tensor<1x16x8x8xf32>
}

// Strided 1x1 convolutions (ResNet's downsampling, with its residual add
// and ReLU after it): the pixels they read are copied out and convolved at
// stride 1, as a matmul over the pixels (fx-patch-convolutions-to-matmuls);
// a batch of two, odd sizes, a stride of 2 by 3.
// TOL: rtol=1e-4 atol=1e-4
// REF: F.relu(F.conv2d(a0, a1, stride=2) + a2)
func.func @conv2d_downsample(%a0: tensor<2x24x15x15xf32>, %a1: tensor<40x24x1x1xf32> {fx.param = "w"}, %a2: tensor<2x40x8x8xf32>) -> tensor<2x40x8x8xf32> {
  %0 = fx.convolution %a0, %a1 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<2x24x15x15xf32>, tensor<40x24x1x1xf32>) -> tensor<2x40x8x8xf32>
  %1 = fx.add %0, %a2 : (tensor<2x40x8x8xf32>, tensor<2x40x8x8xf32>) -> tensor<2x40x8x8xf32>
  %2 = fx.relu %1 : (tensor<2x40x8x8xf32>) -> tensor<2x40x8x8xf32>
  return %2 : tensor<2x40x8x8xf32>
}

// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv2d(a0, a1, a2, stride=(2, 3))
func.func @conv2d_pointwise_stride_2x3(%a0: tensor<1x16x9x10xf32>, %a1: tensor<32x16x1x1xf32>, %a2: tensor<32xf32>) -> tensor<1x32x5x4xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 2, 3>} : (tensor<1x16x9x10xf32>, tensor<32x16x1x1xf32>, tensor<32xf32>) -> tensor<1x32x5x4xf32>
  return %0 : tensor<1x32x5x4xf32>
}
