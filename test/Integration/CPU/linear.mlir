// Matrix products on the CPU against PyTorch.
// REQUIRES: torch
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s | FileCheck %s
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s -- --cpu x86-64-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: {{[0-9]+}} passed, 0 failed

// TOL: rtol=1e-4 atol=1e-5
// REF: torch.mm(a0, a1)
func.func @mm(%a0: tensor<7x13xf32>, %a1: tensor<13x5xf32>) -> tensor<7x5xf32> {
  %0 = fx.mm %a0, %a1 : (tensor<7x13xf32>, tensor<13x5xf32>) -> tensor<7x5xf32>
  return %0 : tensor<7x5xf32>
}

// REF: torch.mm(a0, a1)
func.func @mm_i64(%a0: tensor<3x4xi64>, %a1: tensor<4x2xi64>) -> tensor<3x2xi64> {
  %0 = fx.mm %a0, %a1 : (tensor<3x4xi64>, tensor<4x2xi64>) -> tensor<3x2xi64>
  return %0 : tensor<3x2xi64>
}

// TOL: rtol=1e-4 atol=1e-5
// REF: torch.bmm(a0, a1)
func.func @bmm(%a0: tensor<3x4x6xf32>, %a1: tensor<3x6x5xf32>) -> tensor<3x4x5xf32> {
  %0 = fx.bmm %a0, %a1 : (tensor<3x4x6xf32>, tensor<3x6x5xf32>) -> tensor<3x4x5xf32>
  return %0 : tensor<3x4x5xf32>
}

// TOL: rtol=1e-4 atol=1e-5
// REF: torch.addmm(a0, a1, a2, beta=0.5, alpha=2.0)
func.func @addmm(%a0: tensor<5xf32>, %a1: tensor<3x4xf32>, %a2: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = fx.addmm %a0, %a1, %a2 {beta = 0.5 : f64, alpha = 2.0 : f64} : (tensor<5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// beta = 0 ignores self, NaN included.
// INPUT a0: np.full((3, 5), np.nan)
// TOL: rtol=1e-4 atol=1e-5
// REF: torch.addmm(a0, a1, a2, beta=0.0)
func.func @addmm_beta_zero(%a0: tensor<3x5xf32>, %a1: tensor<3x4xf32>, %a2: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = fx.addmm %a0, %a1, %a2 {beta = 0.0 : f64} : (tensor<3x5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// TOL: rtol=1e-4 atol=1e-5
// REF: F.linear(a0, a1, a2)
func.func @linear_3d(%a0: tensor<2x5x8xf32>, %a1: tensor<16x8xf32>, %a2: tensor<16xf32>) -> tensor<2x5x16xf32> {
  %0 = fx.linear %a0, %a1, %a2 : (tensor<2x5x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  return %0 : tensor<2x5x16xf32>
}

// TOL: rtol=1e-4 atol=1e-5
// REF: F.linear(a0, a1)
func.func @linear_1d_no_bias(%a0: tensor<8xf32>, %a1: tensor<3x8xf32>) -> tensor<3xf32> {
  %0 = fx.linear %a0, %a1 : (tensor<8xf32>, tensor<3x8xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// TOL: rtol=1e-4 atol=1e-5
// INPUT a0: np.random.default_rng(3).standard_normal((3, 8))
// REF: F.linear(a0, a1, a2)
func.func @linear_dynamic_batch(%a0: tensor<?x8xf32>, %a1: tensor<4x8xf32>, %a2: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = fx.linear %a0, %a1, %a2 : (tensor<?x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// f16 accumulates in f32 (the reference too: PyTorch 1.13 has no CPU f16 mm).
// TOL: rtol=2e-3 atol=2e-3
// REF: torch.mm(a0.float(), a1.float()).half()
func.func @mm_f16(%a0: tensor<8x32xf16>, %a1: tensor<32x8xf16>) -> tensor<8x8xf16> {
  %0 = fx.mm %a0, %a1 : (tensor<8x32xf16>, tensor<32x8xf16>) -> tensor<8x8xf16>
  return %0 : tensor<8x8xf16>
}

// Several output tiles of a GPU matmul kernel (64x64 tiles, k steps of 16),
// none of the sizes a multiple of a tile: partial tiles in m, n and k.
// TOL: rtol=1e-4 atol=1e-4
// REF: torch.mm(a0, a1)
func.func @mm_tiles(%a0: tensor<130x70xf32>, %a1: tensor<70x200xf32>) -> tensor<130x200xf32> {
  %0 = fx.mm %a0, %a1 : (tensor<130x70xf32>, tensor<70x200xf32>) -> tensor<130x200xf32>
  return %0 : tensor<130x200xf32>
}

// Enough output tiles for the 128x128 kernel (17 x 17 of them), k = 20 not a
// multiple of its k step of 8.
// TOL: rtol=1e-4 atol=1e-4
// REF: torch.mm(a0, a1)
func.func @mm_large_tiles(%a0: tensor<2050x20xf32>, %a1: tensor<20x2100xf32>) -> tensor<2050x2100xf32> {
  %0 = fx.mm %a0, %a1 : (tensor<2050x20xf32>, tensor<20x2100xf32>) -> tensor<2050x2100xf32>
  return %0 : tensor<2050x2100xf32>
}

// The weight of a linear layer is read transposed (k innermost), a batched
// matmul has its batch in the grid.
// TOL: rtol=1e-4 atol=1e-4
// REF: (torch.nn.functional.linear(a0, a1, a2), torch.bmm(a3, a4))
func.func @linear_bmm_tiles(%a0: tensor<3x50x33xf32>, %a1: tensor<70x33xf32>, %a2: tensor<70xf32>, %a3: tensor<3x65x17xf32>, %a4: tensor<3x17x66xf32>) -> (tensor<3x50x70xf32>, tensor<3x65x66xf32>) {
  %0 = fx.linear %a0, %a1, %a2 : (tensor<3x50x33xf32>, tensor<70x33xf32>, tensor<70xf32>) -> tensor<3x50x70xf32>
  %1 = fx.bmm %a3, %a4 : (tensor<3x65x17xf32>, tensor<3x17x66xf32>) -> tensor<3x65x66xf32>
  return %0, %1 : tensor<3x50x70xf32>, tensor<3x65x66xf32>
}

// f16 tiles in workgroup memory, accumulated in f32.
// TOL: rtol=2e-3 atol=2e-3
// REF: torch.mm(a0.float(), a1.float()).half()
func.func @mm_f16_tiles(%a0: tensor<100x48xf16>, %a1: tensor<48x72xf16>) -> tensor<100x72xf16> {
  %0 = fx.mm %a0, %a1 : (tensor<100x48xf16>, tensor<48x72xf16>) -> tensor<100x72xf16>
  return %0 : tensor<100x72xf16>
}

// Sizes for the cooperative-matrix kernel (devices with tensor cores; the
// tiled kernel elsewhere): 192x128 takes 64x128 tiles of 1x2 subgroups with
// k staged 16 at a time (K = 80), 256x256 takes 128x128 tiles of 2x2
// subgroups with k staged 32 at a time.
// TOL: rtol=2e-3 atol=2e-3
// REF: (torch.mm(a0.float(), a1.float()).half(), torch.mm(a2.float(), a3.float()).half())
func.func @mm_f16_cooperative(%a0: tensor<192x80xf16>, %a1: tensor<80x128xf16>, %a2: tensor<256x64xf16>, %a3: tensor<64x256xf16>) -> (tensor<192x128xf16>, tensor<256x256xf16>) {
  %0 = fx.mm %a0, %a1 : (tensor<192x80xf16>, tensor<80x128xf16>) -> tensor<192x128xf16>
  %1 = fx.mm %a2, %a3 : (tensor<256x64xf16>, tensor<64x256xf16>) -> tensor<256x256xf16>
  return %0, %1 : tensor<192x128xf16>, tensor<256x256xf16>
}

// Split-k on the GPU: one 64x64 output tile and k = 2048, so 32 workgroups
// each reduce 64 of k into a temporary and a second kernel adds them.
// TOL: rtol=1e-4 atol=1e-4
// REF: torch.addmm(a2, a0, a1)
func.func @addmm_split_k(%a0: tensor<40x2048xf32>, %a1: tensor<2048x50xf32>, %a2: tensor<40x50xf32>) -> tensor<40x50xf32> {
  %0 = fx.addmm %a2, %a0, %a1 : (tensor<40x50xf32>, tensor<40x2048xf32>, tensor<2048x50xf32>) -> tensor<40x50xf32>
  return %0 : tensor<40x50xf32>
}

// The CPU's dot-product tiles (`linear` with k >= 256: rows of the input and
// of the weight are both contiguous along k): 14 rows and 30 columns in 4 x
// 4 tiles (3 x 4 for AVX2) and partial ones, k = 300 as 18 vectors of 16
// and a remainder of 12; then a matrix-vector product with more columns
// than rows, split by columns into blocks that divide its 1000 columns.
// TOL: rtol=1e-4 atol=1e-4
// REF: (F.linear(a0, a1, a2), F.linear(a3, a4))
func.func @linear_dot_tiles(%a0: tensor<2x7x300xf32>, %a1: tensor<30x300xf32>, %a2: tensor<30xf32>, %a3: tensor<1x520xf32>, %a4: tensor<1000x520xf32>) -> (tensor<2x7x30xf32>, tensor<1x1000xf32>) {
  %0 = fx.linear %a0, %a1, %a2 : (tensor<2x7x300xf32>, tensor<30x300xf32>, tensor<30xf32>) -> tensor<2x7x30xf32>
  %1 = fx.linear %a3, %a4 : (tensor<1x520xf32>, tensor<1000x520xf32>) -> tensor<1x1000xf32>
  return %0, %1 : tensor<2x7x30xf32>, tensor<1x1000xf32>
}

// Few tokens, many features, a long k: dot-product tiles split among the
// threads by columns (74 features: chunks of 37, whole 4-column tiles and
// a remainder in each).
// TOL: rtol=1e-4 atol=1e-4
// REF: F.linear(a0, a1, a2)
func.func @linear_few_rows_many_columns(%a0: tensor<5x300xf32>, %a1: tensor<74x300xf32>, %a2: tensor<74xf32>) -> tensor<5x74xf32> {
  %0 = fx.linear %a0, %a1, %a2 : (tensor<5x300xf32>, tensor<74x300xf32>, tensor<74xf32>) -> tensor<5x74xf32>
  return %0 : tensor<5x74xf32>
}

// Many rows, a short k: the [N, K] weight is transposed once before the
// matmul (fx-form-dispatch-regions), whose register tiles then read it
// along its rows.
// TOL: rtol=1e-4 atol=1e-4
// REF: F.relu(F.linear(a0, a1, a2))
func.func @linear_weight_transposed(%a0: tensor<2x20x40xf32>, %a1: tensor<36x40xf32>, %a2: tensor<36xf32>) -> tensor<2x20x36xf32> {
  %0 = fx.linear %a0, %a1, %a2 : (tensor<2x20x40xf32>, tensor<36x40xf32>, tensor<36xf32>) -> tensor<2x20x36xf32>
  %1 = fx.relu %0 : (tensor<2x20x36xf32>) -> tensor<2x20x36xf32>
  return %1 : tensor<2x20x36xf32>
}

// Parameter weights read in packed panels of the register tile's width
// (fx-cpu-pack-matmuls; 32 columns with AVX-512, 16 with AVX2): 37 rows
// (whole tiles and a remainder of rows), k = 300 in blocks of 100, a bias
// and GELU fused into the region.
// TOL: rtol=1e-4 atol=1e-4
// REF: F.gelu(F.linear(a0, a1, a2))
func.func @linear_param_panels(%a0: tensor<37x300xf32>, %a1: tensor<96x300xf32> {fx.param = "w"}, %a2: tensor<96xf32> {fx.param = "b"}) -> tensor<37x96xf32> {
  %0 = fx.linear %a0, %a1, %a2 : (tensor<37x300xf32>, tensor<96x300xf32>, tensor<96xf32>) -> tensor<37x96xf32>
  %1 = fx.gelu %0 : (tensor<37x96xf32>) -> tensor<37x96xf32>
  return %1 : tensor<37x96xf32>
}

// Columns beyond the last whole panel (100 = 3 x 32 + 4 with AVX-512,
// 6 x 16 + 4 with AVX2): a remainder matmul by the zero-padded last panel,
// as GPT-2's 50257-token head.
// TOL: rtol=1e-4 atol=1e-4
// REF: F.linear(a0, a1, a2)
func.func @linear_param_remainder(%a0: tensor<37x64xf32>, %a1: tensor<100x64xf32> {fx.param = "w"}, %a2: tensor<100xf32> {fx.param = "b"}) -> tensor<37x100xf32> {
  %0 = fx.linear %a0, %a1, %a2 : (tensor<37x64xf32>, tensor<100x64xf32>, tensor<100xf32>) -> tensor<37x100xf32>
  return %0 : tensor<37x100xf32>
}

// A [K, N] parameter without an epilogue (the panels shared among the
// threads outside a dispatch region).
// TOL: rtol=1e-4 atol=1e-4
// REF: torch.mm(a0, a1)
func.func @mm_param_panels(%a0: tensor<24x64xf32>, %a1: tensor<64x128xf32> {fx.param = "w"}) -> tensor<24x128xf32> {
  %0 = fx.mm %a0, %a1 : (tensor<24x64xf32>, tensor<64x128xf32>) -> tensor<24x128xf32>
  return %0 : tensor<24x128xf32>
}

// A dynamic batch of tokens through a parameter weight, then a ReLU.
// TOL: rtol=1e-4 atol=1e-4
// INPUT a0: np.random.default_rng(5).standard_normal((2, 19, 64))
// REF: F.relu(F.linear(a0, a1, a2))
func.func @linear_param_dynamic(%a0: tensor<?x19x64xf32>, %a1: tensor<128x64xf32> {fx.param = "w"}, %a2: tensor<128xf32> {fx.param = "b"}) -> tensor<?x19x128xf32> {
  %0 = fx.linear %a0, %a1, %a2 : (tensor<?x19x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x19x128xf32>
  %1 = fx.relu %0 : (tensor<?x19x128xf32>) -> tensor<?x19x128xf32>
  return %1 : tensor<?x19x128xf32>
}
