// Constants, filled tensors, ranges, embedding and attention on the CPU
// against PyTorch.
// REQUIRES: torch
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: {{[0-9]+}} passed, 0 failed

// REF: (a0 + torch.tensor([1.0, 2.0, 3.0]), torch.full((2, 3), 0.5) + a0, torch.zeros(2, 3, dtype=torch.int32), torch.ones(4, dtype=torch.bool))
func.func @constants(%a0: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<4xi1>) {
  %c = fx.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = fx.add %a0, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %f = fx.full {fill_value = 0.5 : f64} : tensor<2x3xf32>
  %1 = fx.add %f, %a0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = fx.zeros : tensor<2x3xi32>
  %3 = fx.ones : tensor<4xi1>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<4xi1>
}

// REF: (torch.arange(10) + a0, torch.arange(0.5, 3.0, 0.5), torch.arange(5, -3, -2, dtype=torch.int32))
func.func @arange(%a0: tensor<10xi64>) -> (tensor<10xi64>, tensor<5xf32>, tensor<4xi32>) {
  %r = fx.arange {end = 10.0 : f64} : tensor<10xi64>
  %0 = fx.add %r, %a0 : (tensor<10xi64>, tensor<10xi64>) -> tensor<10xi64>
  %1 = fx.arange {start = 0.5 : f64, end = 3.0 : f64, step = 0.5 : f64} : tensor<5xf32>
  %2 = fx.arange {start = 5.0 : f64, end = -3.0 : f64, step = -2.0 : f64} : tensor<4xi32>
  return %0, %1, %2 : tensor<10xi64>, tensor<5xf32>, tensor<4xi32>
}

// INPUT a1: np.array([[3, 0, 9], [9, 1, 2]])
// REF: F.embedding(a1, a0)
func.func @embedding(%a0: tensor<10x4xf32>, %a1: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %0 = fx.embedding %a0, %a1 : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// PyTorch 1.13 has no public scaled_dot_product_attention: the references
// spell out softmax(q k^T * scale + mask) v.
// TOL: rtol=1e-4 atol=1e-5
// REF: torch.softmax(a0 @ a1.transpose(-1, -2) / 8 ** 0.5, -1) @ a2
func.func @sdpa(%a0: tensor<2x3x5x8xf32>, %a1: tensor<2x3x7x8xf32>, %a2: tensor<2x3x7x4xf32>) -> tensor<2x3x5x4xf32> {
  %0 = fx.scaled_dot_product_attention %a0, %a1, %a2 : (tensor<2x3x5x8xf32>, tensor<2x3x7x8xf32>, tensor<2x3x7x4xf32>) -> tensor<2x3x5x4xf32>
  return %0 : tensor<2x3x5x4xf32>
}

// TOL: rtol=1e-4 atol=1e-5
// REF: torch.softmax((a0 @ a0.transpose(-1, -2) / 8 ** 0.5).masked_fill(torch.ones(6, 6, dtype=torch.bool).triu(1), float("-inf")), -1) @ a1
func.func @sdpa_causal(%a0: tensor<2x6x8xf32>, %a1: tensor<2x6x3xf32>) -> tensor<2x6x3xf32> {
  %0 = fx.scaled_dot_product_attention %a0, %a0, %a1 {is_causal = true} : (tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>) -> tensor<2x6x3xf32>
  return %0 : tensor<2x6x3xf32>
}

// A bool mask and a float mask, with an explicit scale.
// INPUT a3: np.tril(np.ones((4, 6), dtype=bool), 2)
// TOL: rtol=1e-4 atol=1e-5
// REF: (torch.softmax((a0 @ a1.transpose(-1, -2) * 0.5).masked_fill(~a3, float("-inf")), -1) @ a2, torch.softmax(a0 @ a1.transpose(-1, -2) * 0.5 + a4, -1) @ a2)
func.func @sdpa_masks(%a0: tensor<2x4x8xf32>, %a1: tensor<2x6x8xf32>, %a2: tensor<2x6x3xf32>, %a3: tensor<4x6xi1>, %a4: tensor<2x1x6xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>) {
  %0 = fx.scaled_dot_product_attention %a0, %a1, %a2 mask(%a3) {scale = 0.5 : f64} : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>, tensor<4x6xi1>) -> tensor<2x4x3xf32>
  %1 = fx.scaled_dot_product_attention %a0, %a1, %a2 mask(%a4) {scale = 0.5 : f64} : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>, tensor<2x1x6xf32>) -> tensor<2x4x3xf32>
  return %0, %1 : tensor<2x4x3xf32>, tensor<2x4x3xf32>
}
