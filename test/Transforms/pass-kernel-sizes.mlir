// RUN: fx-opt %s --split-input-file --verify-diagnostics --fx-pass-kernel-sizes | FileCheck %s

// A kernel's memref.dim of its argument becomes an index argument (one per
// argument and dimension, however often it is asked); each launch passes
// the memref.dim of its operand, computed on the host.
// CHECK-LABEL: func.func @host
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<?x4xf32>
// CHECK: %[[N:.*]] = memref.dim %[[X]], %c0
// CHECK: gpu.launch_func @k::@k {{.*}} args(%[[X]] : memref<?x4xf32>, %[[N]] : index)
// CHECK: gpu.func @k(%[[A:.*]]: memref<?x4xf32>, %[[SIZE:.*]]: index) kernel
// CHECK-NOT: memref.dim
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[SIZE]]
// CHECK: arith.addi %[[SIZE]], %[[SIZE]]
module attributes {gpu.container_module} {
  func.func @host(%x: memref<?x4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<?x4xf32>)
    return
  }
  gpu.module @k {
    gpu.func @k(%a: memref<?x4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = memref.dim %a, %c0 : memref<?x4xf32>
      scf.for %i = %c0 to %n step %c1 {
        %f = arith.constant 0.0 : f32
        memref.store %f, %a[%i, %c0] : memref<?x4xf32>
      }
      %again = memref.dim %a, %c0 : memref<?x4xf32>
      %twice = arith.addi %n, %again : index
      gpu.return
    }
  }
}

// -----

// Only an argument's size can be passed.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?x4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %b = memref.alloca(%c0) : memref<?xf32>
      // expected-error @below {{asks a kernel for the size of a buffer that is not one of its arguments; the Vulkan pipeline passes only argument sizes to kernels}}
      %n = memref.dim %b, %c0 : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// Storage buffers are indexed with static strides.
module attributes {gpu.container_module} {
  func.func @host(%x: memref<?x?x4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @below {{'gpu.launch_func' op passes a buffer of type 'memref<?x?x4xf32>' to a kernel: on Vulkan only the outermost dimension of a buffer can be dynamic (kernels index storage buffers with static strides); compile for fixed sizes instead (fx-compile --dynamic-sizes)}}
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<?x?x4xf32>)
    return
  }
  gpu.module @k {
    gpu.func @k(%a: memref<?x?x4xf32>) kernel {
      gpu.return
    }
  }
}
