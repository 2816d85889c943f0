// RUN: fx-opt %s --fx-guard-zero-trip-loops | FileCheck %s

// A strided per-thread loop that may run zero times: its result comes from
// an scf.if whose else branch yields the init value.
// CHECK-LABEL: func.func @maybe_zero_trips
// CHECK-SAME: (%[[TID:.*]]: index, %[[N:.*]]: index, %[[INIT:.*]]: f32)
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %[[TID]], %[[N]] : index
// CHECK: %[[R:.*]] = scf.if %[[RUNS]] -> (f32) {
// CHECK:   %[[L:.*]] = scf.for %{{.*}} = %[[TID]] to %[[N]] step %{{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (f32) {
// CHECK:   scf.yield %[[L]] : f32
// CHECK: } else {
// CHECK:   scf.yield %[[INIT]] : f32
// CHECK: return %[[R]] : f32
func.func @maybe_zero_trips(%tid: index, %n: index, %init: f32) -> f32 {
  %c32 = arith.constant 32 : index
  %0 = scf.for %i = %tid to %n step %c32 iter_args(%acc = %init) -> (f32) {
    %1 = arith.addf %acc, %init : f32
    scf.yield %1 : f32
  }
  return %0 : f32
}

// Unsigned loops compare unsigned.
// CHECK-LABEL: func.func @unsigned
// CHECK: arith.cmpi ult
// CHECK: scf.if
func.func @unsigned(%lb: i32, %ub: i32, %init: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %0 = scf.for unsigned %i = %lb to %ub step %c1 iter_args(%acc = %init) -> (i32) : i32 {
    %1 = arith.addi %acc, %i : i32
    scf.yield %1 : i32
  }
  return %0 : i32
}

// A constant trip count of at least one needs no guard; neither does a loop
// without results.
// CHECK-LABEL: func.func @known_trips
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: return
func.func @known_trips(%n: index, %init: f32, %m: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %0 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (f32) {
    %1 = arith.addf %acc, %init : f32
    scf.yield %1 : f32
  }
  scf.for %i = %c0 to %n step %c1 {
    memref.store %init, %m[%c0] : memref<4xf32>
  }
  return %0 : f32
}

// Nested loops are guarded each.
// CHECK-LABEL: func.func @nested
// CHECK: scf.if
// CHECK:   scf.for
// CHECK:     scf.if
// CHECK:       scf.for
func.func @nested(%n: index, %init: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
    %1 = scf.for %j = %c0 to %n step %c1 iter_args(%a = %acc) -> (f32) {
      %2 = arith.addf %a, %init : f32
      scf.yield %2 : f32
    }
    scf.yield %1 : f32
  }
  return %0 : f32
}
