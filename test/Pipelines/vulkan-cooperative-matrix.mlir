// The nvidia-h200 target has cooperative matrices: the f16 matmul becomes
// a SPIR-V 1.6 module of KHR cooperative-matrix ops, the other kernels stay
// SPIR-V 1.3 modules (here the relu; the matmul's fill and f16 truncation
// are part of its kernel). Targets without the capability keep the shared-memory
// kernel.
// RUN: fx-opt %s --fx-vulkan-pipeline=target=nvidia-h200 | FileCheck %s
// RUN: fx-opt %s --fx-vulkan-pipeline=target=lavapipe | FileCheck %s --check-prefix=PLAIN
// RUN: fx-opt %s --fx-vulkan-pipeline="target=caps=Shader,Int64,Int16,Int8,Float16,StorageBuffer16BitAccess,StorageBuffer8BitAccess,GroupNonUniform,GroupNonUniformArithmetic,GroupNonUniformBallot,GroupNonUniformShuffle,CooperativeMatrixKHR" | FileCheck %s

// An artifact for it is refused, naming the feature, by a device without
// cooperative matrices (lavapipe).
// RUN: rm -rf %t && mkdir -p %t
// RUN: fx-compile %s --target vulkan --vulkan-target nvidia-h200 -o %t/mm.fxa
// RUN: %if vulkan %{ not fxrt-run %t/mm.fxa 2>&1 | FileCheck %s --check-prefix=LACKS %}
// LACKS: lacks feature 'cooperativeMatrix' that the compiled kernels need

// CHECK-DAG: spirv.module @{{.*}} Logical GLSL450 requires #spirv.vce<v1.6, [{{.*}}CooperativeMatrixKHR{{.*}}], [{{.*}}SPV_KHR_cooperative_matrix{{.*}}]>
// CHECK-DAG: spirv.KHR.CooperativeMatrixMulAdd
// CHECK-DAG: spirv.module @{{.*}} Logical GLSL450 requires #spirv.vce<v1.{{[0-3]}}, [
// PLAIN-NOT: CooperativeMatrix
// PLAIN-NOT: v1.6
func.func @forward(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>) -> (tensor<128x128xf16>, tensor<128x64xf16>) {
  %r = fx.mm %a, %b : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
  %s = fx.relu %a : (tensor<128x64xf16>) -> tensor<128x64xf16>
  return %r, %s : tensor<128x128xf16>, tensor<128x64xf16>
}
