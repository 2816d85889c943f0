// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fx-map-matmuls-to-gpu))' | FileCheck %s
// RUN: fx-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(fx-map-matmuls-to-gpu{report=true}))' > /dev/null

// A 130x200 output in 64x64 tiles: a 4 x 3 grid of 256 threads, both operand
// tiles in workgroup memory (k-major, a row of padding), k steps of 16: the
// first step's tiles are copied before the loop; each step loads the next
// step's elements into registers, multiplies, and stores them between two
// barriers; guarded stores.
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[C4]], {{.*}} = %[[C3]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[C256]],
// CHECK-DAG: memref.alloc() : memref<16x65xf32, 3>
// CHECK-DAG: memref.alloc() : memref<16x65xf32, 3>
// CHECK: memref.store {{.*}} : memref<16x65xf32, 3>
// CHECK: gpu.barrier
// CHECK: scf.for {{.*}} iter_args
// CHECK: scf.if
// CHECK: memref.load %arg0
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK-COUNT-16: arith.addf
// CHECK: gpu.barrier
// CHECK: memref.store {{.*}} : memref<16x65xf32, 3>
// CHECK: gpu.barrier
// CHECK: scf.yield
// CHECK: scf.if
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: linalg.matmul
func.func @matmul(%a: memref<130x70xf32>, %b: memref<70x200xf32>, %c: memref<130x200xf32>) {
  // expected-remark @below {{tiled matmul: 130x200x70 in 64x64 output tiles, k step 16, 256 threads of 4x4}}
  linalg.matmul ins(%a, %b : memref<130x70xf32>, memref<70x200xf32>) outs(%c : memref<130x200xf32>)
  return
}

// -----

// An f32 reduction of at least 128 per workgroup (128 tiles: no split): the tiles hold units of
// 4 neighbouring elements (vector<4xf32>, a unit of padding per k row),
// each thread stores one unit per operand per step, built from 4 loads,
// and reads one unit per 4 of its rows or columns per k (16 products).
// CHECK-LABEL: func.func @units
// CHECK-DAG: memref.alloc() : memref<16x17xvector<4xf32>, 3>
// CHECK: vector.from_elements
// CHECK: memref.store {{.*}} : memref<16x17xvector<4xf32>, 3>
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.load {{.*}} : memref<16x17xvector<4xf32>, 3>
// CHECK-COUNT-4: vector.extract
// CHECK: memref.load {{.*}} : memref<16x17xvector<4xf32>, 3>
// CHECK-COUNT-4: vector.extract
// CHECK-COUNT-16: arith.addf
func.func @units(%a: memref<512x256xf32>, %b: memref<256x1024xf32>, %c: memref<512x1024xf32>) {
  // expected-remark @below {{tiled matmul: 512x1024x256 in 64x64 output tiles, k step 16, 256 threads of 4x4}}
  linalg.matmul ins(%a, %b : memref<512x256xf32>, memref<256x1024xf32>) outs(%c : memref<512x1024xf32>)
  return
}

// -----

// Large outputs get 128x128 tiles, k steps of 8 and 8x8 blocks per thread;
// f16 operands stay f16 in workgroup memory and the body's casts widen them.
// CHECK-LABEL: func.func @large_f16
// CHECK-DAG: memref.alloc() : memref<8x129xf16, 3>
// CHECK: arith.extf
// CHECK-COUNT-63: arith.addf
func.func @large_f16(%a: memref<2048x64xf16>, %b: memref<64x2048xf16>, %c: memref<2048x2048xf32>) {
  // expected-remark @below {{tiled matmul: 2048x2048x64 in 128x128 output tiles, k step 8, 256 threads of 8x8}}
  linalg.matmul ins(%a, %b : memref<2048x64xf16>, memref<64x2048xf16>) outs(%c : memref<2048x2048xf32>)
  return
}

// -----

// The batch goes to the grid's z.
// CHECK-LABEL: func.func @batch
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}, {{.*}}, {{.*}} = %[[C5]])
func.func @batch(%a: memref<5x8x16xf32>, %b: memref<5x16x8xf32>, %c: memref<5x8x8xf32>) {
  // expected-remark @below {{tiled matmul}}
  linalg.batch_matmul ins(%a, %b : memref<5x8x16xf32>, memref<5x16x8xf32>) outs(%c : memref<5x8x8xf32>)
  return
}

// -----

// What stays a one-thread-per-output kernel, with the reason.
// CHECK-LABEL: func.func @unmapped
// CHECK: linalg.matmul
// CHECK: linalg.matmul
// CHECK-NOT: gpu.launch
func.func @unmapped(%a: memref<4x8xi32>, %b: memref<8x4xi32>, %c: memref<4x4xi32>, %d: memref<4x?xf32>, %e: memref<?x4xf32>, %f: memref<4x4xf32>) {
  // expected-remark @below {{not mapped as a tiled matmul: not a floating-point matmul}}
  linalg.matmul ins(%a, %b : memref<4x8xi32>, memref<8x4xi32>) outs(%c : memref<4x4xi32>)
  // expected-remark @below {{not mapped as a tiled matmul: a dynamic reduction size}}
  linalg.matmul ins(%d, %e : memref<4x?xf32>, memref<?x4xf32>) outs(%f : memref<4x4xf32>)
  return
}

// -----

// A dynamic row count (a linear layer over a batch of tokens): the host
// computes the row tiles from the buffer's size; tiles assume a large batch
// and k is never split. Rows past the end are clamped and not stored.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x64xf32>
// CHECK: %[[M:.*]] = memref.dim %[[A]], %c0
// CHECK: %[[TILES:.*]] = arith.ceildivui %[[M]], %c64
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %[[TILES]], {{.*}} = %c1{{.*}})
// CHECK: arith.cmpi ult, %{{.*}}, %[[M]]
// CHECK: memref.load %[[A]]
func.func @dynamic_rows(%a: memref<?x64xf32>, %b: memref<64x32xf32>, %c: memref<?x32xf32>) {
  // expected-remark @below {{tiled matmul: ?x32x64 in 64x32 output tiles, k step 16, 256 threads of 4x2}}
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x32xf32>) outs(%c : memref<?x32xf32>)
  return
}

// -----

// A dynamic batch of a batched matmul: one grid layer per batch element.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x16x64xf32>
// CHECK: %[[B:.*]] = memref.dim %[[A]], %c0
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}, {{.*}}, {{.*}} = %[[B]])
func.func @dynamic_batch(%a: memref<?x16x64xf32>, %b: memref<?x64x16xf32>, %c: memref<?x16x16xf32>) {
  // expected-remark @below {{tiled matmul: 16x16x64 (batch ?) in 64x32 output tiles}}
  linalg.batch_matmul ins(%a, %b : memref<?x16x64xf32>, memref<?x64x16xf32>) outs(%c : memref<?x16x16xf32>)
  return
}

// -----

// Only a group's outermost dimension may be dynamic.
func.func @dynamic_inner(%a: memref<4x?x64xf32>, %b: memref<64x32xf32>, %c: memref<4x?x32xf32>) {
  // expected-remark @below {{not mapped as a tiled matmul: a dynamic size that is not the outermost of its group}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<4x?x64xf32>, memref<64x32xf32>) outs(%c : memref<4x?x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A convolution is an implicit GEMM: its output channels are the rows (the
// filter's loop), batch and output pixels the columns (the output's
// innermost loop ow is among them), (c, kh, kw) the reduction; the input's
// indices are affine in the loops (oh * 2 + kh).
// CHECK-LABEL: func.func @conv
// CHECK: gpu.launch
// CHECK: affine.apply
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv(%in: memref<2x8x17x17xf32>, %w: memref<16x8x3x3xf32>, %out: memref<2x16x8x8xf32>) {
  // expected-remark @below {{tiled matmul: 16x128x72 in 64x64 output tiles, k step 16, 256 threads of 4x4}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%in, %w : memref<2x8x17x17xf32>, memref<16x8x3x3xf32>) outs(%out : memref<2x16x8x8xf32>)
  return
}

// -----

// Pooling has a convolution's loops but not a multiply-accumulate body: no
// GEMM view, a window kernel (max of the taps) starting from the output's
// values, which nothing here set to a constant.
// CHECK-LABEL: func.func @not_gemms
// CHECK: gpu.launch
// CHECK: memref.load %arg2[
// CHECK: scf.for
// CHECK: arith.maximumf
func.func @not_gemms(%in: memref<1x4x9x9xf32>, %window: memref<3x3xf32>, %out: memref<1x4x7x7xf32>) {
  // expected-remark @below {{not mapped as a tiled matmul: its body is not a multiply-accumulate}}
  // expected-remark @below {{window kernel: one thread per output}}
  linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%in, %window : memref<1x4x9x9xf32>, memref<3x3xf32>) outs(%out : memref<1x4x7x7xf32>)
  return
}

// -----

// A depthwise convolution whose window is longer than a window kernel's
// (9x9 = 81 taps) stays for convert-linalg-to-parallel-loops.
// CHECK-LABEL: func.func @long_window
// CHECK-NOT: gpu.launch
// CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func @long_window(%in: memref<1x4x12x12xf32>, %dw: memref<4x9x9xf32>, %out: memref<1x4x4x4xf32>) {
  // expected-remark @below {{not mapped as a tiled matmul: a matrix-vector product}}
  // expected-remark @below {{not mapped as a window: a reduction longer than a window (81 > 64)}}
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%in, %dw : memref<1x4x12x12xf32>, memref<4x9x9xf32>) outs(%out : memref<1x4x4x4xf32>)
  return
}

// -----

// A depthwise convolution is a matrix-vector product per channel (no loop
// indexes only its filter): no GEMM view, but a window of 3x3 taps per
// output. One thread per output element (neighbouring threads own
// neighbouring columns), the taps in registers; like a GEMM kernel it
// absorbs the padded copy, the zero start and the epilogue (one kernel
// instead of five).
// CHECK-LABEL: func.func @depthwise_window
// CHECK-NOT: linalg.
// CHECK-NOT: memref.copy
// CHECK: gpu.launch
// CHECK: arith.remui
// CHECK: %[[ACC:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %cst{{.*}}) -> (f32)
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.cmpi ult
// CHECK: memref.load %arg0[
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: memref.store {{.*}}, %arg3[
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @depthwise_window(%in: memref<1x8x16x16xf32>, %w: memref<8x3x3xf32>, %bias: memref<8xf32>, %res: memref<1x8x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %pad = memref.alloc() : memref<1x8x18x18xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x8x18x18xf32>)
  %inner = memref.subview %pad[0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1] : memref<1x8x18x18xf32> to memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>
  memref.copy %in, %inner : memref<1x8x16x16xf32> to memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>
  %acc = memref.alloc() : memref<1x8x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x8x16x16xf32>)
  // expected-remark @below {{not mapped as a tiled matmul: a matrix-vector product}}
  // expected-remark @below {{window kernel: one thread per output}}
  // expected-remark @below {{fused into the kernel: input 0 read through its zero padding, zero initial value, elementwise epilogue}}
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%pad, %w : memref<1x8x18x18xf32>, memref<8x3x3xf32>) outs(%acc : memref<1x8x16x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc, %bias : memref<1x8x16x16xf32>, memref<8xf32>) outs(%res : memref<1x8x16x16xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %pad : memref<1x8x18x18xf32>
  memref.dealloc %acc : memref<1x8x16x16xf32>
  return
}

// -----

// Max pooling is a window kernel too (a max instead of a multiply-add): it
// absorbs the padded copy filled with -inf (out-of-bounds taps read -inf)
// and the -inf start, one kernel instead of four. A padded copy filled
// with another value than the op needs would still be read right: the
// kernel substitutes whatever constant the padding held.
// CHECK-LABEL: func.func @max_pool_window
// CHECK-NOT: linalg.
// CHECK-NOT: memref.copy
// CHECK: gpu.launch
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[NEGINF]]) -> (f32)
// CHECK: arith.cmpi ult
// CHECK: %[[X:.*]] = memref.load %arg0[
// CHECK: %[[PADINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: arith.select %{{.*}}, %[[X]], %[[PADINF]]
// CHECK: arith.maximumf
// CHECK: memref.store {{.*}}, %arg1[
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @max_pool_window(%in: memref<1x8x16x16xf32>, %out: memref<1x8x8x8xf32>) {
  %neginf = arith.constant 0xFF800000 : f32
  %pad = memref.alloc() : memref<1x8x18x18xf32>
  linalg.map outs(%pad : memref<1x8x18x18xf32>)
    (%init: f32) {
      linalg.yield %neginf : f32
    }
  %inner = memref.subview %pad[0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1] : memref<1x8x18x18xf32> to memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>
  memref.copy %in, %inner : memref<1x8x16x16xf32> to memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>
  linalg.fill ins(%neginf : f32) outs(%out : memref<1x8x8x8xf32>)
  %window = memref.alloc() : memref<3x3xf32>
  // expected-remark @below {{not mapped as a tiled matmul: its body is not a multiply-accumulate}}
  // expected-remark @below {{window kernel: one thread per output}}
  // expected-remark @below {{fused into the kernel: input 0 read through its padding of -Inf, initial value -Inf}}
  linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%pad, %window : memref<1x8x18x18xf32>, memref<3x3xf32>) outs(%out : memref<1x8x8x8xf32>)
  return
}

// -----

// One-shot bufferization writes the epilogue in place of %src, the buffer
// the padded input was copied from and the kernel reads: fused as it is,
// threads would overwrite inputs others still read. The epilogue gets a
// buffer of its own (made before the kernel); what reads %src after it,
// directly or through a view made before it, reads the new buffer.
// CHECK-LABEL: func.func @epilogue_in_place_of_input
// CHECK: %[[SRC:.*]] = memref.alloc() : memref<1x8x16x16xf32>
// CHECK: %[[NEW:.*]] = memref.alloc() : memref<1x8x16x16xf32>
// CHECK: %[[VIEW:.*]] = memref.collapse_shape %[[NEW]]
// CHECK: gpu.launch
// CHECK: memref.load %[[SRC]][
// CHECK: memref.store {{.*}}, %[[NEW]][
// CHECK-NOT: gpu.launch
// CHECK: memref.copy %[[NEW]], %arg2
// CHECK: memref.copy %[[VIEW]], %arg3
func.func @epilogue_in_place_of_input(%in: memref<1x8x16x16xf32>, %w: memref<8x3x3xf32>, %out: memref<1x8x16x16xf32>, %flat: memref<2048xf32>) {
  %zero = arith.constant 0.0 : f32
  %src = memref.alloc() : memref<1x8x16x16xf32>
  memref.copy %in, %src : memref<1x8x16x16xf32> to memref<1x8x16x16xf32>
  %view = memref.collapse_shape %src [[0, 1, 2, 3]] : memref<1x8x16x16xf32> into memref<2048xf32>
  %pad = memref.alloc() : memref<1x8x18x18xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x8x18x18xf32>)
  %inner = memref.subview %pad[0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1] : memref<1x8x18x18xf32> to memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>
  memref.copy %src, %inner : memref<1x8x16x16xf32> to memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>
  %acc = memref.alloc() : memref<1x8x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x8x16x16xf32>)
  // expected-remark @below {{not mapped as a tiled matmul: a matrix-vector product}}
  // expected-remark @below {{window kernel: one thread per output}}
  // expected-remark @below {{fused into the kernel: input 0 read through its zero padding, zero initial value, elementwise epilogue}}
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%pad, %w : memref<1x8x18x18xf32>, memref<8x3x3xf32>) outs(%acc : memref<1x8x16x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x8x16x16xf32>) outs(%src : memref<1x8x16x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  memref.copy %src, %out : memref<1x8x16x16xf32> to memref<1x8x16x16xf32>
  memref.copy %view, %flat : memref<2048xf32> to memref<2048xf32>
  return
}

// -----

// One output tile and a long k: split 64 ways (256 / 1 tiles, at most k / 32,
// two k steps each) into a temporary, then a second kernel adds the splits
// to the output.
// CHECK-LABEL: func.func @split_k
// CHECK: %[[PARTIAL:.*]] = memref.alloc() : memref<64x1x40x50xf32>
// CHECK: gpu.launch
// CHECK: arith.minui
// CHECK: memref.store %{{.*}}, %[[PARTIAL]]
// CHECK: gpu.launch
// CHECK-COUNT-64: arith.addf
// CHECK: memref.store
func.func @split_k(%a: memref<40x2048xf32>, %b: memref<2048x50xf32>, %c: memref<40x50xf32>) {
  // expected-remark @below {{tiled matmul: 40x50x2048 in 64x64 output tiles, k step 16, 256 threads of 4x4, k split 64 ways}}
  linalg.matmul ins(%a, %b : memref<40x2048xf32>, memref<2048x50xf32>) outs(%c : memref<40x50xf32>)
  return
}

// -----

// A bufferized convolution with padding, a zero initial value and a
// per-channel epilogue (bias + relu) is one kernel: it reads the unpadded
// input with a bounds check, starts from zero and applies the epilogue
// before its store; the padded copy, the fill and the epilogue op go away,
// and so does the convolution's own output (nothing else reads it).
// CHECK-LABEL: func.func @conv_fusion
// CHECK-NOT: linalg.
// CHECK-NOT: memref.copy
// CHECK: gpu.launch
// CHECK: arith.cmpi ult
// CHECK: memref.load %[[IN:.*]][
// CHECK: arith.maximumf
// CHECK: memref.store
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @conv_fusion(%in: memref<1x8x16x16xf32>, %w: memref<16x8x3x3xf32>, %bias: memref<16xf32>, %res: memref<1x16x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %pad = memref.alloc() : memref<1x8x18x18xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x8x18x18xf32>)
  %inner = memref.subview %pad[0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1] : memref<1x8x18x18xf32> to memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>
  memref.copy %in, %inner : memref<1x8x16x16xf32> to memref<1x8x16x16xf32, strided<[2592, 324, 18, 1], offset: 19>>
  %acc = memref.alloc() : memref<1x16x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x16x16x16xf32>)
  // expected-remark @below {{tiled matmul}}
  // expected-remark @below {{fused into the kernel: input 0 read through its zero padding, zero initial value, elementwise epilogue}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%pad, %w : memref<1x8x18x18xf32>, memref<16x8x3x3xf32>) outs(%acc : memref<1x16x16x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc, %bias : memref<1x16x16x16xf32>, memref<16xf32>) outs(%res : memref<1x16x16x16xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %pad : memref<1x8x18x18xf32>
  memref.dealloc %acc : memref<1x16x16x16xf32>
  return
}

// -----

// Not absorbed: the zero-filled output is read (copied) between its fill
// and the matmul, and the epilogue writes the matmul's input (other
// workgroups still read it).
// CHECK-LABEL: func.func @no_fusion
// CHECK: linalg.fill
// CHECK: memref.copy %[[ACC:.*]], %
// CHECK: gpu.launch
// CHECK: linalg.generic
func.func @no_fusion(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %keep: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
  memref.copy %acc, %keep : memref<64x64xf32> to memref<64x64xf32>
  // expected-remark @below {{tiled matmul}}
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%acc : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<64x64xf32>) outs(%a : memref<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Attention's heads: the batched matmul reads a permuted copy of its
// operand ([T, H, D] -> [H, T, D]) that nothing else reads; the tiled
// kernel loads through the permutation instead (the transpose and its
// buffer are gone).
// CHECK-LABEL: func.func @permuted_operand
//  CHECK-SAME: (%[[Q:.*]]: memref<32x4x16xf32>
//   CHECK-NOT: linalg.transpose
//   CHECK-NOT: memref.alloc() : memref<4x32x16xf32>
//       CHECK: gpu.launch
//       CHECK: memref.load %[[Q]]
//   CHECK-NOT: linalg.transpose
//       CHECK: return
func.func @permuted_operand(%q: memref<32x4x16xf32>, %k: memref<4x16x32xf32>, %out: memref<4x32x32xf32>) {
  %heads = memref.alloc() : memref<4x32x16xf32>
  linalg.transpose ins(%q : memref<32x4x16xf32>) outs(%heads : memref<4x32x16xf32>) permutation = [1, 0, 2]
  // expected-remark @below {{tiled matmul}}
  // expected-remark @below {{fused into the kernel: input 0 computed from its elementwise producer's inputs}}
  linalg.batch_matmul ins(%heads, %k : memref<4x32x16xf32>, memref<4x16x32xf32>) outs(%out : memref<4x32x32xf32>)
  memref.dealloc %heads : memref<4x32x16xf32>
  return
}

// -----

// Attention's output: the heads permuted back ([H, T, D] -> [T, H, D]) and
// collapsed into the rows of the output projection ([T, H x D]). The tiled
// kernel reads the permute's input through both: each element's row and
// column split back into (T) and (H, D), then the permutation.
// CHECK-LABEL: func.func @permuted_collapsed_operand
//  CHECK-SAME: (%[[O:.*]]: memref<4x32x16xf32>
//   CHECK-NOT: linalg.transpose
//   CHECK-NOT: memref.alloc() : memref<32x4x16xf32>
//       CHECK: gpu.launch
//       CHECK: memref.load %[[O]]
//   CHECK-NOT: linalg.transpose
//       CHECK: return
func.func @permuted_collapsed_operand(%o: memref<4x32x16xf32>, %w: memref<64x32xf32>, %out: memref<32x32xf32>) {
  %tokens = memref.alloc() : memref<32x4x16xf32>
  linalg.transpose ins(%o : memref<4x32x16xf32>) outs(%tokens : memref<32x4x16xf32>) permutation = [1, 0, 2]
  %rows = memref.collapse_shape %tokens [[0], [1, 2]] : memref<32x4x16xf32> into memref<32x64xf32>
  // expected-remark @below {{tiled matmul}}
  // expected-remark @below {{fused into the kernel: input 0 computed from its elementwise producer's inputs}}
  linalg.matmul ins(%rows, %w : memref<32x64xf32>, memref<64x32xf32>) outs(%out : memref<32x32xf32>)
  memref.dealloc %tokens : memref<32x4x16xf32>
  return
}

// -----

// The permute's input is read by a kernel between it and the batched
// matmul (the first matmul, already a gpu.launch when the second is
// mapped; it only loads from it), and the permute's buffer is written
// anew after the batched matmul (the bufferization reused it): the
// batched matmul still computes the permute as it loads.
// CHECK-LABEL: func.func @permuted_operand_reused
//  CHECK-SAME: (%[[Q:.*]]: memref<32x4x16xf32>
//   CHECK-NOT: linalg.transpose
//       CHECK: gpu.launch
//       CHECK: gpu.launch
//       CHECK: memref.load %[[Q]]
//       CHECK: linalg.fill
//       CHECK: return
func.func @permuted_operand_reused(%q: memref<32x4x16xf32>, %k: memref<4x16x32xf32>, %w: memref<16x32xf32>, %out: memref<4x32x32xf32>, %flat: memref<128x32xf32>, %again: memref<4x32x16xf32>) {
  %heads = memref.alloc() : memref<4x32x16xf32>
  linalg.transpose ins(%q : memref<32x4x16xf32>) outs(%heads : memref<4x32x16xf32>) permutation = [1, 0, 2]
  %rows = memref.collapse_shape %q [[0, 1], [2]] : memref<32x4x16xf32> into memref<128x16xf32>
  // expected-remark @below {{tiled matmul}}
  linalg.matmul ins(%rows, %w : memref<128x16xf32>, memref<16x32xf32>) outs(%flat : memref<128x32xf32>)
  // expected-remark @below {{tiled matmul}}
  // expected-remark @below {{fused into the kernel: input 0 computed from its elementwise producer's inputs}}
  linalg.batch_matmul ins(%heads, %k : memref<4x32x16xf32>, memref<4x16x32xf32>) outs(%out : memref<4x32x32xf32>)
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%heads : memref<4x32x16xf32>)
  memref.copy %heads, %again : memref<4x32x16xf32> to memref<4x32x16xf32>
  memref.dealloc %heads : memref<4x32x16xf32>
  return
}

// -----

// Read after the batched matmul without being written anew: the permute
// stays a kernel of its own.
// CHECK-LABEL: func.func @permuted_operand_read_later
//       CHECK: linalg.transpose
func.func @permuted_operand_read_later(%q: memref<32x4x16xf32>, %k: memref<4x16x32xf32>, %out: memref<4x32x32xf32>, %again: memref<4x32x16xf32>) {
  %heads = memref.alloc() : memref<4x32x16xf32>
  linalg.transpose ins(%q : memref<32x4x16xf32>) outs(%heads : memref<4x32x16xf32>) permutation = [1, 0, 2]
  // expected-remark @below {{tiled matmul}}
  linalg.batch_matmul ins(%heads, %k : memref<4x32x16xf32>, memref<4x16x32xf32>) outs(%out : memref<4x32x32xf32>)
  memref.copy %heads, %again : memref<4x32x16xf32> to memref<4x32x16xf32>
  memref.dealloc %heads : memref<4x32x16xf32>
  return
}

// -----

// A kernel between them writes the permute's input: the permute stays.
// CHECK-LABEL: func.func @permuted_operand_input_written
//       CHECK: linalg.transpose
func.func @permuted_operand_input_written(%q: memref<32x4x16xf32>, %k: memref<4x16x32xf32>, %out: memref<4x32x32xf32>, %a: memref<128x16xf32>, %w: memref<16x16xf32>) {
  %heads = memref.alloc() : memref<4x32x16xf32>
  linalg.transpose ins(%q : memref<32x4x16xf32>) outs(%heads : memref<4x32x16xf32>) permutation = [1, 0, 2]
  %rows = memref.collapse_shape %q [[0, 1], [2]] : memref<32x4x16xf32> into memref<128x16xf32>
  // expected-remark @below {{tiled matmul}}
  linalg.matmul ins(%a, %w : memref<128x16xf32>, memref<16x16xf32>) outs(%rows : memref<128x16xf32>)
  // expected-remark @below {{tiled matmul}}
  linalg.batch_matmul ins(%heads, %k : memref<4x32x16xf32>, memref<4x16x32xf32>) outs(%out : memref<4x32x32xf32>)
  memref.dealloc %heads : memref<4x32x16xf32>
  return
}
