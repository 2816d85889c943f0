// Reductions on the CPU against PyTorch.
// REQUIRES: torch
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: {{[0-9]+}} passed, 0 failed

// TOL: rtol=1e-5 atol=1e-5
// REF: (torch.sum(a0), torch.sum(a0, (0, 2), keepdim=True), torch.sum(a0, -1))
func.func @sum(%a0: tensor<3x4x5xf32>) -> (tensor<f32>, tensor<1x4x1xf32>, tensor<3x4xf32>) {
  %0 = fx.sum %a0 : (tensor<3x4x5xf32>) -> tensor<f32>
  %1 = fx.sum %a0 {dim = array<i64: 0, 2>, keepdim = true} : (tensor<3x4x5xf32>) -> tensor<1x4x1xf32>
  %2 = fx.sum %a0 {dim = array<i64: -1>} : (tensor<3x4x5xf32>) -> tensor<3x4xf32>
  return %0, %1, %2 : tensor<f32>, tensor<1x4x1xf32>, tensor<3x4xf32>
}

// REF: (torch.sum(a0, 1), torch.sum(a1))
func.func @sum_int_and_bool(%a0: tensor<4x6xi32>, %a1: tensor<9xi1>) -> (tensor<4xi64>, tensor<i64>) {
  %0 = fx.sum %a0 {dim = array<i64: 1>} : (tensor<4x6xi32>) -> tensor<4xi64>
  %1 = fx.sum %a1 : (tensor<9xi1>) -> tensor<i64>
  return %0, %1 : tensor<4xi64>, tensor<i64>
}

// TOL: rtol=1e-5 atol=1e-6
// REF: (torch.mean(a0, (-1, -2), keepdim=True), torch.mean(a0), torch.mean(a1, 1, dtype=torch.float32))
func.func @mean(%a0: tensor<2x3x4x5xf32>, %a1: tensor<3x8xi64>) -> (tensor<2x3x1x1xf32>, tensor<f32>, tensor<3xf32>) {
  %0 = fx.mean %a0 {dim = array<i64: -1, -2>, keepdim = true} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  %1 = fx.mean %a0 : (tensor<2x3x4x5xf32>) -> tensor<f32>
  %2 = fx.mean %a1 {dim = array<i64: 1>, dtype = f32} : (tensor<3x8xi64>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<2x3x1x1xf32>, tensor<f32>, tensor<3xf32>
}

// REF: (torch.amax(a0, 1), torch.amin(a0, (0, 1), keepdim=True), torch.amax(a1, 0))
func.func @amax_amin(%a0: tensor<4x5x3xf32>, %a1: tensor<6x2xi64>) -> (tensor<4x3xf32>, tensor<1x1x3xf32>, tensor<2xi64>) {
  %0 = fx.amax %a0 {dim = array<i64: 1>} : (tensor<4x5x3xf32>) -> tensor<4x3xf32>
  %1 = fx.amin %a0 {dim = array<i64: 0, 1>, keepdim = true} : (tensor<4x5x3xf32>) -> tensor<1x1x3xf32>
  %2 = fx.amax %a1 {dim = array<i64: 0>} : (tensor<6x2xi64>) -> tensor<2xi64>
  return %0, %1, %2 : tensor<4x3xf32>, tensor<1x1x3xf32>, tensor<2xi64>
}

// TOL: rtol=1e-5 atol=1e-5
// INPUT a0: np.random.default_rng(9).standard_normal((5, 6))
// REF: torch.sum(a0, 1)
func.func @sum_dynamic_batch(%a0: tensor<?x6xf32>) -> tensor<?xf32> {
  %0 = fx.sum %a0 {dim = array<i64: 1>} : (tensor<?x6xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// Sibling reductions (one generic after horizontal fusion) and ones that
// must stay apart.
// TOL: rtol=1e-5 atol=1e-5
// REF: (torch.sum(a0, 1), torch.amax(a0, 1), torch.mean(a0, 1), torch.amin(a0, 0), torch.nn.functional.layer_norm(a0, (33,)))
func.func @siblings(%a0: tensor<17x33xf32>) -> (tensor<17xf32>, tensor<17xf32>, tensor<17xf32>, tensor<33xf32>, tensor<17x33xf32>) {
  %0 = fx.sum %a0 {dim = array<i64: 1>} : (tensor<17x33xf32>) -> tensor<17xf32>
  %1 = fx.amax %a0 {dim = array<i64: 1>} : (tensor<17x33xf32>) -> tensor<17xf32>
  %2 = fx.mean %a0 {dim = array<i64: 1>} : (tensor<17x33xf32>) -> tensor<17xf32>
  %3 = fx.amin %a0 {dim = array<i64: 0>} : (tensor<17x33xf32>) -> tensor<33xf32>
  %4 = fx.layer_norm %a0 {normalized_shape = array<i64: 33>} : (tensor<17x33xf32>) -> tensor<17x33xf32>
  return %0, %1, %2, %3, %4 : tensor<17xf32>, tensor<17xf32>, tensor<17xf32>, tensor<33xf32>, tensor<17x33xf32>
}

// Rows shorter than a GPU row kernel's workgroup: the threads past the row's
// end contribute the reduction's init value (-inf, +inf), never whatever an
// uninitialized loop result holds (all-negative rows catch a 0 leaking into
// amax, all-positive ones into amin).
// INPUT a0: -np.abs(np.random.default_rng(11).standard_normal((4, 7))) - 1.0
// INPUT a1: np.abs(np.random.default_rng(12).standard_normal((3, 5))) + 1.0
// REF: (torch.amax(a0, -1), torch.amin(a1, -1))
func.func @short_rows(%a0: tensor<4x7xf32>, %a1: tensor<3x5xf32>) -> (tensor<4xf32>, tensor<3xf32>) {
  %0 = fx.amax %a0 {dim = array<i64: 1>} : (tensor<4x7xf32>) -> tensor<4xf32>
  %1 = fx.amin %a1 {dim = array<i64: 1>} : (tensor<3x5xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<4xf32>, tensor<3xf32>
}
