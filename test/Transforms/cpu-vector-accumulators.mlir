// RUN: fx-opt %s --split-input-file --fx-cpu-vector-accumulators | FileCheck %s

// A row max carried as a scalar (the form loop-invariant-subset-hoisting
// leaves): the loop carries vectors of 16 partial maxima, combined lane by
// lane with arith.maximumf (the scalar it replaces is dropped), four of
// them (256 iterations: four steps per iteration, each into an accumulator
// of its own, so that no step waits for the one before); after the loop
// the four combine and one reduction folds them into the initial value.
// CHECK-LABEL: func.func @row_max
// CHECK: %[[NEG:.*]] = arith.constant dense<0xFF800000> : vector<16xf32>
// CHECK: %[[LOOP:.*]]:4 = scf.for %[[I:.*]] = %c0 to %c4096 step %c64 iter_args(%[[A0:.*]] = %[[NEG]], %[[A1:.*]] = %[[NEG2:.*]], %[[A2:.*]] = %[[NEG2]], %[[A3:.*]] = %[[NEG2]]) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: %[[V0:.*]] = vector.transfer_read %arg0[%[[I]]]
// CHECK-NOT: vector.reduction
// CHECK: %[[N0:.*]] = arith.maximumf %[[V0]], %[[A0]] : vector<16xf32>
// CHECK: %[[N1:.*]] = arith.maximumf %{{.*}}, %[[A1]] : vector<16xf32>
// CHECK: %[[N2:.*]] = arith.maximumf %{{.*}}, %[[A2]] : vector<16xf32>
// CHECK: %[[N3:.*]] = arith.maximumf %{{.*}}, %[[A3]] : vector<16xf32>
// CHECK: scf.yield %[[N0]], %[[N1]], %[[N2]], %[[N3]]
// CHECK: %[[M01:.*]] = arith.maximumf %[[LOOP]]#0, %[[LOOP]]#1
// CHECK: %[[M012:.*]] = arith.maximumf %[[M01]], %[[LOOP]]#2
// CHECK: %[[ALL:.*]] = arith.maximumf %[[M012]], %[[LOOP]]#3
// CHECK: %[[INIT:.*]] = vector.extract %{{.*}}[0] : f32 from vector<1xf32>
// CHECK: %[[TOTAL:.*]] = vector.reduction <maximumf>, %[[ALL]], %[[INIT]] : vector<16xf32> into f32
// CHECK: vector.broadcast %[[TOTAL]] : f32 to vector<1xf32>
func.func @row_max(%row: memref<4096xf32>, %init: vector<1xf32>) -> vector<1xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c4096 step %c16 iter_args(%acc = %init) -> (vector<1xf32>) {
    %v = vector.transfer_read %row[%i], %pad {in_bounds = [true]} : memref<4096xf32>, vector<16xf32>
    %a = vector.extract %acc[0] : f32 from vector<1xf32>
    %m = vector.reduction <maximumf>, %v, %a : vector<16xf32> into f32
    %b = vector.broadcast %m : f32 to vector<1xf32>
    scf.yield %b : vector<1xf32>
  }
  return %r : vector<1xf32>
}

// -----

// 255 iterations, not a multiple of four: one accumulator.
// CHECK-LABEL: func.func @odd_trip_count
// CHECK: scf.for {{.*}} step %c16 iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf32>)
// CHECK: arith.maximumf
func.func @odd_trip_count(%row: memref<4080xf32>, %init: vector<1xf32>) -> vector<1xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4080 = arith.constant 4080 : index
  %pad = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c4080 step %c16 iter_args(%acc = %init) -> (vector<1xf32>) {
    %v = vector.transfer_read %row[%i], %pad {in_bounds = [true]} : memref<4080xf32>, vector<16xf32>
    %a = vector.extract %acc[0] : f32 from vector<1xf32>
    %m = vector.reduction <maximumf>, %v, %a : vector<16xf32> into f32
    %b = vector.broadcast %m : f32 to vector<1xf32>
    scf.yield %b : vector<1xf32>
  }
  return %r : vector<1xf32>
}

// -----

// A sum likewise, its final reduction reassociable.
// CHECK-LABEL: func.func @row_sum
// CHECK: arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: scf.for
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
func.func @row_sum(%row: memref<4096xf32>, %init: vector<1xf32>) -> vector<1xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c4096 step %c16 iter_args(%acc = %init) -> (vector<1xf32>) {
    %v = vector.transfer_read %row[%i], %pad {in_bounds = [true]} : memref<4096xf32>, vector<16xf32>
    %a = vector.extract %acc[0] : f32 from vector<1xf32>
    %m = vector.reduction <add>, %v, %a fastmath<reassoc> : vector<16xf32> into f32
    %b = vector.broadcast %m : f32 to vector<1xf32>
    scf.yield %b : vector<1xf32>
  }
  return %r : vector<1xf32>
}

// -----

// The carried value read by something else in the loop: left alone.
// CHECK-LABEL: func.func @also_read
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<16xf32> into f32
// CHECK-NOT: vector<16xf32>)
func.func @also_read(%row: memref<64xf32>, %out: memref<4xf32>, %init: vector<1xf32>) -> vector<1xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c64 step %c16 iter_args(%acc = %init) -> (vector<1xf32>) {
    %v = vector.transfer_read %row[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %a = vector.extract %acc[0] : f32 from vector<1xf32>
    memref.store %a, %out[%c0] : memref<4xf32>
    %m = vector.reduction <add>, %v, %a : vector<16xf32> into f32
    %b = vector.broadcast %m : f32 to vector<1xf32>
    scf.yield %b : vector<1xf32>
  }
  return %r : vector<1xf32>
}

// -----

// A sum of a 49-element row into a 0-d accumulator (a squeeze-and-
// excitation mean after its unit dimensions were dropped): the loop
// carries 16 partial sums and one reduction follows it, as for vector<1x>.
// CHECK-LABEL: func.func @row_sum_0d
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[ZERO]]) -> (vector<16xf32>)
// CHECK-NOT: vector.reduction
// CHECK: %[[N:.*]] = arith.addf %{{.*}}, %[[A]] : vector<16xf32>
// CHECK: scf.yield %[[N]]
// CHECK: %[[INIT:.*]] = vector.extract %{{.*}}[] : f32 from vector<f32>
// CHECK: %[[TOTAL:.*]] = vector.reduction <add>, %[[LOOP]], %[[INIT]] fastmath<reassoc> : vector<16xf32> into f32
// CHECK: vector.broadcast %[[TOTAL]] : f32 to vector<f32>
func.func @row_sum_0d(%row: memref<49xf32>, %init: vector<f32>) -> vector<f32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c49 = arith.constant 49 : index
  %pad = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c49 step %c16 iter_args(%acc = %init) -> (vector<f32>) {
    %v = vector.transfer_read %row[%i], %pad : memref<49xf32>, vector<16xf32>
    %a = vector.extract %acc[] : f32 from vector<f32>
    %s = vector.reduction <add>, %v, %a fastmath<reassoc> : vector<16xf32> into f32
    %b = vector.broadcast %s : f32 to vector<f32>
    scf.yield %b : vector<f32>
  }
  return %r : vector<f32>
}
