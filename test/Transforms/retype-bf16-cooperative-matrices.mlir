// RUN: fx-opt %s --fx-retype-bf16-cooperative-matrices | FileCheck %s

// The kernel launched with a 16-byte-vector view of a bf16 buffer gets bf16
// operand fragments and the bf16 capabilities; the one launched with a view
// of an f16 buffer keeps its f16 fragments.
// CHECK-LABEL: spirv.module @__spv__bf Logical GLSL450 requires #spirv.vce<v1.6, [Shader, CooperativeMatrixKHR, Float16, BFloat16TypeKHR, BFloat16CooperativeMatrixKHR], [SPV_KHR_cooperative_matrix, SPV_KHR_bfloat16]>
// CHECK: spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>
// CHECK: spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB>
// CHECK: spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// CHECK: spirv.KHR.CooperativeMatrixMulAdd
// CHECK-SAME: !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB>
// CHECK-LABEL: spirv.module @__spv__f16 Logical GLSL450 requires #spirv.vce<v1.6, [Shader, CooperativeMatrixKHR, Float16], [SPV_KHR_cooperative_matrix]>
// CHECK: spirv.KHR.CooperativeMatrixMulAdd
// CHECK-SAME: !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB>
module attributes {gpu.container_module} {
  func.func @host(%a: memref<16x16xbf16>, %h: memref<16x16xf16>, %c: memref<16x16xf32>) {
    %c1 = arith.constant 1 : index
    %av = builtin.unrealized_conversion_cast %a : memref<16x16xbf16> to memref<32xvector<4xi32>>
    %hv = builtin.unrealized_conversion_cast %h : memref<16x16xf16> to memref<32xvector<4xi32>>
    gpu.launch_func @bf::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%av : memref<32xvector<4xi32>>, %c : memref<16x16xf32>)
    gpu.launch_func @f16::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%hv : memref<32xvector<4xi32>>, %c : memref<16x16xf32>)
    return
  }
  gpu.module @bf {
    gpu.func @k(%a: memref<32xvector<4xi32>>, %c: memref<16x16xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @f16 {
    gpu.func @k(%a: memref<32xvector<4xi32>>, %c: memref<16x16xf32>) kernel {
      gpu.return
    }
  }
  spirv.module @__spv__bf Logical GLSL450 requires #spirv.vce<v1.6, [Shader, CooperativeMatrixKHR, Float16], [SPV_KHR_cooperative_matrix]> {
    spirv.func @k(%pa: !spirv.ptr<vector<4xi32>, StorageBuffer>, %pc: !spirv.ptr<f32, StorageBuffer>) "None" {
      %c2 = spirv.Constant 2 : i32
      %c16 = spirv.Constant 16 : i32
      %x = spirv.KHR.CooperativeMatrixLoad %pa, %c2, <RowMajor> : !spirv.ptr<vector<4xi32>, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
      %y = spirv.KHR.CooperativeMatrixLoad %pa, %c2, <RowMajor> : !spirv.ptr<vector<4xi32>, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB>
      %z = spirv.KHR.CooperativeMatrixLoad %pc, %c16, <RowMajor> : !spirv.ptr<f32, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
      %r = spirv.KHR.CooperativeMatrixMulAdd %x, %y, %z : !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
      spirv.KHR.CooperativeMatrixStore %pc, %r, %c16, <RowMajor> : !spirv.ptr<f32, StorageBuffer>, !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>, i32
      spirv.Return
    }
  }
  spirv.module @__spv__f16 Logical GLSL450 requires #spirv.vce<v1.6, [Shader, CooperativeMatrixKHR, Float16], [SPV_KHR_cooperative_matrix]> {
    spirv.func @k(%pa: !spirv.ptr<vector<4xi32>, StorageBuffer>, %pc: !spirv.ptr<f32, StorageBuffer>) "None" {
      %c2 = spirv.Constant 2 : i32
      %c16 = spirv.Constant 16 : i32
      %x = spirv.KHR.CooperativeMatrixLoad %pa, %c2, <RowMajor> : !spirv.ptr<vector<4xi32>, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
      %y = spirv.KHR.CooperativeMatrixLoad %pa, %c2, <RowMajor> : !spirv.ptr<vector<4xi32>, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB>
      %z = spirv.KHR.CooperativeMatrixLoad %pc, %c16, <RowMajor> : !spirv.ptr<f32, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
      %r = spirv.KHR.CooperativeMatrixMulAdd %x, %y, %z : !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
      spirv.KHR.CooperativeMatrixStore %pc, %r, %c16, <RowMajor> : !spirv.ptr<f32, StorageBuffer>, !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>, i32
      spirv.Return
    }
  }
}
