// A bf16 matmul on a target with bf16 cooperative matrices (nvidia-h200):
// the cooperative-matrix kernel with bf16 operand fragments (SPIR-V
// OpTypeFloat 16 BFloat16KHR, SPV_KHR_bfloat16), f32 accumulators; the
// rounding to bf16 is a kernel of its own. Without the capabilities the
// tiled shared-memory kernel takes it.
// RUN: fx-opt %s --fx-vulkan-pipeline=target=nvidia-h200 | FileCheck %s
// RUN: fx-opt %s --fx-vulkan-pipeline="target=caps=Shader,Int64,Int16,Int8,Float16,StorageBuffer16BitAccess,StorageBuffer8BitAccess,GroupNonUniform,GroupNonUniformArithmetic,GroupNonUniformBallot,GroupNonUniformShuffle,CooperativeMatrixKHR" | FileCheck %s --check-prefix=NOBF16
// The kernels serialize, and the artifact names the device features.
// RUN: rm -rf %t && mkdir -p %t
// RUN: fx-compile %s --target vulkan --vulkan-target nvidia-h200 -o %t/mm.fxa
// RUN: %python %S/../Tools/fxrt-run/Inputs/fxa.py %t/mm.fxa manifest | %python -c "import json, sys; print(json.load(sys.stdin)['entries'][0]['targets']['vulkan']['required_features'])" | FileCheck %s --check-prefix=FEATURES
// FEATURES: 'shaderBFloat16Type', 'shaderBFloat16CooperativeMatrix'

// CHECK: spirv.module @{{.*}} Logical GLSL450 requires #spirv.vce<v1.6, [{{.*}}CooperativeMatrixKHR{{.*}}BFloat16TypeKHR, BFloat16CooperativeMatrixKHR], [{{.*}}SPV_KHR_cooperative_matrix, SPV_KHR_bfloat16]>
// CHECK-NOT: coopmatrix<16x16xf16
// CHECK: spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>
// CHECK: spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB>
// CHECK: spirv.KHR.CooperativeMatrixMulAdd {{.*}} : !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// NOBF16-NOT: BFloat16
// NOBF16-NOT: coopmatrix<16x16xbf16
// NOBF16-NOT: CooperativeMatrixMulAdd
func.func @forward(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) -> tensor<128x128xbf16> {
  %r = fx.mm %a, %b : (tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<128x128xbf16>
  return %r : tensor<128x128xbf16>
}
