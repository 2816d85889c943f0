// fx-compile --fusion-report for Vulkan remarks, at each matmul's and
// convolution's source location, the kernel it became: on a target with
// tensor cores, cooperative matrices where the output fills the GPU, the
// SIMT kernel (with the reason) where it does not; without them, the SIMT
// kernel alone.
// RUN: fx-compile %s --target vulkan --vulkan-target nvidia-h200 --fusion-report -o %t.fxa 2>&1 | FileCheck %s --check-prefix=H200
// RUN: fx-compile %s --target vulkan --vulkan-target vulkan13 --fusion-report -o %t.fxa 2>&1 | FileCheck %s --check-prefix=GENERIC
// Without the flag: no remarks.
// RUN: fx-compile %s --target vulkan --vulkan-target nvidia-h200 -o %t.fxa 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET

// (The plain f16 matmul kernel comes first, and says why not.)
// H200: model.py:2:1: remark: not mapped onto cooperative matrices: not f16 x f16 or bf16 x bf16 into f32
// H200: model.py:2:1: remark: cooperative-matrix GEMM: 2048x2048x256 on bf16x3 fragments, 128x128 tiles, k step 16
// H200: model.py:2:1: remark: fused into the kernel: zero initial value
// H200: model.py:3:1: remark: not on the tensor cores: only 4 64x64 output tiles
// H200: model.py:3:1: remark: tiled matmul: 196x64x384 in 64x64 output tiles, k step 16, 256 threads of 4x4, k split 12 ways
// GENERIC: model.py:2:1: remark: tiled matmul: 2048x2048x256 in 128x128 output tiles, k step 8, 256 threads of 8x8
// GENERIC: model.py:3:1: remark: tiled matmul: 196x64x384
// QUIET-NOT: remark
func.func @two(%a: tensor<2048x256xf32>, %b: tensor<256x2048xf32>,
               %x: tensor<196x384xf32>, %w: tensor<384x64xf32>)
    -> (tensor<2048x2048xf32>, tensor<196x64xf32>) {
  %0 = fx.mm %a, %b : (tensor<2048x256xf32>, tensor<256x2048xf32>) -> tensor<2048x2048xf32> loc("model.py":2:1)
  %1 = fx.mm %x, %w : (tensor<196x384xf32>, tensor<384x64xf32>) -> tensor<196x64xf32> loc("model.py":3:1)
  return %0, %1 : tensor<2048x2048xf32>, tensor<196x64xf32>
}
