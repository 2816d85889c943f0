// RUN: fx-opt %s --fx-emit-c-interface | FileCheck %s

// CHECK-LABEL: func.func @public_graph
// CHECK-SAME: attributes {llvm.emit_c_interface}
func.func @public_graph() {
  return
}

// Private functions and declarations are not entry points.
// CHECK-LABEL: func.func private @helper
// CHECK-NOT: llvm.emit_c_interface
func.func private @helper() {
  return
}
// CHECK-LABEL: func.func private @external
// CHECK-NOT: llvm.emit_c_interface
func.func private @external()
