// Dispatch regions: a root and the producers it absorbs become one loop nest.
// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-fx-to-linalg),canonicalize,cse,func.func(linalg-fuse-elementwise-ops),canonicalize,cse,func.func(fx-form-dispatch-regions{threads=1}),canonicalize,cse)' | FileCheck %s
// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-fx-to-linalg),canonicalize,cse,func.func(linalg-fuse-elementwise-ops),canonicalize,cse,func.func(fx-form-dispatch-regions{threads=2 parallel-min-work=1}),canonicalize,cse)' | FileCheck %s --check-prefix=THREADS
// The report: one remark per region, one per producer that did not fuse.
// RUN: fx-opt %s --split-input-file --mlir-print-op-on-diagnostic=false --pass-pipeline='builtin.module(func.func(convert-fx-to-linalg),canonicalize,cse,func.func(linalg-fuse-elementwise-ops),canonicalize,cse,func.func(fx-form-dispatch-regions{threads=1 report=true}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// Softmax is one loop over rows: max, exp, sum and normalize per row, with
// row-sized temporaries; exp is computed once per element.
// CHECK-LABEL: func.func @softmax
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c8 step %c1
// CHECK: tensor.extract_slice %arg0[%[[ROW]], 0] [1, 32] [1, 1]
// CHECK: tensor.empty() : tensor<1xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: maxnumf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-NOT: math.exp
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK-NOT: math.exp
// CHECK: arith.divf
// CHECK: tensor.insert_slice
// CHECK: } {fx.dispatch = 0 : i64}
// CHECK-NOT: linalg.
// CHECK: return
// Two threads: an scf.forall of two 4-row chunks around the row loop.
// THREADS-LABEL: func.func @softmax
// THREADS: scf.forall (%{{.*}}) = (0) to (8) step (4)
// THREADS: scf.for %{{.*}} = %c0 to %c4 step %c1
// THREADS: } {fx.dispatch = 0 : i64}
// REPORT: [[# @LINE+4]]:8: remark: dispatch region 0: root linalg.generic {arith.divf, arith.mulf}, fused 5 producer(s)
// REPORT: note: fused into dispatch region 0: linalg.generic {arith.maxnumf}
// REPORT: remark: 1 dispatch regions
func.func @softmax(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = fx.softmax %x {dim = 1 : i64} : (tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Layer norm: mean, variance and the normalization in one row loop.
// CHECK-LABEL: func.func @layer_norm
// CHECK: scf.for
// CHECK: scf.for
// CHECK-COUNT-2: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: } {fx.dispatch = 0 : i64}
// CHECK-NOT: linalg.
// CHECK: return
// REPORT: remark: dispatch region 0: root linalg.generic {{.*}}, fused 4 producer(s)
// REPORT: remark: 1 dispatch regions
func.func @layer_norm(%x: tensor<2x4x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<2x4x64xf32> {
  %0 = fx.layer_norm %x weight(%w) bias(%b) {normalized_shape = array<i64: 64>} : (tensor<2x4x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x4x64xf32>
  return %0 : tensor<2x4x64xf32>
}

// -----

// A convolution's epilogue (bias + relu) is computed on each 1x16x1x16
// output tile of the convolution; the padding stays outside.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK: tensor.pad
// CHECK: scf.for
// CHECK: linalg.fill {{.*}} -> tensor<1x16x1x16xf32>
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x16x1x16xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16x1x16xf32>, tensor<16xf32>)
// CHECK: arith.maximumf
// CHECK: tensor.insert_slice
// REPORT: [[# @LINE+6]]:8: remark: dispatch region 0: root linalg.generic {arith.addf, arith.maximumf}, fused 2 producer(s)
// REPORT: [[# @LINE+4]]:8: note: fused into dispatch region 0: linalg.conv_2d_nchw_fchw
// REPORT: [[# @LINE+3]]:8: remark: not fused into dispatch region 0 (root linalg.generic {arith.addf, arith.maximumf}): not a linalg op on tensors (tensor.pad)
// REPORT: remark: 1 dispatch regions
func.func @conv_bias_relu(%x: tensor<1x8x6x16xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x4x16xf32> {
  %0 = fx.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x8x6x16xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x4x16xf32>
  %1 = fx.relu %0 : (tensor<1x16x4x16xf32>) -> tensor<1x16x4x16xf32>
  return %1 : tensor<1x16x4x16xf32>
}

// -----

// A depthwise convolution takes its epilogue the same way, in tiles of
// (n, c, oh, ow) whose loops are (n, oh, ow, c) in the convolution: 16
// channels, 4 rows (the CPU's depthwise tiles) and whole rows of columns.
// CHECK-LABEL: func.func @depthwise_bias_relu
// CHECK-NOT: linalg.copy
// CHECK: tensor.pad
// CHECK: scf.for {{.*}} to %c32 step %c16
// CHECK: scf.for {{.*}} to %c8 step %c4
// CHECK: linalg.fill {{.*}} -> tensor<1x16x4x16xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw {{.*}} -> tensor<1x16x4x16xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16x4x16xf32>, tensor<16xf32>)
// CHECK: arith.maximumf
// REPORT: [[# @LINE+5]]:8: remark: dispatch region 0: root linalg.generic {arith.addf, arith.maximumf}, fused 2 producer(s)
// REPORT: [[# @LINE+3]]:8: note: fused into dispatch region 0: linalg.depthwise_conv_2d_nchw_chw
// REPORT: remark: 1 dispatch regions
func.func @depthwise_bias_relu(%x: tensor<1x32x8x16xf32>, %w: tensor<32x1x3x3xf32>, %b: tensor<32xf32>) -> tensor<1x32x8x16xf32> {
  %0 = fx.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 32 : i64} : (tensor<1x32x8x16xf32>, tensor<32x1x3x3xf32>, tensor<32xf32>) -> tensor<1x32x8x16xf32>
  %1 = fx.relu %0 : (tensor<1x32x8x16xf32>) -> tensor<1x32x8x16xf32>
  return %1 : tensor<1x32x8x16xf32>
}

// -----

// A padded function argument large enough to split between threads (an
// image before a stem convolution) is copied by a linalg.copy, which
// fx-pad-in-place then has write the padded buffer's interior: a loop the
// CPU tiling splits and vectorizes instead of a serial copy. A small one
// (the depthwise input above) is padded as it is.
// CHECK-LABEL: func.func @padded_argument_copy
// CHECK: %[[COPY:.*]] = linalg.copy {{.*}}ins(%arg0 : tensor<1x3x160x160xf32>)
// CHECK: tensor.pad %[[COPY]] low[0, 0, 1, 1] high[0, 0, 1, 1]
func.func @padded_argument_copy(%x: tensor<1x3x160x160xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x160x160xf32> {
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x3x160x160xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x160x160xf32>
  return %0 : tensor<1x8x160x160xf32>
}

// -----

// 144 channels are 9 tiles of 16: chunks of them would be 3 on 2 threads
// (one thread computes two); the 8 output rows make 2 chunks of 4.
// THREADS-LABEL: func.func @depthwise_chunks
// THREADS: scf.forall (%{{.*}}) = (0) to (8) step (4)
// THREADS: scf.for %{{.*}} = %c0 to %c144 step %c16
func.func @depthwise_chunks(%x: tensor<1x144x8x16xf32>, %w: tensor<144x1x3x3xf32>, %b: tensor<144xf32>) -> tensor<1x144x8x16xf32> {
  %0 = fx.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 144 : i64} : (tensor<1x144x8x16xf32>, tensor<144x1x3x3xf32>, tensor<144xf32>) -> tensor<1x144x8x16xf32>
  return %0 : tensor<1x144x8x16xf32>
}

// -----

// A depthwise convolution with an epilogue splits its rows too (4 tiles of
// 4 rows: 2 chunks of 8), not its 2 tiles of 16 channels: the 1x1
// convolutions around it split rows, which then stay on one core.
// THREADS-LABEL: func.func @depthwise_rows_split
// THREADS: scf.forall (%{{.*}}) = (0) to (16) step (8)
// THREADS: scf.for %{{.*}} = %c0 to %c32 step %c16
func.func @depthwise_rows_split(%x: tensor<1x32x16x16xf32>, %w: tensor<32x1x3x3xf32>, %b: tensor<32xf32>) -> tensor<1x32x16x16xf32> {
  %0 = fx.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 32 : i64} : (tensor<1x32x16x16xf32>, tensor<32x1x3x3xf32>, tensor<32xf32>) -> tensor<1x32x16x16xf32>
  %1 = fx.relu %0 : (tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  return %1 : tensor<1x32x16x16xf32>
}

// -----

// Unless a reduction over the image reads its result (a squeeze-and-
// excitation mean): then each core's chunk of channels is whole for it.
// THREADS-LABEL: func.func @depthwise_mean_channels
// THREADS: scf.forall (%{{.*}}) = (0) to (32) step (16)
func.func @depthwise_mean_channels(%x: tensor<1x32x16x16xf32>, %w: tensor<32x1x3x3xf32>, %b: tensor<32xf32>) -> (tensor<1x32x16x16xf32>, tensor<1x32xf32>) {
  %0 = fx.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 32 : i64} : (tensor<1x32x16x16xf32>, tensor<32x1x3x3xf32>, tensor<32xf32>) -> tensor<1x32x16x16xf32>
  %1 = fx.relu %0 : (tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %2 = fx.mean %1 {dim = array<i64: 2, 3>} : (tensor<1x32x16x16xf32>) -> tensor<1x32xf32>
  return %1, %2 : tensor<1x32x16x16xf32>, tensor<1x32xf32>
}

// -----

// A 1x1 convolution with a residual add splits its 28 output rows between
// 2 threads rather than its 2 tiles of 16 channels: every chunk reads the
// filter whole (24 KiB), the images (the input's 192 channels, the
// residual) only in part, and the rows stay on the core that wrote them.
// THREADS-LABEL: func.func @pointwise_rows
// THREADS: scf.forall (%{{.*}}) = (0) to (28) step (14)
// THREADS: scf.for %{{.*}} = %c0 to %c32 step %c16
func.func @pointwise_rows(%x: tensor<1x192x28x28xf32>, %r: tensor<1x32x28x28xf32>, %w: tensor<32x192x1x1xf32>, %b: tensor<32xf32>) -> tensor<1x32x28x28xf32> {
  %0 = fx.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x192x28x28xf32>, tensor<32x192x1x1xf32>, tensor<32xf32>) -> tensor<1x32x28x28xf32>
  %1 = fx.add %r, %0 : (tensor<1x32x28x28xf32>, tensor<1x32x28x28xf32>) -> tensor<1x32x28x28xf32>
  return %1 : tensor<1x32x28x28xf32>
}

// -----

// A filter larger than the image (64 KiB against 49 KiB) keeps the split
// by output channels: split by rows, every thread would read it whole.
// THREADS-LABEL: func.func @large_filter_channels
// THREADS: scf.forall (%{{.*}}) = (0) to (1024) step (512)
func.func @large_filter_channels(%x: tensor<1x16x28x28xf32>, %w: tensor<1024x16x1x1xf32>, %b: tensor<1024xf32>) -> tensor<1x1024x28x28xf32> {
  %0 = fx.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x16x28x28xf32>, tensor<1024x16x1x1xf32>, tensor<1024xf32>) -> tensor<1x1024x28x28xf32>
  %1 = fx.relu %0 : (tensor<1x1024x28x28xf32>) -> tensor<1x1024x28x28xf32>
  return %1 : tensor<1x1024x28x28xf32>
}

// -----

// A producer with a use outside the region is not fused (it would be
// computed twice): exp feeds both the softmax and a sum. The zero fill that
// both sums start from (merged by CSE) is cheap: it is recomputed instead.
// CHECK-LABEL: func.func @multi_use
// REPORT: [[# @LINE+8]]:8: remark: dispatch region 0: root linalg.generic {arith.divf, arith.mulf}, fused 5 producer(s)
// REPORT: [[# @LINE+6]]:8: remark: recomputed in dispatch region 0 (also used by linalg.generic): linalg.fill
// REPORT: [[# @LINE+4]]:8: remark: not fused into dispatch region 0 (root linalg.generic {arith.divf, arith.mulf}): its result is also used outside the region (by linalg.generic)
// REPORT: [[# @LINE+4]]:8: remark: dispatch region 1: root linalg.generic {arith.addf}
// REPORT: [[# @LINE+2]]:8: remark: dispatch region 2: root linalg.generic {math.exp}
func.func @multi_use(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>) {
  %0 = fx.exp %x : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = fx.sum %0 {dim = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4xf32>
  %2 = fx.softmax %0 {dim = 1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %2, %1 : tensor<4x16xf32>, tensor<4xf32>
}

// -----

// A matmul epilogue (linear's bias add and gelu, fused into one generic) is
// computed on blocks of whole rows of the matmul: 128 rows of 512 columns
// fill the 256 KiB a block may take. The weight (k = 16) is transposed
// once, outside the region.
// CHECK-LABEL: func.func @linear_gelu
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg1 : tensor<512x16xf32>)
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c256 step %c128
// CHECK: tensor.extract_slice %arg0[%[[ROW]], 0] [128, 16] [1, 1]
// CHECK: linalg.fill {{.*}} -> tensor<128x512xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %[[T]] : tensor<128x16xf32>, tensor<16x512xf32>) {{.*}} -> tensor<128x512xf32>
// CHECK: linalg.generic
// CHECK: math.erf
// CHECK: tensor.insert_slice
// CHECK: } {fx.dispatch = 0 : i64}
// CHECK-NOT: linalg.
// CHECK: return
// Two threads: a chunk of 128 rows each (one block).
// THREADS-LABEL: func.func @linear_gelu
// THREADS: scf.forall (%{{.*}}) = (0) to (256) step (128)
// THREADS: linalg.matmul {{.*}} -> tensor<128x512xf32>
// THREADS: } {fx.dispatch = 0 : i64}
// REPORT: [[# @LINE+6]]:8: remark: dispatch region 0: root linalg.generic {arith.addf, {{.*}}, math.erf, {{.*}}}, fused 2 producer(s)
// REPORT: [[# @LINE+4]]:8: note: fused into dispatch region 0: linalg.matmul
// REPORT: [[# @LINE+3]]:8: remark: dispatch region 1: root linalg.transpose
// REPORT: remark: 2 dispatch regions
func.func @linear_gelu(%x: tensor<256x16xf32>, %w: tensor<512x16xf32>, %b: tensor<512xf32>) -> tensor<256x512xf32> {
  %0 = fx.linear %x, %w, %b : (tensor<256x16xf32>, tensor<512x16xf32>, tensor<512xf32>) -> tensor<256x512xf32>
  %1 = fx.gelu %0 : (tensor<256x512xf32>) -> tensor<256x512xf32>
  return %1 : tensor<256x512xf32>
}

// -----

// A classifier head has one row: its columns are tiled instead, in blocks
// of 100 (up to 128, a divisor of the 1000 columns so that every tile is
// static), which the threads share.
// CHECK-LABEL: func.func @head
// CHECK: scf.for %[[COL:.*]] = %c0 to %c1000 step %c100
// CHECK: linalg.matmul {{.*}} -> tensor<1x100xf32>
// CHECK: } {fx.dispatch = 0 : i64}
// THREADS-LABEL: func.func @head
// THREADS: scf.forall (%{{.*}}) = (0) to (1000) step (500)
// THREADS: linalg.matmul {{.*}} -> tensor<1x100xf32>
// REPORT: remark: dispatch region 0: root linalg.generic {arith.addf, arith.maximumf}, fused 2 producer(s)
func.func @head(%x: tensor<1x64xf32>, %w: tensor<1000x64xf32>, %b: tensor<1000xf32>) -> tensor<1x1000xf32> {
  %0 = fx.linear %x, %w, %b : (tensor<1x64xf32>, tensor<1000x64xf32>, tensor<1000xf32>) -> tensor<1x1000xf32>
  %1 = fx.relu %0 : (tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %1 : tensor<1x1000xf32>
}

// -----

// Producers of a matmul's operands: the lhs is read by row blocks and fuses;
// the rhs is read whole by every row block and would be recomputed per
// block, so it is cut.
// CHECK-LABEL: func.func @operands
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<16x2048xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK: arith.maximumf
// CHECK: linalg.matmul
// CHECK: math.tanh
// CHECK: } {fx.dispatch = 0 : i64}
// REPORT: [[# @LINE+9]]:8: remark: dispatch region 0: root linalg.generic {math.tanh}, fused 3 producer(s)
// REPORT: [[# @LINE+5]]:8: note: fused into dispatch region 0: linalg.generic {arith.maximumf}
// REPORT: [[# @LINE+5]]:8: remark: not fused into dispatch region 0 (root linalg.generic {math.tanh}): broadcast along a dimension the region's contraction or convolution is tiled in (it would be recomputed per tile)
// REPORT: [[# @LINE+4]]:8: remark: dispatch region 1: root linalg.generic {arith.negf, math.exp, arith.addf, arith.divf}
// REPORT: remark: 2 dispatch regions
func.func @operands(%x: tensor<64x16xf32>, %w: tensor<16x2048xf32>) -> tensor<64x2048xf32> {
  %0 = fx.relu %x : (tensor<64x16xf32>) -> tensor<64x16xf32>
  %1 = fx.sigmoid %w : (tensor<16x2048xf32>) -> tensor<16x2048xf32>
  %2 = fx.mm %0, %1 : (tensor<64x16xf32>, tensor<16x2048xf32>) -> tensor<64x2048xf32>
  %3 = fx.tanh %2 : (tensor<64x2048xf32>) -> tensor<64x2048xf32>
  return %3 : tensor<64x2048xf32>
}

// -----

// Attention scores: the batch matmul and the softmax over its rows are one
// region (rows are whole in every tile, so the row reductions see all of
// them); CSE leaves one matmul per tile.
// CHECK-LABEL: func.func @scores
// CHECK: scf.for
// CHECK-COUNT-1: linalg.batch_matmul
// CHECK-NOT: linalg.batch_matmul
// CHECK: } {fx.dispatch = 0 : i64}
// CHECK-NOT: linalg.
// CHECK: return
// REPORT: remark: dispatch region 0: root linalg.generic {arith.divf, arith.mulf}, fused 7 producer(s)
// REPORT: remark: 1 dispatch regions
func.func @scores(%q: tensor<4x32x16xf32>, %k: tensor<4x16x32xf32>) -> tensor<4x32x32xf32> {
  %0 = fx.bmm %q, %k : (tensor<4x32x16xf32>, tensor<4x16x32xf32>) -> tensor<4x32x32xf32>
  %1 = fx.softmax %0 {dim = 2 : i64} : (tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  return %1 : tensor<4x32x32xf32>
}

// -----

// A softmax over the leading dimension would recompute its reductions for
// every row tile: not fused (4 regions).
// CHECK-LABEL: func.func @leading_reduction
// CHECK-NOT: scf.for
// REPORT: remark: not fused into dispatch region 0 {{.*}}: broadcast into the root along a leading dimension (it would be recomputed per tile)
// REPORT: remark: 4 dispatch regions
func.func @leading_reduction(%x: tensor<16x4xf32>) -> tensor<16x4xf32> {
  %0 = fx.softmax %x {dim = 0 : i64} : (tensor<16x4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

// Two convolutions feeding one residual add: the region takes one of them;
// the other is its own dispatch. Their shared zero fill (merged by CSE) is
// recomputed in the region's tiles. 1x1 convolutions get tiles of whole rows
// (at most 256 pixels: 16 of the 32 rows of 16).
// CHECK-LABEL: func.func @two_convs
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK-COUNT-1: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x16x16x16xf32>
// REPORT: [[# @LINE+8]]:8: remark: dispatch region 0: root linalg.generic {arith.addf}, fused 2 producer(s)
// REPORT: [[# @LINE+5]]:8: remark: recomputed in dispatch region 0 (also used by linalg.conv_2d_nchw_fchw): linalg.fill
// REPORT: [[# @LINE+5]]:8: remark: not fused into dispatch region 0 (root {{.*}}): the region already has a contraction or convolution
// REPORT: [[# @LINE+4]]:8: remark: dispatch region 1: root linalg.conv_2d_nchw_fchw
// REPORT: remark: 2 dispatch regions
func.func @two_convs(%x: tensor<1x8x32x16xf32>, %w: tensor<16x8x1x1xf32>, %v: tensor<16x8x1x1xf32>) -> tensor<1x16x32x16xf32> {
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x8x32x16xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x32x16xf32>
  %1 = fx.convolution %x, %v {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x8x32x16xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x32x16xf32>
  %2 = fx.add %0, %1 : (tensor<1x16x32x16xf32>, tensor<1x16x32x16xf32>) -> tensor<1x16x32x16xf32>
  return %2 : tensor<1x16x32x16xf32>
}

// -----

// Epilogue fusion takes priority: the ReLU after the first matmul could be
// pulled into the second matmul's region as an operand producer, but there
// it would be computed apart from the matmul it ends; it stays that
// matmul's epilogue. (Each weight, k < 256 and 64 rows, is transposed in a
// region of its own.)
// CHECK-LABEL: func.func @two_matmuls
// CHECK: linalg.matmul
// CHECK: arith.maximumf
// CHECK: linalg.matmul
// CHECK: arith.maximumf
// REPORT: [[# @LINE+9]]:8: remark: dispatch region 0: root linalg.generic {arith.maximumf}, fused 2 producer(s)
// REPORT: [[# @LINE+6]]:8: remark: not fused into dispatch region 0 (root {{.*}}): kept as the epilogue of the convolution or matmul it reads
// REPORT: [[# @LINE+6]]:8: remark: dispatch region 1: root linalg.transpose
// REPORT: [[# @LINE+4]]:8: remark: dispatch region 2: root linalg.generic {arith.maximumf}, fused 2 producer(s)
// REPORT: remark: 4 dispatch regions
func.func @two_matmuls(%x: tensor<64x16xf32>, %w1: tensor<32x16xf32>, %w2: tensor<8x32xf32>) -> tensor<64x8xf32> {
  %0 = fx.linear %x, %w1 : (tensor<64x16xf32>, tensor<32x16xf32>) -> tensor<64x32xf32>
  %1 = fx.relu %0 : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %2 = fx.linear %1, %w2 : (tensor<64x32xf32>, tensor<8x32xf32>) -> tensor<64x8xf32>
  %3 = fx.relu %2 : (tensor<64x8xf32>) -> tensor<64x8xf32>
  return %3 : tensor<64x8xf32>
}

// -----

// `linear` with a short k (not dot products) and at least 16 rows: the
// [N, K] weight is transposed once, outside the matmul's region; with
// fewer rows it is read as it is.
// CHECK-LABEL: func.func @linear_short_k
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg1 : tensor<24x40xf32>) outs(%{{.*}} : tensor<40x24xf32>) permutation = [1, 0]
// CHECK: linalg.matmul {{.*}}ins(%arg0, %[[T]] : tensor<32x40xf32>, tensor<40x24xf32>)
// CHECK-LABEL: func.func @linear_few_rows
// CHECK-NOT: linalg.transpose
func.func @linear_short_k(%x: tensor<32x40xf32>, %w: tensor<24x40xf32>) -> tensor<32x24xf32> {
  %0 = fx.linear %x, %w : (tensor<32x40xf32>, tensor<24x40xf32>) -> tensor<32x24xf32>
  return %0 : tensor<32x24xf32>
}
func.func @linear_few_rows(%x: tensor<8x40xf32>, %w: tensor<24x40xf32>) -> tensor<8x24xf32> {
  %0 = fx.linear %x, %w : (tensor<8x40xf32>, tensor<24x40xf32>) -> tensor<8x24xf32>
  return %0 : tensor<8x24xf32>
}

// -----

// A wide dot-product linear (more columns than rows, k long enough for dot
// products) with an epilogue: one block of columns per thread, each
// thread's half of the weight read once (ConvNeXt's 196 x 1536 -> 384 in
// blocks of 128 columns gave one thread two blocks and the other one).
// THREADS-LABEL: func.func @wide_linear
// THREADS: scf.forall (%{{.*}}) = (0) to (384) step (192)
// THREADS: linalg.matmul {{.*}} -> tensor<16x192xf32>
// THREADS: math.erf
func.func @wide_linear(%x: tensor<16x256xf32>, %w: tensor<384x256xf32>, %b: tensor<384xf32>) -> tensor<16x384xf32> {
  %0 = fx.linear %x, %w, %b : (tensor<16x256xf32>, tensor<384x256xf32>, tensor<384xf32>) -> tensor<16x384xf32>
  %1 = fx.gelu %0 : (tensor<16x384xf32>) -> tensor<16x384xf32>
  return %1 : tensor<16x384xf32>
}

// -----

// A wide linear whose A (1024 x 768 f32, 3 MiB: BERT-base's feed-forward
// at batch 8) is larger than the L2 cache: blocks of 128 rows (384 KiB of
// A) inside, each block's whole width of columns after it, so that a
// block of A stays in cache while the weight's panels pass by. (Threads
// take halves of the rows.)
// THREADS-LABEL: func.func @wide_linear_large_a
// THREADS: scf.forall (%{{.*}}) = (0) to (1024) step (512)
// THREADS: scf.for %{{.*}} = %c0 to %c512 step %c128
// THREADS: scf.for %{{.*}} = %c0 to %c3072 step %c1536
// THREADS: linalg.matmul {{.*}} -> tensor<128x1536xf32>
// THREADS: math.erf
func.func @wide_linear_large_a(%x: tensor<1024x768xf32>, %w: tensor<3072x768xf32>, %b: tensor<3072xf32>) -> tensor<1024x3072xf32> {
  %0 = fx.linear %x, %w, %b : (tensor<1024x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<1024x3072xf32>
  %1 = fx.gelu %0 : (tensor<1024x3072xf32>) -> tensor<1024x3072xf32>
  return %1 : tensor<1024x3072xf32>
}

// -----

// The same with columns that do not split evenly among the threads in
// multiples of 4 (1100 / 2 = 550): column blocks that divide the columns
// (100, so that every tile is static), the rows still in blocks of 128.
// THREADS-LABEL: func.func @wide_linear_uneven
// THREADS: scf.forall (%{{.*}}) = (0) to (512) step (256)
// THREADS: scf.for %{{.*}} = %c0 to %c256 step %c128
// THREADS: scf.for %{{.*}} = %c0 to %c1100 step %c100
// THREADS: linalg.matmul {{.*}} -> tensor<128x100xf32>
func.func @wide_linear_uneven(%x: tensor<512x768xf32>, %w: tensor<1100x768xf32>, %b: tensor<1100xf32>) -> tensor<512x1100xf32> {
  %0 = fx.linear %x, %w, %b : (tensor<512x768xf32>, tensor<1100x768xf32>, tensor<1100xf32>) -> tensor<512x1100xf32>
  %1 = fx.gelu %0 : (tensor<512x1100xf32>) -> tensor<512x1100xf32>
  return %1 : tensor<512x1100xf32>
}
