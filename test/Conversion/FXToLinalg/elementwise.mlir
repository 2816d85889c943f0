// RUN: fx-opt %s --convert-fx-to-linalg --split-input-file | FileCheck %s

// A binary op with broadcasting: one linalg.generic whose maps read the
// size-1 / missing dimensions at index 0.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_broadcast(
// CHECK-SAME: %[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32>) outs(%[[E]] : tensor<4x3xf32>)
// CHECK: %[[S:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %[[S]] : f32
func.func @add_broadcast(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %0 = fx.add %a, %b {alpha = 2.0 : f64} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// f16 computes in f32 and rounds once. An f32 rank-0 operand of add, sub,
// mul or div enters the f32 computation unrounded (PyTorch's
// original_scalar_value); other ops cast it to the common dtype f16 first.
// CHECK-LABEL: func.func @f16_opmath(
// CHECK: ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f32, %{{.*}}: f16):
// CHECK: %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NOT: arith.truncf
// CHECK: %[[P:.*]] = arith.mulf %[[XW]], %[[Y]] : f32
// CHECK: arith.truncf %[[P]] : f32 to f16
// CHECK: ^bb0(%[[X2:.*]]: f16, %[[Y2:.*]]: f32, %{{.*}}: f16):
// CHECK: %[[Y16:.*]] = arith.truncf %[[Y2]] : f32 to f16
// CHECK: %[[YW:.*]] = arith.extf %[[Y16]] : f16 to f32
// CHECK: arith.maximumf %{{.*}}, %[[YW]] : f32
func.func @f16_opmath(%a: tensor<8xf16>, %b: tensor<f32>) -> (tensor<8xf16>, tensor<8xf16>) {
  %0 = fx.mul %a, %b : (tensor<8xf16>, tensor<f32>) -> tensor<8xf16>
  %1 = fx.maximum %a, %b : (tensor<8xf16>, tensor<f32>) -> tensor<8xf16>
  return %0, %1 : tensor<8xf16>, tensor<8xf16>
}

// -----

// A dynamic dimension is assumed not to broadcast; the assumption is checked.
// CHECK-LABEL: func.func @dynamic_broadcast_check(
// CHECK: %[[D0:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x3xf32>
// CHECK: %[[D1:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x3xf32>
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[D1]], %[[D0]] : index
// CHECK: cf.assert %[[EQ]], "fx.add at {{.*}}: dimension 0 of operand 1 does not match the broadcast result size
// CHECK: tensor.empty(%[[D0]]) : tensor<?x3xf32>
func.func @dynamic_broadcast_check(%a: tensor<?x3xf32>, %b: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = fx.add %a, %b : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Comparisons yield i1; NaN != NaN uses the unordered predicate.
// CHECK-LABEL: func.func @compare(
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf une
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i1
func.func @compare(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = fx.lt %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = fx.ne %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = fx.lt %c, %c : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Unary activations: gelu (erf form), integer sigmoid computes in f32.
// CHECK-LABEL: func.func @unary(
// CHECK: math.erf
// CHECK: ^bb0(%[[I:.*]]: i64, %{{.*}}: f32):
// CHECK: arith.sitofp %[[I]] : i64 to f32
// CHECK: math.exp
func.func @unary(%a: tensor<4xf32>, %b: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = fx.gelu %a : (tensor<4xf32>) -> tensor<4xf32>
  %1 = fx.sigmoid %b : (tensor<4xi64>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Integer division guards the divisor against zero (a trap otherwise).
// CHECK-LABEL: func.func @int_div_floor(
// CHECK: %[[Z:.*]] = arith.cmpi eq
// CHECK: %[[SAFE:.*]] = arith.select %[[Z]]
// CHECK: arith.floordivsi %{{.*}}, %[[SAFE]] : i64
func.func @int_div_floor(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  %0 = fx.div %a, %b {rounding_mode = #fx.rounding_mode<floor>} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Clamps by constants are maxima and minima without signed zeros (nsz),
// NaN still propagating; fx.maximum of two tensors keeps both.
// CHECK-LABEL: func.func @clamp_bounds(
// CHECK: arith.maximumf %{{.*}}, %{{.*}} fastmath<nsz> : f32
// CHECK: %[[LO:.*]] = arith.maximumf %{{.*}}, %{{.*}} fastmath<nsz> : f32
// CHECK: arith.minimumf %[[LO]], %{{.*}} fastmath<nsz> : f32
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: fastmath
func.func @clamp_bounds(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = fx.relu %a : (tensor<8xf32>) -> tensor<8xf32>
  %1 = fx.hardtanh %a {min_val = 0.0 : f64, max_val = 6.0 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  %2 = fx.maximum %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
