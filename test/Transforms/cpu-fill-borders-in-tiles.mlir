// RUN: fx-opt %s --fx-cpu-fill-borders-in-tiles --split-input-file | FileCheck %s

// A padded buffer: every border strip is filled by the tiles of whole rows
// (two rows of one image) right after their writes, each in the part of
// the buffer it owns: its pad columns, and the pad row above (below) where
// it writes the first (last) rows of the interior. Nothing is filled before
// the loop.
// CHECK-LABEL: func.func @columns_in_tiles(
// CHECK: %[[A:.*]] = memref.alloc() : memref<2x10x18xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.forall (%[[I:.*]]) in (2)
// CHECK: scf.for %[[R:.*]] =
// CHECK: memref.copy
// CHECK: %[[ROW:.*]] = affine.apply #{{.*}}()[%[[R]]]
// CHECK: %[[END:.*]] = affine.apply #{{.*}}()[%[[R]]]
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[ROW]], %c1
// CHECK: %[[FROM:.*]] = arith.select %[[FIRST]], %c0{{.*}}, %[[ROW]]
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[END]], %c9
// CHECK: %[[TO:.*]] = arith.select %[[LAST]], %c10, %[[END]]
// The strips in the order of their boxes: top, left, right, bottom.
// CHECK: %[[T:.*]] = affine.min #{{.*}}()[%[[TO]]]
// CHECK: %[[NT:.*]] = affine.max #{{.*}}()[%[[FROM]], %[[T]]]
// CHECK: %[[TOP:.*]] = memref.subview %[[A]][%[[I]], %[[FROM]], 0] [1, %[[NT]], 18]
// CHECK: linalg.fill ins(%[[ZERO:.*]] : f32) outs(%[[TOP]]
// CHECK: %[[N:.*]] = affine.apply #{{.*}}()[%[[FROM]], %[[TO]]]
// CHECK: %[[LEFT:.*]] = memref.subview %[[A]][%[[I]], %[[FROM]], 0] [1, %[[N]], 1]
// CHECK: linalg.fill ins(%[[ZERO]] : f32) outs(%[[LEFT]]
// CHECK: %[[RIGHT:.*]] = memref.subview %[[A]][%[[I]], %[[FROM]], 17] [1, %{{.*}}, 1]
// CHECK: linalg.fill ins(%[[ZERO]] : f32) outs(%[[RIGHT]]
// CHECK: %[[B:.*]] = affine.max #{{.*}}()[%[[FROM]]]
// CHECK: %[[NB:.*]] = affine.max #{{.*}}()[%[[B]], %[[TO]]]
// CHECK: %[[BOTTOM:.*]] = memref.subview %[[A]][%[[I]], %[[B]], 0] [1, %[[NB]], 18]
// CHECK: linalg.fill ins(%[[ZERO]] : f32) outs(%[[BOTTOM]]
// CHECK-NEXT: }
// CHECK: memref.copy %[[A]]
func.func @columns_in_tiles(%x: memref<2x8x16xf32>, %out: memref<2x10x18xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<2x10x18xf32>
  %top = memref.subview %a[0, 0, 0] [2, 1, 18] [1, 1, 1] : memref<2x10x18xf32> to memref<2x1x18xf32, strided<[180, 18, 1]>>
  linalg.fill ins(%zero : f32) outs(%top : memref<2x1x18xf32, strided<[180, 18, 1]>>)
  %bottom = memref.subview %a[0, 9, 0] [2, 1, 18] [1, 1, 1] : memref<2x10x18xf32> to memref<2x1x18xf32, strided<[180, 18, 1], offset: 162>>
  linalg.fill ins(%zero : f32) outs(%bottom : memref<2x1x18xf32, strided<[180, 18, 1], offset: 162>>)
  %left = memref.subview %a[0, 0, 0] [2, 10, 1] [1, 1, 1] : memref<2x10x18xf32> to memref<2x10x1xf32, strided<[180, 18, 1]>>
  linalg.fill ins(%zero : f32) outs(%left : memref<2x10x1xf32, strided<[180, 18, 1]>>)
  %right = memref.subview %a[0, 0, 17] [2, 10, 1] [1, 1, 1] : memref<2x10x18xf32> to memref<2x10x1xf32, strided<[180, 18, 1], offset: 17>>
  linalg.fill ins(%zero : f32) outs(%right : memref<2x10x1xf32, strided<[180, 18, 1], offset: 17>>)
  %in = memref.subview %a[0, 1, 1] [2, 8, 16] [1, 1, 1] : memref<2x10x18xf32> to memref<2x8x16xf32, strided<[180, 18, 1], offset: 19>>
  scf.forall (%i) in (2) {
    %chunk = memref.subview %in[%i, 0, 0] [1, 8, 16] [1, 1, 1] : memref<2x8x16xf32, strided<[180, 18, 1], offset: 19>> to memref<1x8x16xf32, strided<[180, 18, 1], offset: ?>>
    scf.for %r = %c0 to %c8 step %c2 {
      %t = memref.subview %chunk[0, %r, 0] [1, 2, 16] [1, 1, 1] : memref<1x8x16xf32, strided<[180, 18, 1], offset: ?>> to memref<1x2x16xf32, strided<[180, 18, 1], offset: ?>>
      %src = memref.subview %x[%i, %r, 0] [1, 2, 16] [1, 1, 1] : memref<2x8x16xf32> to memref<1x2x16xf32, strided<[128, 16, 1], offset: ?>>
      memref.copy %src, %t : memref<1x2x16xf32, strided<[128, 16, 1], offset: ?>> to memref<1x2x16xf32, strided<[180, 18, 1], offset: ?>>
    }
  }
  memref.copy %a, %out : memref<2x10x18xf32> to memref<2x10x18xf32>
  memref.dealloc %a : memref<2x10x18xf32>
  return
}

// -----

// The loop writes parts of rows straight into its chunk of the interior:
// no view of whole rows inside the loop, so the fills stay.
// CHECK-LABEL: func.func @partial_rows(
// CHECK-COUNT-2: linalg.fill
// CHECK: scf.forall
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @partial_rows(%x: memref<2x8x16xf32>, %out: memref<2x8x18xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<2x8x18xf32>
  %left = memref.subview %a[0, 0, 0] [2, 8, 1] [1, 1, 1] : memref<2x8x18xf32> to memref<2x8x1xf32, strided<[144, 18, 1]>>
  linalg.fill ins(%zero : f32) outs(%left : memref<2x8x1xf32, strided<[144, 18, 1]>>)
  %right = memref.subview %a[0, 0, 17] [2, 8, 1] [1, 1, 1] : memref<2x8x18xf32> to memref<2x8x1xf32, strided<[144, 18, 1], offset: 17>>
  linalg.fill ins(%zero : f32) outs(%right : memref<2x8x1xf32, strided<[144, 18, 1], offset: 17>>)
  %in = memref.subview %a[0, 0, 1] [2, 8, 16] [1, 1, 1] : memref<2x8x18xf32> to memref<2x8x16xf32, strided<[144, 18, 1], offset: 1>>
  scf.forall (%j) in (2) {
    %j8 = affine.apply affine_map<(d0) -> (d0 * 8)>(%j)
    %t = memref.subview %in[0, 0, %j8] [2, 8, 8] [1, 1, 1] : memref<2x8x16xf32, strided<[144, 18, 1], offset: 1>> to memref<2x8x8xf32, strided<[144, 18, 1], offset: ?>>
    %src = memref.subview %x[0, 0, %j8] [2, 8, 8] [1, 1, 1] : memref<2x8x16xf32> to memref<2x8x8xf32, strided<[128, 16, 1], offset: ?>>
    memref.copy %src, %t : memref<2x8x8xf32, strided<[128, 16, 1], offset: ?>> to memref<2x8x8xf32, strided<[144, 18, 1], offset: ?>>
  }
  memref.copy %a, %out : memref<2x8x18xf32> to memref<2x8x18xf32>
  memref.dealloc %a : memref<2x8x18xf32>
  return
}

// -----

// The buffer is read before the loop: the fills stay.
// CHECK-LABEL: func.func @read_before_loop(
// CHECK-COUNT-2: linalg.fill
// CHECK: memref.copy
// CHECK: scf.forall
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @read_before_loop(%x: memref<2x8x16xf32>, %out: memref<2x8x18xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<2x8x18xf32>
  %left = memref.subview %a[0, 0, 0] [2, 8, 1] [1, 1, 1] : memref<2x8x18xf32> to memref<2x8x1xf32, strided<[144, 18, 1]>>
  linalg.fill ins(%zero : f32) outs(%left : memref<2x8x1xf32, strided<[144, 18, 1]>>)
  %right = memref.subview %a[0, 0, 17] [2, 8, 1] [1, 1, 1] : memref<2x8x18xf32> to memref<2x8x1xf32, strided<[144, 18, 1], offset: 17>>
  linalg.fill ins(%zero : f32) outs(%right : memref<2x8x1xf32, strided<[144, 18, 1], offset: 17>>)
  memref.copy %a, %out : memref<2x8x18xf32> to memref<2x8x18xf32>
  %in = memref.subview %a[0, 0, 1] [2, 8, 16] [1, 1, 1] : memref<2x8x18xf32> to memref<2x8x16xf32, strided<[144, 18, 1], offset: 1>>
  scf.forall (%i) in (2) {
    %t = memref.subview %in[%i, 0, 0] [1, 8, 16] [1, 1, 1] : memref<2x8x16xf32, strided<[144, 18, 1], offset: 1>> to memref<1x8x16xf32, strided<[144, 18, 1], offset: ?>>
    %src = memref.subview %x[%i, 0, 0] [1, 8, 16] [1, 1, 1] : memref<2x8x16xf32> to memref<1x8x16xf32, strided<[128, 16, 1], offset: ?>>
    memref.copy %src, %t : memref<1x8x16xf32, strided<[128, 16, 1], offset: ?>> to memref<1x8x16xf32, strided<[144, 18, 1], offset: ?>>
  }
  memref.dealloc %a : memref<2x8x18xf32>
  return
}

// -----

// The interior is also read after the loop (a residual add's copy): the
// pad columns still move into the loop.
// CHECK-LABEL: func.func @interior_read_after(
// CHECK: scf.forall
// CHECK: memref.copy
// CHECK: linalg.fill
// CHECK: linalg.fill
// CHECK: }
// CHECK: memref.copy %{{.*}}, %arg2
func.func @interior_read_after(%x: memref<2x8x16xf32>, %out: memref<2x8x18xf32>, %copy: memref<2x8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<2x8x18xf32>
  %left = memref.subview %a[0, 0, 0] [2, 8, 1] [1, 1, 1] : memref<2x8x18xf32> to memref<2x8x1xf32, strided<[144, 18, 1]>>
  linalg.fill ins(%zero : f32) outs(%left : memref<2x8x1xf32, strided<[144, 18, 1]>>)
  %right = memref.subview %a[0, 0, 17] [2, 8, 1] [1, 1, 1] : memref<2x8x18xf32> to memref<2x8x1xf32, strided<[144, 18, 1], offset: 17>>
  linalg.fill ins(%zero : f32) outs(%right : memref<2x8x1xf32, strided<[144, 18, 1], offset: 17>>)
  %in = memref.subview %a[0, 0, 1] [2, 8, 16] [1, 1, 1] : memref<2x8x18xf32> to memref<2x8x16xf32, strided<[144, 18, 1], offset: 1>>
  scf.forall (%i) in (2) {
    %t = memref.subview %in[%i, 0, 0] [1, 8, 16] [1, 1, 1] : memref<2x8x16xf32, strided<[144, 18, 1], offset: 1>> to memref<1x8x16xf32, strided<[144, 18, 1], offset: ?>>
    %src = memref.subview %x[%i, 0, 0] [1, 8, 16] [1, 1, 1] : memref<2x8x16xf32> to memref<1x8x16xf32, strided<[128, 16, 1], offset: ?>>
    memref.copy %src, %t : memref<1x8x16xf32, strided<[128, 16, 1], offset: ?>> to memref<1x8x16xf32, strided<[144, 18, 1], offset: ?>>
  }
  memref.copy %in, %copy : memref<2x8x16xf32, strided<[144, 18, 1], offset: 1>> to memref<2x8x16xf32>
  memref.copy %a, %out : memref<2x8x18xf32> to memref<2x8x18xf32>
  memref.dealloc %a : memref<2x8x18xf32>
  return
}

// -----

// A reshape between the loop's writes and the interior: the offsets of the
// views would not index the buffer's rows, so the fills stay.
// CHECK-LABEL: func.func @reshaped_tile(
// CHECK-COUNT-2: linalg.fill
// CHECK: scf.forall
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @reshaped_tile(%x: memref<2x8x16xf32>, %out: memref<2x8x18xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<2x8x18xf32>
  %left = memref.subview %a[0, 0, 0] [2, 8, 1] [1, 1, 1] : memref<2x8x18xf32> to memref<2x8x1xf32, strided<[144, 18, 1]>>
  linalg.fill ins(%zero : f32) outs(%left : memref<2x8x1xf32, strided<[144, 18, 1]>>)
  %right = memref.subview %a[0, 0, 17] [2, 8, 1] [1, 1, 1] : memref<2x8x18xf32> to memref<2x8x1xf32, strided<[144, 18, 1], offset: 17>>
  linalg.fill ins(%zero : f32) outs(%right : memref<2x8x1xf32, strided<[144, 18, 1], offset: 17>>)
  %in = memref.subview %a[0, 0, 1] [2, 8, 16] [1, 1, 1] : memref<2x8x18xf32> to memref<2x8x16xf32, strided<[144, 18, 1], offset: 1>>
  scf.forall (%i) in (2) {
    %chunk = memref.subview %in[%i, 0, 0] [1, 8, 16] [1, 1, 1] : memref<2x8x16xf32, strided<[144, 18, 1], offset: 1>> to memref<1x8x16xf32, strided<[144, 18, 1], offset: ?>>
    %flat = memref.collapse_shape %chunk [[0, 1], [2]] : memref<1x8x16xf32, strided<[144, 18, 1], offset: ?>> into memref<8x16xf32, strided<[18, 1], offset: ?>>
    %wide = memref.expand_shape %flat [[0, 1], [2]] output_shape [2, 4, 16] : memref<8x16xf32, strided<[18, 1], offset: ?>> into memref<2x4x16xf32, strided<[72, 18, 1], offset: ?>>
    %t = memref.subview %wide[1, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x4x16xf32, strided<[72, 18, 1], offset: ?>> to memref<1x4x16xf32, strided<[72, 18, 1], offset: ?>>
    %src = memref.subview %x[%i, 0, 0] [1, 4, 16] [1, 1, 1] : memref<2x8x16xf32> to memref<1x4x16xf32, strided<[128, 16, 1], offset: ?>>
    memref.copy %src, %t : memref<1x4x16xf32, strided<[128, 16, 1], offset: ?>> to memref<1x4x16xf32, strided<[72, 18, 1], offset: ?>>
  }
  memref.copy %a, %out : memref<2x8x18xf32> to memref<2x8x18xf32>
  memref.dealloc %a : memref<2x8x18xf32>
  return
}

// -----

// A fill of the whole buffer covers the interior too: filled after the
// tiles' writes it would overwrite them, so it stays before the loop.
// CHECK-LABEL: func.func @fill_over_interior(
// CHECK: linalg.fill
// CHECK: scf.forall
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @fill_over_interior(%x: memref<2x8x16xf32>, %out: memref<2x8x18xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<2x8x18xf32>
  %whole = memref.subview %a[0, 0, 0] [2, 8, 18] [1, 1, 1] : memref<2x8x18xf32> to memref<2x8x18xf32, strided<[144, 18, 1]>>
  linalg.fill ins(%zero : f32) outs(%whole : memref<2x8x18xf32, strided<[144, 18, 1]>>)
  %in = memref.subview %a[0, 0, 1] [2, 8, 16] [1, 1, 1] : memref<2x8x18xf32> to memref<2x8x16xf32, strided<[144, 18, 1], offset: 1>>
  scf.forall (%i) in (2) {
    %t = memref.subview %in[%i, 0, 0] [1, 8, 16] [1, 1, 1] : memref<2x8x16xf32, strided<[144, 18, 1], offset: 1>> to memref<1x8x16xf32, strided<[144, 18, 1], offset: ?>>
    %src = memref.subview %x[%i, 0, 0] [1, 8, 16] [1, 1, 1] : memref<2x8x16xf32> to memref<1x8x16xf32, strided<[128, 16, 1], offset: ?>>
    memref.copy %src, %t : memref<1x8x16xf32, strided<[128, 16, 1], offset: ?>> to memref<1x8x16xf32, strided<[144, 18, 1], offset: ?>>
  }
  memref.copy %a, %out : memref<2x8x18xf32> to memref<2x8x18xf32>
  memref.dealloc %a : memref<2x8x18xf32>
  return
}
