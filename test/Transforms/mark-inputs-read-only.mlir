// RUN: fx-opt %s --fx-mark-inputs-read-only | FileCheck %s --check-prefix=MARK
// RUN: fx-opt %s --fx-mark-inputs-read-only --one-shot-bufferize=bufferize-function-boundaries | FileCheck %s
// Without the pass, the update goes into the caller's buffer:
// RUN: fx-opt %s --one-shot-bufferize=bufferize-function-boundaries | FileCheck %s --check-prefix=INPLACE

// MARK-LABEL: func.func @update
// MARK-SAME: (%{{.*}}: tensor<4xf32> {bufferization.writable = false}, %{{.*}}: f32)
// MARK-LABEL: func.func private @helper
// MARK-SAME: (%{{.*}}: tensor<4xf32>)

// A public function's tensor argument is read-only: the update writes a copy.
// CHECK-LABEL: func.func @update
// CHECK-SAME: (%[[X:[a-z0-9]+]]: memref<4xf32
// CHECK: %[[COPY:.*]] = memref.alloc
// CHECK: memref.copy %[[X]], %[[COPY]]
// CHECK: memref.store %{{.*}}, %[[COPY]]
// INPLACE-LABEL: func.func @update
// INPLACE-SAME: (%[[X:[a-z0-9]+]]: memref<4xf32
// INPLACE-NOT: memref.alloc
// INPLACE: memref.store %{{.*}}, %[[X]]
func.func @update(%x: tensor<4xf32>, %v: f32) -> tensor<4xf32> {
  %i = arith.constant 0 : index
  %r = tensor.insert %v into %x[%i] : tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
