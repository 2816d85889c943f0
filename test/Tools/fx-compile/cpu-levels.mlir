// CPU code follows the CPU it is compiled for (--cpu), whatever the host:
// vectors of its register width, and a matmul register tile that fits its
// register file. AVX2 (x86-64-v3) has 16 registers of 8 f32: the 6x16 tile
// keeps its 12 accumulators in registers, where the 8x32 tile of AVX-512
// needed 32 and spilled them to the stack on every k step (86 vector
// stack accesses in this function before the tile followed the target).
//
// RUN: fx-compile %s --target cpu --cpu x86-64-v3 --cpu-threads 1 --emit asm -o %t.v3.s
// RUN: FileCheck %s --check-prefix=AVX2 --input-file=%t.v3.s
// RUN: not grep -E 'mm[0-9]+, -?[0-9]*\(%%rsp\)|\(%%rsp\), %%[yz]mm' %t.v3.s
// AVX2: vbroadcastss
// AVX2: vfmadd231ps {{.*}}%ymm
// AVX2-NOT: zmm
//
// AVX-512 (x86-64-v4): 32 registers of 16 f32, an 8x32 tile, no spills.
// RUN: fx-compile %s --target cpu --cpu x86-64-v4 --cpu-threads 1 --emit asm -o %t.v4.s
// RUN: FileCheck %s --check-prefix=AVX512 --input-file=%t.v4.s
// RUN: not grep -E 'mm[0-9]+, -?[0-9]*\(%%rsp\)|\(%%rsp\), %%[yz]mm' %t.v4.s
// AVX512: vfmadd231ps {{.*}}%zmm

func.func @mm(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = fx.mm %a, %b : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
