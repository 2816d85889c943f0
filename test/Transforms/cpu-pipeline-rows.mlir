// RUN: fx-opt %s --split-input-file --fx-cpu-pipeline-rows | FileCheck %s

// A row loop whose last loop writes the row's results from a buffer and a
// scalar the body computed, after a loop of 8 vector operations per step:
// the last loop of row r runs inside the compute loop of row r + 1. The
// buffer and the scalar get two stack copies each, picked by the row's
// parity; row 0 computes ahead of the loop (under a guard for an empty
// range) and the last row writes after it.
// CHECK-LABEL: func.func @rows
// CHECK-DAG: %[[B0:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1x256xf32>
// CHECK-DAG: %[[B1:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1x256xf32>
// CHECK-DAG: %[[S0:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1xf32>
// CHECK-DAG: %[[S1:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1xf32>
// CHECK: scf.if
// Row 0: its compute loop, then no write of an output row before the row
// loop.
// CHECK: scf.for
// CHECK: arith.mulf
// CHECK-NOT: vector.transfer_write {{.*}}, memref<1x256xf32, strided
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %c8 step %c1
// CHECK: %[[PREV:.*]] = arith.subi %[[R]], %c1
// CHECK: %[[ODD:.*]] = arith.cmpi ne
// CHECK: %[[CUR:.*]] = arith.select %[[ODD]], %[[B1]], %[[B0]]
// CHECK: %[[ODD2:.*]] = arith.cmpi ne
// CHECK: %[[BEFORE:.*]] = arith.select %[[ODD2]], %[[B0]], %[[B1]]
// CHECK: %[[OUT:.*]] = memref.subview %arg1[%[[PREV]], 0] [1, 256]
// CHECK: scf.for %[[J:.*]] = %c0 to %c256 step %c16
// CHECK: vector.transfer_write %{{.*}}, %[[CUR]][%c0, %[[J]]]
// CHECK: vector.transfer_read %[[BEFORE]][%c0, %[[J]]]
// CHECK: vector.transfer_write %{{.*}}, %[[OUT]][%c0, %[[J]]]
// CHECK: }
// CHECK: }
// The last row's last loop.
// CHECK: %[[LASTROW:.*]] = arith.subi %c8, %c1
// CHECK: memref.subview %arg1[%[[LASTROW]], 0]
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: return
func.func @rows(%x: memref<8x256xf32>, %y: memref<8x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %two = arith.constant dense<2.0> : vector<16xf32>
  scf.for %r = %c0 to %c8 step %c1 {
    %row = memref.subview %x[%r, 0] [1, 256] [1, 1] : memref<8x256xf32> to memref<1x256xf32, strided<[256, 1], offset: ?>>
    %buf = memref.alloc() {alignment = 64 : i64} : memref<1x256xf32>
    %sum = memref.alloc() {alignment = 64 : i64} : memref<1xf32>
    scf.for %j = %c0 to %c256 step %c16 {
      %v = vector.transfer_read %row[%c0, %j], %pad {in_bounds = [true]} : memref<1x256xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
      %a = arith.mulf %v, %two : vector<16xf32>
      %b = arith.addf %a, %v : vector<16xf32>
      %c = arith.mulf %b, %a : vector<16xf32>
      %d = arith.addf %c, %two : vector<16xf32>
      %e = arith.mulf %d, %b : vector<16xf32>
      %f = arith.addf %e, %c : vector<16xf32>
      %g = arith.mulf %f, %d : vector<16xf32>
      %h = arith.addf %g, %e : vector<16xf32>
      vector.transfer_write %h, %buf[%c0, %j] {in_bounds = [true]} : vector<16xf32>, memref<1x256xf32>
    }
    memref.store %pad, %sum[%c0] : memref<1xf32>
    %out = memref.subview %y[%r, 0] [1, 256] [1, 1] : memref<8x256xf32> to memref<1x256xf32, strided<[256, 1], offset: ?>>
    scf.for %j = %c0 to %c256 step %c16 {
      %v = vector.transfer_read %buf[%c0, %j], %pad {in_bounds = [true]} : memref<1x256xf32>, vector<16xf32>
      %s = memref.load %sum[%c0] : memref<1xf32>
      %sv = vector.broadcast %s : f32 to vector<16xf32>
      %w = arith.mulf %v, %sv : vector<16xf32>
      vector.transfer_write %w, %out[%c0, %j] {in_bounds = [true]} : vector<16xf32>, memref<1x256xf32, strided<[256, 1], offset: ?>>
    }
    memref.dealloc %buf : memref<1x256xf32>
    memref.dealloc %sum : memref<1xf32>
  }
  return
}

// -----

// Left alone: the compute loop does too little per step (a layer norm's
// x - mean: pipelined, its stores and the next row's loads competed), and,
// in the second, the body reads the buffer the last loop writes (the
// deferred write would come after the read).
// CHECK-LABEL: func.func @light
// CHECK-NOT: memref.alloca
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK-LABEL: func.func @reads_output
// CHECK-NOT: memref.alloca
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
func.func @light(%x: memref<8x256xf32>, %y: memref<8x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %two = arith.constant dense<2.0> : vector<16xf32>
  scf.for %r = %c0 to %c8 step %c1 {
    %row = memref.subview %x[%r, 0] [1, 256] [1, 1] : memref<8x256xf32> to memref<1x256xf32, strided<[256, 1], offset: ?>>
    %buf = memref.alloc() {alignment = 64 : i64} : memref<1x256xf32>
    scf.for %j = %c0 to %c256 step %c16 {
      %v = vector.transfer_read %row[%c0, %j], %pad {in_bounds = [true]} : memref<1x256xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
      %a = arith.subf %v, %two : vector<16xf32>
      vector.transfer_write %a, %buf[%c0, %j] {in_bounds = [true]} : vector<16xf32>, memref<1x256xf32>
    }
    %out = memref.subview %y[%r, 0] [1, 256] [1, 1] : memref<8x256xf32> to memref<1x256xf32, strided<[256, 1], offset: ?>>
    scf.for %j = %c0 to %c256 step %c16 {
      %v = vector.transfer_read %buf[%c0, %j], %pad {in_bounds = [true]} : memref<1x256xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%c0, %j] {in_bounds = [true]} : vector<16xf32>, memref<1x256xf32, strided<[256, 1], offset: ?>>
    }
    memref.dealloc %buf : memref<1x256xf32>
  }
  return
}

func.func @reads_output(%x: memref<8x256xf32>, %y: memref<8x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %two = arith.constant dense<2.0> : vector<16xf32>
  scf.for %r = %c0 to %c8 step %c1 {
    %row = memref.subview %y[%r, 0] [1, 256] [1, 1] : memref<8x256xf32> to memref<1x256xf32, strided<[256, 1], offset: ?>>
    %buf = memref.alloc() {alignment = 64 : i64} : memref<1x256xf32>
    scf.for %j = %c0 to %c256 step %c16 {
      %v = vector.transfer_read %row[%c0, %j], %pad {in_bounds = [true]} : memref<1x256xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
      %a = arith.mulf %v, %two : vector<16xf32>
      %b = arith.addf %a, %v : vector<16xf32>
      %c = arith.mulf %b, %a : vector<16xf32>
      %d = arith.addf %c, %two : vector<16xf32>
      %e = arith.mulf %d, %b : vector<16xf32>
      %f = arith.addf %e, %c : vector<16xf32>
      %g = arith.mulf %f, %d : vector<16xf32>
      %h = arith.addf %g, %e : vector<16xf32>
      vector.transfer_write %h, %buf[%c0, %j] {in_bounds = [true]} : vector<16xf32>, memref<1x256xf32>
    }
    %out = memref.subview %y[%r, 0] [1, 256] [1, 1] : memref<8x256xf32> to memref<1x256xf32, strided<[256, 1], offset: ?>>
    scf.for %j = %c0 to %c256 step %c16 {
      %v = vector.transfer_read %buf[%c0, %j], %pad {in_bounds = [true]} : memref<1x256xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%c0, %j] {in_bounds = [true]} : vector<16xf32>, memref<1x256xf32, strided<[256, 1], offset: ?>>
    }
    memref.dealloc %buf : memref<1x256xf32>
  }
  return
}
