// RUN: fx-opt %s --split-input-file --fx-outline-forall | FileCheck %s

// The loop becomes a dispatch call with the trip count, the bounds and the
// captured values; the body runs [begin, end) as an scf.for.
// CHECK-LABEL: func.func @scale(
// CHECK-SAME: %[[A:.*]]: memref<8x4xf32>, %[[F:.*]]: f32
// CHECK: %[[N:.*]] = arith.ceildivsi
// CHECK: call @__fx_forall_dispatch_0(%[[N]], %{{.*}}, %{{.*}}, %[[F]], %[[A]]) : (index, index, index, f32, memref<8x4xf32>) -> ()
// CHECK-NOT: scf.forall
// CHECK-LABEL: func.func private @__fx_forall_body_0(
// CHECK-SAME: %[[B:.*]]: index, %[[E:.*]]: index, %[[LB:.*]]: index, %[[ST:.*]]: index, %[[BF:.*]]: f32, %[[BA:.*]]: memref<8x4xf32>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: scf.for %[[I:.*]] = %[[B]] to %[[E]]
// The constant lower bound and step are constants in the body too (what
// later passes know of the offsets survives); the arguments still carry
// them.
// CHECK-DAG: %[[CLB:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[CST:.*]] = arith.constant 2 : index
// CHECK: %[[M:.*]] = arith.muli %[[I]], %[[CST]]
// CHECK: %[[IV:.*]] = arith.addi %[[CLB]], %[[M]]
// CHECK: memref.store %[[BF]], %[[BA]][%[[IV]], %[[C0]]]
// CHECK: func.func private @__fx_forall_dispatch_0(index, index, index, f32, memref<8x4xf32>)
func.func @scale(%a: memref<8x4xf32>, %f: f32) {
  %c0 = arith.constant 0 : index
  scf.forall (%i) = (0) to (8) step (2) {
    memref.store %f, %a[%i, %c0] : memref<8x4xf32>
  }
  return
}

// -----

// Bounds known only at run time come from the arguments.
// CHECK-LABEL: func.func @dynamic(
// CHECK: call @__fx_forall_dispatch_0(%{{.*}}, %arg1, %arg2, %{{.*}}, %arg0)
// CHECK-LABEL: func.func private @__fx_forall_body_0(
// CHECK-SAME: %[[B:.*]]: index, %[[E:.*]]: index, %[[LB:.*]]: index, %[[ST:.*]]: index,
// CHECK: scf.for %[[I:.*]] = %[[B]] to %[[E]]
// CHECK: %[[M:.*]] = arith.muli %[[I]], %[[ST]]
// CHECK: %[[IV:.*]] = arith.addi %[[LB]], %[[M]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[IV]]]
func.func @dynamic(%a: memref<64xf32>, %lb: index, %step: index, %f: f32) {
  scf.forall (%i) = (%lb) to (64) step (%step) {
    memref.store %f, %a[%i] : memref<64xf32>
  }
  return
}
