// fx-cpu-pipeline takes an FX graph to the LLVM dialect; results become
// caller-provided output buffers behind a C interface.
// RUN: fx-opt %s --fx-cpu-pipeline="threads=1" | FileCheck %s
// RUN: fx-opt %s --fx-cpu-pipeline="vectorize=false fuse-elementwise=false threads=1" | FileCheck %s --check-prefix=SCALAR
// RUN: fx-opt %s --fx-cpu-pipeline="threads=2" | FileCheck %s --check-prefix=PARALLEL

// CHECK-LABEL: llvm.func @mlp(
// CHECK-NOT: = fx.
// CHECK: llvm.intr.fmuladd{{.*}}vector<32xf32>
// CHECK-LABEL: llvm.func @_mlir_ciface_mlp(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes
// CHECK-NOT: fxrtParallelFor

// SCALAR-LABEL: llvm.func @mlp(
// SCALAR-NOT: vector<
// SCALAR-LABEL: llvm.func @_mlir_ciface_mlp(

// Two threads: the matmul's rows are split in two chunks; the graph calls the
// runtime's thread pool with a trampoline and a context on the stack, and the
// outlined body holds the vectorized tiles.
// PARALLEL-LABEL: llvm.func @mlp(
// PARALLEL: %[[CTX:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i64, i64, ptr, ptr, i64
// PARALLEL: %[[FN:.*]] = llvm.mlir.addressof @__fx_forall_trampoline_0
// PARALLEL: llvm.call @fxrtParallelFor(%{{.*}}, %[[FN]], %[[CTX]])
// PARALLEL-LABEL: llvm.func @__fx_forall_body_0(
// PARALLEL: llvm.intr.fmuladd{{.*}}vector<32xf32>
// PARALLEL: llvm.func @fxrtParallelFor(i64, !llvm.ptr, !llvm.ptr)
// PARALLEL-LABEL: llvm.func internal @__fx_forall_trampoline_0(
// PARALLEL: llvm.load
// PARALLEL: llvm.call @__fx_forall_body_0(
func.func @mlp(%x: tensor<16x64xf32>, %w: tensor<64x64xf32>) -> tensor<16x64xf32> {
  %0 = fx.mm %x, %w : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %1 = fx.relu %0 : (tensor<16x64xf32>) -> tensor<16x64xf32>
  return %1 : tensor<16x64xf32>
}
