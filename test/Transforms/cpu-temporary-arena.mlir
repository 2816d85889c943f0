// RUN: fx-opt %s --fx-temporary-arena --split-input-file | FileCheck %s
// RUN: not fx-opt %s --fx-temporary-arena=alignment=48 --split-input-file 2>&1 | FileCheck %s --check-prefix=ALIGN

// ALIGN: error: fx-temporary-arena: alignment must be a power of two

// A chain of three temporaries, freed at the end (as the deallocation
// pipeline leaves them): %a dies when %c is born, so they share offset 0;
// %b lives beside both. 4096 + 1024 bytes, one arena freed before return.
// CHECK-LABEL: func.func @chain
// CHECK:      %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<5120xi8>
// CHECK:      %[[OA:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %[[ARENA]][%[[OA]]][] : memref<5120xi8> to memref<1024xf32>
// CHECK:      call @produce(%[[A]])
// CHECK:      %[[OB:.*]] = arith.constant 4096 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %[[ARENA]][%[[OB]]][] : memref<5120xi8> to memref<256xf32>
// CHECK:      call @step(%[[A]], %[[B]])
// CHECK:      %[[OC:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[C:.*]] = memref.view %[[ARENA]][%[[OC]]][] : memref<5120xi8> to memref<1024xf32>
// CHECK:      call @step(%[[C]], %[[B]])
// CHECK:      call @consume(%[[C]], %[[OUT:.*]])
// CHECK-NOT:  memref.dealloc %[[A]]
// CHECK:      memref.dealloc %[[ARENA]]
// CHECK-NEXT: return
func.func private @produce(memref<1024xf32>)
func.func private @step(memref<1024xf32>, memref<256xf32>)
func.func private @consume(memref<1024xf32>, memref<1024xf32>)
func.func @chain(%out: memref<1024xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  call @produce(%a) : (memref<1024xf32>) -> ()
  %b = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
  call @step(%a, %b) : (memref<1024xf32>, memref<256xf32>) -> ()
  %c = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  call @step(%c, %b) : (memref<1024xf32>, memref<256xf32>) -> ()
  call @consume(%c, %out) : (memref<1024xf32>, memref<1024xf32>) -> ()
  memref.dealloc %a : memref<1024xf32>
  memref.dealloc %b : memref<256xf32>
  memref.dealloc %c : memref<1024xf32>
  return
}

// -----

// A use inside a loop (here through a view) counts at the loop, and a
// buffer's range starts at its first use: %y lives from its first call to
// the loop, %x only in the loop (they overlap); %z starts after the loop and
// takes %y's bytes. Equal sizes go by first use: %y at 0, %x at 512.
// CHECK-LABEL: func.func @views_and_loops
// CHECK:      memref.alloc() {alignment = 64 : i64} : memref<1024xi8>
// CHECK:      arith.constant 512 : index
// CHECK-NEXT: memref.view {{.*}} to memref<8x16xf32>
// CHECK:      arith.constant 0 : index
// CHECK-NEXT: memref.view {{.*}} to memref<128xf32>
// CHECK:      scf.for
// CHECK:      arith.constant 0 : index
// CHECK-NEXT: memref.view {{.*}} to memref<64xf32>
func.func private @use(memref<8xf32, strided<[1], offset: ?>>)
func.func private @use1(memref<128xf32>)
func.func private @use2(memref<64xf32>)
func.func @views_and_loops(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
  %y = memref.alloc() {alignment = 64 : i64} : memref<128xf32>
  call @use1(%y) : (memref<128xf32>) -> ()
  scf.for %i = %c0 to %n step %c1 {
    %row = memref.subview %x[%i, 0] [1, 8] [1, 1] : memref<8x16xf32> to memref<8xf32, strided<[1], offset: ?>>
    func.call @use(%row) : (memref<8xf32, strided<[1], offset: ?>>) -> ()
    func.call @use1(%y) : (memref<128xf32>) -> ()
  }
  %z = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  call @use2(%z) : (memref<64xf32>) -> ()
  memref.dealloc %x : memref<8x16xf32>
  memref.dealloc %y : memref<128xf32>
  memref.dealloc %z : memref<64xf32>
  return
}

// -----

// Views touch no memory: subviews hoisted next to the allocations (as
// bufferization leaves those of padded buffers) do not start the ranges,
// so %p, used only before %q's first use, shares its bytes.
// CHECK-LABEL: func.func @hoisted_views
// CHECK:      memref.alloc() {alignment = 64 : i64} : memref<400xi8>
// CHECK:      arith.constant 0 : index
// CHECK-NEXT: memref.view {{.*}} to memref<10x10xf32>
// CHECK:      arith.constant 0 : index
// CHECK-NEXT: memref.view {{.*}} to memref<10x10xf32>
func.func private @fill(memref<8x8xf32, strided<[10, 1], offset: 11>>)
func.func private @read(memref<10x10xf32>)
func.func @hoisted_views() {
  %p = memref.alloc() {alignment = 64 : i64} : memref<10x10xf32>
  %pi = memref.subview %p[1, 1] [8, 8] [1, 1] : memref<10x10xf32> to memref<8x8xf32, strided<[10, 1], offset: 11>>
  %q = memref.alloc() {alignment = 64 : i64} : memref<10x10xf32>
  %qi = memref.subview %q[1, 1] [8, 8] [1, 1] : memref<10x10xf32> to memref<8x8xf32, strided<[10, 1], offset: 11>>
  call @fill(%pi) : (memref<8x8xf32, strided<[10, 1], offset: 11>>) -> ()
  call @read(%p) : (memref<10x10xf32>) -> ()
  call @fill(%qi) : (memref<8x8xf32, strided<[10, 1], offset: 11>>) -> ()
  call @read(%q) : (memref<10x10xf32>) -> ()
  memref.dealloc %p : memref<10x10xf32>
  memref.dealloc %q : memref<10x10xf32>
  return
}

// -----

// Left alone: a returned buffer, a buffer of dynamic size, one allocated in
// a nested region; with fewer than two candidates, no arena.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:  memref.view
// CHECK:      %[[R:.*]] = memref.alloc() : memref<16xf32>
// CHECK:      memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:      scf.if
// CHECK-NEXT: memref.alloc() : memref<4xf32>
// CHECK:      return %[[R]]
func.func private @use3(memref<?xf32>)
func.func private @use4(memref<4xf32>)
func.func @left_alone(%n: index, %p: i1) -> memref<16xf32> {
  %r = memref.alloc() : memref<16xf32>
  %d = memref.alloc(%n) : memref<?xf32>
  call @use3(%d) : (memref<?xf32>) -> ()
  scf.if %p {
    %t = memref.alloc() : memref<4xf32>
    func.call @use4(%t) : (memref<4xf32>) -> ()
    memref.dealloc %t : memref<4xf32>
  }
  %s = memref.alloc() : memref<8xf32>
  memref.dealloc %d : memref<?xf32>
  memref.dealloc %s : memref<8xf32>
  return %r : memref<16xf32>
}
