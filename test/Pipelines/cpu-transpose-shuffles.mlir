// A transposing elementwise op is tiled in 16x16 blocks that are read a
// row at a time and transposed in registers: 64 two-source shuffles per
// block reach LLVM, not 256 element moves.
// RUN: fx-opt %s --fx-cpu-pipeline="threads=1" | FileCheck %s

// CHECK-LABEL: llvm.func @permute_relu(
// CHECK-COUNT-64: llvm.shufflevector {{.*}} : vector<16xf32>
// CHECK-NOT: llvm.extractelement
// CHECK-LABEL: llvm.func @_mlir_ciface_permute_relu(
func.func @permute_relu(%x: tensor<32x64xf32>) -> tensor<64x32xf32> {
  %0 = fx.permute %x {dims = array<i64: 1, 0>} : (tensor<32x64xf32>) -> tensor<64x32xf32>
  %1 = fx.relu %0 : (tensor<64x32xf32>) -> tensor<64x32xf32>
  return %1 : tensor<64x32xf32>
}
