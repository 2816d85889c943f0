// fx-cpu-pipeline takes an FX graph to the LLVM dialect; results become
// caller-provided output buffers behind a C interface.
// RUN: fx-opt %s --fx-cpu-pipeline | FileCheck %s
// RUN: fx-opt %s --fx-cpu-pipeline="vectorize=false fuse-elementwise=false" | FileCheck %s --check-prefix=SCALAR

// CHECK-LABEL: llvm.func @mlp(
// CHECK-NOT: = fx.
// CHECK: llvm.intr.fmuladd{{.*}}vector<32xf32>
// CHECK-LABEL: llvm.func @_mlir_ciface_mlp(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes
// SCALAR-LABEL: llvm.func @mlp(
// SCALAR-NOT: vector<
// SCALAR-LABEL: llvm.func @_mlir_ciface_mlp(
func.func @mlp(%x: tensor<16x64xf32>, %w: tensor<64x64xf32>) -> tensor<16x64xf32> {
  %0 = fx.mm %x, %w : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %1 = fx.relu %0 : (tensor<16x64xf32>) -> tensor<16x64xf32>
  return %1 : tensor<16x64xf32>
}
