// RUN: fx-opt %s --fx-vulkan-pipeline | FileCheck %s
// RUN: not fx-opt %s --fx-vulkan-pipeline=target=foo 2>&1 | FileCheck %s --check-prefix=BADTARGET
// RUN: not fx-opt %s '--fx-vulkan-pipeline=target=caps=Shader,NoSuchCap' 2>&1 | FileCheck %s --check-prefix=BADTARGET
// RUN: fx-opt %S/Inputs/elementwise.mlir '--fx-vulkan-pipeline=target=lavapipe workgroup-size=64' | FileCheck %s --check-prefix=WG64

// The host function keeps the calling convention of the CPU pipeline (inputs,
// then outputs as buffers) and holds only allocations and launches; every
// kernel is a spirv.module with the target environment.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8xf32>, %[[W:.*]]: memref<8x16xf32>, %[[OUT0:.*]]: memref<4x8xf32>, %[[OUT1:.*]]: memref<4x16xf32>)
// The add, relu and softmax are one row kernel: a workgroup of 32 threads
// per row (the row has 8 elements), with subgroup reductions combined
// through workgroup memory. Then the matmul, which starts from zero (the
// fill before it is absorbed by fx-map-matmuls-to-gpu).
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: gpu.launch_func @[[K0:.*]]::@{{.*}} blocks in (%[[C4]], %{{.*}}, %{{.*}}) threads in (%[[C32]], %{{.*}}, %{{.*}}) args(%[[A]] : memref<4x8xf32>, %[[B]] : memref<8xf32>, %[[OUT0]] : memref<4x8xf32>)
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NEXT: return
// CHECK: spirv.module @__spv__[[K0]] Logical GLSL450
// CHECK-SAME: api=Vulkan
// CHECK: spirv.GlobalVariable @{{.*}} : !spirv.ptr<!spirv.struct<(!spirv.array<32 x f32>)>, Workgroup>
// CHECK: spirv.GlobalVariable @{{.*}} bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<32 x f32, stride=4> [0])>, StorageBuffer>
// CHECK: spirv.GroupNonUniformFMax <Subgroup> <Reduce>
// CHECK: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: spirv.GroupNonUniformFAdd <Subgroup> <Reduce>
// CHECK: spirv.EntryPoint "GLCompute"
// CHECK: spirv.ExecutionMode @{{.*}} "LocalSize", 32, 1, 1
// CHECK: spirv.ExecutionMode @{{.*}} "LocalSize", 256, 1, 1

// WG64: spirv.ExecutionMode @{{.*}} "LocalSize", 64, 1, 1

// BADTARGET: fx-vulkan-pipeline: unknown target

func.func @forward(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %w: tensor<8x16xf32>) -> (tensor<4x8xf32>, tensor<4x16xf32>) {
  %0 = fx.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = fx.relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = fx.softmax %1 {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = fx.mm %2, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %2, %3 : tensor<4x8xf32>, tensor<4x16xf32>
}
