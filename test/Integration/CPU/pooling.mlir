// Pooling on the CPU against PyTorch.
// REQUIRES: torch
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s | FileCheck %s
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s -- --cpu x86-64-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: {{[0-9]+}} passed, 0 failed

// REF: F.max_pool2d(a0, 3, 2, 1)
func.func @max_pool_resnet_stem(%a0: tensor<1x4x15x15xf32>) -> tensor<1x4x8x8xf32> {
  %0 = fx.max_pool2d %a0 {dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x15x15xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// REF: F.max_pool2d(a0, 2, 2, ceil_mode=True)
func.func @max_pool_ceil_rank3(%a0: tensor<3x7x5xf32>) -> tensor<3x4x3xf32> {
  %0 = fx.max_pool2d %a0 {ceil_mode = true, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<3x7x5xf32>) -> tensor<3x4x3xf32>
  return %0 : tensor<3x4x3xf32>
}

// REF: F.max_pool2d(a0, 3, 1, 1, dilation=2)
func.func @max_pool_dilated(%a0: tensor<2x2x9x9xf32>) -> tensor<2x2x7x7xf32> {
  %0 = fx.max_pool2d %a0 {dilation = array<i64: 2, 2>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x2x9x9xf32>) -> tensor<2x2x7x7xf32>
  return %0 : tensor<2x2x7x7xf32>
}

// REF: F.max_pool2d(a0, 3, 2, 1, return_indices=True)
func.func @max_pool_with_indices(%a0: tensor<1x3x9x9xf32>) -> (tensor<1x3x5x5xf32>, tensor<1x3x5x5xi64>) {
  %0:2 = fx.max_pool2d_with_indices %a0 {dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x3x9x9xf32>) -> (tensor<1x3x5x5xf32>, tensor<1x3x5x5xi64>)
  return %0#0, %0#1 : tensor<1x3x5x5xf32>, tensor<1x3x5x5xi64>
}

// TOL: rtol=1e-5 atol=1e-6
// REF: (F.avg_pool2d(a0, 3, 2, 1), F.avg_pool2d(a0, 3, 2, 1, count_include_pad=False), F.avg_pool2d(a0, 2, 2, ceil_mode=True), F.avg_pool2d(a0, 3, 2, 1, divisor_override=5))
func.func @avg_pool(%a0: tensor<2x3x7x7xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) {
  %0 = fx.avg_pool2d %a0 {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x3x7x7xf32>) -> tensor<2x3x4x4xf32>
  %1 = fx.avg_pool2d %a0 {count_include_pad = false, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x3x7x7xf32>) -> tensor<2x3x4x4xf32>
  %2 = fx.avg_pool2d %a0 {ceil_mode = true, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<2x3x7x7xf32>) -> tensor<2x3x4x4xf32>
  %3 = fx.avg_pool2d %a0 {divisor_override = 5 : i64, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x3x7x7xf32>) -> tensor<2x3x4x4xf32>
  return %0, %1, %2, %3 : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>
}

// TOL: rtol=1e-5 atol=1e-6
// REF: (F.adaptive_avg_pool2d(a0, 1), F.adaptive_avg_pool2d(a0, (3, 2)), F.adaptive_avg_pool2d(a0, (7, 5)))
func.func @adaptive_avg_pool(%a0: tensor<2x4x7x5xf32>) -> (tensor<2x4x1x1xf32>, tensor<2x4x3x2xf32>, tensor<2x4x7x5xf32>) {
  %0 = fx.adaptive_avg_pool2d %a0 {output_size = array<i64: 1, 1>} : (tensor<2x4x7x5xf32>) -> tensor<2x4x1x1xf32>
  %1 = fx.adaptive_avg_pool2d %a0 {output_size = array<i64: 3, 2>} : (tensor<2x4x7x5xf32>) -> tensor<2x4x3x2xf32>
  %2 = fx.adaptive_avg_pool2d %a0 {output_size = array<i64: 7, 5>} : (tensor<2x4x7x5xf32>) -> tensor<2x4x7x5xf32>
  return %0, %1, %2 : tensor<2x4x1x1xf32>, tensor<2x4x3x2xf32>, tensor<2x4x7x5xf32>
}

// The CPU's vectorized pooling tiles (a block of channels by one vector of
// output columns, one window position): 20 channels are a full block and a
// partial one, 37 columns two vectors and a remainder at stride 1; at
// stride 2 every other lane of a contiguous read.
// TOL: rtol=1e-5 atol=1e-6
// REF: (F.max_pool2d(a0, 3, 1, 1), F.max_pool2d(a0, 3, 2, 1), F.avg_pool2d(a0, 3, 1, 1), F.avg_pool2d(a0, 2, 2))
func.func @pool_cpu_tiles(%a0: tensor<1x20x6x37xf32>) -> (tensor<1x20x6x37xf32>, tensor<1x20x3x19xf32>, tensor<1x20x6x37xf32>, tensor<1x20x3x18xf32>) {
  %0 = fx.max_pool2d %a0 {dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x20x6x37xf32>) -> tensor<1x20x6x37xf32>
  %1 = fx.max_pool2d %a0 {dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x20x6x37xf32>) -> tensor<1x20x3x19xf32>
  %2 = fx.avg_pool2d %a0 {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x20x6x37xf32>) -> tensor<1x20x6x37xf32>
  %3 = fx.avg_pool2d %a0 {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x20x6x37xf32>) -> tensor<1x20x3x18xf32>
  return %0, %1, %2, %3 : tensor<1x20x6x37xf32>, tensor<1x20x3x19xf32>, tensor<1x20x6x37xf32>, tensor<1x20x3x18xf32>
}

// Pooling tiles of a few channels, a few output rows and the whole window
// (as depthwise convolutions'): 6 channels are a block of 4 and one of 2, 7
// output rows one of 4 and one of 3; NaNs propagate to every window that
// holds one (in the first tap of a window, in its last, and alone in a
// corner), as in eager PyTorch; -inf inputs stay -inf.
// INPUT a0: (lambda t: (t.view(-1).__setitem__([0, 45, 200, 431, 777], float("nan")), t.view(-1).__setitem__([5, 300], float("-inf")), t)[2])(torch.randn(2, 6, 14, 37))
// REF: (F.max_pool2d(a0, 3, 2, 1), F.max_pool2d(a0, 3, 1, 1), F.avg_pool2d(a0, 2, 2))
func.func @pool_row_tiles_nan(%a0: tensor<2x6x14x37xf32>) -> (tensor<2x6x7x19xf32>, tensor<2x6x14x37xf32>, tensor<2x6x7x18xf32>) {
  %0 = fx.max_pool2d %a0 {dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x14x37xf32>) -> tensor<2x6x7x19xf32>
  %1 = fx.max_pool2d %a0 {dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x6x14x37xf32>) -> tensor<2x6x14x37xf32>
  %2 = fx.avg_pool2d %a0 {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<2x6x14x37xf32>) -> tensor<2x6x7x18xf32>
  return %0, %1, %2 : tensor<2x6x7x19xf32>, tensor<2x6x14x37xf32>, tensor<2x6x7x18xf32>
}
