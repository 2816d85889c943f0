// RUN: fx-opt %s -fx-refine-shapes -split-input-file | FileCheck %s

// Static operands make dynamic results static, and the refinement flows
// through the graph into the function signature.
// CHECK-LABEL: func.func @forward_refinement(
// CHECK-SAME: -> tensor<2x6xf32>
// CHECK: fx.relu %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: fx.cat %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
// CHECK: return %{{.*}} : tensor<2x6xf32>
func.func @forward_refinement(%x: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %0 = fx.relu %x : (tensor<2x3xf32>) -> tensor<?x3xf32>
  %1 = fx.cat %0, %0 {dim = 1 : i64} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// Broadcasting a dynamic dimension against a static size > 1 gives that size.
// CHECK-LABEL: func.func @broadcast_refinement(
// CHECK: fx.add %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
func.func @broadcast_refinement(%a: tensor<?x3xf32>, %b: tensor<4x1xf32>) -> tensor<?x?xf32> {
  %0 = fx.add %a, %b : (tensor<?x3xf32>, tensor<4x1xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A written type that is more static than inference stays as it is.
// CHECK-LABEL: func.func @keeps_written_refinement(
// CHECK: fx.relu %{{.*}} : (tensor<?xf32>) -> tensor<8xf32>
func.func @keeps_written_refinement(%x: tensor<?xf32>) -> tensor<8xf32> {
  %0 = fx.relu %x : (tensor<?xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// A function with callers keeps its signature, so returned values keep their
// types; values used only inside the graph are still refined.
// CHECK-LABEL: func.func private @callee(
// CHECK-SAME: -> tensor<?xf32>
// CHECK: fx.neg %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: fx.relu %{{.*}} : (tensor<4xf32>) -> tensor<?xf32>
// CHECK-LABEL: func.func @caller(
func.func private @callee(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = fx.neg %x : (tensor<4xf32>) -> tensor<?xf32>
  %1 = fx.relu %0 : (tensor<?xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = call @callee(%x) : (tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Results used by other dialects are left alone.
// CHECK-LABEL: func.func @foreign_user(
// CHECK: fx.relu %{{.*}} : (tensor<4xf32>) -> tensor<?xf32>
// CHECK: tensor.dim
func.func @foreign_user(%x: tensor<4xf32>) -> index {
  %c0 = arith.constant 0 : index
  %0 = fx.relu %x : (tensor<4xf32>) -> tensor<?xf32>
  %1 = tensor.dim %0, %c0 : tensor<?xf32>
  return %1 : index
}
