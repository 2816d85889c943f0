// CPU code of a module with many functions (here nine outlined parallel
// chunks) is generated in a fixed number of partitions on a thread pool
// (compileCPUCode): the artifact must not depend on how the threads ran
// (two compiles give the same bytes) and must compute the same numbers.
//
// RUN: fx-compile %s --target cpu --no-fusion --emit llvm-ir -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// CHECK-COUNT-9: define {{.*}}@__fx_forall_trampoline_
//
// RUN: fx-compile %s --target cpu --no-fusion -o %t.a.fxa
// RUN: fx-compile %s --target cpu --no-fusion -o %t.b.fxa
// RUN: cmp %t.a.fxa %t.b.fxa
// RUN: %python -c "import numpy as np; x = np.linspace(-1, 1, 512 * 256, dtype=np.float32).reshape(512, 256); np.save('%t.x.npy', x); np.save('%t.ref.npy', np.maximum(x * 256, 0))"
// RUN: fxrt-run %t.a.fxa --input %t.x.npy --expect %t.ref.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=EXPECT
// EXPECT: PASS

func.func @chain(%x: tensor<512x256xf32>) -> tensor<512x256xf32> {
  %0 = fx.add %x, %x : (tensor<512x256xf32>, tensor<512x256xf32>) -> tensor<512x256xf32>
  %1 = fx.add %0, %0 : (tensor<512x256xf32>, tensor<512x256xf32>) -> tensor<512x256xf32>
  %2 = fx.add %1, %1 : (tensor<512x256xf32>, tensor<512x256xf32>) -> tensor<512x256xf32>
  %3 = fx.add %2, %2 : (tensor<512x256xf32>, tensor<512x256xf32>) -> tensor<512x256xf32>
  %4 = fx.add %3, %3 : (tensor<512x256xf32>, tensor<512x256xf32>) -> tensor<512x256xf32>
  %5 = fx.add %4, %4 : (tensor<512x256xf32>, tensor<512x256xf32>) -> tensor<512x256xf32>
  %6 = fx.add %5, %5 : (tensor<512x256xf32>, tensor<512x256xf32>) -> tensor<512x256xf32>
  %7 = fx.add %6, %6 : (tensor<512x256xf32>, tensor<512x256xf32>) -> tensor<512x256xf32>
  %8 = fx.relu %7 : (tensor<512x256xf32>) -> tensor<512x256xf32>
  return %8 : tensor<512x256xf32>
}
