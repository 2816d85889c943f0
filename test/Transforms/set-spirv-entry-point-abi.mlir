// RUN: fx-opt %s --split-input-file --verify-diagnostics --fx-set-spirv-entry-point-abi | FileCheck %s

// CHECK-LABEL: gpu.func @kernel
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [128, 2, 1]>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @kernel(%a: memref<4xf32>) kernel attributes {known_block_size = array<i32: 128, 2, 1>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{has no known block size: cannot derive its SPIR-V workgroup size}}
    gpu.func @kernel(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
