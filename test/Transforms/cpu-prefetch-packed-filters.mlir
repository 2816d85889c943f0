// RUN: fx-opt %s --fx-cpu-prefetch-packed-filters --split-input-file | FileCheck %s

// A packed convolution tile as fx-cpu-tile-and-vectorize leaves it on
// buffers: per row, the block `blk` of a [4, 32, 3, 3, 32] packed filter,
// read a channel step of 16 at a time. Each read also prefetches its two
// cache lines in block blk + 1 (the last block: itself), row r taking the
// channel steps whose index is r modulo the 7 rows.
// CHECK-LABEL: func.func @tile(
// CHECK-SAME: %[[F:.*]]: memref<4x32x3x3x32xf32>, %[[BLK:.*]]: index
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c7 step %c1
// CHECK: %[[B:.*]] = memref.subview %[[F]][%[[BLK]], 0, 0, 0, 0] [1, 32, 3, 3, 32]
// CHECK: %[[N1:.*]] = arith.addi %[[BLK]], %c1
// CHECK: %[[N:.*]] = arith.minui %[[N1]], %c3
// CHECK: %[[NB:.*]] = memref.subview %[[F]][%[[N]], 0, 0, 0, 0] [1, 32, 3, 3, 32]
// CHECK: scf.for %[[C:.*]] = %c0 to %c32 step %c16
// CHECK: %[[V:.*]] = memref.subview %[[B]][%[[C]], 0, 0, 0] [16, 1, 1, 32]
// CHECK: %[[NV:.*]] = memref.subview %[[NB]][%[[C]], 0, 0, 0] [16, 1, 1, 32]
// CHECK: %[[S:.*]] = arith.divui %[[C]], %c16
// CHECK: %[[M:.*]] = arith.remui %[[S]], %c7
// CHECK: %[[TAKE:.*]] = arith.cmpi eq, %[[M]], %{{.*}}
// CHECK: scf.if %[[TAKE]] {
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.prefetch %[[NV]][%c0, %c0, %c0, %[[Z]]], read, locality<2>, data
// CHECK-NEXT: %[[L:.*]] = arith.constant 16 : index
// CHECK-NEXT: memref.prefetch %[[NV]][%c0, %c0, %c0, %[[L]]], read, locality<2>, data
// CHECK: memref.prefetch %[[NV]][%c1, %c0, %c0, %{{.*}}]
// CHECK: memref.prefetch %[[NV]][%c1, %c0, %c0, %{{.*}}]
// CHECK-NEXT: }
// CHECK: vector.transfer_read %[[V]][%c0, %c0, %c0, %c0]
// CHECK: vector.transfer_read %[[V]][%c1, %c0, %c0, %c0]
func.func @tile(%f: memref<4x32x3x3x32xf32>, %blk: index, %out: memref<7x2x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  scf.for %row = %c0 to %c7 step %c1 {
    %b = memref.subview %f[%blk, 0, 0, 0, 0] [1, 32, 3, 3, 32] [1, 1, 1, 1, 1] : memref<4x32x3x3x32xf32> to memref<32x3x3x32xf32, strided<[288, 96, 32, 1], offset: ?>>
    scf.for %c = %c0 to %c32 step %c16 {
      %v = memref.subview %b[%c, 0, 0, 0] [16, 1, 1, 32] [1, 1, 1, 1] : memref<32x3x3x32xf32, strided<[288, 96, 32, 1], offset: ?>> to memref<16x1x1x32xf32, strided<[288, 96, 32, 1], offset: ?>>
      %r0 = vector.transfer_read %v[%c0, %c0, %c0, %c0], %zero {in_bounds = [true]} : memref<16x1x1x32xf32, strided<[288, 96, 32, 1], offset: ?>>, vector<32xf32>
      %r1 = vector.transfer_read %v[%c1, %c0, %c0, %c0], %zero {in_bounds = [true]} : memref<16x1x1x32xf32, strided<[288, 96, 32, 1], offset: ?>>, vector<32xf32>
      vector.transfer_write %r0, %out[%row, %c0, %c0] {in_bounds = [true]} : vector<32xf32>, memref<7x2x32xf32>
      vector.transfer_write %r1, %out[%row, %c1, %c0] {in_bounds = [true]} : vector<32xf32>, memref<7x2x32xf32>
    }
  }
  return
}

// -----

// One block: nothing to prefetch.
// CHECK-LABEL: func.func @one_block(
// CHECK-NOT: memref.prefetch
func.func @one_block(%f: memref<1x32x3x3x32xf32>, %out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %b = memref.subview %f[%c0, 0, 0, 0, 0] [1, 32, 3, 3, 32] [1, 1, 1, 1, 1] : memref<1x32x3x3x32xf32> to memref<32x3x3x32xf32, strided<[288, 96, 32, 1], offset: ?>>
  %r = vector.transfer_read %b[%c0, %c0, %c0, %c0], %zero {in_bounds = [true]} : memref<32x3x3x32xf32, strided<[288, 96, 32, 1], offset: ?>>, vector<32xf32>
  vector.transfer_write %r, %out[%c0] {in_bounds = [true]} : vector<32xf32>, memref<32xf32>
  return
}

// -----

// A first block at the constant index 0 (CaiT's q, a select of its 5-d
// qkv tensor, has this shape): its view has a static offset, the next
// block's a dynamic one, whose subview types are inferred (the next block
// once reused the first's type, which the verifier rejected).
// CHECK-LABEL: func.func @constant_block(
// CHECK: %[[NB:.*]] = memref.subview %arg0[%{{.*}}, 0, 0, 0, 0] [1, 4, 8, 8, 16] [1, 1, 1, 1, 1] : memref<3x4x8x8x16xf32> to memref<4x8x8x16xf32, strided<[1024, 128, 16, 1], offset: ?>>
// CHECK: memref.subview %[[NB]][%{{.*}}, 0, 0, 0] [1, 1, 1, 16] [1, 1, 1, 1] : memref<4x8x8x16xf32, strided<[1024, 128, 16, 1], offset: ?>> to memref<1x1x1x16xf32, strided<[1024, 128, 16, 1], offset: ?>>
// CHECK: memref.prefetch
func.func @constant_block(%f: memref<3x4x8x8x16xf32>, %out: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %b = memref.subview %f[0, 0, 0, 0, 0] [1, 4, 8, 8, 16] [1, 1, 1, 1, 1] : memref<3x4x8x8x16xf32> to memref<4x8x8x16xf32, strided<[1024, 128, 16, 1]>>
  scf.for %c = %c0 to %c4 step %c1 {
    %v = memref.subview %b[%c, 0, 0, 0] [1, 1, 1, 16] [1, 1, 1, 1] : memref<4x8x8x16xf32, strided<[1024, 128, 16, 1]>> to memref<1x1x1x16xf32, strided<[1024, 128, 16, 1], offset: ?>>
    %r = vector.transfer_read %v[%c0, %c0, %c0, %c0], %zero {in_bounds = [true]} : memref<1x1x1x16xf32, strided<[1024, 128, 16, 1], offset: ?>>, vector<16xf32>
    vector.transfer_write %r, %out[%c, %c0] {in_bounds = [true]} : vector<16xf32>, memref<4x16xf32>
  }
  return
}
