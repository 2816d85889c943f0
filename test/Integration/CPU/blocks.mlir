// Whole blocks written in the FX dialect, on the CPU against PyTorch.
// REQUIRES: torch
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s | FileCheck %s
// Temporaries filled with NaNs first (FX_POISON_ALLOCATIONS): a pad border
// or tile the code reads without writing shows up as a wrong answer.
// RUN: env FX_POISON_ALLOCATIONS=1 %python %fx_src_root/utils/fx-check.py fx-run %s | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: 5 passed, 0 failed

// ResNet basic block: relu(bn2(conv2(relu(bn1(conv1(x))))) + x).
// INPUT a1: np.random.default_rng(11).standard_normal((8, 8, 3, 3)) * 0.2
// INPUT a6: np.random.default_rng(12).standard_normal((8, 8, 3, 3)) * 0.2
// INPUT a5: np.abs(np.random.default_rng(13).standard_normal(8)) + 0.5
// INPUT a10: np.abs(np.random.default_rng(14).standard_normal(8)) + 0.5
// TOL: rtol=1e-4 atol=1e-4
// REF: F.relu(F.batch_norm(F.conv2d(F.relu(F.batch_norm(F.conv2d(a0, a1, padding=1), a4, a5, a2, a3, False, 0.1, 1e-5)), a6, padding=1), a9, a10, a7, a8, False, 0.1, 1e-5) + a0)
func.func @resnet_basic_block(%a0: tensor<2x8x10x10xf32>,
    %a1: tensor<8x8x3x3xf32>, %a2: tensor<8xf32>, %a3: tensor<8xf32>, %a4: tensor<8xf32>, %a5: tensor<8xf32>,
    %a6: tensor<8x8x3x3xf32>, %a7: tensor<8xf32>, %a8: tensor<8xf32>, %a9: tensor<8xf32>, %a10: tensor<8xf32>) -> tensor<2x8x10x10xf32> {
  %0 = fx.convolution %a0, %a1 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x8x10x10xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x10x10xf32>
  %1 = fx.batch_norm %0, %a4, %a5 weight(%a2) bias(%a3) : (tensor<2x8x10x10xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x10x10xf32>
  %2 = fx.relu %1 : (tensor<2x8x10x10xf32>) -> tensor<2x8x10x10xf32>
  %3 = fx.convolution %2, %a6 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x8x10x10xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x10x10xf32>
  %4 = fx.batch_norm %3, %a9, %a10 weight(%a7) bias(%a8) : (tensor<2x8x10x10xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x10x10xf32>
  %5 = fx.add %4, %a0 : (tensor<2x8x10x10xf32>, tensor<2x8x10x10xf32>) -> tensor<2x8x10x10xf32>
  %6 = fx.relu %5 : (tensor<2x8x10x10xf32>) -> tensor<2x8x10x10xf32>
  return %6 : tensor<2x8x10x10xf32>
}

// MLP: linear -> relu -> linear -> gelu -> linear.
// TOL: rtol=1e-4 atol=1e-4
// REF: F.linear(F.gelu(F.linear(F.relu(F.linear(a0, a1, a2)), a3, a4)), a5, a6)
func.func @mlp(%a0: tensor<4x16xf32>, %a1: tensor<32x16xf32>, %a2: tensor<32xf32>, %a3: tensor<32x32xf32>, %a4: tensor<32xf32>, %a5: tensor<8x32xf32>, %a6: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = fx.linear %a0, %a1, %a2 : (tensor<4x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %1 = fx.relu %0 : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %2 = fx.linear %1, %a3, %a4 : (tensor<4x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %3 = fx.gelu %2 : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %4 = fx.linear %3, %a5, %a6 : (tensor<4x32xf32>, tensor<8x32xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// Transformer encoder block (post-norm, 2 heads of 8): self-attention with
// a packed in-projection, residual + layer norm, GELU MLP, residual + layer
// norm. The reference is nn.TransformerEncoderLayer with these weights.
// INPUT a1: np.random.default_rng(21).standard_normal((48, 16)) * 0.3
// INPUT a3: np.random.default_rng(22).standard_normal((16, 16)) * 0.3
// INPUT a7: np.random.default_rng(23).standard_normal((32, 16)) * 0.3
// INPUT a9: np.random.default_rng(24).standard_normal((16, 32)) * 0.3
// TOL: rtol=1e-4 atol=1e-4
// REF: (lambda m: (m.self_attn.in_proj_weight.data.copy_(a1), m.self_attn.in_proj_bias.data.copy_(a2), m.self_attn.out_proj.weight.data.copy_(a3), m.self_attn.out_proj.bias.data.copy_(a4), m.norm1.weight.data.copy_(a5), m.norm1.bias.data.copy_(a6), m.linear1.weight.data.copy_(a7), m.linear1.bias.data.copy_(a8), m.linear2.weight.data.copy_(a9), m.linear2.bias.data.copy_(a10), m.norm2.weight.data.copy_(a11), m.norm2.bias.data.copy_(a12), m.eval(), m(a0))[-1].detach())(torch.nn.TransformerEncoderLayer(16, 2, 32, 0.0, "gelu", batch_first=True))
func.func @transformer_encoder_block(%a0: tensor<2x6x16xf32>,
    %a1: tensor<48x16xf32>, %a2: tensor<48xf32>, %a3: tensor<16x16xf32>, %a4: tensor<16xf32>,
    %a5: tensor<16xf32>, %a6: tensor<16xf32>, %a7: tensor<32x16xf32>, %a8: tensor<32xf32>,
    %a9: tensor<16x32xf32>, %a10: tensor<16xf32>, %a11: tensor<16xf32>, %a12: tensor<16xf32>) -> tensor<2x6x16xf32> {
  %qkv = fx.linear %a0, %a1, %a2 : (tensor<2x6x16xf32>, tensor<48x16xf32>, tensor<48xf32>) -> tensor<2x6x48xf32>
  %p:3 = fx.split %qkv {split_sizes = array<i64: 16, 16, 16>, dim = -1 : i64} : (tensor<2x6x48xf32>) -> (tensor<2x6x16xf32>, tensor<2x6x16xf32>, tensor<2x6x16xf32>)
  %q0 = fx.view %p#0 {size = array<i64: 2, 6, 2, 8>} : (tensor<2x6x16xf32>) -> tensor<2x6x2x8xf32>
  %k0 = fx.view %p#1 {size = array<i64: 2, 6, 2, 8>} : (tensor<2x6x16xf32>) -> tensor<2x6x2x8xf32>
  %v0 = fx.view %p#2 {size = array<i64: 2, 6, 2, 8>} : (tensor<2x6x16xf32>) -> tensor<2x6x2x8xf32>
  %q = fx.transpose %q0 {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<2x6x2x8xf32>) -> tensor<2x2x6x8xf32>
  %k = fx.transpose %k0 {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<2x6x2x8xf32>) -> tensor<2x2x6x8xf32>
  %v = fx.transpose %v0 {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<2x6x2x8xf32>) -> tensor<2x2x6x8xf32>
  %att = fx.scaled_dot_product_attention %q, %k, %v : (tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>) -> tensor<2x2x6x8xf32>
  %h = fx.transpose %att {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<2x2x6x8xf32>) -> tensor<2x6x2x8xf32>
  %m = fx.view %h {size = array<i64: 2, 6, 16>} : (tensor<2x6x2x8xf32>) -> tensor<2x6x16xf32>
  %o = fx.linear %m, %a3, %a4 : (tensor<2x6x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<2x6x16xf32>
  %r1 = fx.add %a0, %o : (tensor<2x6x16xf32>, tensor<2x6x16xf32>) -> tensor<2x6x16xf32>
  %n1 = fx.layer_norm %r1 weight(%a5) bias(%a6) {normalized_shape = array<i64: 16>} : (tensor<2x6x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x6x16xf32>
  %f1 = fx.linear %n1, %a7, %a8 : (tensor<2x6x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<2x6x32xf32>
  %g = fx.gelu %f1 : (tensor<2x6x32xf32>) -> tensor<2x6x32xf32>
  %f2 = fx.linear %g, %a9, %a10 : (tensor<2x6x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<2x6x16xf32>
  %r2 = fx.add %n1, %f2 : (tensor<2x6x16xf32>, tensor<2x6x16xf32>) -> tensor<2x6x16xf32>
  %n2 = fx.layer_norm %r2 weight(%a11) bias(%a12) {normalized_shape = array<i64: 16>} : (tensor<2x6x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x6x16xf32>
  return %n2 : tensor<2x6x16xf32>
}

// MobileNetV2 inverted residual: the 1x1 expansion's BN + ReLU6 is written
// into the padded input of the depthwise convolution (fx-pad-in-place), the
// depthwise convolution takes its BN + ReLU6 as an epilogue, then the 1x1
// projection and the residual add. 32 channels at 16x16 make full CPU tiles.
// INPUT a1: np.random.default_rng(21).standard_normal((32, 16, 1, 1)) * 0.3
// INPUT a3: np.random.default_rng(22).standard_normal((32, 1, 3, 3)) * 0.3
// INPUT a5: np.random.default_rng(23).standard_normal((16, 32, 1, 1)) * 0.3
// INPUT a8: np.abs(np.random.default_rng(24).standard_normal(32)) + 0.5
// TOL: rtol=1e-4 atol=1e-4
// REF: F.conv2d(F.hardtanh(F.batch_norm(F.conv2d(F.hardtanh(F.conv2d(a0, a1, a2), 0.0, 6.0), a3, padding=1, groups=32), a7, a8, a6, a4, False, 0.1, 1e-5), 0.0, 6.0), a5) + a0
func.func @inverted_residual(%a0: tensor<1x16x16x16xf32>, %a1: tensor<32x16x1x1xf32>, %a2: tensor<32xf32>,
    %a3: tensor<32x1x3x3xf32>, %a4: tensor<32xf32>, %a5: tensor<16x32x1x1xf32>, %a6: tensor<32xf32>, %a7: tensor<32xf32>, %a8: tensor<32xf32>) -> tensor<1x16x16x16xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x16x16x16xf32>, tensor<32x16x1x1xf32>, tensor<32xf32>) -> tensor<1x32x16x16xf32>
  %1 = fx.hardtanh %0 {min_val = 0.0 : f64, max_val = 6.0 : f64} : (tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %2 = fx.convolution %1, %a3 {dilation = array<i64: 1, 1>, groups = 32 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x32x16x16xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x16x16xf32>
  %3 = fx.batch_norm %2, %a7, %a8 weight(%a6) bias(%a4) : (tensor<1x32x16x16xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x32x16x16xf32>
  %4 = fx.hardtanh %3 {min_val = 0.0 : f64, max_val = 6.0 : f64} : (tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %5 = fx.convolution %4, %a5 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x32x16x16xf32>, tensor<16x32x1x1xf32>) -> tensor<1x16x16x16xf32>
  %6 = fx.add %5, %a0 : (tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %6 : tensor<1x16x16x16xf32>
}

// The same with shapes no CPU tile divides (20 channels, 9x13, stride 2,
// batch 2) and padding 2 on a 5x5 depthwise window.
// INPUT a1: np.random.default_rng(31).standard_normal((20, 6, 1, 1)) * 0.3
// INPUT a3: np.random.default_rng(32).standard_normal((20, 1, 5, 5)) * 0.3
// TOL: rtol=1e-4 atol=1e-4
// REF: F.relu(F.conv2d(F.relu(F.conv2d(a0, a1, a2)), a3, a4, stride=2, padding=2, groups=20))
func.func @depthwise_epilogue_partial_tiles(%a0: tensor<2x6x9x13xf32>, %a1: tensor<20x6x1x1xf32>, %a2: tensor<20xf32>,
    %a3: tensor<20x1x5x5xf32>, %a4: tensor<20xf32>) -> tensor<2x20x5x7xf32> {
  %0 = fx.convolution %a0, %a1, %a2 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x6x9x13xf32>, tensor<20x6x1x1xf32>, tensor<20xf32>) -> tensor<2x20x9x13xf32>
  %1 = fx.relu %0 : (tensor<2x20x9x13xf32>) -> tensor<2x20x9x13xf32>
  %2 = fx.convolution %1, %a3, %a4 {dilation = array<i64: 1, 1>, groups = 20 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<2x20x9x13xf32>, tensor<20x1x5x5xf32>, tensor<20xf32>) -> tensor<2x20x5x7xf32>
  %3 = fx.relu %2 : (tensor<2x20x5x7xf32>) -> tensor<2x20x5x7xf32>
  return %3 : tensor<2x20x5x7xf32>
}
