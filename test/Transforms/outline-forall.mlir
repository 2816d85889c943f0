// RUN: fx-opt %s --fx-outline-forall | FileCheck %s

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
// CHECK: %[[M:.*]] = arith.muli %[[I]], %[[ST]]
// CHECK: %[[IV:.*]] = arith.addi %[[LB]], %[[M]]
// CHECK: memref.store %[[BF]], %[[BA]][%[[IV]], %[[C0]]]
// CHECK: func.func private @__fx_forall_dispatch_0(index, index, index, f32, memref<8x4xf32>)
func.func @scale(%a: memref<8x4xf32>, %f: f32) {
  %c0 = arith.constant 0 : index
  scf.forall (%i) = (0) to (8) step (2) {
    memref.store %f, %a[%i, %c0] : memref<8x4xf32>
  }
  return
}
