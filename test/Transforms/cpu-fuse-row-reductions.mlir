// RUN: fx-opt %s --split-input-file --fx-cpu-fuse-row-reductions | FileCheck %s

// A softmax row: exp(x - max) feeds its sum and the final division. The
// exp and the sum become one generic of two results, the exp stored for
// the division.
// CHECK-LABEL: func.func @softmax_row
// CHECK: %[[M:.*]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%arg0, %arg1 : tensor<1x64xf32>, tensor<1xf32>) outs(%{{.*}}, %{{.*}} : tensor<1x64xf32>, tensor<1xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[MAX:.*]]: f32, %{{.*}}: f32, %[[ACC:.*]]: f32):
// CHECK: %[[D:.*]] = arith.subf %[[X]], %[[MAX]]
// CHECK: %[[E:.*]] = math.exp %[[D]]
// CHECK: %[[S:.*]] = arith.addf %[[E]], %[[ACC]]
// CHECK: linalg.yield %[[E]], %[[S]]
// CHECK-NOT: linalg.generic{{.*}}"reduction"
// CHECK: linalg.generic {{.*}} ins(%[[M]]#0, %[[M]]#1 : tensor<1x64xf32>, tensor<1xf32>)
#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
func.func @softmax_row(%x: tensor<1x64xf32>, %max: tensor<1xf32>) -> tensor<1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty() : tensor<1x64xf32>
  %e = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<1x64xf32>, tensor<1xf32>) outs(%e0 : tensor<1x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<1x64xf32>
  %s0 = tensor.empty() : tensor<1xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1xf32>) -> tensor<1xf32>
  %s = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<1x64xf32>) outs(%s1 : tensor<1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<1xf32>
  %y0 = tensor.empty() : tensor<1x64xf32>
  %y = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]} ins(%e, %s : tensor<1x64xf32>, tensor<1xf32>) outs(%y0 : tensor<1x64xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %r = arith.divf %a, %t : f32
    linalg.yield %r : f32
  } -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// -----

// A layer norm's sum of squares reads x - mean and a second input (the
// reduction's other inputs follow the producer's in the merged op).
// CHECK-LABEL: func.func @squares_with_weight
// CHECK: %[[M:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%arg0, %arg1, %arg2 : tensor<1x64xf32>, tensor<1xf32>, tensor<1x64xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[MEAN:.*]]: f32, %[[W:.*]]: f32, %{{.*}}: f32, %[[ACC:.*]]: f32):
// CHECK: %[[D:.*]] = arith.subf %[[X]], %[[MEAN]]
// CHECK: %[[SQ:.*]] = arith.mulf %[[D]], %[[W]]
// CHECK: %[[S:.*]] = arith.addf %[[SQ]], %[[ACC]]
// CHECK: linalg.yield %[[D]], %[[S]]
// CHECK: return %[[M]]#0, %[[M]]#1
#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
func.func @squares_with_weight(%x: tensor<1x64xf32>, %mean: tensor<1xf32>, %w: tensor<1x64xf32>) -> (tensor<1x64xf32>, tensor<1xf32>) {
  %zero = arith.constant 0.0 : f32
  %d0 = tensor.empty() : tensor<1x64xf32>
  %d = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : tensor<1x64xf32>, tensor<1xf32>) outs(%d0 : tensor<1x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %v = arith.subf %a, %m : f32
    linalg.yield %v : f32
  } -> tensor<1x64xf32>
  %s0 = tensor.empty() : tensor<1xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1xf32>) -> tensor<1xf32>
  %s = linalg.generic {indexing_maps = [#row, #row, #col], iterator_types = ["parallel", "reduction"]} ins(%d, %w : tensor<1x64xf32>, tensor<1x64xf32>) outs(%s1 : tensor<1xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %q = arith.mulf %a, %b : f32
    %t = arith.addf %q, %acc : f32
    linalg.yield %t : f32
  } -> tensor<1xf32>
  return %d, %s : tensor<1x64xf32>, tensor<1xf32>
}

// -----

// Left alone: the reduction is the producer's only reader (upstream's
// elementwise fusion computes the value inside it), and a reader of the
// producer comes before the reduction (the merged op, at the reduction,
// would come after it).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-2: linalg.generic {{.*}}"reduction"
// CHECK-NOT: linalg.yield {{.*}}, {{.*}} : f32, f32
#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
func.func @left_alone(%x: tensor<1x64xf32>, %acc: tensor<1xf32>) -> (tensor<1xf32>, tensor<1x64xf32>, tensor<1xf32>) {
  %e0 = tensor.empty() : tensor<1x64xf32>
  %e = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x64xf32>) outs(%e0 : tensor<1x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<1x64xf32>
  %s = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<1x64xf32>) outs(%acc : tensor<1xf32>) {
  ^bb0(%a: f32, %t: f32):
    %r = arith.addf %a, %t : f32
    linalg.yield %r : f32
  } -> tensor<1xf32>
  %f0 = tensor.empty() : tensor<1x64xf32>
  %f = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x64xf32>) outs(%f0 : tensor<1x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.tanh %a : f32
    linalg.yield %v : f32
  } -> tensor<1x64xf32>
  %g0 = tensor.empty() : tensor<1x64xf32>
  %g = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]} ins(%f : tensor<1x64xf32>) outs(%g0 : tensor<1x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.negf %a : f32
    linalg.yield %v : f32
  } -> tensor<1x64xf32>
  %t = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]} ins(%f : tensor<1x64xf32>) outs(%acc : tensor<1xf32>) {
  ^bb0(%a: f32, %t2: f32):
    %r = arith.addf %a, %t2 : f32
    linalg.yield %r : f32
  } -> tensor<1xf32>
  return %s, %g, %t : tensor<1xf32>, tensor<1x64xf32>, tensor<1xf32>
}

// -----

// A layer norm row: x - mean (one subtraction of the row and a per-row
// value) is read by the sum of squares and by the scaling. Each reader
// computes it again; no generic stores it.
// CHECK-LABEL: func.func @layer_norm_row
// CHECK-NOT: tensor<1x64xf32>, tensor<1xf32>) ->
// CHECK: %[[SS:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%arg0, %arg1 : tensor<1x64xf32>, tensor<1xf32>) outs(%{{.*}} : tensor<1xf32>)
// CHECK: %[[D:.*]] = arith.subf
// CHECK: %[[SQ:.*]] = arith.mulf %[[D]], %[[D]]
// CHECK: arith.addf %[[SQ]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0, %arg1, %[[SS]] : tensor<1x64xf32>, tensor<1xf32>, tensor<1xf32>)
// CHECK: %[[D2:.*]] = arith.subf
// CHECK: arith.mulf %[[D2]]
#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
func.func @layer_norm_row(%x: tensor<1x64xf32>, %mean: tensor<1xf32>) -> tensor<1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %d0 = tensor.empty() : tensor<1x64xf32>
  %d = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : tensor<1x64xf32>, tensor<1xf32>) outs(%d0 : tensor<1x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %v = arith.subf %a, %m : f32
    linalg.yield %v : f32
  } -> tensor<1x64xf32>
  %s0 = tensor.empty() : tensor<1xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1xf32>) -> tensor<1xf32>
  %s = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]} ins(%d : tensor<1x64xf32>) outs(%s1 : tensor<1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %q = arith.mulf %a, %a : f32
    %t = arith.addf %q, %acc : f32
    linalg.yield %t : f32
  } -> tensor<1xf32>
  %y0 = tensor.empty() : tensor<1x64xf32>
  %y = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]} ins(%d, %s : tensor<1x64xf32>, tensor<1xf32>) outs(%y0 : tensor<1x64xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %r = arith.mulf %a, %t : f32
    linalg.yield %r : f32
  } -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// -----

// Stored, not recomputed: x - y reads two inputs of the whole row (each
// reader would read both again), so it merges into its sum of squares.
// CHECK-LABEL: func.func @two_row_inputs
// CHECK: %[[M:.*]]:2 = linalg.generic
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK: linalg.generic {{.*}} ins(%[[M]]#0, %[[M]]#1 : tensor<1x64xf32>, tensor<1xf32>)
#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
func.func @two_row_inputs(%x: tensor<1x64xf32>, %z: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %d0 = tensor.empty() : tensor<1x64xf32>
  %d = linalg.generic {indexing_maps = [#row, #row, #row], iterator_types = ["parallel", "parallel"]} ins(%x, %z : tensor<1x64xf32>, tensor<1x64xf32>) outs(%d0 : tensor<1x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.subf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x64xf32>
  %s0 = tensor.empty() : tensor<1xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1xf32>) -> tensor<1xf32>
  %s = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]} ins(%d : tensor<1x64xf32>) outs(%s1 : tensor<1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %q = arith.mulf %a, %a : f32
    %t = arith.addf %q, %acc : f32
    linalg.yield %t : f32
  } -> tensor<1xf32>
  %y0 = tensor.empty() : tensor<1x64xf32>
  %y = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]} ins(%d, %s : tensor<1x64xf32>, tensor<1xf32>) outs(%y0 : tensor<1x64xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %r = arith.mulf %a, %t : f32
    linalg.yield %r : f32
  } -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// -----

// A chain of cheap values: x - mean feeds 2 * (x - mean), which feeds a
// sum and an output. Recomputing the first replaces the second, itself
// cheap, which is then recomputed too (this once crashed the pass): every
// reader computes the subtraction, none reads a stored value.
// CHECK-LABEL: func.func @cheap_chain
// CHECK-COUNT-3: arith.subf
// CHECK-NOT: arith.subf
// CHECK: return
#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
func.func @cheap_chain(%x: tensor<1x64xf32>, %mean: tensor<1xf32>) -> (tensor<1xf32>, tensor<1xf32>, tensor<1x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %d0 = tensor.empty() : tensor<1x64xf32>
  %d = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : tensor<1x64xf32>, tensor<1xf32>) outs(%d0 : tensor<1x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %v = arith.subf %a, %m : f32
    linalg.yield %v : f32
  } -> tensor<1x64xf32>
  %e = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<1x64xf32>) outs(%d0 : tensor<1x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %two : f32
    linalg.yield %v : f32
  } -> tensor<1x64xf32>
  %s0 = tensor.empty() : tensor<1xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1xf32>) -> tensor<1xf32>
  %s = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]} ins(%d : tensor<1x64xf32>) outs(%s1 : tensor<1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<1xf32>
  %t = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<1x64xf32>) outs(%s1 : tensor<1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %u = arith.addf %a, %acc : f32
    linalg.yield %u : f32
  } -> tensor<1xf32>
  %y0 = tensor.empty() : tensor<1x64xf32>
  %y = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]} ins(%e : tensor<1x64xf32>) outs(%y0 : tensor<1x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %two : f32
    linalg.yield %r : f32
  } -> tensor<1x64xf32>
  return %s, %t, %y : tensor<1xf32>, tensor<1xf32>, tensor<1x64xf32>
}
