// RUN: fx-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(fx-map-parallel-loops-to-gpu{workgroup-size=64 max-workgroups=1000}))' \
// RUN:   | FileCheck %s

// A 2-d loop: 4x8 = 32 iterations in one workgroup of 64 threads, guarded;
// the linear index is split innermost-fastest.
// CHECK-LABEL: func.func @small
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in ({{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C64]],
// CHECK:   %[[MUL:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK:   %[[ID:.*]] = arith.addi %[[MUL]], %[[TX]] : index
// CHECK:   %[[IN:.*]] = arith.cmpi ult, %[[ID]], %{{.*}} : index
// CHECK:   scf.if %[[IN]] {
// CHECK:     %[[J:.*]] = arith.remui %[[ID]], %{{.*}} : index
// CHECK:     %[[I:.*]] = arith.divui %[[ID]], %{{.*}} : index
// CHECK:     memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x8xf32>
// CHECK:   gpu.terminator
// CHECK-NOT: scf.parallel
func.func @small(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<4x8xf32>
    %r = arith.negf %v : f32
    memref.store %r, %b[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  return
}

// -----

// 100000 iterations need more than max-workgroups (1000) x 64 threads: the
// grid has 1000 workgroups and each thread strides by 64000, four iterations
// (256000) per trip: their indices clamped to the last element, their
// stores guarded and placed after the four computations.
// CHECK-LABEL: func.func @strided
// CHECK: %[[C1000:.*]] = arith.constant 1000 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[C1000]],
// CHECK-DAG: %[[STRIDE:.*]] = arith.constant 64000 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[STEP:.*]] = arith.muli %[[STRIDE]], %[[C4]]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[STEP]]
// CHECK: arith.cmpi ult, %[[I]]
// CHECK: arith.minui %[[I]]
// CHECK-COUNT-3: arith.minui
// CHECK-COUNT-4: scf.if
// CHECK-NOT: scf.if
// CHECK: gpu.terminator
func.func @strided(%a: memref<100000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 100000 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %zero, %a[%i] : memref<100000xf32>
    scf.reduce
  }
  return
}

// -----

// A copy between views becomes a loop and then a launch; a copy between
// whole buffers stays for the runtime (vkCmdCopyBuffer).
// CHECK-LABEL: func.func @copies
// CHECK: gpu.launch
// CHECK:   memref.load %{{.*}} : memref<2x2xf32, strided<[4, 1]>>
// CHECK: memref.copy %arg0, %arg1 : memref<4x4xf32> to memref<4x4xf32>
func.func @copies(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<2x2xf32>) {
  %v = memref.subview %a[0, 0] [2, 2] [1, 1] : memref<4x4xf32> to memref<2x2xf32, strided<[4, 1]>>
  memref.copy %v, %c : memref<2x2xf32, strided<[4, 1]>> to memref<2x2xf32>
  memref.copy %a, %b : memref<4x4xf32> to memref<4x4xf32>
  return
}

// -----

// Dynamic bounds: the host computes the trip count (n * 16) and the grid
// (ceil(total / 64), at most max-workgroups); threads stride over the
// iterations by the grid they were launched with.
// CHECK-LABEL: func @dynamic
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x16xf32>, %[[N:[a-z0-9]+]]: index
// CHECK: %[[TOTAL:.*]] = arith.muli %[[N]], %c16
// CHECK: %[[CEIL:.*]] = arith.ceildivui %[[TOTAL]], %c64
// CHECK: %[[GROUPS:.*]] = arith.minui %[[CEIL]], %c1000
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%[[GX:.*]] = %[[GROUPS]], {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in
// CHECK: %[[LINEAR:.*]] = arith.addi %{{.*}}, %[[TX]]
// CHECK: %[[STRIDE:.*]] = arith.muli %[[GX]], %{{.*}}
// CHECK: %[[LAST:.*]] = arith.subi %[[TOTAL]], %c1
// CHECK: %[[STEP:.*]] = arith.muli %[[STRIDE]], %c4
// CHECK: scf.for %[[I:.*]] = %[[LINEAR]] to %[[TOTAL]] step %[[STEP]]
// Four iterations per trip, each clamped to the last one and its store
// guarded.
// CHECK: %[[VALID:.*]] = arith.cmpi ult, %[[I]], %[[TOTAL]]
// CHECK: %[[INDEX:.*]] = arith.minui %[[I]], %[[LAST]]
// CHECK-DAG: arith.remui %[[INDEX]], %{{.*}}
// CHECK-DAG: arith.divui %[[INDEX]], %{{.*}}
// CHECK-COUNT-3: arith.minui %{{.*}}, %[[LAST]]
// CHECK: scf.if %[[VALID]]
// CHECK-NEXT: memref.store %{{.*}}, %[[A]][%{{.*}}, %{{.*}}]
// CHECK-COUNT-3: scf.if
func.func @dynamic(%a: memref<?x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c16) step (%c1, %c1) {
    memref.store %zero, %a[%i, %j] : memref<?x16xf32>
    scf.reduce
  }
  return
}

// -----

func.func @reduction(%a: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{with reductions cannot be mapped to GPU threads}}
  %r = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %v = memref.load %a[%i] : memref<8xf32>
    scf.reduce(%v : f32) {
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      scf.reduce.return %s : f32
    }
  }
  return %r : f32
}

// -----

// A scalar loaded on the host and used by a kernel: the schedule has no
// place for host-computed values.
func.func @host_value(%a: memref<f32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{computes a value on the host that later host code uses}}
  %s = memref.load %a[] : memref<f32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %s, %b[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// A view between two serial steps that host code uses later (a mean with
// keepdim over every dimension: the sum and the division run on one
// thread, the expand_shape of the buffer feeds the next kernel) stays on
// the host, ahead of the one-thread kernel.
// CHECK-LABEL: func.func @view_in_serial_run
// CHECK: %[[V:.*]] = memref.expand_shape %arg1 [] output_shape [1, 1]
// CHECK: gpu.launch
// CHECK:   memref.load %arg0[]
// CHECK:   memref.store %{{.*}}, %arg1[]
// CHECK:   memref.load %arg1[]
// CHECK:   memref.store %{{.*}}, %arg2[]
// CHECK: gpu.launch
// CHECK:   memref.load %[[V]]
func.func @view_in_serial_run(%a: memref<f32>, %t: memref<f32>, %u: memref<f32>, %out: memref<1x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %x = memref.load %a[] : memref<f32>
  %y = arith.mulf %x, %two : f32
  memref.store %y, %t[] : memref<f32>
  %v = memref.expand_shape %t [] output_shape [1, 1] : memref<f32> into memref<1x1xf32>
  %z = memref.load %t[] : memref<f32>
  memref.store %z, %u[] : memref<f32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1, %c1) step (%c1, %c1) {
    %w = memref.load %v[%i, %j] : memref<1x1xf32>
    memref.store %w, %out[%i, %j] : memref<1x1xf32>
    scf.reduce
  }
  return
}

// RUN: not fx-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(fx-map-parallel-loops-to-gpu{workgroup-size=0}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADSIZE
// BADSIZE: error: workgroup-size and max-workgroups must be positive

// -----

// A window reduction accumulates through memory after
// convert-linalg-to-parallel-loops: the accumulator moves out of both
// loops into registers (loaded once before, stored once after).
// CHECK-LABEL: func.func @window_sum
// CHECK: gpu.launch
// CHECK: %[[INIT:.*]] = memref.load %arg1
// CHECK: %[[OUTER:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[INIT]]) -> (f32)
// CHECK: %[[INNER:.*]] = scf.for {{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (f32)
// CHECK-NOT: memref.store
// CHECK: arith.addf %[[B]]
// CHECK: scf.yield
// CHECK: scf.yield %[[INNER]]
// CHECK: memref.store %[[OUTER]], %arg1
func.func @window_sum(%x: memref<8x6xf32>, %y: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c4) step (%c1, %c1) {
    scf.for %k = %c0 to %c3 step %c1 {
      scf.for %l = %c0 to %c1 step %c1 {
        %jj = arith.addi %j, %k : index
        %v = memref.load %x[%i, %jj] : memref<8x6xf32>
        %acc = memref.load %y[%i, %j] : memref<8x4xf32>
        %s = arith.addf %acc, %v : f32
        memref.store %s, %y[%i, %j] : memref<8x4xf32>
      }
    }
    scf.reduce
  }
  return
}

// -----

// The loop also reads another element of the accumulated buffer: the
// accumulator stays in memory.
// CHECK-LABEL: func.func @reads_its_output
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: memref.store
func.func @reads_its_output(%y: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %k = %c0 to %c3 step %c1 {
      %v = memref.load %y[%i, %k] : memref<8x4xf32>
      %acc = memref.load %y[%i, %c3] : memref<8x4xf32>
      %s = arith.addf %acc, %v : f32
      memref.store %s, %y[%i, %c3] : memref<8x4xf32>
    }
    scf.reduce
  }
  return
}
