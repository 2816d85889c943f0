// RUN: fx-opt %s --split-input-file --fx-cpu-prefetch-next-rows | FileCheck %s

// A softmax-like row loop on buffers: two loops walk each 8 KiB row, the
// second computing an exp per element; it also prefetches the same columns
// of the next row (the last row prefetches itself).
// CHECK-LABEL: func.func @two_passes
// CHECK: scf.for %[[R:.*]] = %c0 to %c8 step %c1
// CHECK: %[[ROW:.*]] = memref.subview %arg0[%[[R]], 0] [1, 2048]
// CHECK: scf.for
// CHECK-NOT: memref.prefetch
// CHECK: vector.reduction
// CHECK: %[[NEXT:.*]] = arith.addi %[[R]], %c1
// CHECK: %[[LAST:.*]] = arith.subi %c8, %c1
// CHECK: %[[MIN:.*]] = arith.minui %[[NEXT]], %[[LAST]]
// CHECK: %[[NEXTROW:.*]] = memref.subview %arg0[%[[MIN]], 0] [1, 2048] [1, 1]
// CHECK: scf.for %[[J:.*]] = %c0 to %c2048 step %c16
// CHECK: memref.prefetch %[[NEXTROW]][%{{.*}}, %[[J]]], read, locality<2>, data
// CHECK-NEXT: vector.transfer_read
func.func @two_passes(%in: memref<8x2048xf32>, %out: memref<8x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c2048 = arith.constant 2048 : index
  %pad = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<16xf32>
  scf.for %r = %c0 to %c8 step %c1 {
    %row = memref.subview %in[%r, 0] [1, 2048] [1, 1] : memref<8x2048xf32> to memref<1x2048xf32, strided<[2048, 1], offset: ?>>
    %sum = scf.for %j = %c0 to %c2048 step %c16 iter_args(%acc = %init) -> (vector<16xf32>) {
      %v = memref.subview %row[0, %j] [1, 16] [1, 1] : memref<1x2048xf32, strided<[2048, 1], offset: ?>> to memref<1x16xf32, strided<[2048, 1], offset: ?>>
      %x = vector.transfer_read %v[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[2048, 1], offset: ?>>, vector<16xf32>
      %a = arith.addf %acc, %x : vector<16xf32>
      scf.yield %a : vector<16xf32>
    }
    %s = vector.reduction <add>, %sum : vector<16xf32> into f32
    %sv = vector.broadcast %s : f32 to vector<16xf32>
    %outRow = memref.subview %out[%r, 0] [1, 2048] [1, 1] : memref<8x2048xf32> to memref<1x2048xf32, strided<[2048, 1], offset: ?>>
    scf.for %j = %c0 to %c2048 step %c16 {
      %v = memref.subview %row[0, %j] [1, 16] [1, 1] : memref<1x2048xf32, strided<[2048, 1], offset: ?>> to memref<1x16xf32, strided<[2048, 1], offset: ?>>
      %x = vector.transfer_read %v[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[2048, 1], offset: ?>>, vector<16xf32>
      %e = math.exp %x : vector<16xf32>
      %y = arith.divf %e, %sv : vector<16xf32>
      %o = memref.subview %outRow[0, %j] [1, 16] [1, 1] : memref<1x2048xf32, strided<[2048, 1], offset: ?>> to memref<1x16xf32, strided<[2048, 1], offset: ?>>
      vector.transfer_write %y, %o[%c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x16xf32, strided<[2048, 1], offset: ?>>
    }
  }
  return
}

// -----

// Rows under 4 KiB (the hardware prefetchers' business), rows walked once
// and rows whose later passes compute no math function (a layer norm's
// multiply-adds, too short to hide the loads) are left alone.
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT: memref.prefetch
// CHECK-LABEL: func.func @one_pass
// CHECK-NOT: memref.prefetch
// CHECK-LABEL: func.func @no_math
// CHECK-NOT: memref.prefetch
func.func @short_rows(%in: memref<8x512xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c512 = arith.constant 512 : index
  %pad = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<16xf32>
  %t = scf.for %r = %c0 to %c8 step %c1 iter_args(%tot = %init) -> (vector<16xf32>) {
    %row = memref.subview %in[%r, 0] [1, 512] [1, 1] : memref<8x512xf32> to memref<1x512xf32, strided<[512, 1], offset: ?>>
    %s1 = scf.for %j = %c0 to %c512 step %c16 iter_args(%acc = %tot) -> (vector<16xf32>) {
      %v = memref.subview %row[0, %j] [1, 16] [1, 1] : memref<1x512xf32, strided<[512, 1], offset: ?>> to memref<1x16xf32, strided<[512, 1], offset: ?>>
      %x = vector.transfer_read %v[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[512, 1], offset: ?>>, vector<16xf32>
      %a = arith.addf %acc, %x : vector<16xf32>
      scf.yield %a : vector<16xf32>
    }
    %s2 = scf.for %j = %c0 to %c512 step %c16 iter_args(%acc = %s1) -> (vector<16xf32>) {
      %v = memref.subview %row[0, %j] [1, 16] [1, 1] : memref<1x512xf32, strided<[512, 1], offset: ?>> to memref<1x16xf32, strided<[512, 1], offset: ?>>
      %x = vector.transfer_read %v[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[512, 1], offset: ?>>, vector<16xf32>
      %e = math.exp %x : vector<16xf32>
      %a = arith.maximumf %acc, %e : vector<16xf32>
      scf.yield %a : vector<16xf32>
    }
    scf.yield %s2 : vector<16xf32>
  }
  %r = vector.reduction <add>, %t : vector<16xf32> into f32
  return %r : f32
}
func.func @one_pass(%in: memref<8x2048xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c2048 = arith.constant 2048 : index
  %pad = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<16xf32>
  %t = scf.for %r = %c0 to %c8 step %c1 iter_args(%tot = %init) -> (vector<16xf32>) {
    %row = memref.subview %in[%r, 0] [1, 2048] [1, 1] : memref<8x2048xf32> to memref<1x2048xf32, strided<[2048, 1], offset: ?>>
    %s1 = scf.for %j = %c0 to %c2048 step %c16 iter_args(%acc = %tot) -> (vector<16xf32>) {
      %v = memref.subview %row[0, %j] [1, 16] [1, 1] : memref<1x2048xf32, strided<[2048, 1], offset: ?>> to memref<1x16xf32, strided<[2048, 1], offset: ?>>
      %x = vector.transfer_read %v[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[2048, 1], offset: ?>>, vector<16xf32>
      %a = arith.addf %acc, %x : vector<16xf32>
      scf.yield %a : vector<16xf32>
    }
    scf.yield %s1 : vector<16xf32>
  }
  %r = vector.reduction <add>, %t : vector<16xf32> into f32
  return %r : f32
}
func.func @no_math(%in: memref<8x2048xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c2048 = arith.constant 2048 : index
  %pad = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<16xf32>
  %t = scf.for %r = %c0 to %c8 step %c1 iter_args(%tot = %init) -> (vector<16xf32>) {
    %row = memref.subview %in[%r, 0] [1, 2048] [1, 1] : memref<8x2048xf32> to memref<1x2048xf32, strided<[2048, 1], offset: ?>>
    %s1 = scf.for %j = %c0 to %c2048 step %c16 iter_args(%acc = %tot) -> (vector<16xf32>) {
      %v = memref.subview %row[0, %j] [1, 16] [1, 1] : memref<1x2048xf32, strided<[2048, 1], offset: ?>> to memref<1x16xf32, strided<[2048, 1], offset: ?>>
      %x = vector.transfer_read %v[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[2048, 1], offset: ?>>, vector<16xf32>
      %a = arith.addf %acc, %x : vector<16xf32>
      scf.yield %a : vector<16xf32>
    }
    %s2 = scf.for %j = %c0 to %c2048 step %c16 iter_args(%acc = %s1) -> (vector<16xf32>) {
      %v = memref.subview %row[0, %j] [1, 16] [1, 1] : memref<1x2048xf32, strided<[2048, 1], offset: ?>> to memref<1x16xf32, strided<[2048, 1], offset: ?>>
      %x = vector.transfer_read %v[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[2048, 1], offset: ?>>, vector<16xf32>
      %m = arith.mulf %x, %x : vector<16xf32>
      %a = arith.addf %acc, %m : vector<16xf32>
      scf.yield %a : vector<16xf32>
    }
    scf.yield %s2 : vector<16xf32>
  }
  %r = vector.reduction <add>, %t : vector<16xf32> into f32
  return %r : f32
}

// -----

// A layer-norm-like row kernel (no math function) whose output leaves
// through non-temporal stores (fx-cpu-streaming-stores, which runs first):
// the memory bus then serves the loads alone, and the last loop that reads
// the row prefetches the next one.
// CHECK-LABEL: func.func @streaming_output
// CHECK: scf.for
// CHECK-NOT: memref.prefetch
// CHECK: vector.reduction
// CHECK: scf.for
// CHECK: memref.prefetch
// CHECK: vector.store {{.*}}nontemporal = true
func.func @streaming_output(%in: memref<8x2048xf32>, %out: memref<8x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c2048 = arith.constant 2048 : index
  %pad = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<16xf32>
  scf.for %r = %c0 to %c8 step %c1 {
    %row = memref.subview %in[%r, 0] [1, 2048] [1, 1] : memref<8x2048xf32> to memref<1x2048xf32, strided<[2048, 1], offset: ?>>
    %sum = scf.for %j = %c0 to %c2048 step %c16 iter_args(%acc = %init) -> (vector<16xf32>) {
      %v = memref.subview %row[0, %j] [1, 16] [1, 1] : memref<1x2048xf32, strided<[2048, 1], offset: ?>> to memref<1x16xf32, strided<[2048, 1], offset: ?>>
      %x = vector.transfer_read %v[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[2048, 1], offset: ?>>, vector<16xf32>
      %a = arith.addf %acc, %x : vector<16xf32>
      scf.yield %a : vector<16xf32>
    }
    %s = vector.reduction <add>, %sum : vector<16xf32> into f32
    %sv = vector.broadcast %s : f32 to vector<16xf32>
    %outRow = memref.subview %out[%r, 0] [1, 2048] [1, 1] : memref<8x2048xf32> to memref<1x2048xf32, strided<[2048, 1], offset: ?>>
    scf.for %j = %c0 to %c2048 step %c16 {
      %v = memref.subview %row[0, %j] [1, 16] [1, 1] : memref<1x2048xf32, strided<[2048, 1], offset: ?>> to memref<1x16xf32, strided<[2048, 1], offset: ?>>
      %x = vector.transfer_read %v[%c0, %c0], %pad {in_bounds = [true]} : memref<1x16xf32, strided<[2048, 1], offset: ?>>, vector<16xf32>
      %y = arith.subf %x, %sv : vector<16xf32>
      vector.store %y, %outRow[%c0, %j] {alignment = 64 : i64, nontemporal = true} : memref<1x2048xf32, strided<[2048, 1], offset: ?>>, vector<16xf32>
    }
  }
  return
}
