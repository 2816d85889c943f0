// RUN: fx-opt %s --fx-cpu-tile-and-vectorize="threads=1" --split-input-file | FileCheck %s
// RUN: fx-opt %s --fx-cpu-tile-and-vectorize="threads=2" --split-input-file | FileCheck %s --check-prefix=THREADS

// A matmul tile is an 8x32 outer-product update; with 64 = 8 * 8 and
// 64 = 2 * 32 every tile is full and nothing is masked.
// With two threads the rows are split into two scf.forall chunks of whole
// 8-row tiles; the register tiles are inside.
// THREADS-LABEL: func.func @matmul_full_tiles(
// THREADS: scf.forall (%{{.*}}) = (0) to (64) step (32)
// THREADS: vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
// CHECK-LABEL: func.func @matmul_full_tiles(
// CHECK: scf.for {{.*}} step %c8
// CHECK: scf.for {{.*}} step %c32
// CHECK: scf.for
// CHECK: vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
// CHECK-NOT: vector.mask
// CHECK-NOT: linalg.matmul
func.func @matmul_full_tiles(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// Odd shapes: the tile loops are peeled, innermost first, so that with
// static bounds every tile has a static shape (8x32, 8x8, and in the peeled
// rows 4x32 and 4x8) and is vectorized.
// CHECK-LABEL: func.func @matmul_peeled(
// CHECK: vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
// CHECK: vector.outerproduct {{.*}} : vector<8xf32>, vector<8xf32>
// CHECK: vector.outerproduct {{.*}} : vector<4xf32>, vector<32xf32>
// CHECK: vector.outerproduct {{.*}} : vector<4xf32>, vector<8xf32>
// CHECK-NOT: linalg.matmul
func.func @matmul_peeled(%a: tensor<20x7xf32>, %b: tensor<7x40xf32>, %c: tensor<20x40xf32>) -> tensor<20x40xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<20x7xf32>, tensor<7x40xf32>) outs(%c : tensor<20x40xf32>) -> tensor<20x40xf32>
  return %0 : tensor<20x40xf32>
}

// -----

// Elementwise ops: one 16-lane vector along the innermost dimension; the
// boundary tile (37 = 2 * 16 + 5) is a masked transfer. exp is the
// project's expansion (ExpApproximation.cpp): the clamped argument's
// rounded multiple of log2(e) in a float whose low mantissa bits, shifted
// into the exponent, are 2^(n - 1); a polynomial; the result doubled.
// CHECK-LABEL: func.func @elementwise_masked(
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : vector<16xf32>
// CHECK-DAG: %[[MAGIC:.*]] = arith.constant dense<0x4B40007E> : vector<16xf32>
// CHECK-DAG: %[[LOG2E:.*]] = arith.constant dense<1.44269502> : vector<16xf32>
// CHECK: scf.for {{.*}} step %c16
// CHECK: vector.create_mask
// CHECK: %[[X:.*]] = vector.transfer_read {{.*}} : tensor<?xf32>, vector<16xf32>
// CHECK-NOT: math.exp
// CHECK: %[[LO:.*]] = arith.cmpf uge, %[[X]]
// CHECK: %[[XL:.*]] = arith.select %[[LO]], %[[X]]
// CHECK: %[[HI:.*]] = arith.cmpf ule, %[[XL]]
// CHECK: %[[XC:.*]] = arith.select %[[HI]], %[[XL]]
// CHECK: %[[V:.*]] = math.fma %[[XC]], %[[LOG2E]], %[[MAGIC]]
// CHECK: %[[BITS:.*]] = arith.bitcast %[[V]] : vector<16xf32> to vector<16xi32>
// CHECK: %[[SHIFTED:.*]] = arith.shli %[[BITS]]
// CHECK: %[[SCALE:.*]] = arith.bitcast %[[SHIFTED]] : vector<16xi32> to vector<16xf32>
// CHECK: %[[N:.*]] = arith.subf %[[V]], %[[MAGIC]]
// CHECK-COUNT-7: math.fma
// CHECK-NOT: math.floor
// CHECK: %[[SR:.*]] = arith.mulf %[[SCALE]], %{{.*}} : vector<16xf32>
// CHECK: %[[HALF:.*]] = math.fma %[[SR]], %{{.*}}, %[[SCALE]]
// CHECK: %[[EXP:.*]] = arith.addf %[[HALF]], %[[HALF]] : vector<16xf32>
// CHECK: vector.transfer_write %[[EXP]]
func.func @elementwise_masked(%x: tensor<37xf32>) -> tensor<37xf32> {
  %e = tensor.empty() : tensor<37xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<37xf32>) outs(%e : tensor<37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = math.exp %in : f32
    linalg.yield %1 : f32
  } -> tensor<37xf32>
  return %0 : tensor<37xf32>
}

// -----

// Max pooling is tiled as depthwise convolutions are: a few channels, a
// few output rows and the whole window. Each input row is read once per
// pair of window columns: a stride of 2 reads two halves of 2 elements and
// picks the even (window column 0) and odd (column 1) lanes with
// two-source shuffles; every row feeds the maxima of the output rows whose
// windows cover it. The maxima propagate NaN (maximumf) but ignore the
// sign of zeros (nsz).
// CHECK-LABEL: func.func @pooling_vectorized(
// CHECK: %[[ACC:.*]] = vector.transfer_read %arg2[%c0, %c0, %c0, %c0]{{.*}} : tensor<1x1x2x2xf32>, vector<2xf32>
// CHECK: %[[LO:.*]] = vector.transfer_read %arg0[%c0, %c0, %c0, %c0]{{.*}} : tensor<1x1x4x4xf32>, vector<2xf32>
// CHECK: %[[HI:.*]] = vector.transfer_read %arg0[%c0, %c0, %c0, %c2]{{.*}} : tensor<1x1x4x4xf32>, vector<2xf32>
// CHECK: %[[EVEN:.*]] = vector.shuffle %[[LO]], %[[HI]] [0, 2] : vector<2xf32>, vector<2xf32>
// CHECK: %[[M:.*]] = arith.maximumf %[[ACC]], %[[EVEN]] fastmath<nsz> : vector<2xf32>
// CHECK: %[[ODD:.*]] = vector.shuffle %[[LO]], %[[HI]] [1, 3] : vector<2xf32>, vector<2xf32>
// CHECK: arith.maximumf %[[M]], %[[ODD]] fastmath<nsz> : vector<2xf32>
// CHECK-NOT: linalg.pooling_nchw_max
func.func @pooling_vectorized(%x: tensor<1x1x4x4xf32>, %w: tensor<2x2xf32>, %o: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %0 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<1x1x4x4xf32>, tensor<2x2xf32>) outs(%o : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// A pooling whose initial value is a fill takes the fill into its tiles:
// the maxima start from the fill's value (here folded away: the maximum of
// -inf and a row is the row), and no loop fills the output first. Tiles
// of 4 channels.
// CHECK-LABEL: func.func @pooling_fill_in_tiles(
// CHECK-NOT: linalg.fill
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x8x4x4xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c4 iter_args(%{{.*}} = %[[E]])
// CHECK: %[[LO:.*]] = vector.transfer_read {{.*}}[%c0, %c0, %c0, %c0]{{.*}} : tensor<1x4x9x9xf32>, vector<4xf32>
// CHECK: %[[HI:.*]] = vector.transfer_read {{.*}}[%c0, %c0, %c0, %c4]{{.*}} : tensor<1x4x9x9xf32>, vector<4xf32>
// CHECK: %[[EVEN:.*]] = vector.shuffle %[[LO]], %[[HI]] [0, 2, 4, 6]
// CHECK: %[[ODD:.*]] = vector.shuffle %[[LO]], %[[HI]] [1, 3, 5, 7]
// CHECK: arith.maximumf %[[EVEN]], %[[ODD]] fastmath<nsz> : vector<4xf32>
// CHECK-NOT: vector.transfer_read {{.*}} tensor<1x4x4x4xf32>
// CHECK-NOT: linalg.pooling_nchw_max
func.func @pooling_fill_in_tiles(%x: tensor<1x8x9x9xf32>) -> tensor<1x8x4x4xf32> {
  %cst = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<1x8x9x9xf32>, tensor<3x3xf32>) outs(%f : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// A sum pooling with a dilated window keeps one output row and window
// position per tile (vectorized along the output columns), and its zero
// fill stays a loop of its own.
// CHECK-LABEL: func.func @pooling_dilated(
// CHECK: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x1x16xf32>
// CHECK: scf.for
// CHECK: vector.transfer_write %[[ZEROS]]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.addf {{.*}} : vector<4xf32>
// CHECK-NOT: linalg.pooling_nchw_sum
func.func @pooling_dilated(%x: tensor<1x1x6x6xf32>) -> tensor<1x1x4x4xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x4x4xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %w = tensor.empty() : tensor<2x2xf32>
  %0 = linalg.pooling_nchw_sum {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x1x6x6xf32>, tensor<2x2xf32>) outs(%f : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// A 2-d convolution is tiled to 1-d convolutions over a 16-channel x
// 16-column block, which are vectorized.
// With two threads and a batch of 1 the output channels are split.
// THREADS-LABEL: func.func @conv2d_tiles(
// THREADS: scf.forall (%{{.*}}) = (0) to (32) step (16)
// THREADS: vector.outerproduct {{.*}} : vector<16xf32>, vector<16xf32>
// CHECK-LABEL: func.func @conv2d_tiles(
// CHECK: scf.for {{.*}} step %c16
// CHECK: vector.outerproduct {{.*}} : vector<16xf32>, vector<16xf32>
// CHECK-NOT: linalg.conv
func.func @conv2d_tiles(%x: tensor<1x8x18x18xf32>, %w: tensor<32x8x3x3xf32>, %o: tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x8x18x18xf32>, tensor<32x8x3x3xf32>) outs(%o : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  return %0 : tensor<1x32x16x16xf32>
}

// -----

// A row sum: each vector of 16 is added into the running value as a
// reassociable reduction (LLVM adds its lanes as a tree), not as 16
// dependent adds.
// CHECK-LABEL: func.func @row_sum
// CHECK: scf.for
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
func.func @row_sum(%a: tensor<4x64xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x64xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.addf %in, %out : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A row of 7 reduces one masked vector of 16: the masked-off lanes take the
// reduction's neutral element (-inf for a max) and the reduction is
// unmasked; MLIR 22 lowers a masked max reduction with -1.4e-45 as its start
// value instead.
// CHECK-LABEL: func.func @masked_row_max
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant dense<0xFF800000> : vector<16xf32>
// CHECK-DAG: %[[MASK:.*]] = vector.constant_mask [7] : vector<16xi1>
// CHECK: %[[LANES:.*]] = arith.select %[[MASK]], %{{.*}}, %[[NEGINF]] : vector<16xi1>, vector<16xf32>
// CHECK: vector.reduction <maximumf>, %[[LANES]], %{{.*}} : vector<16xf32> into f32
// CHECK-NOT: vector.mask
func.func @masked_row_max(%a: tensor<4x7xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x7xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.maximumf %in, %out : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A contraction reading both operands along k (linear's [n, k] weight) with
// k >= 256 is tiled 4 x 4 with the whole k in the tile: 16 vectors of
// partial sums, one FMA per row pair per vector of k, one reduction per
// output element at the end.
// CHECK-LABEL: func.func @dot_tiles(
// CHECK: scf.for {{.*}} step %c4
// CHECK: scf.for {{.*}} = %c0 to %c256 step %c16 iter_args(
// CHECK-COUNT-16: vector.fma {{.*}} : vector<16xf32>
// CHECK: vector.reduction <add>
// CHECK-NOT: linalg.matmul
func.func @dot_tiles(%a: tensor<8x256xf32>, %b: tensor<8x256xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<8x256xf32>, tensor<8x256xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// A 1x1 convolution of one image is a matmul of the [F, C] filter by the
// image as [C, H * W]: register tiles along the 49 pixels of a 7x7 image.
// 49 = 32 + 17 would leave a 17-column remainder that LLVM scalarizes, so
// the columns go by one register (3 x 16 + 1), and the rows by 16 instead
// of 8: as many accumulators as an 8 x 32 tile.
// CHECK-LABEL: func.func @pointwise_conv_as_matmul(
// CHECK-DAG: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<1x24x7x7xf32> into tensor<24x49xf32>
// CHECK-DAG: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<16x24x1x1xf32> into tensor<16x24xf32>
// CHECK: vector.outerproduct {{.*}} : vector<16xf32>, vector<16xf32>
// CHECK: vector.outerproduct {{.*}} : vector<16xf32>, vector<1xf32>
// CHECK-NOT: vector<17xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2, 3]] output_shape [1, 16, 7, 7]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @pointwise_conv_as_matmul(%x: tensor<1x24x7x7xf32>, %w: tensor<16x24x1x1xf32>, %init: tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x24x7x7xf32>, tensor<16x24x1x1xf32>) outs(%init : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  return %0 : tensor<1x16x7x7xf32>
}

// -----

// With 24 output channels, 16-row tiles would leave an 8-row remainder as
// costly as a full tile: the rows stay 8.
// CHECK-LABEL: func.func @pointwise_conv_rows_kept(
// CHECK: vector.outerproduct {{.*}} : vector<8xf32>, vector<16xf32>
// CHECK-NOT: vector.outerproduct {{.*}} : vector<16xf32>
func.func @pointwise_conv_rows_kept(%x: tensor<1x24x7x7xf32>, %w: tensor<24x24x1x1xf32>, %init: tensor<1x24x7x7xf32>) -> tensor<1x24x7x7xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x24x7x7xf32>, tensor<24x24x1x1xf32>) outs(%init : tensor<1x24x7x7xf32>) -> tensor<1x24x7x7xf32>
  return %0 : tensor<1x24x7x7xf32>
}

// -----

// A dot-product contraction with more columns than rows (few tokens, many
// features) is split among threads by columns: split by rows, each thread
// would stream the whole weight. Inside a chunk, the columns stay outside
// (the 6 rows are one 4-row tile and a 2-row remainder inside).
// THREADS-LABEL: func.func @dot_split_by_columns(
// THREADS: scf.forall (%{{.*}}) = (0) to (64) step (32)
// THREADS: scf.for %{{.*}} = %c0 to %c32 step %c4
// THREADS: scf.for %{{.*}} = %c0 to %c256 step %c16
// THREADS: vector.fma
func.func @dot_split_by_columns(%a: tensor<6x256xf32>, %b: tensor<64x256xf32>, %c: tensor<6x64xf32>) -> tensor<6x64xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %b : tensor<6x256xf32>, tensor<64x256xf32>) outs(%c : tensor<6x64xf32>) -> tensor<6x64xf32>
  return %0 : tensor<6x64xf32>
}

// -----

// A packed convolution tile (fx-cpu-pack-convolutions): 31 columns need
// two tiles of at most 28 (packed-conv-tile-w), made even: 16 and 15
// columns (28 and 3 would leave a tile of few FMAs per filter load). The
// 32 input channels go in steps of 16, and each step per column one FMA
// of the filter block's vector with the broadcast input element: 16 x 16
// FMAs in the first tile, 16 x 15 in the second.
// CHECK-LABEL: func.func @packed_conv(
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [16, 16] [1, 1]
// CHECK-COUNT-256: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT: vector.fma
// CHECK: tensor.extract_slice %{{.*}}[16, 0] [15, 16] [1, 1]
// CHECK-COUNT-240: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT: vector.fma
// THREADS-LABEL: func.func @packed_conv(
// THREADS-NOT: scf.forall
#pin = affine_map<(d0, d1, d2, d3, d4) -> (0, d2, d3, d0 + d4)>
#pfilter = affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4, d1)>
#pacc = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>
func.func @packed_conv(%x: tensor<1x32x3x33xf32>, %w: tensor<32x3x3x16xf32>, %acc: tensor<31x16xf32>) -> tensor<31x16xf32> {
  %r = linalg.generic {indexing_maps = [#pin, #pfilter, #pacc], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x32x3x33xf32>, tensor<32x3x3x16xf32>) outs(%acc : tensor<31x16xf32>) attrs = {fx.packed_conv = 1 : i64} {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<31x16xf32>
  return %r : tensor<31x16xf32>
}

// -----

// Packed convolution tiles of one output row in a loop over the rows of a
// zero-padded 7x7 image: the window-row loop runs only over the rows that
// read the image, [max(0, min(3, 1 - h)), min(3, 8 - h)) for output row
// %h (the first output row leaves out window row 0, the last one window
// row 2): their products with the padding are zeros. A padding of another
// value keeps every window row.
// CHECK-DAG: #[[$FIRST:.*]] = affine_map<(d0) -> (-d0 + 1, 0)>
// CHECK-DAG: #[[$END:.*]] = affine_map<()[s0] -> (-s0 + 8, 3)>
// CHECK-DAG: #[[$COUNT:.*]] = affine_map<()[s0, s1] -> (-s0 + s1, 0)>
// CHECK-LABEL: func.func @packed_conv_padded_rows(
// CHECK: scf.for %[[H:.*]] = %c0 to %c7 step %c1
// CHECK: %[[F:.*]] = affine.max #[[$FIRST]](%[[H]])
// CHECK: %[[E:.*]] = affine.min #[[$END]]()[%[[H]]]
// CHECK: %[[N:.*]] = affine.max #[[$COUNT]]()[%[[F]], %[[E]]]
// CHECK: %[[UB:.*]] = arith.addi %[[F]], %[[N]] : index
// CHECK: scf.for %{{.*}} = %[[F]] to %[[UB]] step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK-COUNT-56: vector.fma
// A thread's chunk of rows sliced first (from row 3 of the padded image),
// the tile's window rows from the chunk: the window's first row in the
// padded image is 3 + h, so no window row reads the top padding (the first
// row folds to 0) and the last output row's window leaves out its last
// row: [0, min(3, 5 - h)).
// CHECK-LABEL: func.func @packed_conv_padded_chunk(
// CHECK: scf.for %[[H2:.*]] = %c0 to %c4 step %c1
// CHECK: %[[E2:.*]] = affine.min #{{.*}}()[%[[H2]]]
// CHECK: %[[N2:.*]] = affine.max #{{.*}}()[%[[E2]]]
// CHECK: scf.for %{{.*}} = %c0 to %[[N2]] step %c1
// CHECK-LABEL: func.func @packed_conv_padded_ones(
// CHECK-NOT: affine.max
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
#rin = affine_map<(d0, d1, d2, d3, d4) -> (0, d2, d3, d0 + d4)>
#rfilter = affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4, d1)>
#racc = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>
func.func @packed_conv_padded_rows(%x: tensor<1x8x7x7xf32>, %w: tensor<8x3x3x16xf32>, %acc: tensor<7x7x16xf32>) -> tensor<7x7x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x7x7xf32> to tensor<1x8x9x9xf32>
  %r = scf.for %h = %c0 to %c7 step %c1 iter_args(%all = %acc) -> (tensor<7x7x16xf32>) {
    %rows = tensor.extract_slice %padded[0, 0, %h, 0] [1, 8, 3, 9] [1, 1, 1, 1] : tensor<1x8x9x9xf32> to tensor<1x8x3x9xf32>
    %out = tensor.extract_slice %all[%h, 0, 0] [1, 7, 16] [1, 1, 1] : tensor<7x7x16xf32> to tensor<7x16xf32>
    %t = linalg.generic {indexing_maps = [#rin, #rfilter, #racc], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%rows, %w : tensor<1x8x3x9xf32>, tensor<8x3x3x16xf32>) outs(%out : tensor<7x16xf32>) attrs = {fx.packed_conv = 1 : i64} {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %o, %m : f32
      linalg.yield %s : f32
    } -> tensor<7x16xf32>
    %next = tensor.insert_slice %t into %all[%h, 0, 0] [1, 7, 16] [1, 1, 1] : tensor<7x16xf32> into tensor<7x7x16xf32>
    scf.yield %next : tensor<7x7x16xf32>
  }
  return %r : tensor<7x7x16xf32>
}
func.func @packed_conv_padded_chunk(%x: tensor<1x8x7x7xf32>, %w: tensor<8x3x3x16xf32>, %acc: tensor<4x7x16xf32>) -> tensor<4x7x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x7x7xf32> to tensor<1x8x9x9xf32>
  %chunk = tensor.extract_slice %padded[0, 0, 3, 0] [1, 8, 6, 9] [1, 1, 1, 1] : tensor<1x8x9x9xf32> to tensor<1x8x6x9xf32>
  %r = scf.for %h = %c0 to %c4 step %c1 iter_args(%all = %acc) -> (tensor<4x7x16xf32>) {
    %rows = tensor.extract_slice %chunk[0, 0, %h, 0] [1, 8, 3, 9] [1, 1, 1, 1] : tensor<1x8x6x9xf32> to tensor<1x8x3x9xf32>
    %out = tensor.extract_slice %all[%h, 0, 0] [1, 7, 16] [1, 1, 1] : tensor<4x7x16xf32> to tensor<7x16xf32>
    %t = linalg.generic {indexing_maps = [#rin, #rfilter, #racc], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%rows, %w : tensor<1x8x3x9xf32>, tensor<8x3x3x16xf32>) outs(%out : tensor<7x16xf32>) attrs = {fx.packed_conv = 1 : i64} {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %o, %m : f32
      linalg.yield %s : f32
    } -> tensor<7x16xf32>
    %next = tensor.insert_slice %t into %all[%h, 0, 0] [1, 7, 16] [1, 1, 1] : tensor<7x16xf32> into tensor<4x7x16xf32>
    scf.yield %next : tensor<4x7x16xf32>
  }
  return %r : tensor<4x7x16xf32>
}
func.func @packed_conv_padded_ones(%x: tensor<1x8x7x7xf32>, %w: tensor<8x3x3x16xf32>, %acc: tensor<7x16xf32>) -> tensor<7x16xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %one : f32
  } : tensor<1x8x7x7xf32> to tensor<1x8x9x9xf32>
  %rows = tensor.extract_slice %padded[0, 0, 0, 0] [1, 8, 3, 9] [1, 1, 1, 1] : tensor<1x8x9x9xf32> to tensor<1x8x3x9xf32>
  %t = linalg.generic {indexing_maps = [#rin, #rfilter, #racc], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%rows, %w : tensor<1x8x3x9xf32>, tensor<8x3x3x16xf32>) outs(%acc : tensor<7x16xf32>) attrs = {fx.packed_conv = 1 : i64} {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<7x16xf32>
  return %t : tensor<7x16xf32>
}

// -----

// A value per channel scaling a 7x7 image (squeeze-and-excitation): each
// tile reads its channel's value once and broadcasts it, rather than a
// transfer with a broadcasting permutation map (unrolled lane by lane).
// CHECK-LABEL: func.func @per_channel_scale(
// CHECK: %[[C:.*]] = tensor.extract_slice %arg1
// CHECK: %[[S:.*]] = tensor.extract %[[C]]
// CHECK: vector.broadcast %[[S]] : f32 to vector<1x1x1x16xf32>
// CHECK-NOT: permutation_map
// CHECK: return
func.func @per_channel_scale(%x: tensor<1x32x7x7xf32>, %s: tensor<1x32x1x1xf32>) -> tensor<1x32x7x7xf32> {
  %empty = tensor.empty() : tensor<1x32x7x7xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, 0, 0)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : tensor<1x32x7x7xf32>, tensor<1x32x1x1xf32>) outs(%empty : tensor<1x32x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x32x7x7xf32>
  return %0 : tensor<1x32x7x7xf32>
}

// -----

// A 1x1 convolution of a 1x1 image (squeeze-and-excitation's fully
// connected layers) is a matrix-vector product: dot products along the
// input channels, which both the image and the filter hold contiguously
// (the matmul of the [F, C] filter by a [C, 1] column would read the
// filter across its rows), even with fewer than dot-min-k channels.
// CHECK-LABEL: func.func @pointwise_one_pixel(
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<1x48x1x1xf32> into tensor<1x48xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<64x48x1x1xf32> into tensor<64x48xf32>
// CHECK: vector.fma {{.*}} : vector<16xf32>
// CHECK: vector.reduction <add>
// CHECK-NOT: vector.outerproduct
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2, 3]] output_shape [1, 64, 1, 1]
func.func @pointwise_one_pixel(%x: tensor<1x48x1x1xf32>, %w: tensor<64x48x1x1xf32>, %init: tensor<1x64x1x1xf32>) -> tensor<1x64x1x1xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x48x1x1xf32>, tensor<64x48x1x1xf32>) outs(%init : tensor<1x64x1x1xf32>) -> tensor<1x64x1x1xf32>
  return %0 : tensor<1x64x1x1xf32>
}

// -----

// Cache blocking: a matmul whose rhs (1000 x 1000 f32, 4 MB) is larger
// than cache-block-bytes (256 KiB) steps through n in blocks of 256 columns
// and k in steps of 256, so that the 256 x 256 block of the rhs stays in
// the cache while every 8-row tile of the lhs passes over it; the last
// block and step (232) are peeled off, static too, and the register tiles
// are the usual 8x32 outer products.
// CHECK-LABEL: func.func @cache_blocked
// CHECK: scf.for %[[N:.*]] = %c0 to %c768 step %c256
// CHECK: scf.for %[[K:.*]] = %c0 to %c768 step %c256
// CHECK: tensor.extract_slice %{{.*}}[%[[K]], %[[N]]] [256, 256] [1, 1] : tensor<1000x1000xf32> to tensor<256x256xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c8
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c32
// CHECK: vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
// CHECK: tensor.extract_slice %{{.*}}[768, %[[N]]] [232, 256] [1, 1] : tensor<1000x1000xf32> to tensor<232x256xf32>
// CHECK: tensor.extract_slice %{{.*}}[768, 768] [232, 232] [1, 1] : tensor<1000x1000xf32> to tensor<232x232xf32>
// Every register tile is static, those of the last blocks too (their
// tile sizes were left as min(232 - n, 32), and the tiles scalar).
// RUN: fx-opt %s --fx-cpu-tile-and-vectorize="threads=1" --split-input-file | FileCheck %s --check-prefix=STATIC
// STATIC-LABEL: func.func @cache_blocked
// STATIC-NOT: linalg.matmul
// STATIC-NOT: affine.min
// STATIC-LABEL: func.func @short_k
// With two threads, each blocks its half of the rows alike.
// THREADS-LABEL: func.func @cache_blocked
// THREADS: scf.forall
// THREADS: scf.for %{{.*}} = %c0 to %c768 step %c256
// A short reduction (k = 64) is not blocked.
// CHECK-LABEL: func.func @short_k
// CHECK-NOT: step %c256
// CHECK: vector.outerproduct
func.func @cache_blocked(%a: tensor<64x1000xf32>, %b: tensor<1000x1000xf32>, %c: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x1000xf32>, tensor<1000x1000xf32>) outs(%c : tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %r : tensor<64x1000xf32>
}
func.func @short_k(%a: tensor<64x64xf32>, %b: tensor<64x8192xf32>, %c: tensor<64x8192xf32>) -> tensor<64x8192xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x8192xf32>) outs(%c : tensor<64x8192xf32>) -> tensor<64x8192xf32>
  return %r : tensor<64x8192xf32>
}

// -----

// A depthwise convolution is tiled to 4 channels, 4 output rows and the
// whole window (a remainder of 2 rows peeled). Each input row of a channel
// is loaded once per window column, 14 columns widened to one 16-lane
// register (its last two lanes out of bounds: masked loads and stores),
// and feeds every output row whose window covers it: 6 rows x 3 columns x
// 4 channels = 72 loads for 144 FMAs.
// CHECK-LABEL: func.func @depthwise_rows(
// CHECK: scf.for {{.*}} to %c8 step %c4
// CHECK-COUNT-16: vector.transfer_read {{.*}} : tensor<1x4x4x14xf32>, vector<16xf32>
// CHECK-COUNT-36: vector.broadcast {{.*}} : f32 to vector<16xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<1x4x6x16xf32>, vector<16xf32>
// CHECK-NOT: vector<14xf32>
// CHECK: vector.fma {{.*}} : vector<16xf32>
// CHECK: vector.transfer_write {{.*}} : vector<16xf32>, tensor<1x4x4x14xf32>
// The peeled tile: 2 rows.
// CHECK: vector.transfer_read {{.*}} : tensor<1x4x2x14xf32>, vector<16xf32>
func.func @depthwise_rows(%x: tensor<1x8x8x16xf32>, %w: tensor<8x3x3xf32>, %o: tensor<1x8x6x14xf32>) -> tensor<1x8x6x14xf32> {
  %0 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x8x8x16xf32>, tensor<8x3x3xf32>) outs(%o : tensor<1x8x6x14xf32>) -> tensor<1x8x6x14xf32>
  return %0 : tensor<1x8x6x14xf32>
}

// -----

// Stride 2: window columns 0 and 1 pick the even and the odd lanes of the
// same two vectors (read at column 0 and 16), column 2 the even lanes of
// two read at column 2 (the second reaching past the row: masked). Per
// input row and channel 4 reads and 3 two-source shuffles: 9 rows x 4
// channels make 144 reads and 108 shuffles for 144 FMAs.
// CHECK-LABEL: func.func @depthwise_stride2(
// CHECK: %[[LO:.*]] = vector.transfer_read %arg0[%c0, %c0, %c0, %c0], %cst {in_bounds = [true]} : tensor<1x4x9x33xf32>, vector<16xf32>
// CHECK: %[[HI:.*]] = vector.transfer_read %arg0[%c0, %c0, %c0, %c16], %cst {in_bounds = [true]} : tensor<1x4x9x33xf32>, vector<16xf32>
// CHECK: vector.shuffle %[[LO]], %[[HI]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<16xf32>, vector<16xf32>
// CHECK: vector.shuffle %[[LO]], %[[HI]] [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31] : vector<16xf32>, vector<16xf32>
// CHECK: vector.transfer_read %arg0[%c0, %c0, %c0, %c18], %cst : tensor<1x4x9x33xf32>, vector<16xf32>
// CHECK-NOT: vector<32xf32>
// CHECK: vector.fma {{.*}} : vector<16xf32>
func.func @depthwise_stride2(%x: tensor<1x4x9x33xf32>, %w: tensor<4x3x3xf32>, %o: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  %0 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<1x4x9x33xf32>, tensor<4x3x3xf32>) outs(%o : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}

// -----

// A depthwise convolution whose initial value is a fill (the zeros a
// convolution starts from) takes the fill into its tiles, as a pooling
// does: the accumulators start as zero vectors, and no loop writes zeros
// into the output tile for the convolution to read back.
// CHECK-LABEL: func.func @depthwise_fill_in_tiles(
// CHECK-NOT: linalg.fill
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: scf.for {{.*}} to %c8 step %c4
// CHECK-NOT: vector.transfer_read {{.*}} : tensor<1x4x4x14xf32>
// CHECK: vector.fma %{{.*}}, %{{.*}}, %[[ZERO]] : vector<16xf32>
// CHECK: vector.transfer_write {{.*}} : vector<16xf32>, tensor<1x4x4x14xf32>
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
func.func @depthwise_fill_in_tiles(%x: tensor<1x8x8x16xf32>, %w: tensor<8x3x3xf32>) -> tensor<1x8x6x14xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x6x14xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x6x14xf32>) -> tensor<1x8x6x14xf32>
  %0 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x8x8x16xf32>, tensor<8x3x3xf32>) outs(%f : tensor<1x8x6x14xf32>) -> tensor<1x8x6x14xf32>
  return %0 : tensor<1x8x6x14xf32>
}

// -----

// An elementwise op whose innermost dimension is a unit one (a
// squeeze-and-excitation gate [1, C, 1, 1]) loses its unit dimensions and
// runs along the channels: two vectors of 16, not one masked vector per
// channel.
// CHECK-LABEL: func.func @unit_inner_gate(
// CHECK: tensor.collapse_shape {{.*}} into tensor<32xf32>
// CHECK: scf.for {{.*}} to %c32 step %c16
// CHECK: arith.negf {{.*}} : vector<16xf32>
// CHECK-NOT: vector<1x1x1x16xf32>
func.func @unit_inner_gate(%x: tensor<1x32x1x1xf32>, %e: tensor<1x32x1x1xf32>) -> tensor<1x32x1x1xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x32x1x1xf32>) outs(%e : tensor<1x32x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.negf %in : f32
    linalg.yield %1 : f32
  } -> tensor<1x32x1x1xf32>
  return %0 : tensor<1x32x1x1xf32>
}

// -----

// A sum over a 7x7 image per channel (a squeeze-and-excitation mean) sums
// each channel's 49 contiguous elements as one row: 3 whole vectors and a
// masked one, not 7 masked rows of 7.
// CHECK-LABEL: func.func @small_image_sum(
// CHECK: tensor.collapse_shape {{.*}} into tensor<8x49xf32>
// CHECK: scf.for {{.*}} to %c49 step %c16
// CHECK-NOT: vector<1x1x16xf32>
func.func @small_image_sum(%x: tensor<1x8x7x7xf32>, %init: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<1x8x7x7xf32>) outs(%init : tensor<1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.addf %in, %out : f32
    linalg.yield %1 : f32
  } -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// A lone depthwise convolution with two threads is split by channels, as
// dispatch regions split those with an epilogue: split by its 7 output
// rows (4 + 3), the 3-row chunk had a dynamic size and stayed scalar. Each
// chunk is 64 channels of static 4-row tiles, the 3-row remainder peeled.
// THREADS-LABEL: func.func @depthwise_lone_channels(
// THREADS: scf.forall (%{{.*}}) = (0) to (128) step (64)
// THREADS-NOT: tensor<1x?x
// THREADS: vector.transfer_read {{.*}} : tensor<1x4x4x7xf32>, vector<8xf32>
// THREADS: vector.fma {{.*}} : vector<8xf32>
// THREADS: vector.transfer_read {{.*}} : tensor<1x4x3x7xf32>, vector<8xf32>
func.func @depthwise_lone_channels(%x: tensor<1x128x13x13xf32>, %w: tensor<128x7x7xf32>, %o: tensor<1x128x7x7xf32>) -> tensor<1x128x7x7xf32> {
  %0 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x128x13x13xf32>, tensor<128x7x7xf32>) outs(%o : tensor<1x128x7x7xf32>) -> tensor<1x128x7x7xf32>
  return %0 : tensor<1x128x7x7xf32>
}

// -----

// With dilations, a depthwise tile is one row of 16 channels at one window
// position, widened to whole registers too.
// CHECK-LABEL: func.func @depthwise_dilated(
// CHECK: vector.transfer_read {{.*}} {in_bounds = [true, false]} : tensor<16x14xf32>, vector<16x16xf32>
// CHECK: vector.fma {{.*}} : vector<16xf32>
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true, false]} : vector<16x16xf32>, tensor<16x14xf32>
func.func @depthwise_dilated(%x: tensor<1x16x5x18xf32>, %w: tensor<16x3x3xf32>, %o: tensor<1x16x1x14xf32>) -> tensor<1x16x1x14xf32> {
  %0 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x16x5x18xf32>, tensor<16x3x3xf32>) outs(%o : tensor<1x16x1x14xf32>) -> tensor<1x16x1x14xf32>
  return %0 : tensor<1x16x1x14xf32>
}

// -----

// A packed convolution's accumulator [16 columns, 32 channels] added into
// NCHW rows: the input is read transposed, so the tile takes 16 channels
// as well as 16 columns and transposes a 16x16 block in registers, with
// two-source shuffles; tiled by columns alone, each channel's row gathered
// a strided column.
// CHECK-LABEL: func.func @transposed_unpack(
// CHECK: scf.for {{.*}} to %c32 step %c16
// CHECK: vector.transfer_read {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK-COUNT-64: vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// CHECK-NOT: vector.transpose
// CHECK-NOT: vector<16x1xf32>
// CHECK: return
func.func @transposed_unpack(%acc: tensor<16x32xf32>, %out: tensor<1x32x1x16xf32>) -> tensor<1x32x1x16xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (w, c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : tensor<16x32xf32>) outs(%out : tensor<1x32x1x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %1 = arith.addf %o, %in : f32
    linalg.yield %1 : f32
  } -> tensor<1x32x1x16xf32>
  return %0 : tensor<1x32x1x16xf32>
}

// -----

// The same with 13 columns (a 13x13 image): the columns take one partial
// vector (masked reads and writes), still transposed in registers.
// CHECK-LABEL: func.func @transposed_unpack_partial(
// CHECK: scf.for {{.*}} to %c32 step %c16
// CHECK: vector.transfer_read {{.*}} : tensor<13x16xf32>, vector<16x16xf32>
// CHECK-COUNT-64: vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// CHECK-NOT: vector.transpose
// CHECK-NOT: vector<16x1xf32>
// CHECK: return
func.func @transposed_unpack_partial(%acc: tensor<13x32xf32>, %out: tensor<1x32x1x13xf32>) -> tensor<1x32x1x13xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (w, c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : tensor<13x32xf32>) outs(%out : tensor<1x32x1x13xf32>) {
  ^bb0(%in: f32, %o: f32):
    %1 = arith.addf %o, %in : f32
    linalg.yield %1 : f32
  } -> tensor<1x32x1x13xf32>
  return %0 : tensor<1x32x1x13xf32>
}
