// RUN: fx-opt %s --pass-pipeline='builtin.module(func.func(fx-hoist-independent-gemms))' | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// A residual block: y = relu((x @ w1) @ w2 + x @ w3). The shortcut's
// product (x @ w3), which only needs x, moves ahead of the second product
// and its zero fill, so that the add follows the second product.
// CHECK-LABEL: func.func @residual
// CHECK: %[[A:.*]] = linalg.matmul ins(%arg0, %arg1
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[A]]
// CHECK: %[[S:.*]] = linalg.matmul ins(%arg0, %arg3
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: %[[F:.*]] = linalg.fill {{.*}} outs(%[[E]]
// CHECK: %[[C:.*]] = linalg.matmul ins(%[[R]], %arg2 {{.*}} outs(%[[F]]
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[C]], %[[S]]
func.func @residual(%x: tensor<8x16xf32>, %w1: tensor<16x16xf32>,
                    %w2: tensor<16x16xf32>, %w3: tensor<16x16xf32>)
    -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x16xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %c = linalg.matmul ins(%r, %w2 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = linalg.matmul ins(%x, %w3 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %s : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %sum = arith.addf %p, %q : f32
    %m = arith.maximumf %sum, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// The later product reads the earlier one's result: nothing moves.
// CHECK-LABEL: func.func @dependent
// CHECK: %[[A:.*]] = linalg.matmul ins(%arg0, %arg1
// CHECK: %[[B:.*]] = linalg.matmul ins(%[[A]], %arg2
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]]
func.func @dependent(%x: tensor<16x16xf32>, %w1: tensor<16x16xf32>,
                     %w2: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
  %b = linalg.matmul ins(%a, %w2 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %sum = arith.addf %p, %q : f32
    linalg.yield %sum : f32
  } -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// An op with side effects in the later product's slice keeps it in place.
// CHECK-LABEL: func.func @effects
// CHECK: %[[A:.*]] = linalg.matmul ins(%arg0, %arg1
// CHECK: memref.load
// CHECK: %[[B:.*]] = linalg.matmul ins(%arg0, %arg2
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]]
func.func @effects(%x: tensor<16x16xf32>, %w1: tensor<16x16xf32>,
                   %w2: tensor<16x16xf32>, %m: memref<f32>) -> tensor<16x16xf32> {
  %e = tensor.empty() : tensor<16x16xf32>
  %a0 = arith.constant 0.0 : f32
  %f = linalg.fill ins(%a0 : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
  %v = memref.load %m[] : memref<f32>
  %g = linalg.fill ins(%v : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %b = linalg.matmul ins(%x, %w2 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%g : tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %sum = arith.addf %p, %q : f32
    linalg.yield %sum : f32
  } -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
