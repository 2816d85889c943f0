// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fx-map-matmuls-to-gpu{cooperative-matrix=true}))' | FileCheck %s
// RUN: fx-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(fx-map-matmuls-to-gpu{cooperative-matrix=true report=true}))' > /dev/null

// An f16 matmul into f32 with M and N multiples of 128 and K of 32: a
// workgroup of 2x2 subgroups (128 threads) per 128x128 output tile. A and B
// are read as flat arrays of 16-byte vectors; each k step of 32 goes to
// workgroup memory (rows padded by one vector: A 128 x (4+1), B 32 x (16+1)),
// four 16-byte copies of each operand per thread, loaded for the next step
// before the fragments of the current one multiply. Each subgroup loads its
// 4x4 f32 accumulators from the output, multiplies 4 A and 4 B fragments per
// 16 of k, and stores the accumulators back.
// CHECK-LABEL: func.func @matmul_f16
// CHECK-DAG: %[[AV:.*]] = builtin.unrealized_conversion_cast %arg0 : memref<128x64xf16> to memref<1024xvector<4xi32>>
// CHECK-DAG: %[[BV:.*]] = builtin.unrealized_conversion_cast %arg1 : memref<64x256xf16> to memref<2048xvector<4xi32>>
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C2]], %{{.*}} = %c1{{.*}}, %{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C128]]
// CHECK-DAG: %[[AT:.*]] = memref.alloc() : memref<640xvector<4xi32>, 3>
// CHECK-DAG: %[[BT:.*]] = memref.alloc() : memref<544xvector<4xi32>, 3>
// CHECK-COUNT-16: gpu.subgroup_mma_load_matrix %arg2{{.*}} {leadDimension = 256 : index} : memref<128x256xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK-COUNT-4: memref.load %[[AV]]
// CHECK-COUNT-4: memref.load %[[BV]]
// CHECK-COUNT-4: memref.store %{{.*}}, %[[AT]]
// CHECK-COUNT-4: memref.store %{{.*}}, %[[BT]]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-COUNT-4: memref.load %[[AV]]
// CHECK-COUNT-4: memref.load %[[BV]]
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %[[AT]]{{.*}} {leadDimension = 5 : index} : memref<640xvector<4xi32>, 3> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %[[BT]]{{.*}} {leadDimension = 17 : index} : memref<544xvector<4xi32>, 3> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-COUNT-16: gpu.subgroup_mma_compute
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %[[AT]]
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %[[BT]]
// CHECK-COUNT-16: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.store %{{.*}}, %[[AT]]
// CHECK-COUNT-4: memref.store %{{.*}}, %[[BT]]
// CHECK: gpu.barrier
// CHECK: scf.yield
// CHECK-COUNT-16: gpu.subgroup_mma_store_matrix %{{.*}}, %arg2{{.*}} {leadDimension = 256 : index}
// CHECK: gpu.terminator
// CHECK-NOT: linalg.matmul
func.func @matmul_f16(%a: memref<128x64xf16>, %b: memref<64x256xf16>, %c: memref<128x256xf32>) {
  // expected-remark @below {{cooperative-matrix matmul: 16x16x16 f16 fragments, 128x128 tiles of 4 subgroups, k staged 32 at a time through workgroup memory}}
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x256xf16>) outs(%c : memref<128x256xf32>)
  return
}

// -----

// M and N multiples of 64 only and K of 16 only: one subgroup per 64x64
// tile, k staged 16 at a time (A tile 64 x (2+1), B tile 16 x (8+1)).
// CHECK-LABEL: func.func @matmul_f16_small_tiles
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C32]]
// CHECK-DAG: memref.alloc() : memref<192xvector<4xi32>, 3>
// CHECK-DAG: memref.alloc() : memref<144xvector<4xi32>, 3>
// CHECK: scf.for
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 3 : index} : memref<192xvector<4xi32>, 3> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 9 : index} : memref<144xvector<4xi32>, 3> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-COUNT-16: gpu.subgroup_mma_compute
// CHECK-NOT: gpu.subgroup_mma_compute
// CHECK: scf.yield
func.func @matmul_f16_small_tiles(%a: memref<64x48xf16>, %b: memref<48x64xf16>, %c: memref<64x64xf32>) {
  // expected-remark @below {{cooperative-matrix matmul: 16x16x16 f16 fragments, 64x64 tiles of 1 subgroups, k staged 16 at a time through workgroup memory}}
  linalg.matmul ins(%a, %b : memref<64x48xf16>, memref<48x64xf16>) outs(%c : memref<64x64xf32>)
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
  // expected-remark @below {{not on the tensor cores: only 8 64x64 output tiles}}
  // expected-remark @below {{tiled matmul}}
  linalg.matmul ins(%a, %b : memref<100x32xf16>, memref<32x256xf16>) outs(%c : memref<100x256xf32>)
  // expected-remark @below {{not mapped onto cooperative matrices: not f16 x f16 into f32}}
  // expected-remark @below {{not on the tensor cores: f32 operands at precision 'highest'}}
  // expected-remark @below {{tiled matmul}}
  linalg.matmul ins(%x, %y : memref<128x32xf32>, memref<32x256xf32>) outs(%z : memref<128x256xf32>)
  return
}

// -----

// A zero fill of the output right before the matmul is dropped: the
// accumulators start as zero fragments (the kernel stores every output
// element). A fill of another value stays, and the accumulators load it.
// CHECK-LABEL: func.func @zero_fill
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK: gpu.subgroup_mma_constant_matrix %{{.*}} : !gpu.mma_matrix<16x16xf32, "COp">
// CHECK-NOT: gpu.subgroup_mma_load_matrix %arg2
// CHECK: scf.for
// CHECK-LABEL: func.func @one_fill
// CHECK: linalg.fill
// CHECK: gpu.launch
// CHECK-NOT: gpu.subgroup_mma_constant_matrix
// CHECK: gpu.subgroup_mma_load_matrix %arg2
func.func @zero_fill(%a: memref<64x16xf16>, %b: memref<16x64xf16>, %c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  // expected-remark @below {{cooperative-matrix matmul}}
  linalg.matmul ins(%a, %b : memref<64x16xf16>, memref<16x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
func.func @one_fill(%a: memref<64x16xf16>, %b: memref<16x64xf16>, %c: memref<64x64xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<64x64xf32>)
  // expected-remark @below {{cooperative-matrix matmul}}
  linalg.matmul ins(%a, %b : memref<64x16xf16>, memref<16x64xf16>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// The truncation of the f32 result to f16 right after the matmul moves into
// the kernel: each subgroup stores a fragment to workgroup memory, each lane
// converts 8 values into one 16-byte store to the f16 output, and the f32
// buffer, its fill and the truncation kernel are gone.
// CHECK-LABEL: func.func @truncated
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.fill
// CHECK: %[[DV:.*]] = builtin.unrealized_conversion_cast %arg2 : memref<64x64xf16> to memref<512xvector<4xi32>>
// CHECK: gpu.launch
// CHECK-DAG: %[[AT:.*]] = memref.alloc() : memref<192xvector<4xi32>, 3>
// CHECK: scf.for
// CHECK-COUNT-16: gpu.subgroup_mma_store_matrix %{{.*}}, %[[AT]][%{{.*}}] {leadDimension = 4 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<192xvector<4xi32>, 3>
// CHECK: arith.truncf %{{.*}} : vector<4xf32> to vector<4xf16>
// CHECK: vector.bitcast %{{.*}} : vector<4xf16> to vector<2xi32>
// CHECK: vector.shuffle
// CHECK: memref.store %{{.*}}, %[[DV]][%{{.*}}] : memref<512xvector<4xi32>>
// CHECK-NOT: gpu.subgroup_mma_store_matrix
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @truncated(%a: memref<64x16xf16>, %b: memref<16x64xf16>, %d: memref<64x64xf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  // expected-remark @below {{cooperative-matrix matmul}}
  linalg.matmul ins(%a, %b : memref<64x16xf16>, memref<16x64xf16>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<64x64xf32>) outs(%d : memref<64x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  }
  memref.dealloc %c : memref<64x64xf32>
  return
}

// A truncation of a result that something else also reads stays a kernel
// of its own.
// CHECK-LABEL: func.func @truncated_and_read
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[C:.*]][%{{.*}}, %{{.*}}] {leadDimension = 64 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<64x64xf32>
// CHECK: linalg.generic
// CHECK: memref.copy
func.func @truncated_and_read(%a: memref<64x16xf16>, %b: memref<16x64xf16>, %d: memref<64x64xf16>, %e: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  // expected-remark @below {{cooperative-matrix matmul}}
  linalg.matmul ins(%a, %b : memref<64x16xf16>, memref<16x64xf16>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<64x64xf32>) outs(%d : memref<64x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  }
  memref.copy %c, %e : memref<64x64xf32> to memref<64x64xf32>
  return
}

// -----

// bf16 operands take the same kernel only with bf16-cooperative-matrix
// (fx-retype-bf16-cooperative-matrices later makes the fragments bf16);
// without it the tiled kernel takes them.
// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fx-map-matmuls-to-gpu{cooperative-matrix=true bf16-cooperative-matrix=true report=true}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BF16
// BF16: remark: cooperative-matrix matmul: 16x16x16 bf16 fragments, 64x64 tiles of 1 subgroups
// CHECK-LABEL: func.func @matmul_bf16
// CHECK-NOT: gpu.subgroup_mma_compute
// CHECK: return
func.func @matmul_bf16(%a: memref<64x32xbf16>, %b: memref<32x64xbf16>, %c: memref<64x64xf32>) {
  // expected-remark @below {{not mapped onto cooperative matrices: not f16 x f16 into f32}}
  // expected-remark @below {{not on the tensor cores: not f32 or f16 operands into f32 or f16}}
  // expected-remark @below {{tiled matmul}}
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x64xbf16>) outs(%c : memref<64x64xf32>)
  return
}
