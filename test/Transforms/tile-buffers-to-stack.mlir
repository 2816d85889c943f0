// RUN: fx-opt %s --split-input-file --fx-tile-buffers-to-stack | FileCheck %s

// A tile temporary allocated and freed in every iteration becomes one stack
// slot at the function's entry.
// CHECK-LABEL: func.func @tile_temporary
//  CHECK-NEXT:   %[[SLOT:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x16xf32>
//       CHECK:   scf.for
//   CHECK-NOT:     memref.alloc()
//       CHECK:     linalg.fill {{.*}} outs(%[[SLOT]]
//       CHECK:     memref.copy %[[SLOT]]
//   CHECK-NOT:     memref.dealloc
func.func @tile_temporary(%out: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c64 step %c16 {
    %tmp = memref.alloc() {alignment = 64 : i64} : memref<16x16xf32>
    linalg.fill ins(%one : f32) outs(%tmp : memref<16x16xf32>)
    %dst = memref.subview %out[%i, 0] [16, 16] [1, 1] : memref<64x16xf32> to memref<16x16xf32, strided<[16, 1], offset: ?>>
    memref.copy %tmp, %dst : memref<16x16xf32> to memref<16x16xf32, strided<[16, 1], offset: ?>>
    memref.dealloc %tmp : memref<16x16xf32>
  }
  return
}

// -----

// Left alone: a buffer that leaves its iteration (yielded), one inside an
// scf.forall (its iterations run on several threads), one too large, and
// one at the function's top level.
// CHECK-LABEL: func.func @left_alone
//   CHECK-NOT:   memref.alloca
//       CHECK:   memref.alloc() : memref<4xf32>
//       CHECK:   memref.alloc() : memref<4xf32>
//       CHECK:   memref.alloc() : memref<65536xf32>
//   CHECK-NOT:   memref.alloca
func.func @left_alone(%n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %top = memref.alloc() : memref<4xf32>
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %top) -> memref<4xf32> {
    %b = memref.alloc() : memref<4xf32>
    scf.yield %b : memref<4xf32>
  }
  scf.forall (%j) in (2) {
    %c = memref.alloc() : memref<4xf32>
    memref.dealloc %c : memref<4xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %big = memref.alloc() : memref<65536xf32>
    memref.dealloc %big : memref<65536xf32>
  }
  return %last : memref<4xf32>
}
