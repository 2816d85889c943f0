// RUN: fx-opt %s -split-input-file --fx-hoist-parameter-computations | FileCheck %s

// A weight transposed for the register tiles moves into @lin__prepare; the
// entry takes the transpose as a trailing argument. The bias, read as it
// is, stays a parameter of the entry.
// CHECK: module attributes {fx.prepare = {lin = {arguments = array<i64: 1>, function = "lin__prepare", results = [tensor<4x8xf32>]}}}
// CHECK-LABEL: func.func @lin(
// CHECK-SAME: %[[X:.*]]: tensor<16x4xf32>, %{{.*}}: tensor<8x4xf32> {fx.param = "fc.weight"}, %[[B:.*]]: tensor<8xf32> {fx.param = "fc.bias"}, %[[T:.*]]: tensor<4x8xf32> {fx.prepared = 0 : i64})
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul ins(%[[X]], %[[T]] :
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[B]] :
// CHECK-LABEL: func.func @lin__prepare(
// CHECK-SAME: %[[W:.*]]: tensor<8x4xf32> {fx.argument = 1 : i64}) -> tensor<4x8xf32>
// CHECK: %[[R:.*]] = linalg.transpose ins(%[[W]] : tensor<8x4xf32>)
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @lin(%x: tensor<16x4xf32>, %w: tensor<8x4xf32> {fx.param = "fc.weight"},
               %b: tensor<8xf32> {fx.param = "fc.bias"}) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %t = linalg.transpose ins(%w : tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) permutation = [1, 0]
  %o = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%o : tensor<16x8xf32>) -> tensor<16x8xf32>
  %m = linalg.matmul ins(%x, %t : tensor<16x4xf32>, tensor<4x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<16x8xf32>, tensor<8xf32>) outs(%o : tensor<16x8xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// Nothing to hoist: a broadcast of a parameter is larger than the parameter
// (recomputing it costs less than storing it), a fill of a constant comes
// from no parameter, and what reads an input is not known before the run.
// CHECK-NOT: fx.prepare
// CHECK-LABEL: func.func @keep(
// CHECK-SAME: %{{.*}}: tensor<16x8xf32>, %{{.*}}: tensor<8xf32> {fx.param = "b"}) -> (tensor<16x8xf32>, tensor<16x8xf32>)
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-NOT: func.func @keep__prepare
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d1)>
func.func @keep(%x: tensor<16x8xf32>, %b: tensor<8xf32> {fx.param = "b"}) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%o : tensor<16x8xf32>) -> tensor<16x8xf32>
  %bb = linalg.generic {indexing_maps = [#row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<8xf32>) outs(%o : tensor<16x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  } -> tensor<16x8xf32>
  %s = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bb : tensor<16x8xf32>, tensor<16x8xf32>) outs(%f : tensor<16x8xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %t = arith.addf %a, %c : f32
    linalg.yield %t : f32
  } -> tensor<16x8xf32>
  return %s, %f : tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// A chain on parameters alone moves whole (scale = gamma * rsqrt(var)), and
// the entry keeps only its result; functions without parameters and
// private functions are left alone.
// CHECK: fx.prepare = {chain = {arguments = array<i64: 1, 2>, function = "chain__prepare", results = [tensor<8xf32>]}}
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:.*]]: tensor<16x8xf32>, %{{.*}}: tensor<8xf32> {fx.param = "gamma"}, %{{.*}}: tensor<8xf32> {fx.param = "var"}, %[[S:.*]]: tensor<8xf32> {fx.prepared = 0 : i64})
// CHECK-NOT: math.rsqrt
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[S]] :
// CHECK-LABEL: func.func @chain__prepare(
// CHECK-SAME: {fx.argument = 1 : i64}, %{{.*}}: tensor<8xf32> {fx.argument = 2 : i64}) -> tensor<8xf32>
// CHECK: math.rsqrt
// CHECK: arith.mulf
// CHECK-LABEL: func.func @plain(
// CHECK-LABEL: func.func private @helper(
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.copy
#vec = affine_map<(d0) -> (d0)>
#id3 = affine_map<(d0, d1) -> (d0, d1)>
#row3 = affine_map<(d0, d1) -> (d1)>
func.func @chain(%x: tensor<16x8xf32>, %gamma: tensor<8xf32> {fx.param = "gamma"},
                 %var: tensor<8xf32> {fx.param = "var"}) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%var : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %out: f32):
    %q = math.rsqrt %v : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#vec, #vec, #vec], iterator_types = ["parallel"]}
      ins(%gamma, %r : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%g: f32, %q: f32, %out: f32):
    %m = arith.mulf %g, %q : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %o = tensor.empty() : tensor<16x8xf32>
  %y = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<16x8xf32>, tensor<8xf32>) outs(%o : tensor<16x8xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}
func.func @plain(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
func.func private @helper(%x: tensor<8xf32> {fx.param = "p"}) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %t = linalg.copy ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %t : tensor<8xf32>
}
