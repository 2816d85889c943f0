// RUN: fx-opt %s --convert-fx-to-linalg --split-input-file | FileCheck %s

// batch_norm: a scale and a shift per channel (weight * rsqrt(var + eps),
// bias - mean * scale), then one multiply-add per element reading them
// per channel.
// CHECK-DAG: #[[$CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x4x3x3xf32>, %[[MEAN:[a-z0-9]+]]: tensor<4xf32>, %[[VAR:[a-z0-9]+]]: tensor<4xf32>, %[[W:[a-z0-9]+]]: tensor<4xf32>, %[[B:[a-z0-9]+]]: tensor<4xf32>
// CHECK: %[[SCALE:.*]] = linalg.generic {{.*}} ins(%[[VAR]], %[[W]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: arith.constant 9.99999974E-6 : f32
// CHECK: arith.addf
// CHECK: math.rsqrt
// CHECK: arith.mulf
// CHECK: %[[SHIFT:.*]] = linalg.generic {{.*}} ins(%[[MEAN]], %[[SCALE]], %[[B]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: arith.mulf
// CHECK: arith.subf
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$CH]], #[[$CH]], #{{.*}}], {{.*}} ins(%[[X]], %[[SCALE]], %[[SHIFT]] :
// CHECK-NEXT: ^bb0(%[[XE:.*]]: f32, %[[S:.*]]: f32, %[[T:.*]]: f32,
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[XE]], %[[S]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[P]], %[[T]] : f32
// CHECK-NEXT: linalg.yield %[[Y]]
func.func @batch_norm(%x: tensor<2x4x3x3xf32>, %mean: tensor<4xf32>, %var: tensor<4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4x3x3xf32> {
  %0 = fx.batch_norm %x, %mean, %var weight(%w) bias(%b) : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  return %0 : tensor<2x4x3x3xf32>
}

// -----

// batch_norm without weight and bias: scale = rsqrt(var + eps), shift =
// -(mean * scale); f16 in, statistics in f32, f16 out.
// CHECK-LABEL: func.func @batch_norm_plain_f16(
// CHECK: math.rsqrt
// CHECK-NOT: arith.mulf
// CHECK: linalg.yield
// CHECK: arith.mulf
// CHECK: arith.negf
// CHECK: linalg.generic
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @batch_norm_plain_f16(%x: tensor<2x4x3x3xf16>, %mean: tensor<4xf16>, %var: tensor<4xf16>) -> tensor<2x4x3x3xf16> {
  %0 = fx.batch_norm %x, %mean, %var : (tensor<2x4x3x3xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<2x4x3x3xf16>
  return %0 : tensor<2x4x3x3xf16>
}

// -----

// layer_norm: mean and variance reductions, then normalize.
// CHECK-LABEL: func.func @layer_norm(
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: math.rsqrt
func.func @layer_norm(%x: tensor<4x16xf32>, %w: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = fx.layer_norm %x weight(%w) {normalized_shape = array<i64: 16>} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// softmax: max from -inf (maxnumf with nsz: the max a softmax subtracts
// need not propagate NaN or order zeros, see createShiftMaximum), exp(x -
// max) summed, then each exp times the sum's reciprocal (one division per
// row once the loop is compiled).
// CHECK-LABEL: func.func @softmax(
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maxnumf {{.*}} fastmath<nsz>
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: ^bb0(%[[E:.*]]: f32, %[[SUM:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.divf %[[ONE]], %[[SUM]] : f32
// CHECK-NEXT: arith.mulf %[[E]], %[[R]] : f32
func.func @softmax(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = fx.softmax %x {dim = -1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
