// RUN: fx-opt %s --split-input-file --fx-legalize-types-for-spirv --verify-diagnostics | FileCheck %s

// bf16 buffers become i16 buffers; conversions to and from f32 become
// integer shifts and rounding; a bf16 constant keeps its bits; selects move
// bits; arithmetic on bf16 happens in f32; the host passes its bf16 buffers
// through a cast to the kernel's i16 type.
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[A:.*]]: memref<8xbf16>, %[[B:.*]]: memref<8xbf16>)
// CHECK-DAG: %[[CA:.*]] = builtin.unrealized_conversion_cast %[[A]] : memref<8xbf16> to memref<8xi16>
// CHECK-DAG: %[[CB:.*]] = builtin.unrealized_conversion_cast %[[B]] : memref<8xbf16> to memref<8xi16>
// CHECK: gpu.launch_func @k::@k {{.*}} args(%[[CA]] : memref<8xi16>, %[[CB]] : memref<8xi16>, %{{.*}} : i1)
// CHECK: gpu.func @k(%[[X:.*]]: memref<8xi16>, %[[Y:.*]]: memref<8xi16>, %[[P:.*]]: i1) kernel
// CHECK-DAG: %[[C:.*]] = arith.constant 16320 : i16
// CHECK-DAG: %[[V:.*]] = memref.load %[[X]][%{{.*}}] : memref<8xi16>
// CHECK: arith.extui %[[V]] : i16 to i32
// CHECK: arith.shli
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.addf %{{.*}} : f32
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: %[[S:.*]] = arith.select %[[P]], %{{.*}}, %[[C]] : i16
// CHECK: memref.store %[[S]], %[[Y]][%{{.*}}] : memref<8xi16>
// CHECK-NOT: bf16
module attributes {gpu.container_module} {
  func.func @host(%a: memref<8xbf16>, %b: memref<8xbf16>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %true = arith.constant true
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%a : memref<8xbf16>, %b : memref<8xbf16>, %true : i1)
    return
  }
  gpu.module @k [#spirv.target_env<#spirv.vce<v1.3, [Shader, Int16, Float16, StorageBuffer16BitAccess], []>, #spirv.resource_limits<>>] {
    gpu.func @k(%x: memref<8xbf16>, %y: memref<8xbf16>, %p: i1) kernel {
      %i = gpu.thread_id x
      %c = arith.constant 1.5 : bf16
      %v = memref.load %x[%i] : memref<8xbf16>
      %s = arith.addf %v, %v : bf16
      %r = arith.select %p, %s, %c : bf16
      memref.store %r, %y[%i] : memref<8xbf16>
      gpu.return
    }
  }
}

// -----

// GPU modules without a SPIR-V target are left alone.
// CHECK-LABEL: gpu.module @other
// CHECK: memref<4xbf16>
module attributes {gpu.container_module} {
  gpu.module @other {
    gpu.func @k(%x: memref<4xbf16>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k [#spirv.target_env<#spirv.vce<v1.3, [Shader, Int16], []>, #spirv.resource_limits<>>] {
    gpu.func @k(%x: memref<8xf16>) kernel {
      %i = gpu.thread_id x
      // expected-error @+1 {{kernel uses f16 values, but the Vulkan target lacks the shaderFloat16 and storageBuffer16BitAccess features they need}}
      %v = memref.load %x[%i] : memref<8xf16>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k [#spirv.target_env<#spirv.vce<v1.3, [Shader], []>, #spirv.resource_limits<>>] {
    gpu.func @k(%x: memref<8xi64>) kernel {
      %i = gpu.thread_id x
      // expected-error @+1 {{kernel uses i64 values, but the Vulkan target lacks the shaderInt64 features they need}}
      %v = memref.load %x[%i] : memref<8xi64>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k [#spirv.target_env<#spirv.vce<v1.3, [Shader, Int16, GroupNonUniformArithmetic], []>, #spirv.resource_limits<>>] {
    gpu.func @k(%x: memref<8xbf16>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<8xbf16>
      // expected-error @+1 {{'gpu.subgroup_reduce' on bf16 has no f32 emulation for SPIR-V}}
      %s = gpu.subgroup_reduce add %v : (bf16) -> bf16
      memref.store %s, %x[%i] : memref<8xbf16>
      gpu.return
    }
  }
}

// -----

// Comparisons of sign-extended integers with constants that fit the
// narrower type compare the narrower values (either operand order; an
// index_cast of an index as 32 bits); a constant out of that range keeps
// the wide comparison.
// CHECK-LABEL: gpu.func @narrow
// CHECK-SAME: (%[[A:.*]]: i32, %[[B:.*]]: memref<4xi1>)
// CHECK-DAG: %[[C12:.*]] = arith.constant 12 : i32
// CHECK-DAG: %[[CM7:.*]] = arith.constant -7 : i32
// CHECK-DAG: %[[I3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[BIG:.*]] = arith.constant 4294967296 : i64
// CHECK: %[[I:.*]] = gpu.thread_id x
// CHECK: %[[W:.*]] = arith.extsi %[[A]] : i32 to i64
// CHECK: arith.cmpi sge, %[[A]], %[[C12]] : i32
// CHECK: arith.cmpi sgt, %[[A]], %[[CM7]] : i32
// CHECK: arith.cmpi ult, %[[I]], %[[I3]] : index
// CHECK: arith.cmpi sgt, %[[W]], %[[BIG]] : i64
module attributes {gpu.container_module} {
  gpu.module @k [#spirv.target_env<#spirv.vce<v1.3, [Shader, Int64, Int8], []>, #spirv.resource_limits<>>] {
    gpu.func @narrow(%a: i32, %out: memref<4xi1>) kernel {
      %i = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c12 = arith.constant 12 : i64
      %cm7 = arith.constant -7 : i64
      %c3i = arith.constant 3 : i64
      %big = arith.constant 4294967296 : i64
      %w = arith.extsi %a : i32 to i64
      %x = arith.index_cast %i : index to i64
      %0 = arith.cmpi sge, %w, %c12 : i64
      %1 = arith.cmpi slt, %cm7, %w : i64
      %2 = arith.cmpi ult, %x, %c3i : i64
      %3 = arith.cmpi sgt, %w, %big : i64
      memref.store %0, %out[%c0] : memref<4xi1>
      memref.store %1, %out[%c1] : memref<4xi1>
      memref.store %2, %out[%c2] : memref<4xi1>
      memref.store %3, %out[%c3] : memref<4xi1>
      gpu.return
    }
  }
}
