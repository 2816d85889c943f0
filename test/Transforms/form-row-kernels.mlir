// RUN: fx-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(fx-form-row-kernels))' \
// RUN:   | FileCheck %s
// RUN: fx-opt %s --split-input-file -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(func.func(fx-form-row-kernels{report=true}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=REPORT

// fx-form-row-kernels (the GPU's dispatch regions): only row kernels
// are materialized.

// Softmax: one scf.forall over rows; the exp is recomputed in the sum and
// in the division, so only the row's max and sum remain as temporaries.
// CHECK-LABEL: func.func @softmax
// CHECK: scf.forall (%[[ROW:.*]]) in (4) shared_outs
// CHECK: %[[X:.*]] = tensor.extract_slice %{{.*}}[%[[ROW]], 0] [1, 16] [1, 1]
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<1x16xf32>) outs(%{{.*}} : tensor<1xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[MAX]] : tensor<1x16xf32>, tensor<1xf32>) outs(%{{.*}} : tensor<1xf32>)
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<1x16xf32>, tensor<1xf32>, tensor<1xf32>)
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: } {fx.dispatch = 0 : i64, fx.row_kernel, mapping = [{{.*}}]}
func.func @softmax(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<4xf32>
  %1 = linalg.fill ins(%ninf : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x16xf32>) outs(%1 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.maximumf %in, %out : f32
    linalg.yield %8 : f32
  } -> tensor<4xf32>
  %3 = tensor.empty() : tensor<4x16xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %2 : tensor<4x16xf32>, tensor<4xf32>) outs(%3 : tensor<4x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.subf %in, %in_1 : f32
    %9 = math.exp %8 : f32
    linalg.yield %9 : f32
  } -> tensor<4x16xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
  %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%4 : tensor<4x16xf32>) outs(%5 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.addf %in, %out : f32
    linalg.yield %8 : f32
  } -> tensor<4xf32>
  %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4, %6 : tensor<4x16xf32>, tensor<4xf32>) outs(%3 : tensor<4x16xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.divf %in, %in_1 : f32
    linalg.yield %8 : f32
  } -> tensor<4x16xf32>
  return %7 : tensor<4x16xf32>
}

// -----

// A lone reduction over the trailing dimension: a row kernel of one op.
// CHECK-LABEL: func.func @sum_last
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (2, 3)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x1x64xf32>) outs(%{{.*}} : tensor<1x1xf32>)
// CHECK: {fx.dispatch = 0 : i64, fx.row_kernel, mapping = [{{.*}}]}
func.func @sum_last(%x: tensor<2x3x64xf32>) -> tensor<2x3xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x3xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x3x64xf32>) outs(%1 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %3 = arith.addf %in, %out : f32
    linalg.yield %3 : f32
  } -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// A reduction over the leading dimension stays one op (one thread per
// output reads coalesced), and so do i64 reductions and contractions.
// CHECK-LABEL: func.func @not_row_kernels
// CHECK-NOT: scf.forall
// CHECK: return
// REPORT: remark: dispatch region 1 is not a row kernel: a reduction of a type other than f32 and i32
// REPORT: remark: dispatch region 2 is not a row kernel: it reduces over leading dimensions
func.func @not_row_kernels(%x: tensor<64x8xf32>, %i: tensor<8x64xi64>, %w: tensor<8x4xf32>) -> (tensor<8xf32>, tensor<8xi64>, tensor<64x4xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8xf32>) -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<64x8xf32>) outs(%1 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %9 = arith.addf %in, %out : f32
    linalg.yield %9 : f32
  } -> tensor<8xf32>
  %3 = tensor.empty() : tensor<8xi64>
  %4 = linalg.fill ins(%c0 : i64) outs(%3 : tensor<8xi64>) -> tensor<8xi64>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%i : tensor<8x64xi64>) outs(%4 : tensor<8xi64>) {
  ^bb0(%in: i64, %out: i64):
    %9 = arith.addi %in, %out : i64
    linalg.yield %9 : i64
  } -> tensor<8xi64>
  %6 = tensor.empty() : tensor<64x4xf32>
  %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<64x4xf32>) -> tensor<64x4xf32>
  %8 = linalg.matmul ins(%x, %w : tensor<64x8xf32>, tensor<8x4xf32>) outs(%7 : tensor<64x4xf32>) -> tensor<64x4xf32>
  return %2, %5, %8 : tensor<8xf32>, tensor<8xi64>, tensor<64x4xf32>
}

// -----

// A transpose between an elementwise producer and a row's reduction (the
// stem of convnext: bias, permute to channels-last, layer norm): the named
// transpose is generalized inside the row loop and fused, not left outside
// it reading the loop's slices.
// CHECK-LABEL: func.func @transposed_row
// CHECK-NOT: linalg.
// CHECK: scf.forall (%[[A:.*]], %[[B:.*]], %[[C:.*]]) in (1, 4, 4)
// CHECK: %[[X:.*]] = tensor.extract_slice %arg0[%[[A]], 0, %[[B]], %[[C]]] [1, 8, 1, 1]
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[X]], %arg1 : tensor<1x8x1x1xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<1x1x1xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[X]], %arg1, %[[S]] : tensor<1x8x1x1xf32>, tensor<8xf32>, tensor<1x1x1xf32>)
// CHECK: } {fx.dispatch = 0 : i64, fx.row_kernel, mapping = [{{.*}}]}
func.func @transposed_row(%x: tensor<1x8x4x4xf32>, %b: tensor<8xf32>) -> tensor<1x4x4x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x8x4x4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %b : tensor<1x8x4x4xf32>, tensor<8xf32>) outs(%0 : tensor<1x8x4x4xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.addf %in, %in_0 : f32
    linalg.yield %5 : f32
  } -> tensor<1x8x4x4xf32>
  %2 = tensor.empty() : tensor<1x4x4x8xf32>
  %t = linalg.transpose ins(%1 : tensor<1x8x4x4xf32>) outs(%2 : tensor<1x4x4x8xf32>) permutation = [0, 2, 3, 1]
  %3 = tensor.empty() : tensor<1x4x4xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%t : tensor<1x4x4x8xf32>) outs(%4 : tensor<1x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %6 = arith.addf %in, %out : f32
    linalg.yield %6 : f32
  } -> tensor<1x4x4xf32>
  %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t, %5 : tensor<1x4x4x8xf32>, tensor<1x4x4xf32>) outs(%2 : tensor<1x4x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %7 = arith.divf %in, %in_0 : f32
    linalg.yield %7 : f32
  } -> tensor<1x4x4x8xf32>
  return %6 : tensor<1x4x4x8xf32>
}

// -----

// The same row transposed back to channels-first (ConvNeXt's LayerNorm2d:
// permute, layer norm, permute back). The transpose back does not take the
// row's division: the row kernel stays whole (one kernel, not the division
// in the transpose's kernel and the sum in another), and the transpose is
// left as a copy.
// CHECK-LABEL: func.func @transposed_back
// CHECK: %[[ROWS:.*]] = scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (1, 4, 4)
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: } {fx.dispatch = 1 : i64, fx.row_kernel, mapping = [{{.*}}]}
// CHECK: linalg.transpose ins(%[[ROWS]] : tensor<1x4x4x8xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK-SAME: {fx.dispatch = 0 : i64}
// REPORT: remark: not fused into dispatch region 0 (root linalg.transpose): the end of a row computation (it reads a reduction): its row kernel computes it
func.func @transposed_back(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %2 = tensor.empty() : tensor<1x4x4x8xf32>
  %t = linalg.transpose ins(%x : tensor<1x8x4x4xf32>) outs(%2 : tensor<1x4x4x8xf32>) permutation = [0, 2, 3, 1]
  %3 = tensor.empty() : tensor<1x4x4xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%t : tensor<1x4x4x8xf32>) outs(%4 : tensor<1x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %6 = arith.addf %in, %out : f32
    linalg.yield %6 : f32
  } -> tensor<1x4x4xf32>
  %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t, %5 : tensor<1x4x4x8xf32>, tensor<1x4x4xf32>) outs(%2 : tensor<1x4x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %7 = arith.divf %in, %in_0 : f32
    linalg.yield %7 : f32
  } -> tensor<1x4x4x8xf32>
  %7 = tensor.empty() : tensor<1x8x4x4xf32>
  %b = linalg.transpose ins(%6 : tensor<1x4x4x8xf32>) outs(%7 : tensor<1x8x4x4xf32>) permutation = [0, 3, 1, 2]
  return %b : tensor<1x8x4x4xf32>
}

// -----

// A mean over the trailing dimensions (a global average pooling or a
// squeeze-and-excitation's): the sum joins the division's region, whose
// rows are the sum's; one workgroup per row instead of one thread summing
// a whole channel.
// CHECK-LABEL: func.func @mean_hw
// CHECK: scf.forall (%[[N:.*]], %[[C:.*]], %{{.*}}, %{{.*}}) in (1, 8, 1, 1)
// CHECK: %[[X:.*]] = tensor.extract_slice %arg0[%[[N]], %[[C]], 0, 0] [1, 1, 14, 14]
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x1x14x14xf32>) outs(%{{.*}} : tensor<1x1x1x1xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<1x1x1x1xf32>)
// CHECK: arith.divf
// CHECK: } {fx.dispatch = 0 : i64, fx.row_kernel, mapping = [{{.*}}]}
func.func @mean_hw(%x: tensor<1x8x14x14xf32>) -> tensor<1x8x1x1xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %n = arith.constant 1.960000e+02 : f32
  %0 = tensor.empty() : tensor<1x8x1x1xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<1x8x14x14xf32>) outs(%1 : tensor<1x8x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %4 = arith.addf %in, %out : f32
    linalg.yield %4 : f32
  } -> tensor<1x8x1x1xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2 : tensor<1x8x1x1xf32>) outs(%0 : tensor<1x8x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %4 = arith.divf %in, %n : f32
    linalg.yield %4 : f32
  } -> tensor<1x8x1x1xf32>
  return %3 : tensor<1x8x1x1xf32>
}

// -----

// A sum over the leading dimension with an elementwise consumer stays two
// ops: one thread per output reads that sum coalesced.
// CHECK-LABEL: func.func @mean_dim0
// CHECK-NOT: scf.forall
// CHECK: return
// REPORT: remark: dispatch region 0 is not a row kernel: a reduction over leading dimensions
func.func @mean_dim0(%x: tensor<64x8xf32>) -> tensor<8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %n = arith.constant 6.400000e+01 : f32
  %0 = tensor.empty() : tensor<8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8xf32>) -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<64x8xf32>) outs(%1 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %4 = arith.addf %in, %out : f32
    linalg.yield %4 : f32
  } -> tensor<8xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%2 : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %4 = arith.divf %in, %n : f32
    linalg.yield %4 : f32
  } -> tensor<8xf32>
  return %3 : tensor<8xf32>
}

// -----

// A row normalized and then transposed so that a unit dimension follows
// the row's (convnext's last layer norm, over channels of 1x1 pixels): the
// unit dimension is whole in every tile, so the reduction still joins.
// CHECK-LABEL: func.func @row_before_unit_dim
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (2, 1)
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: } {fx.dispatch = 0 : i64, fx.row_kernel, mapping = [{{.*}}]}
func.func @row_before_unit_dim(%x: tensor<2x1x8xf32>) -> tensor<2x8x1xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x1xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x1xf32>) -> tensor<2x1xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x1x8xf32>) outs(%1 : tensor<2x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %6 = arith.addf %in, %out : f32
    linalg.yield %6 : f32
  } -> tensor<2x1xf32>
  %3 = tensor.empty() : tensor<2x1x8xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %2 : tensor<2x1x8xf32>, tensor<2x1xf32>) outs(%3 : tensor<2x1x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %6 = arith.divf %in, %s : f32
    linalg.yield %6 : f32
  } -> tensor<2x1x8xf32>
  %5 = tensor.empty() : tensor<2x8x1xf32>
  %t = linalg.transpose ins(%4 : tensor<2x1x8xf32>) outs(%5 : tensor<2x8x1xf32>) permutation = [0, 2, 1]
  return %t : tensor<2x8x1xf32>
}

// -----

// One row (the channels of one 1x1 pixel): the loop runs once, and its
// block mapping keeps canonicalization from dissolving it into ops that
// would each run on one thread.
// RUN: fx-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(fx-form-row-kernels, canonicalize))' \
// RUN:   | FileCheck %s --check-prefix=ONE
// ONE-LABEL: func.func @one_row
// ONE: scf.forall (%{{.*}}, %{{.*}}) in (1, 1)
// ONE: arith.addf
// ONE: } {fx.dispatch = 0 : i64, fx.row_kernel, mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
func.func @one_row(%x: tensor<1x1x8xf32>) -> tensor<1x1xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x1xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1xf32>) -> tensor<1x1xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<1x1x8xf32>) outs(%1 : tensor<1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %3 = arith.addf %in, %out : f32
    linalg.yield %3 : f32
  } -> tensor<1x1xf32>
  return %2 : tensor<1x1xf32>
}

// -----

// A constant tensor (a fill) read by the row's elementwise op would stay a
// temporary per row: not a row kernel (a fill as a reduction's initial
// value is one value per row and fine).
// CHECK-LABEL: func.func @constant_in_row
// CHECK-NOT: scf.forall
// CHECK: return
// REPORT: remark: dispatch region 0 is not a row kernel: a constant tensor (a fill) is read in the row
func.func @constant_in_row(%x: tensor<6x9xf32>) -> tensor<6xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %three = arith.constant 3.000000e+00 : f32
  %0 = tensor.empty() : tensor<6x9xf32>
  %k = linalg.fill ins(%three : f32) outs(%0 : tensor<6x9xf32>) -> tensor<6x9xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %k : tensor<6x9xf32>, tensor<6x9xf32>) outs(%0 : tensor<6x9xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<6x9xf32>
  %2 = tensor.empty() : tensor<6xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<6xf32>) -> tensor<6xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<6x9xf32>) outs(%3 : tensor<6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %5 = arith.addf %in, %out : f32
    linalg.yield %5 : f32
  } -> tensor<6xf32>
  %6 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%4 : tensor<6xf32>) outs(%2 : tensor<6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %7 = arith.divf %in, %three : f32
    linalg.yield %7 : f32
  } -> tensor<6xf32>
  return %6 : tensor<6xf32>
}

// -----

// A gather (an embedding lookup: its column comes only from linalg.index)
// centred by its row's sum, as BERT's embeddings before their layer norm:
// fused into the sum, no input would give the reduced loop its size, so
// the region is not a row kernel and its ops stay apart.
// CHECK-LABEL: func.func @gathered_row_centred
// CHECK-NOT: scf.forall
// CHECK: return
// REPORT: remark: dispatch region 0 is not a row kernel: an elementwise member does not fuse into its consumer
func.func @gathered_row_centred(%ids: tensor<2xi64>, %table: tensor<10x128xf32>) -> tensor<2x128xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %c9 = arith.constant 9 : index
  %0 = tensor.empty() : tensor<2x128xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<2xi64>) outs(%0 : tensor<2x128xf32>) {
  ^bb0(%in: i64, %out: f32):
    %col = linalg.index 1 : index
    %row = arith.index_cast %in : i64 to index
    %low = arith.maxsi %row, %c0 : index
    %clamped = arith.minsi %low, %c9 : index
    %v = tensor.extract %table[%clamped, %col] : tensor<10x128xf32>
    linalg.yield %v : f32
  } -> tensor<2x128xf32>
  %2 = tensor.empty() : tensor<2xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2xf32>) -> tensor<2xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<2x128xf32>) outs(%3 : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%1, %4 : tensor<2x128xf32>, tensor<2xf32>) outs(%0 : tensor<2x128xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %d = arith.subf %in, %sum : f32
    linalg.yield %d : f32
  } -> tensor<2x128xf32>
  return %5 : tensor<2x128xf32>
}
