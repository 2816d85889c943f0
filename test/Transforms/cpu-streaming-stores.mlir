// RUN: fx-opt %s --split-input-file --fx-cpu-streaming-stores="min-bytes=65536" | FileCheck %s
// RUN: fx-opt %s --split-input-file --fx-cpu-streaming-stores | FileCheck %s --check-prefix=OFF

// OFF-NOT: nontemporal
// OFF-NOT: sfence

// A row kernel's store loop into a 128 KiB output that the function only
// writes: a copy of the loop with non-temporal stores, aligned to the
// 64-byte vectors, runs where the output's address is aligned, the original
// loop otherwise; the function ends with an sfence.
// CHECK-LABEL: func.func @rows
// CHECK-DAG: %[[ADDRESS:.*]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[REST:.*]] = arith.remui %[[ADDRESS]], %[[C64]]
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[REST]]
// CHECK: scf.for %[[R:.*]] =
// CHECK: scf.if %[[ALIGNED]] {
// CHECK: scf.for
// CHECK: %[[FLAT:.*]] = vector.shape_cast %{{.*}} : vector<1x16xf32> to vector<16xf32>
// CHECK: vector.store %[[FLAT]], %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 64 : i64, nontemporal = true}
// CHECK: } else {
// CHECK: scf.for
// CHECK: vector.transfer_write
// CHECK: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK-NEXT: return
func.func @rows(%in: memref<16x2048xf32>, %out: memref<16x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c2048 = arith.constant 2048 : index
  %pad = arith.constant 0.0 : f32
  scf.for %r = %c0 to %c16 step %c1 {
    %row = memref.subview %in[%r, 0] [1, 2048] [1, 1] : memref<16x2048xf32> to memref<1x2048xf32, strided<[2048, 1], offset: ?>>
    %outRow = memref.subview %out[%r, 0] [1, 2048] [1, 1] : memref<16x2048xf32> to memref<1x2048xf32, strided<[2048, 1], offset: ?>>
    scf.for %j = %c0 to %c2048 step %c16 {
      %v = memref.subview %row[0, %j] [1, 16] [1, 1] : memref<1x2048xf32, strided<[2048, 1], offset: ?>> to memref<1x16xf32, strided<[2048, 1], offset: ?>>
      %x = vector.transfer_read %v[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x16xf32, strided<[2048, 1], offset: ?>>, vector<1x16xf32>
      %e = math.exp %x : vector<1x16xf32>
      %o = memref.subview %outRow[0, %j] [1, 16] [1, 1] : memref<1x2048xf32, strided<[2048, 1], offset: ?>> to memref<1x16xf32, strided<[2048, 1], offset: ?>>
      vector.transfer_write %e, %o[%c0, %c0] {in_bounds = [true, true]} : vector<1x16xf32>, memref<1x16xf32, strided<[2048, 1], offset: ?>>
    }
  }
  return
}

// -----

// A chunk whose first element comes from an argument (unknown): its writes
// cannot be proven aligned, so they stay ordinary stores.
// CHECK-LABEL: func.func @unknown_offset
// CHECK-NOT: nontemporal
// CHECK-NOT: sfence
func.func @unknown_offset(%start: index, %in: memref<65536xf32>, %out: memref<65536xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  %chunk = memref.subview %out[%start] [4096] [1] : memref<65536xf32> to memref<4096xf32, strided<[1], offset: ?>>
  %src = memref.subview %in[%start] [4096] [1] : memref<65536xf32> to memref<4096xf32, strided<[1], offset: ?>>
  scf.for %j = %c0 to %c4096 step %c16 {
    %v = memref.subview %src[%j] [16] [1] : memref<4096xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
    %x = vector.transfer_read %v[%c0], %pad {in_bounds = [true]} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
    %o = memref.subview %chunk[%j] [16] [1] : memref<4096xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
    vector.transfer_write %x, %o[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32, strided<[1], offset: ?>>
  }
  return
}

// -----

// A chunk whose first element is a multiple of 16 (an index times 1024)
// qualifies.
// CHECK-LABEL: func.func @aligned_chunks
// CHECK: scf.if
// CHECK: vector.store %{{.*}} {alignment = 64 : i64, nontemporal = true} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK: llvm.call_intrinsic "llvm.x86.sse.sfence"
func.func @aligned_chunks(%chunkIndex: index, %out: memref<65536xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %one = arith.constant dense<1.0> : vector<16xf32>
  %start = arith.muli %chunkIndex, %c1024 : index
  %chunk = memref.subview %out[%start] [1024] [1] : memref<65536xf32> to memref<1024xf32, strided<[1], offset: ?>>
  scf.for %j = %c0 to %c1024 step %c16 {
    %o = memref.subview %chunk[%j] [16] [1] : memref<1024xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
    vector.transfer_write %one, %o[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32, strided<[1], offset: ?>>
  }
  return
}

// -----

// Left alone: a buffer under min-bytes, a buffer the function also reads
// (an accumulator: its lines are wanted in the cache), a write of less than
// a cache line, a masked write, and a 0-d one (once a crash).
// CHECK-LABEL: func.func @small
// CHECK-NOT: nontemporal
// CHECK-LABEL: func.func @read_back
// CHECK-NOT: nontemporal
// CHECK-LABEL: func.func @partial_line
// CHECK-NOT: nontemporal
// CHECK-LABEL: func.func @masked
// CHECK-NOT: nontemporal
// CHECK-LABEL: func.func @scalar
// CHECK-NOT: nontemporal
// CHECK-NOT: sfence
func.func @small(%out: memref<64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant dense<1.0> : vector<16xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c128 step %c16 {
      vector.transfer_write %one, %out[%r, %j] {in_bounds = [true]} : vector<16xf32>, memref<64x128xf32>
    }
  }
  return
}
func.func @read_back(%out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %pad = arith.constant 0.0 : f32
  %one = arith.constant dense<1.0> : vector<16xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c1024 step %c16 {
      %x = vector.transfer_read %out[%r, %j], %pad {in_bounds = [true]} : memref<64x1024xf32>, vector<16xf32>
      %y = arith.addf %x, %one : vector<16xf32>
      vector.transfer_write %y, %out[%r, %j] {in_bounds = [true]} : vector<16xf32>, memref<64x1024xf32>
    }
  }
  return
}
func.func @partial_line(%out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %one = arith.constant dense<1.0> : vector<8xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c1024 step %c8 {
      vector.transfer_write %one, %out[%r, %j] {in_bounds = [true]} : vector<8xf32>, memref<64x1024xf32>
    }
  }
  return
}
func.func @masked(%out: memref<64x1024xf32>, %mask: vector<16xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %one = arith.constant dense<1.0> : vector<16xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c1024 step %c16 {
      vector.transfer_write %one, %out[%r, %j], %mask {in_bounds = [true]} : vector<16xf32>, memref<64x1024xf32>
    }
  }
  return
}
func.func @scalar(%out: memref<f32>, %v: vector<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    vector.transfer_write %v, %out[] : vector<f32>, memref<f32>
  }
  return
}
