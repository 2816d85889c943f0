// RUN: fx-opt %s --fx-distinct-results | FileCheck %s
// RUN: fx-run %s --print | FileCheck %s --check-prefix=VALUES
// RUN: %if vulkan %{ fx-run %s --target=vulkan --print | FileCheck %s --check-prefix=VALUES %}

// A value returned twice (AOTAutograd's forward graphs return an output
// again for the backward) gets a copy at its second position: each result
// becomes an out-parameter of its own after bufferization, which crashed
// buffer-results-to-out-params before; an argument returned twice is
// copied the same way.
// CHECK-LABEL: func.func @forward
// CHECK: %[[T:.*]] = fx.tanh
// CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%[[T]])
// CHECK: %[[ARG:.*]] = bufferization.alloc_tensor() copy(%arg0)
// CHECK: return %[[T]], %arg0, %[[COPY]], %[[ARG]]
// VALUES-COUNT-2: output {{[02]}}: f32[4, 8] sum -1.49
func.func @forward(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = fx.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %x, %0, %x : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
