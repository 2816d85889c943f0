// Normalization and softmax on the CPU against PyTorch.
// REQUIRES: torch
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s | FileCheck %s
// Rows long enough for fx-cpu-pipeline-rows, with the non-temporal stores
// of fx-cpu-streaming-stores and over two threads' chunks of rows:
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s --only softmax_long_rows -- --streaming-stores=4096 --num-threads=2 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: {{[0-9]+}} passed, 0 failed

// INPUT a3: np.abs(np.random.default_rng(7).standard_normal(4)) + 0.5
// TOL: rtol=1e-5 atol=1e-5
// REF: F.batch_norm(a0, a2, a3, a1, a4, training=False, eps=1e-5)
func.func @batch_norm(%a0: tensor<2x4x3x3xf32>, %a1: tensor<4xf32>, %a2: tensor<4xf32>, %a3: tensor<4xf32>, %a4: tensor<4xf32>) -> tensor<2x4x3x3xf32> {
  %0 = fx.batch_norm %a0, %a2, %a3 weight(%a1) bias(%a4) : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  return %0 : tensor<2x4x3x3xf32>
}

// INPUT a2: np.abs(np.random.default_rng(8).standard_normal(3)) + 0.5
// TOL: rtol=1e-5 atol=1e-5
// REF: F.batch_norm(a0, a1, a2, training=False, eps=1e-3)
func.func @batch_norm_no_affine(%a0: tensor<5x3xf32>, %a1: tensor<3xf32>, %a2: tensor<3xf32>) -> tensor<5x3xf32> {
  %0 = fx.batch_norm %a0, %a1, %a2 {eps = 1.0e-3 : f64} : (tensor<5x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// TOL: rtol=1e-4 atol=1e-5
// REF: F.layer_norm(a0, (16,), a1, a2)
func.func @layer_norm(%a0: tensor<2x5x16xf32>, %a1: tensor<16xf32>, %a2: tensor<16xf32>) -> tensor<2x5x16xf32> {
  %0 = fx.layer_norm %a0 weight(%a1) bias(%a2) {normalized_shape = array<i64: 16>} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  return %0 : tensor<2x5x16xf32>
}

// TOL: rtol=1e-4 atol=1e-5
// Mean and variance in two passes: rows with a large mean (1000) keep their
// precision (a one-pass E[x^2] - E[x]^2 would lose it to cancellation), and
// over one element x - mean is exactly 0, so the result is the bias exactly.
// INPUT a0: np.random.default_rng(7).standard_normal((4, 64)).astype(np.float32) + 1000
// INPUT a1: np.array([1000.5], dtype=np.float32)
// INPUT a2: np.array([-8.4034023], dtype=np.float32)
// TOL: rtol=1e-3 atol=3e-4
// REF: (F.layer_norm(a0, (64,)), F.layer_norm(a1, (1,), torch.tensor([0.7]), a2))
func.func @layer_norm_large_mean(%a0: tensor<4x64xf32>, %a1: tensor<1xf32>, %a2: tensor<1xf32>) -> (tensor<4x64xf32>, tensor<1xf32>) {
  %0 = fx.layer_norm %a0 {normalized_shape = array<i64: 64>} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %w = fx.constant dense<0.7> : tensor<1xf32>
  %1 = fx.layer_norm %a1 weight(%w) bias(%a2) {normalized_shape = array<i64: 1>} : (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  return %0, %1 : tensor<4x64xf32>, tensor<1xf32>
}

// REF: F.layer_norm(a0, (5, 6), eps=1e-6)
func.func @layer_norm_2d_no_affine(%a0: tensor<3x5x6xf32>) -> tensor<3x5x6xf32> {
  %0 = fx.layer_norm %a0 {eps = 1.0e-6 : f64, normalized_shape = array<i64: 5, 6>} : (tensor<3x5x6xf32>) -> tensor<3x5x6xf32>
  return %0 : tensor<3x5x6xf32>
}

// TOL: rtol=1e-5 atol=1e-6
// REF: (torch.softmax(a0, -1), torch.softmax(a0, 0), torch.log_softmax(a0, 1))
func.func @softmax(%a0: tensor<4x7xf32>) -> (tensor<4x7xf32>, tensor<4x7xf32>, tensor<4x7xf32>) {
  %0 = fx.softmax %a0 {dim = -1 : i64} : (tensor<4x7xf32>) -> tensor<4x7xf32>
  %1 = fx.softmax %a0 {dim = 0 : i64} : (tensor<4x7xf32>) -> tensor<4x7xf32>
  %2 = fx.log_softmax %a0 {dim = 1 : i64} : (tensor<4x7xf32>) -> tensor<4x7xf32>
  return %0, %1, %2 : tensor<4x7xf32>, tensor<4x7xf32>, tensor<4x7xf32>
}

// Large logits must not overflow: softmax subtracts the row maximum.
// INPUT a0: np.array([[1000.0, 1001.0, 999.0], [-1000.0, 0.0, 1000.0]])
// REF: torch.softmax(a0, -1)
func.func @softmax_stable(%a0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = fx.softmax %a0 {dim = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Rows of 512 (32 vector steps: fx-cpu-pipeline-rows writes each row's
// results during the next row's exps): an odd number of rows, a single
// row (no steady state: the first row's loops, then its last loop), and
// rows of large logits and of -inf ones (their exp is 0).
// INPUT a2: np.where(np.arange(1024).reshape(2, 512) % 3 == 0, -np.inf, np.random.default_rng(3).standard_normal((2, 512)) * 40).astype(np.float32)
// TOL: rtol=1e-5 atol=1e-7
// REF: (torch.softmax(a0, -1), torch.log_softmax(a0, -1), torch.softmax(a1, -1), torch.softmax(a2, -1))
func.func @softmax_long_rows(%a0: tensor<5x512xf32>, %a1: tensor<1x512xf32>, %a2: tensor<2x512xf32>) -> (tensor<5x512xf32>, tensor<5x512xf32>, tensor<1x512xf32>, tensor<2x512xf32>) {
  %0 = fx.softmax %a0 {dim = -1 : i64} : (tensor<5x512xf32>) -> tensor<5x512xf32>
  %1 = fx.log_softmax %a0 {dim = -1 : i64} : (tensor<5x512xf32>) -> tensor<5x512xf32>
  %2 = fx.softmax %a1 {dim = -1 : i64} : (tensor<1x512xf32>) -> tensor<1x512xf32>
  %3 = fx.softmax %a2 {dim = -1 : i64} : (tensor<2x512xf32>) -> tensor<2x512xf32>
  return %0, %1, %2, %3 : tensor<5x512xf32>, tensor<5x512xf32>, tensor<1x512xf32>, tensor<2x512xf32>
}

// TOL: rtol=2e-3 atol=2e-3
// REF: torch.softmax(a0.float(), -1).half()
func.func @softmax_f16(%a0: tensor<3x10xf16>) -> tensor<3x10xf16> {
  %0 = fx.softmax %a0 {dim = -1 : i64} : (tensor<3x10xf16>) -> tensor<3x10xf16>
  return %0 : tensor<3x10xf16>
}
