// Code generation follows a scheduling model (--tune-cpu, default auto: the
// CPU compiled for). LLVM 22's Zen 4 and Zen 5 models make the machine
// scheduler hoist a register tile's broadcasts far above their FMAs, and the
// accumulators spill: for those, auto tunes for Zen 3, whose model keeps
// the same AVX-512 instructions in registers (resnet18 on a Zen 5 EPYC:
// 17.0 -> 10.6 ms).
//
// RUN: fx-compile %s --target cpu --cpu znver5 --cpu-threads 1 --emit asm -o %t.auto.s
// RUN: FileCheck %s --check-prefix=AVX512 --input-file=%t.auto.s
// RUN: not grep -E 'mm[0-9]+, -?[0-9]*\(%%rsp\)|\(%%rsp\), %%[yz]mm' %t.auto.s
// AVX512: vfmadd231ps {{.*}}%zmm
//
// Tuned for Zen 5 itself, the same code spills (if LLVM stops doing so,
// `auto` can follow the CPU again).
// RUN: fx-compile %s --target cpu --cpu znver5 --tune-cpu znver5 --cpu-threads 1 --emit asm -o %t.zen5.s
// RUN: grep -qE 'mm[0-9]+, -?[0-9]*\(%%rsp\)|\(%%rsp\), %%[yz]mm' %t.zen5.s
//
// The tuning is each function's "tune-cpu"; other CPUs keep their own.
// RUN: fx-compile %s --target cpu --cpu znver5 --cpu-threads 1 --emit llvm-ir -o - | FileCheck %s --check-prefix=ZEN
// ZEN: "tune-cpu"="znver3"
// RUN: fx-compile %s --target cpu --cpu x86-64-v4 --cpu-threads 1 --emit llvm-ir -o - | FileCheck %s --check-prefix=V4
// V4-NOT: tune-cpu
// RUN: fx-compile %s --target cpu --cpu x86-64-v4 --tune-cpu generic --cpu-threads 1 --emit llvm-ir -o - | FileCheck %s --check-prefix=GENERIC
// GENERIC: "tune-cpu"="generic"
//
// RUN: not fx-compile %s --target cpu --tune-cpu zen99 -o %t.fxa 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: unknown --tune-cpu 'zen99' (expected auto or an LLVM CPU name such as znver3, x86-64-v4, generic)

// A 3x3 convolution by a parameter (packed once, in the prepare function)
// with a ReLU epilogue: one block of 32 output channels, so that no
// prefetch of a next block (fx-cpu-prefetch-packed-filters, a branch in the
// hot loop) splits the region LLVM's scheduler reorders.
func.func @conv(%w: tensor<32x64x3x3xf32> {fx.param = "w"}, %x: tensor<1x64x56x56xf32>) -> tensor<1x32x56x56xf32> {
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x64x56x56xf32>, tensor<32x64x3x3xf32>) -> tensor<1x32x56x56xf32>
  %1 = fx.relu %0 : (tensor<1x32x56x56xf32>) -> tensor<1x32x56x56xf32>
  return %1 : tensor<1x32x56x56xf32>
}
