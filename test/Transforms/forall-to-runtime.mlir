// RUN: fx-opt %s --fx-forall-to-runtime | FileCheck %s

// CHECK-LABEL: llvm.func @graph(
// CHECK-SAME: %[[N:.*]]: i64, %[[P:.*]]: !llvm.ptr, %[[X:.*]]: f32
// CHECK: %[[CTX:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, f32)>
// CHECK: llvm.store %[[P]]
// CHECK: llvm.store %[[X]]
// CHECK: %[[FN:.*]] = llvm.mlir.addressof @__fx_forall_trampoline_7
// CHECK: llvm.call @fxrtParallelFor(%[[N]], %[[FN]], %[[CTX]])
// CHECK-NOT: __fx_forall_dispatch_7
// CHECK-LABEL: llvm.func internal @__fx_forall_trampoline_7(
// CHECK-SAME: %[[B:.*]]: i64, %[[E:.*]]: i64, %[[C:.*]]: !llvm.ptr
// CHECK: %[[P0:.*]] = llvm.load
// CHECK: %[[X0:.*]] = llvm.load
// CHECK: llvm.call @__fx_forall_body_7(%[[B]], %[[E]], %[[P0]], %[[X0]])
llvm.func @__fx_forall_dispatch_7(i64, !llvm.ptr, f32)
llvm.func @__fx_forall_body_7(%b: i64, %e: i64, %p: !llvm.ptr, %x: f32) {
  llvm.return
}
llvm.func @graph(%n: i64, %p: !llvm.ptr, %x: f32) {
  llvm.call @__fx_forall_dispatch_7(%n, %p, %x) : (i64, !llvm.ptr, f32) -> ()
  llvm.return
}

// A dispatch without a body is an error.
// RUN: not fx-opt %S/Inputs/forall-no-body.mlir --fx-forall-to-runtime 2>&1 | FileCheck %s --check-prefix=NOBODY
// NOBODY: error: no outlined body for __fx_forall_dispatch_3
