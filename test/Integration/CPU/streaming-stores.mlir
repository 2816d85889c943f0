// Buffers a kernel only writes, at least --streaming-stores bytes large,
// are written with non-temporal stores on x86-64 (fx-cpu-streaming-stores);
// by default the threshold is the last-level cache, so these 512 KiB
// outputs take the path only with a smaller threshold. The numbers must
// not change, for AVX-512 and AVX2 code, on one thread and two.
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s -- --streaming-stores=65536 | FileCheck %s
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s -- --streaming-stores=65536 --cpu x86-64-v3 | FileCheck %s
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s -- --streaming-stores=65536 --num-threads 1 | FileCheck %s
// REQUIRES: torch
// CHECK-NOT: FAIL
// CHECK: 4 passed, 0 failed
//
// The code: non-temporal vector stores and an sfence before returning;
// none with the default threshold (these buffers fit the cache) or off.
// RUN: fx-compile %s --target cpu --entry softmax --streaming-stores=65536 --emit asm -o %t.s
// RUN: FileCheck %s --check-prefix=ASM --input-file=%t.s
// ASM: vmovntps %zmm
// ASM: sfence
// RUN: fx-compile %s --target cpu --entry softmax --cpu x86-64-v3 --streaming-stores=65536 --emit asm -o %t.v3.s
// RUN: FileCheck %s --check-prefix=AVX2 --input-file=%t.v3.s
// AVX2: vmovntps %ymm
// AVX2: sfence
// RUN: fx-compile %s --target cpu --entry softmax --emit asm -o %t.auto.s
// RUN: fx-compile %s --target cpu --entry softmax --streaming-stores=off --emit asm -o %t.off.s
// RUN: not grep -E 'vmovnt|sfence' %t.auto.s %t.off.s
//
// A threshold that is not auto, off or a positive number is an error.
// RUN: not fx-compile %s --target cpu --streaming-stores=lots -o %t.fxa 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not fx-compile %s --target cpu --streaming-stores=0 -o %t.fxa 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: --streaming-stores: expected auto, off or a positive number of bytes, got '{{lots|0}}'

// REF: torch.softmax(a0, -1)
// TOL: rtol=1e-5 atol=1e-7
func.func @softmax(%a0: tensor<64x2048xf32>) -> tensor<64x2048xf32> {
  %0 = fx.softmax %a0 {dim = -1 : i64} : (tensor<64x2048xf32>) -> tensor<64x2048xf32>
  return %0 : tensor<64x2048xf32>
}

// REF: F.layer_norm(a0, (2048,), a1, a2)
// TOL: rtol=1e-4 atol=1e-5
func.func @layer_norm(%a0: tensor<64x2048xf32>, %a1: tensor<2048xf32>, %a2: tensor<2048xf32>) -> tensor<64x2048xf32> {
  %0 = fx.layer_norm %a0 weight(%a1) bias(%a2) {normalized_shape = array<i64: 2048>} : (tensor<64x2048xf32>, tensor<2048xf32>, tensor<2048xf32>) -> tensor<64x2048xf32>
  return %0 : tensor<64x2048xf32>
}

// REF: torch.tanh(torch.relu(a0 * 2 + 1) * a1)
func.func @chain(%a0: tensor<131072xf32>, %a1: tensor<131072xf32>) -> tensor<131072xf32> {
  %two = fx.constant dense<2.0> : tensor<f32>
  %one = fx.constant dense<1.0> : tensor<f32>
  %0 = fx.mul %a0, %two : (tensor<131072xf32>, tensor<f32>) -> tensor<131072xf32>
  %1 = fx.add %0, %one : (tensor<131072xf32>, tensor<f32>) -> tensor<131072xf32>
  %2 = fx.relu %1 : (tensor<131072xf32>) -> tensor<131072xf32>
  %3 = fx.mul %2, %a1 : (tensor<131072xf32>, tensor<131072xf32>) -> tensor<131072xf32>
  %4 = fx.tanh %3 : (tensor<131072xf32>) -> tensor<131072xf32>
  return %4 : tensor<131072xf32>
}

// An odd length: every write of its loop is masked (the last one partial),
// so they stay ordinary stores, under the same threshold.
// REF: a0 * 3 - a1
func.func @odd(%a0: tensor<65539xf32>, %a1: tensor<65539xf32>) -> tensor<65539xf32> {
  %three = fx.constant dense<3.0> : tensor<f32>
  %0 = fx.mul %a0, %three : (tensor<65539xf32>, tensor<f32>) -> tensor<65539xf32>
  %1 = fx.sub %0, %a1 : (tensor<65539xf32>, tensor<65539xf32>) -> tensor<65539xf32>
  return %1 : tensor<65539xf32>
}
