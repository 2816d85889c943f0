// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fx-map-matmuls-to-gpu{cooperative-matrix=true}))' | FileCheck %s
// RUN: fx-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(fx-map-matmuls-to-gpu{cooperative-matrix=true report=true}))' > /dev/null

// An f16 matmul into f32: one 32-lane workgroup (one subgroup) per 64x64
// output tile; it loads its 4x4 accumulator fragments from the output, runs
// k in steps of 16 (4 A and 4 B fragments, 16 mma), and stores the
// fragments back.
// CHECK-LABEL: func.func @matmul_f16
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C4]], %{{.*}} = %[[C2]], %{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C32]]
// CHECK-COUNT-16: gpu.subgroup_mma_load_matrix %arg2{{.*}} {leadDimension = 256 : index} : memref<128x256xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %arg0{{.*}} {leadDimension = 32 : index} : memref<128x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %arg1{{.*}} {leadDimension = 256 : index} : memref<32x256xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-COUNT-16: gpu.subgroup_mma_compute
// CHECK: scf.yield
// CHECK-COUNT-16: gpu.subgroup_mma_store_matrix %{{.*}}, %arg2{{.*}} {leadDimension = 256 : index}
// CHECK: gpu.terminator
// CHECK-NOT: linalg.matmul
func.func @matmul_f16(%a: memref<128x32xf16>, %b: memref<32x256xf16>, %c: memref<128x256xf32>) {
  // expected-remark @below {{cooperative-matrix matmul: 16x16x16 f16 fragments, 64x64 tiles of one subgroup}}
  linalg.matmul ins(%a, %b : memref<128x32xf16>, memref<32x256xf16>) outs(%c : memref<128x256xf32>)
  return
}

// -----

// Sizes off the 64x64 tiles and f32 operands keep the shared-memory kernel.
// CHECK-LABEL: func.func @not_cooperative
// CHECK-NOT: gpu.subgroup_mma
// CHECK: gpu.launch
// CHECK-NOT: gpu.subgroup_mma
func.func @not_cooperative(%a: memref<100x32xf16>, %b: memref<32x256xf16>, %c: memref<100x256xf32>,
                           %x: memref<128x32xf32>, %y: memref<32x256xf32>, %z: memref<128x256xf32>) {
  // expected-remark @below {{not mapped onto cooperative matrices: M and N must be multiples of 64 and K of 16}}
  // expected-remark @below {{tiled matmul}}
  linalg.matmul ins(%a, %b : memref<100x32xf16>, memref<32x256xf16>) outs(%c : memref<100x256xf32>)
  // expected-remark @below {{not mapped onto cooperative matrices: not f16 x f16 into f32}}
  // expected-remark @below {{tiled matmul}}
  linalg.matmul ins(%x, %y : memref<128x32xf32>, memref<32x256xf32>) outs(%z : memref<128x256xf32>)
  return
}
