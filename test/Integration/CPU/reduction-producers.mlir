// Reductions of values that do not vary along the reduced dimension:
// constants (fx.ones, fx.full, folded into the reduction as a scalar) and
// broadcasts, for every reduction op, fused (the default), unfused and
// unvectorized. The sum of ones over a row of 4 once came out as 1 on the
// vectorized path. Each result is added to an input so that no reference
// is constant. The same file runs on Vulkan in ../Vulkan/ops.test.
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s | FileCheck %s
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s -- --no-fusion | FileCheck %s
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s -- --no-vectorize | FileCheck %s
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s -- --no-dispatch-regions | FileCheck %s
// REQUIRES: torch
// CHECK-NOT: FAIL
// CHECK: 6 passed, 0 failed

// REF: (torch.ones(8, 4).sum(1) + a0, torch.ones(8, 4).mean(1) + a0, torch.ones(8, 4).amax(1) + a0, torch.ones(8, 4).amin(1) + a0)
func.func @reduce_ones(%a0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %c = fx.ones : tensor<8x4xf32>
  %0 = fx.sum %c {dim = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8xf32>
  %1 = fx.mean %c {dim = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8xf32>
  %2 = fx.amax %c {dim = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8xf32>
  %3 = fx.amin %c {dim = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8xf32>
  %r0 = fx.add %0, %a0 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %r1 = fx.add %1, %a0 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %r2 = fx.add %2, %a0 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %r3 = fx.add %3, %a0 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %r0, %r1, %r2, %r3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// A full reduction of a 37x70 constant (vector and remainder parts) and a
// reduction over the leading dimension.
// TOL: rtol=1e-5 atol=1e-4
// REF: (torch.full((37, 70), 0.5).sum() + a0, torch.full((37, 70), 0.5).sum(0) + a1, torch.full((37, 70), 0.5).mean((0, 1), keepdim=True) + a0)
func.func @reduce_full(%a0: tensor<f32>, %a1: tensor<70xf32>) -> (tensor<f32>, tensor<70xf32>, tensor<1x1xf32>) {
  %c = fx.full {fill_value = 0.5 : f64} : tensor<37x70xf32>
  %0 = fx.sum %c : (tensor<37x70xf32>) -> tensor<f32>
  %1 = fx.sum %c {dim = array<i64: 0>} : (tensor<37x70xf32>) -> tensor<70xf32>
  %2 = fx.mean %c {dim = array<i64: 0, 1>, keepdim = true} : (tensor<37x70xf32>) -> tensor<1x1xf32>
  %r0 = fx.add %0, %a0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %r1 = fx.add %1, %a1 : (tensor<70xf32>, tensor<70xf32>) -> tensor<70xf32>
  %r2 = fx.add %2, %a0 : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
  return %r0, %r1, %r2 : tensor<f32>, tensor<70xf32>, tensor<1x1xf32>
}

// Integer sums of ones (what PyTorch's decompositions emit to count
// elements for a mean or a variance).
// REF: (torch.ones(2, dtype=torch.int64).sum() + a0, torch.ones(3, 5, dtype=torch.int64).sum(1) + a1)
func.func @sum_ones_i64(%a0: tensor<i64>, %a1: tensor<3xi64>) -> (tensor<i64>, tensor<3xi64>) {
  %c = fx.ones : tensor<2xi64>
  %0 = fx.sum %c : (tensor<2xi64>) -> tensor<i64>
  %d = fx.ones : tensor<3x5xi64>
  %1 = fx.sum %d {dim = array<i64: 1>} : (tensor<3x5xi64>) -> tensor<3xi64>
  %r0 = fx.add %0, %a0 : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %r1 = fx.add %1, %a1 : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %r0, %r1 : tensor<i64>, tensor<3xi64>
}

// Broadcasts along the reduced dimension.
// TOL: rtol=1e-5 atol=1e-5
// REF: (a0.expand(8, 20).sum(1), a0.expand(8, 20).mean(1), a0.expand(8, 20).amax(1), a0.expand(8, 20).amin(1))
func.func @reduce_broadcast(%a0: tensor<8x1xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %b = fx.expand %a0 {size = array<i64: 8, 20>} : (tensor<8x1xf32>) -> tensor<8x20xf32>
  %0 = fx.sum %b {dim = array<i64: 1>} : (tensor<8x20xf32>) -> tensor<8xf32>
  %1 = fx.mean %b {dim = array<i64: 1>} : (tensor<8x20xf32>) -> tensor<8xf32>
  %2 = fx.amax %b {dim = array<i64: 1>} : (tensor<8x20xf32>) -> tensor<8xf32>
  %3 = fx.amin %b {dim = array<i64: 1>} : (tensor<8x20xf32>) -> tensor<8xf32>
  return %0, %1, %2, %3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// A scalar broadcast to a whole tensor, then reduced entirely.
// TOL: rtol=1e-5 atol=1e-5
// REF: (a0.expand(3, 4).sum(), a0.expand(3, 4).mean() * a1)
func.func @reduce_scalar_broadcast(%a0: tensor<f32>, %a1: tensor<5xf32>) -> (tensor<f32>, tensor<5xf32>) {
  %b = fx.expand %a0 {size = array<i64: 3, 4>} : (tensor<f32>) -> tensor<3x4xf32>
  %0 = fx.sum %b : (tensor<3x4xf32>) -> tensor<f32>
  %1 = fx.mean %b : (tensor<3x4xf32>) -> tensor<f32>
  %2 = fx.mul %1, %a1 : (tensor<f32>, tensor<5xf32>) -> tensor<5xf32>
  return %0, %2 : tensor<f32>, tensor<5xf32>
}

// A constant and an input summed together: the reduced value varies.
// TOL: rtol=1e-5 atol=1e-5
// REF: ((torch.ones(6, 9) + a0).sum(1), (torch.ones(6, 9) * 3).sum(1) + a1)
func.func @reduce_mixed(%a0: tensor<6x9xf32>, %a1: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %c = fx.ones : tensor<6x9xf32>
  %s = fx.add %c, %a0 : (tensor<6x9xf32>, tensor<6x9xf32>) -> tensor<6x9xf32>
  %0 = fx.sum %s {dim = array<i64: 1>} : (tensor<6x9xf32>) -> tensor<6xf32>
  %k = fx.full {fill_value = 3.0 : f64} : tensor<6x9xf32>
  %t = fx.mul %c, %k : (tensor<6x9xf32>, tensor<6x9xf32>) -> tensor<6x9xf32>
  %1 = fx.sum %t {dim = array<i64: 1>} : (tensor<6x9xf32>) -> tensor<6xf32>
  %r1 = fx.add %1, %a1 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  return %0, %r1 : tensor<6xf32>, tensor<6xf32>
}
