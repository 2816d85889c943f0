// fx-fuse-elementwise: upstream elementwise fusion that keeps contractions
// intact.
// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-fx-to-linalg),canonicalize,cse,func.func(fx-fuse-elementwise),canonicalize,cse)' | FileCheck %s
// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-fx-to-linalg),canonicalize,cse,func.func(fx-fuse-elementwise{recompute-costly-broadcasts=true}),canonicalize,cse)' | FileCheck %s --check-prefix=RECOMPUTE

// An elementwise chain becomes one generic.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @chain(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %0 = fx.mul %x, %y : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %1 = fx.add %0, %x : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %2 = fx.relu %1 : (tensor<64xf32>) -> tensor<64xf32>
  return %2 : tensor<64xf32>
}

// -----

// A linear on a 3-d input stays a 2-d linalg.matmul between reshapes: the
// reshapes are not propagated into it (upstream's pass turns it into a
// generic with three m/n dimensions). The ReLU after it takes the matmul's
// shape instead, and the reshape moves after the ReLU.
// CHECK-LABEL: func.func @linear_3d
// CHECK: tensor.collapse_shape
// CHECK: %[[MM:.*]] = linalg.matmul {{.*}} -> tensor<32x8xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]} ins(%[[MM]] : tensor<32x8xf32>)
// CHECK-NOT: reduction
// CHECK: tensor.expand_shape {{.*}} into tensor<2x16x2x4xf32>
func.func @linear_3d(%x: tensor<2x16x4xf32>, %w: tensor<8x4xf32>) -> tensor<2x16x2x4xf32> {
  %0 = fx.linear %x, %w : (tensor<2x16x4xf32>, tensor<8x4xf32>) -> tensor<2x16x8xf32>
  %1 = fx.view %0 {size = array<i64: 2, 16, 2, 4>} : (tensor<2x16x8xf32>) -> tensor<2x16x2x4xf32>
  %2 = fx.relu %1 : (tensor<2x16x2x4xf32>) -> tensor<2x16x2x4xf32>
  return %2 : tensor<2x16x2x4xf32>
}

// -----

// Softmax's division is not fused into the P x V contraction of attention.
// CHECK-LABEL: func.func @attention
// CHECK: arith.divf
// CHECK: linalg.batch_matmul
// CHECK-NOT: arith.divf
// CHECK: return
func.func @attention(%q: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %0 = fx.scaled_dot_product_attention %q, %k, %v : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// -----

// Horizontal fusion: reductions over the same iteration space reading the
// same input become one generic with one result each (mean's sum is the
// sum's after CSE), so the input is read once.
// CHECK-LABEL: func.func @sibling_reductions
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<64x128xf32>) outs(%{{.*}}, %{{.*}} : tensor<64xf32>, tensor<64xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: linalg.yield
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[R]]#0 : tensor<64xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1, %[[MEAN]]
func.func @sibling_reductions(%x: tensor<64x128xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %0 = fx.sum %x {dim = array<i64: 1>} : (tensor<64x128xf32>) -> tensor<64xf32>
  %1 = fx.amax %x {dim = array<i64: 1>} : (tensor<64x128xf32>) -> tensor<64xf32>
  %2 = fx.mean %x {dim = array<i64: 1>} : (tensor<64x128xf32>) -> tensor<64xf32>
  return %0, %1, %2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// Not merged: reductions over different dimensions (different iteration
// spaces); a reduction that reads the other's result (layer norm's
// variance needs its mean); a reduction combined with its input again
// (layer norm's mean, which its dispatch region fuses row by row). Layer
// norm's rsqrt of each row's variance stays an op of its own: fused into
// the normalization it would run once per element instead of once per row.
// CHECK-LABEL: func.func @not_siblings
// CHECK-COUNT-7: = linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @not_siblings(%x: tensor<64x128xf32>) -> (tensor<128xf32>, tensor<64xf32>, tensor<64x128xf32>) {
  %0 = fx.sum %x {dim = array<i64: 0>} : (tensor<64x128xf32>) -> tensor<128xf32>
  %1 = fx.amax %x {dim = array<i64: 1>} : (tensor<64x128xf32>) -> tensor<64xf32>
  %2 = fx.layer_norm %x {normalized_shape = array<i64: 128>} : (tensor<64x128xf32>) -> tensor<64x128xf32>
  return %0, %1, %2 : tensor<128xf32>, tensor<64xf32>, tensor<64x128xf32>
}

// -----

// A convolution's epilogue (bias + ReLU) is not fused into the reduction
// after it (an average pool's sum): it stays elementwise, for the dispatch
// region to compute on the convolution's tiles.
// CHECK-LABEL: func.func @epilogue_before_reduction
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-NOT: arith.maximumf
// CHECK: return
func.func @epilogue_before_reduction(%x: tensor<1x8x4x4xf32>, %w: tensor<16x8x1x1xf32>, %b: tensor<16xf32>) -> tensor<1x16xf32> {
  %0 = fx.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  %1 = fx.relu %0 : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %2 = fx.sum %1 {dim = array<i64: 2, 3>} : (tensor<1x16x4x4xf32>) -> tensor<1x16xf32>
  return %2 : tensor<1x16xf32>
}

// -----

// A costly producer (exp, division) read broadcast is not fused: SE's gate,
// sigmoid of one value per channel, is computed per channel, and the
// product with the feature map reads it broadcast. A costly producer read
// elementwise (SiLU's sigmoid) fuses.
// With recompute-costly-broadcasts (the GPU's choice) the gate fuses.
// RECOMPUTE-LABEL: func.func @costly_broadcast
// RECOMPUTE: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<1x8x5x5xf32>, tensor<1x8x1x1xf32>)
// RECOMPUTE: math.exp
// RECOMPUTE: arith.mulf
// CHECK-LABEL: func.func @costly_broadcast
// CHECK: %[[GATE:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<1x8x1x1xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[GATE]] : tensor<1x8x5x5xf32>, tensor<1x8x1x1xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.mulf
// CHECK: linalg.yield
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
func.func @costly_broadcast(%x: tensor<1x8x5x5xf32>, %s: tensor<1x8x1x1xf32>) -> (tensor<1x8x5x5xf32>, tensor<1x8x5x5xf32>) {
  %0 = fx.sigmoid %s : (tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %1 = fx.mul %x, %0 : (tensor<1x8x5x5xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x5x5xf32>
  %2 = fx.silu %x : (tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
  return %1, %2 : tensor<1x8x5x5xf32>, tensor<1x8x5x5xf32>
}

// -----

// `linear` of a [1, H, W, C] input (ConvNeXt's MLP, as torch decomposes
// it): a 2-d matmul between views. The bias add and GELU after the first
// matmul read its result through the view back to 4-d; they are collapsed
// to the matmul's shape, fuse into one elementwise op that reads the
// matmul's result directly (the epilogue dispatch regions and the GEMM
// kernels absorb), and the views between the two matmuls cancel.
// CHECK-LABEL: func.func @epilogue_through_view
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK-NOT: tensor.expand_shape
// CHECK: %[[GELU:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[MM]], %{{.*}} : tensor<12x32xf32>, tensor<32xf32>)
// CHECK: math.erf
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.matmul {{.*}}ins(%[[GELU]],
// CHECK: tensor.expand_shape
// CHECK: return
func.func @epilogue_through_view(%x: tensor<1x3x4x8xf32>, %w1: tensor<32x8xf32>, %b1: tensor<32xf32>, %w2: tensor<8x32xf32>) -> tensor<1x3x4x8xf32> {
  %0 = fx.view %x {size = array<i64: 12, 8>} : (tensor<1x3x4x8xf32>) -> tensor<12x8xf32>
  %1 = fx.linear %0, %w1 : (tensor<12x8xf32>, tensor<32x8xf32>) -> tensor<12x32xf32>
  %2 = fx.view %1 {size = array<i64: 1, 3, 4, 32>} : (tensor<12x32xf32>) -> tensor<1x3x4x32xf32>
  %3 = fx.add %2, %b1 : (tensor<1x3x4x32xf32>, tensor<32xf32>) -> tensor<1x3x4x32xf32>
  %4 = fx.gelu %3 : (tensor<1x3x4x32xf32>) -> tensor<1x3x4x32xf32>
  %5 = fx.view %4 {size = array<i64: 12, 32>} : (tensor<1x3x4x32xf32>) -> tensor<12x32xf32>
  %6 = fx.linear %5, %w2 : (tensor<12x32xf32>, tensor<8x32xf32>) -> tensor<12x8xf32>
  %7 = fx.view %6 {size = array<i64: 1, 3, 4, 8>} : (tensor<12x8xf32>) -> tensor<1x3x4x8xf32>
  return %7 : tensor<1x3x4x8xf32>
}

// -----

// A permute read only by an elementwise op (ConvNeXt's block output back to
// NCHW, then layer scale and residual add) fuses into it: one generic
// reading the input through the permutation, no transposed copy.
// CHECK-LABEL: func.func @permute_into_add
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[PERM:.*]], #{{.*}}, #{{.*}}]
// CHECK-SAME: ins(%arg0, %arg1 : tensor<1x4x5x8xf32>, tensor<1x8x4x5xf32>)
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @permute_into_add(%x: tensor<1x4x5x8xf32>, %r: tensor<1x8x4x5xf32>) -> tensor<1x8x4x5xf32> {
  %0 = fx.permute %x {dims = array<i64: 0, 3, 1, 2>} : (tensor<1x4x5x8xf32>) -> tensor<1x8x4x5xf32>
  %1 = fx.add %0, %r : (tensor<1x8x4x5xf32>, tensor<1x8x4x5xf32>) -> tensor<1x8x4x5xf32>
  return %1 : tensor<1x8x4x5xf32>
}

// -----

// A permute with two readers stays a transpose (fusing it into one reader
// would compute it twice).
// CHECK-LABEL: func.func @permute_two_readers
// CHECK: linalg.transpose
// CHECK: return
func.func @permute_two_readers(%x: tensor<1x4x5x8xf32>, %r: tensor<1x8x4x5xf32>) -> (tensor<1x8x4x5xf32>, tensor<1x8x4x5xf32>) {
  %0 = fx.permute %x {dims = array<i64: 0, 3, 1, 2>} : (tensor<1x4x5x8xf32>) -> tensor<1x8x4x5xf32>
  %1 = fx.add %0, %r : (tensor<1x8x4x5xf32>, tensor<1x8x4x5xf32>) -> tensor<1x8x4x5xf32>
  return %0, %1 : tensor<1x8x4x5xf32>, tensor<1x8x4x5xf32>
}

// -----

// A chain of two elementwise generics after a matmul read through an
// expand_shape (a batch norm then a ReLU, as fx-convs-channels-last leaves
// a 1x1 convolution's epilogue): both collapse to the matmul's shape and
// fuse into one generic, the expand_shape after it. (The ReLU used to stay
// apart, expanded back before it could fuse.)
// CHECK-LABEL: func.func @matmul_expand_chain
// CHECK: %[[M:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[M]], %{{.*}} : tensor<64x16xf32>, tensor<16xf32>) outs(%{{.*}} : tensor<64x16xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: tensor.expand_shape %[[E]] {{.*}} into tensor<4x4x4x16xf32>
// CHECK-NOT: linalg.generic
func.func @matmul_expand_chain(%a: tensor<64x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<4x4x4x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<64x8xf32>, tensor<16x8xf32>) outs(%z : tensor<64x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x16xf32>
  %x4 = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [4, 4, 4, 16] : tensor<64x16xf32> into tensor<4x4x4x16xf32>
  %e4 = tensor.empty() : tensor<4x4x4x16xf32>
  %bn = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x4, %b : tensor<4x4x4x16xf32>, tensor<16xf32>) outs(%e4 : tensor<4x4x4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x4x4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bn : tensor<4x4x4x16xf32>) outs(%e4 : tensor<4x4x4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.maximumf %x, %cst : f32
    linalg.yield %s : f32
  } -> tensor<4x4x4x16xf32>
  return %r : tensor<4x4x4x16xf32>
}

// -----

// Powers by constants become multiplies and square roots once the constant
// is in the fused body (GPT-2's GELU: torch.pow(x, 3.0)); a power by a
// tensor stays math.powf.
// CHECK-LABEL: func.func @constant_powers
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NOT: math.powf %[[X]]
// CHECK-DAG: %[[ROOT:.*]] = math.sqrt %[[X]] : f32
// CHECK-DAG: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-DAG: %[[CUBE:.*]] = arith.mulf %[[X]], %[[SQ]] : f32
// CHECK: %[[SUM:.*]] = arith.addf %[[CUBE]], %[[ROOT]] : f32
// CHECK: %[[ANY:.*]] = math.powf %[[SUM]], %[[Y]] : f32
// CHECK: linalg.yield %[[ANY]]
func.func @constant_powers(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %three = fx.constant dense<3.0> : tensor<f32>
  %half = fx.constant dense<0.5> : tensor<f32>
  %0 = fx.pow %x, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = fx.pow %x, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %2 = fx.add %0, %1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = fx.pow %2, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}
