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

// Positions compared with constants, as Swin's shifted-window mask does:
// an i64 range, and i32 values widened to i64 (comparisons of sign-extended
// values with constants; Mesa 22.3's lavapipe got the 64-bit form wrong:
// arange(16) >= 12 all true).
// INPUT a0: np.arange(-8, 8, dtype=np.int32) * 3
// REF: ((torch.arange(16) >= 12).long() + (torch.arange(16) < 3).long(), a0.long() > -7, a0.long() <= 5)
func.func @positions_vs_constants(%a0: tensor<16xi32>) -> (tensor<16xi64>, tensor<16xi1>, tensor<16xi1>) {
  %r = fx.arange {end = 16.0 : f64} : tensor<16xi64>
  %c12 = fx.constant dense<12> : tensor<i64>
  %c3 = fx.constant dense<3> : tensor<i64>
  %ge = fx.ge %r, %c12 : (tensor<16xi64>, tensor<i64>) -> tensor<16xi1>
  %lt = fx.lt %r, %c3 : (tensor<16xi64>, tensor<i64>) -> tensor<16xi1>
  %g = fx.convert_element_type %ge : (tensor<16xi1>) -> tensor<16xi64>
  %l = fx.convert_element_type %lt : (tensor<16xi1>) -> tensor<16xi64>
  %0 = fx.add %g, %l : (tensor<16xi64>, tensor<16xi64>) -> tensor<16xi64>
  %w = fx.convert_element_type %a0 : (tensor<16xi32>) -> tensor<16xi64>
  %cm7 = fx.constant dense<-7> : tensor<i64>
  %c5 = fx.constant dense<5> : tensor<i64>
  %1 = fx.gt %w, %cm7 : (tensor<16xi64>, tensor<i64>) -> tensor<16xi1>
  %2 = fx.le %w, %c5 : (tensor<16xi64>, tensor<i64>) -> tensor<16xi1>
  return %0, %1, %2 : tensor<16xi64>, tensor<16xi1>, tensor<16xi1>
}

// Two attention biases gathered from parameters alone (work that may run
// once per binding of the weights), each through a permute: the first
// attention must see the first table's rows, not the second's, which the
// Vulkan program once computed into the same temporary at binding time
// (Hugging Face's Swin, two blocks of relative position bias).
// INPUT a5: torch.randint(0, 49, (256,))
// INPUT a6: torch.randint(0, 49, (256,))
// TOL: rtol=1e-4 atol=1e-5
// REF: (F.scaled_dot_product_attention(a0, a1, a2, attn_mask=a3[a5].view(16, 16, 2).permute(2, 0, 1).unsqueeze(0), scale=0.25), a4[a6].view(16, 16, 2).permute(2, 0, 1).unsqueeze(0))
func.func @parameter_biases(%a0: tensor<16x2x16x16xf32>, %a1: tensor<16x2x16x16xf32>, %a2: tensor<16x2x16x16xf32>, %a3: tensor<49x2xf32> {fx.param = "table0"}, %a4: tensor<49x2xf32> {fx.param = "table1"}, %a5: tensor<256xi64> {fx.param = "index0"}, %a6: tensor<256xi64> {fx.param = "index1"}) -> (tensor<16x2x16x16xf32>, tensor<1x2x16x16xf32>) {
  %0 = fx.embedding %a3, %a5 : (tensor<49x2xf32>, tensor<256xi64>) -> tensor<256x2xf32>
  %1 = fx.view %0 {size = array<i64: 16, 16, 2>} : (tensor<256x2xf32>) -> tensor<16x16x2xf32>
  %2 = fx.permute %1 {dims = array<i64: 2, 0, 1>} : (tensor<16x16x2xf32>) -> tensor<2x16x16xf32>
  %3 = fx.unsqueeze %2 {dim = 0 : i64} : (tensor<2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %4 = fx.scaled_dot_product_attention %a0, %a1, %a2 mask(%3) {scale = 0.25 : f64} : (tensor<16x2x16x16xf32>, tensor<16x2x16x16xf32>, tensor<16x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<16x2x16x16xf32>
  %5 = fx.embedding %a4, %a6 : (tensor<49x2xf32>, tensor<256xi64>) -> tensor<256x2xf32>
  %6 = fx.view %5 {size = array<i64: 16, 16, 2>} : (tensor<256x2xf32>) -> tensor<16x16x2xf32>
  %7 = fx.permute %6 {dims = array<i64: 2, 0, 1>} : (tensor<16x16x2xf32>) -> tensor<2x16x16xf32>
  %8 = fx.unsqueeze %7 {dim = 0 : i64} : (tensor<2x16x16xf32>) -> tensor<1x2x16x16xf32>
  return %4, %8 : tensor<16x2x16x16xf32>, tensor<1x2x16x16xf32>
}
