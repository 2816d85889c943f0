// Shape and data movement ops on the CPU against PyTorch.
// REQUIRES: torch
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: {{[0-9]+}} passed, 0 failed

// REF: (a0.view(-1, 4), a0.reshape(4, 6), a0.t() if a0.dim() == 2 else a0.transpose(0, 2), a0.permute(2, 0, 1))
func.func @views(%a0: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<4x6xf32>, tensor<4x3x2xf32>, tensor<4x2x3xf32>) {
  %0 = fx.view %a0 {size = array<i64: -1, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = fx.view %a0 {size = array<i64: 4, 6>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  %2 = fx.transpose %a0 {dim0 = 0 : i64, dim1 = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %3 = fx.permute %a0 {dims = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0, %1, %2, %3 : tensor<6x4xf32>, tensor<4x6xf32>, tensor<4x3x2xf32>, tensor<4x2x3xf32>
}

// REF: (a0.t(), a0.expand(3, 5, 4).contiguous() if False else a1.expand(2, 5, 3), a0.unsqueeze(1), a0.flatten())
func.func @t_expand_unsqueeze_flatten(%a0: tensor<5x4xf32>, %a1: tensor<5x1xf32>) -> (tensor<4x5xf32>, tensor<2x5x3xf32>, tensor<5x1x4xf32>, tensor<20xf32>) {
  %0 = fx.t %a0 : (tensor<5x4xf32>) -> tensor<4x5xf32>
  %1 = fx.expand %a1 {size = array<i64: 2, -1, 3>} : (tensor<5x1xf32>) -> tensor<2x5x3xf32>
  %2 = fx.unsqueeze %a0 {dim = 1 : i64} : (tensor<5x4xf32>) -> tensor<5x1x4xf32>
  %3 = fx.flatten %a0 : (tensor<5x4xf32>) -> tensor<20xf32>
  return %0, %1, %2, %3 : tensor<4x5xf32>, tensor<2x5x3xf32>, tensor<5x1x4xf32>, tensor<20xf32>
}

// REF: (a0.squeeze(), a0.squeeze(2), a0.flatten(1))
func.func @squeeze(%a0: tensor<3x1x4x1xf32>) -> (tensor<3x4xf32>, tensor<3x1x4x1xf32>, tensor<3x4xf32>) {
  %0 = fx.squeeze %a0 : (tensor<3x1x4x1xf32>) -> tensor<3x4xf32>
  %1 = fx.squeeze %a0 {dim = array<i64: 2>} : (tensor<3x1x4x1xf32>) -> tensor<3x1x4x1xf32>
  %2 = fx.flatten %a0 {start_dim = 1 : i64} : (tensor<3x1x4x1xf32>) -> tensor<3x4xf32>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<3x1x4x1xf32>, tensor<3x4xf32>
}

// REF: (a0[:, 1:-1:2], a0[2:], a0[:, 20:], a0[-3], a0[:, 4])
func.func @slice_select(%a0: tensor<5x10xf32>) -> (tensor<5x4xf32>, tensor<3x10xf32>, tensor<5x0xf32>, tensor<10xf32>, tensor<5xf32>) {
  %0 = fx.slice %a0 {dim = 1 : i64, start = 1 : i64, end = -1 : i64, step = 2 : i64} : (tensor<5x10xf32>) -> tensor<5x4xf32>
  %1 = fx.slice %a0 {start = 2 : i64} : (tensor<5x10xf32>) -> tensor<3x10xf32>
  %2 = fx.slice %a0 {dim = 1 : i64, start = 20 : i64} : (tensor<5x10xf32>) -> tensor<5x0xf32>
  %3 = fx.select %a0 {dim = 0 : i64, index = -3 : i64} : (tensor<5x10xf32>) -> tensor<10xf32>
  %4 = fx.select %a0 {dim = 1 : i64, index = 4 : i64} : (tensor<5x10xf32>) -> tensor<5xf32>
  return %0, %1, %2, %3, %4 : tensor<5x4xf32>, tensor<3x10xf32>, tensor<5x0xf32>, tensor<10xf32>, tensor<5xf32>
}

// REF: (torch.cat([a0, a1], 1), torch.stack([a0, a0], -1), torch.cat([a0, a2.to(torch.float32)], 0))
func.func @cat_stack(%a0: tensor<2x3xf32>, %a1: tensor<2x5xf32>, %a2: tensor<4x3xi64>) -> (tensor<2x8xf32>, tensor<2x3x2xf32>, tensor<6x3xf32>) {
  %0 = fx.cat %a0, %a1 {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %1 = fx.stack %a0, %a0 {dim = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x2xf32>
  %2 = fx.cat %a0, %a2 : (tensor<2x3xf32>, tensor<4x3xi64>) -> tensor<6x3xf32>
  return %0, %1, %2 : tensor<2x8xf32>, tensor<2x3x2xf32>, tensor<6x3xf32>
}

// REF: tuple(torch.split(a0, [2, 4, 1], 1))
func.func @split(%a0: tensor<3x7xf32>) -> (tensor<3x2xf32>, tensor<3x4xf32>, tensor<3x1xf32>) {
  %0:3 = fx.split %a0 {split_sizes = array<i64: 2, 4, 1>, dim = 1 : i64} : (tensor<3x7xf32>) -> (tensor<3x2xf32>, tensor<3x4xf32>, tensor<3x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<3x2xf32>, tensor<3x4xf32>, tensor<3x1xf32>
}

// INPUT a0: np.random.default_rng(10).standard_normal((3, 8))
// REF: (a0.view(-1, 2, 4), a0[1:], a0.transpose(0, 1).contiguous(), a0.flatten())
func.func @dynamic_batch_views(%a0: tensor<?x8xf32>) -> (tensor<?x2x4xf32>, tensor<?x8xf32>, tensor<8x?xf32>, tensor<?xf32>) {
  %0 = fx.view %a0 {size = array<i64: -1, 2, 4>} : (tensor<?x8xf32>) -> tensor<?x2x4xf32>
  %1 = fx.slice %a0 {start = 1 : i64} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %2 = fx.transpose %a0 {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<?x8xf32>) -> tensor<8x?xf32>
  %3 = fx.flatten %a0 : (tensor<?x8xf32>) -> tensor<?xf32>
  return %0, %1, %2, %3 : tensor<?x2x4xf32>, tensor<?x8xf32>, tensor<8x?xf32>, tensor<?xf32>
}
