// The general tensor-core kernel of fx-map-matmuls-to-gpu: f32 GEMMs at
// precision high (bf16x3) and medium (bf16), convolutions as implicit GEMMs.
// RUN: fx-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(fx-map-matmuls-to-gpu{cooperative-matrix=true bf16-cooperative-matrix=true precision=high report=true}))' | FileCheck %s --check-prefix=HIGH
// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fx-map-matmuls-to-gpu{cooperative-matrix=true bf16-cooperative-matrix=true precision=medium report=true}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEDIUM
// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fx-map-matmuls-to-gpu{cooperative-matrix=true bf16-cooperative-matrix=true precision=highest report=true}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=HIGHEST
// RUN: not fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fx-map-matmuls-to-gpu{cooperative-matrix=true precision=exact}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: fx-map-matmuls-to-gpu: precision must be highest, high or medium, not 'exact'

// A linear layer (x @ w^T): 2048 x 2048 outputs are 256 tiles of 128x128
// (4x4 fragments per subgroup).
// x is read along k (row-major A tile), w along k too (column-major B
// tile); both through flat views of the whole buffers as 16-byte words,
// a unit of 8 k neighbours in two loads (zero where a row runs out).
// bf16x3: three products per fragment pair, the kernel's location marked
// for fx-retype-bf16-cooperative-matrices.
// The results leave through the same workgroup buffer as the staged
// tiles, a fragment row (4 fragments, rows 17 units apart) at a time, and
// y is read and written as 16-byte units: its columns run contiguously.
// HIGH-LABEL: func.func @linear
// HIGH: %[[XW:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<2048x512xf32> to memref<262144xvector<4xi32>>
// HIGH: %[[YW:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<2048x2048xf32> to memref<1048576xvector<4xi32>>
// HIGH: gpu.launch
// HIGH: %[[BUF:.*]] = memref.alloc() : memref<1536xvector<4xi32>, 3>
// HIGH-NOT: memref.alloc
// HIGH: memref.load %[[XW]][%{{.*}}] : memref<262144xvector<4xi32>>
// HIGH: memref.load %[[XW]][%{{.*}}] : memref<262144xvector<4xi32>>
// A matmul loads each k step two steps before it is staged: the loop takes
// two k steps per iteration and carries the words (and their bounds
// conditions) loaded in its second half into the next iteration; the
// second half runs where k has a step left.
// HIGH: scf.for %{{.*}} = %c0 to %c512 step %c32{{.*}} iter_args({{.*}}) -> ({{.*}}"COp">, vector<4xi32>, vector<4xi32>, i1,
// HIGH: memref.load %[[XW]]
// HIGH: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 3 : index} : memref<{{[0-9]+}}xvector<4xi32>, 3> -> !gpu.mma_matrix<16x16xf16, "AOp">
// HIGH: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 3 : index, transpose} : memref<{{[0-9]+}}xvector<4xi32>, 3> -> !gpu.mma_matrix<16x16xf16, "BOp">
// HIGH-COUNT-3: gpu.subgroup_mma_compute
// The next k step's words become fragments' units after the multiplies.
// HIGH: arith.select %{{.*}} : vector<4xi1>, vector<4xi32>
// HIGH: scf.if %{{.*}} -> ({{.*}}"COp">
// HIGH: memref.load %[[XW]]
// HIGH: gpu.subgroup_mma_compute
// HIGH: } else {
// HIGH-COUNT-4: gpu.subgroup_mma_store_matrix %{{.*}}, %[[BUF]][%{{.*}}] {leadDimension = 17 : index}
// HIGH-NEXT: gpu.barrier
// HIGH: memref.load %[[YW]][%{{.*}}] : memref<1048576xvector<4xi32>>
// HIGH: memref.store %{{.*}}, %[[YW]][%{{.*}}] : memref<1048576xvector<4xi32>>
// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fx-map-matmuls-to-gpu{cooperative-matrix=true bf16-cooperative-matrix=true precision=high}))' --mlir-print-debuginfo | FileCheck %s --check-prefix=MARKER
// MARKER: loc(fused<"fx.bf16_fragments">
// MEDIUM: remark: cooperative-matrix GEMM: 2048x2048x512 on bf16 fragments, 128x128 tiles, k step 32
// HIGHEST: remark: not on the tensor cores: f32 operands at precision 'highest'
func.func @linear(%x: memref<2048x512xf32>, %w: memref<2048x512xf32>, %y: memref<2048x2048xf32>) {
  // expected-remark @below {{not mapped onto cooperative matrices: not a plain linalg.matmul}}
  // expected-remark @below {{cooperative-matrix GEMM: 2048x2048x512 on bf16x3 fragments, 128x128 tiles, k step 16}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : memref<2048x512xf32>, memref<2048x512xf32>) outs(%y : memref<2048x2048xf32>)
  return
}

// -----

// A padded 3x3 convolution with a zero start and a relu epilogue, 64 x
// (16 x 32 x 32) outputs: 256 tiles of 64x64 (a convolution's subgroups
// take 2x2 fragments), 302M multiply-accumulates: both operands are
// repacked first. The input's kernel transposes 32 channels x 64 columns
// through workgroup memory, reading through the zero padding, and writes
// bf16x3's two planes of [16][34][34][4] units; the filter's writes
// [64][3][3][4] units. The GEMM loads a unit per load (zero where k or the
// columns run out), in k steps of 32: the packed units need no conversion.
// HIGH-LABEL: func.func @conv
// HIGH-NOT: linalg.
// HIGH: %[[IN:.*]] = memref.alloc() : memref<591872xi32>
// HIGH: %[[INU:.*]] = builtin.unrealized_conversion_cast %[[IN]] : memref<591872xi32> to memref<147968xvector<4xi32>>
// HIGH: gpu.launch
// HIGH: memref.alloc() : memref<2080xf32, 3>
// HIGH: gpu.barrier
// HIGH: memref.store %{{.*}}, %[[INU]][%{{.*}}] : memref<147968xvector<4xi32>>
// HIGH: %[[W:.*]] = memref.alloc() : memref<18432xi32>
// HIGH: %[[WU:.*]] = builtin.unrealized_conversion_cast %[[W]] : memref<18432xi32> to memref<4608xvector<4xi32>>
// HIGH: gpu.launch
// HIGH: memref.store %{{.*}}, %[[WU]][%{{.*}}] : memref<4608xvector<4xi32>>
// HIGH: %[[OUTU:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<16x64x32x32xf32> to memref<262144xvector<4xi32>>
// HIGH: gpu.launch
// HIGH: memref.load %[[INU]][%{{.*}}] : memref<147968xvector<4xi32>>
// HIGH: arith.select %{{.*}} : vector<4xi1>, vector<4xi32>
// HIGH: gpu.subgroup_mma_compute
// HIGH: gpu.subgroup_mma_store_matrix {{.*}} {leadDimension = 9 : index}
// HIGH: arith.maximumf
// HIGH: memref.store %{{.*}}, %[[OUTU]][%{{.*}}] : memref<262144xvector<4xi32>>
// HIGH-NOT: linalg.generic
// HIGH: return
// NOPACK: remark: cooperative-matrix GEMM: 64x16384x288 on bf16x3 fragments, 64x64 tiles, k step 16{{$}}
// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fx-map-matmuls-to-gpu{cooperative-matrix=true bf16-cooperative-matrix=true precision=high packed-conv-min-macs=-1 report=true}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOPACK
func.func @conv(%in: memref<16x32x32x32xf32>, %w: memref<64x32x3x3xf32>, %out: memref<16x64x32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %pad = memref.alloc() : memref<16x32x34x34xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<16x32x34x34xf32>)
  %inner = memref.subview %pad[0, 0, 1, 1] [16, 32, 32, 32] [1, 1, 1, 1] : memref<16x32x34x34xf32> to memref<16x32x32x32xf32, strided<[36992, 1156, 34, 1], offset: 35>>
  memref.copy %in, %inner : memref<16x32x32x32xf32> to memref<16x32x32x32xf32, strided<[36992, 1156, 34, 1], offset: 35>>
  %acc = memref.alloc() : memref<16x64x32x32xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<16x64x32x32xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 64x16384x288 on bf16x3 fragments, 64x64 tiles, k step 32, operands repacked}}
  // expected-remark @below {{fused into the kernel: input 0 read through its zero padding, zero initial value, elementwise epilogue}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%pad, %w : memref<16x32x34x34xf32>, memref<64x32x3x3xf32>) outs(%acc : memref<16x64x32x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<16x64x32x32xf32>) outs(%out : memref<16x64x32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// ResNet's downsampling: a 1x1 convolution of stride 2 reads every other
// row and column of its input, and only those are packed: [32][28][28]
// pixels of 32 units (two planes, four i32 each), from a grid of 28 packed
// rows per image; the GEMM divides the input's row and column by 2.
// HIGH-LABEL: func.func @strided_pointwise
// HIGH: memref.alloc() : memref<6422528xi32>
// HIGH: gpu.launch blocks({{.*}}) in ({{.*}} = %c4, {{.*}} = %c28, {{.*}} = %c32)
// HIGH: arith.muli %{{.*}}, %c2
// HIGH: gpu.launch
// HIGH: gpu.launch
// HIGH: arith.divui %{{.*}}, %c2
// HIGH: return
func.func @strided_pointwise(%in: memref<32x256x56x56xf32>, %w: memref<512x256x1x1xf32>, %out: memref<32x512x28x28xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<32x512x28x28xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 512x25088x256 on bf16x3 fragments, 128x128 tiles, k step 32, operands repacked}}
  // expected-remark @below {{fused into the kernel: zero initial value}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%in, %w : memref<32x256x56x56xf32>, memref<512x256x1x1xf32>) outs(%out : memref<32x512x28x28xf32>)
  return
}

// -----

// DenseNet's pre-activation: a batch norm and ReLU (an elementwise
// generic, per-channel scale and shift) compute a 1x1 convolution's input
// into a buffer of its own that nothing else reads. A pointwise
// convolution is not repacked (its input is a GEMM operand as it is): the
// GEMM's staging loads compute each element from the generic's inputs as
// they read it, and the generic and its buffer are gone.
// HIGH-LABEL: func.func @prologue
//   HIGH-NOT: memref.alloc() : memref<16x256x32x32xf32>
//       HIGH: gpu.launch
//   HIGH-NOT: gpu.launch
//       HIGH: memref.load %{{.*}} : memref<16x256x32x32xf32>
//       HIGH: memref.load %{{.*}} : memref<256xf32>
//       HIGH: arith.mulf
//       HIGH: arith.maximumf
//       HIGH: gpu.subgroup_mma_compute
//   HIGH-NOT: linalg.generic
//       HIGH: return
func.func @prologue(%x: memref<16x256x32x32xf32>, %scale: memref<256xf32>, %w: memref<64x256x1x1xf32>, %out: memref<16x64x32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %act = memref.alloc() : memref<16x256x32x32xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %scale : memref<16x256x32x32xf32>, memref<256xf32>) outs(%act : memref<16x256x32x32xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %m = arith.mulf %v, %s : f32
    %r = arith.maximumf %m, %zero : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%out : memref<16x64x32x32xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 64x16384x256 on bf16x3 fragments, 64x64 tiles, k step 16}}
  // expected-remark @below {{fused into the kernel: input 0 computed from its elementwise producer's inputs, zero initial value}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%act, %w : memref<16x256x32x32xf32>, memref<64x256x1x1xf32>) outs(%out : memref<16x64x32x32xf32>)
  memref.dealloc %act : memref<16x256x32x32xf32>
  return
}

// -----

// EfficientNet's squeeze-and-excitation scaling before a 1x1 projection,
// written in place of the activations it scales: not repacked (115M
// multiply-accumulates), the GEMM's staging loads compute the product per
// element from the activations as they were.
// HIGH-LABEL: func.func @unpacked_prologue
//       HIGH: %[[ACT:.*]] = memref.alloc() : memref<1x576x56x56xf32>
//       HIGH: memref.copy
//   HIGH-NOT: linalg.generic
//       HIGH: gpu.launch
//       HIGH: memref.load %[[ACT]]
//       HIGH: memref.load %{{.*}} : memref<1x576x1x1xf32>
//       HIGH: arith.mulf
//   HIGH-NOT: linalg.generic
//       HIGH: return
func.func @unpacked_prologue(%x: memref<1x576x56x56xf32>, %se: memref<1x576x1x1xf32>, %w: memref<64x576x1x1xf32>, %out: memref<1x64x56x56xf32>) {
  %zero = arith.constant 0.0 : f32
  %act = memref.alloc() : memref<1x576x56x56xf32>
  memref.copy %x, %act : memref<1x576x56x56xf32> to memref<1x576x56x56xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%act, %se : memref<1x576x56x56xf32>, memref<1x576x1x1xf32>) outs(%act : memref<1x576x56x56xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %m = arith.mulf %v, %s : f32
    linalg.yield %m : f32
  }
  linalg.fill ins(%zero : f32) outs(%out : memref<1x64x56x56xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 64x3136x576 on bf16x3 fragments, 64x64 tiles, k step 16, k split 6 ways}}
  // expected-remark @below {{fused into the kernel: input 0 computed from its elementwise producer's inputs, zero initial value}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%act, %w : memref<1x576x56x56xf32>, memref<64x576x1x1xf32>) outs(%out : memref<1x64x56x56xf32>)
  return
}

// -----

// A convolution of 42M multiply-accumulates (9 images of 8 channels):
// below packed-conv-min-macs, the GEMM reads its operands as they are.
// MEDIUM: remark: cooperative-matrix GEMM: 64x9216x72 on bf16 fragments, 64x64 tiles, k step 32{{$}}
func.func @small_conv(%in: memref<9x8x34x34xf32>, %w: memref<64x8x3x3xf32>, %out: memref<9x64x32x32xf32>) {
  // expected-remark @below {{cooperative-matrix GEMM: 64x9216x72 on bf16x3 fragments, 64x64 tiles, k step 16}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%in, %w : memref<9x8x34x34xf32>, memref<64x8x3x3xf32>) outs(%out : memref<9x64x32x32xf32>)
  return
}

// -----

// A batch-1 3x3 convolution: 64 x 3136 outputs are 49 tiles of 64x64, too
// few for the GPU, and k = 576 splits 6 ways (96 each, 6 k steps): the
// GEMM kernel's grid z is (batch, split), each workgroup reducing its part
// of k. Each stores its tile's partial sums as 16-byte units (49 tiles x 6
// splits x 64 x 64 / 4), makes them visible device-wide and counts itself
// in its tile's counter (49 of them, zero between calls); the last of a
// tile's six workgroups adds the six parts (a loop of two per iteration)
// and applies the epilogue. No second kernel.
// HIGH-LABEL: func.func @split_conv
// HIGH: %[[PART:.*]] = memref.alloc() : memref<301056xvector<4xi32>>
// HIGH: %[[COUNT:.*]] = memref.alloc() {fx.persistent_zeros} : memref<49xi32>
// HIGH: gpu.launch blocks({{.*}}) in ({{.*}} = %c49, {{.*}} = %c1{{.*}}, {{.*}} = %c6)
// HIGH: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16
// HIGH: gpu.subgroup_mma_compute
// HIGH-COUNT-8: memref.store %{{.*}}, %[[PART]][%{{.*}}] : memref<301056xvector<4xi32>>
// HIGH: spirv.MemoryBarrier <Device>, <AcquireRelease|UniformMemory>
// HIGH: gpu.barrier
// HIGH: scf.if
// HIGH: %[[BEFORE:.*]] = memref.atomic_rmw addi %{{.*}}, %[[COUNT]][%{{.*}}]
// HIGH: arith.cmpi eq, %[[BEFORE]], %c5_i32
// HIGH: memref.store %{{.*}}, %[[COUNT]]
// HIGH: gpu.barrier
// HIGH: scf.if
// HIGH: spirv.MemoryBarrier <Device>, <AcquireRelease|UniformMemory>
// HIGH: scf.for %{{.*}} = %c0 to %c3
// HIGH-COUNT-16: memref.load %[[PART]]
// HIGH: arith.maximumf
// HIGH-NOT: gpu.launch
// HIGH: return
func.func @split_conv(%in: memref<1x64x58x58xf32>, %w: memref<64x64x3x3xf32>, %out: memref<1x64x56x56xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<1x64x56x56xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x64x56x56xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 64x3136x576 on bf16x3 fragments, 64x64 tiles, k step 16, k split 6 ways}}
  // expected-remark @below {{fused into the kernel: zero initial value, elementwise epilogue}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%in, %w : memref<1x64x58x58xf32>, memref<64x64x3x3xf32>) outs(%acc : memref<1x64x56x56xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x64x56x56xf32>) outs(%out : memref<1x64x56x56xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Split 16 ways with 9 k steps each (resnet18's 3x3 convolutions of 256
// channels at 14x14, 16 output tiles), a convolution loads each k step
// two steps ahead like a matmul: the loop takes two k steps per iteration.
// More than 9 splits: a second kernel adds up the [split][batch][row]
// [column] partial sums, one thread per output.
// HIGH-LABEL: func.func @split_conv_two_ahead
// HIGH: %[[PART:.*]] = memref.alloc() : memref<16x1x256x196xf32>
// HIGH-NOT: fx.persistent_zeros
// HIGH: gpu.launch blocks({{.*}}) in ({{.*}} = %c4, {{.*}} = %c4{{.*}}, {{.*}} = %c16)
// HIGH: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32{{.*}} iter_args(
// HIGH: scf.if
// HIGH: gpu.subgroup_mma_compute
// HIGH-NOT: memref.atomic_rmw
// HIGH: gpu.launch
// HIGH-COUNT-16: memref.load %[[PART]]
func.func @split_conv_two_ahead(%in: memref<1x256x16x16xf32>, %w: memref<256x256x3x3xf32>, %out: memref<1x256x14x14xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<1x256x14x14xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 256x196x2304 on bf16x3 fragments, 64x64 tiles, k step 16, k split 16 ways}}
  // expected-remark @below {{fused into the kernel: zero initial value}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%in, %w : memref<1x256x16x16xf32>, memref<256x256x3x3xf32>) outs(%out : memref<1x256x14x14xf32>)
  return
}

// -----

// A 7x7 output: its 49 columns per image do not run in multiples of four,
// so four neighbouring columns may lie in two images; the results are
// stored element by element, each under its own bounds check.
// HIGH-LABEL: func.func @odd_columns
// HIGH-NOT: memref<256x64x7x7xf32> to
// HIGH: gpu.launch
// HIGH: gpu.subgroup_mma_compute
// HIGH: gpu.subgroup_mma_store_matrix
// HIGH-COUNT-4: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<256x64x7x7xf32>
// HIGH: return
func.func @odd_columns(%in: memref<256x64x9x9xf32>, %w: memref<64x64x3x3xf32>, %out: memref<256x64x7x7xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<256x64x7x7xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 64x12544x576 on bf16x3 fragments, 64x64 tiles, k step 32, operands repacked}}
  // expected-remark @below {{fused into the kernel: zero initial value}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%in, %w : memref<256x64x9x9xf32>, memref<64x64x3x3xf32>) outs(%out : memref<256x64x7x7xf32>)
  return
}

// -----

// Too few tiles for the tensor cores to pay without split-k: the SIMT
// kernel (which splits k) takes it.
func.func @small(%a: memref<64x4096xf32>, %b: memref<4096x64xf32>, %c: memref<64x64xf32>) {
  // expected-remark @below {{not mapped onto cooperative matrices: not f16 x f16 or bf16 x bf16 into f32}}
  // expected-remark @below {{not on the tensor cores: only 1 64x64 output tiles}}
  // expected-remark @below {{tiled matmul}}
  linalg.matmul ins(%a, %b : memref<64x4096xf32>, memref<4096x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// A matmul of too few tiles but a long k (a ConvNeXt block's 196 tokens by
// 1536 -> 384 features: 24 tiles, 96 k steps) splits k 11 ways on the
// tensor cores: about two workgroups per SM, each with at least eight k
// steps, the partial sums added by a second kernel.
// HIGH-LABEL: func.func @split_matmul
// HIGH: gpu.launch
// HIGH: gpu.subgroup_mma_compute
// HIGH: gpu.launch
// HIGH-COUNT-11: arith.addf
// HIGH: return
func.func @split_matmul(%a: memref<196x1536xf32>, %b: memref<1536x384xf32>, %c: memref<196x384xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<196x384xf32>)
  // expected-remark @below {{not mapped onto cooperative matrices: not f16 x f16 or bf16 x bf16 into f32}}
  // expected-remark @below {{cooperative-matrix GEMM: 196x384x1536 on bf16x3 fragments, 64x64 tiles, k step 16, k split 11 ways}}
  // expected-remark @below {{fused into the kernel: zero initial value}}
  linalg.matmul ins(%a, %b : memref<196x1536xf32>, memref<1536x384xf32>) outs(%c : memref<196x384xf32>)
  return
}

// -----

// With k too short for splits of eight k steps (a transformer's 256 -> 256
// projection of 1024 tokens: 64 tiles, 16 k steps), the SIMT kernel.
func.func @short_split(%a: memref<1024x256xf32>, %b: memref<256x256xf32>, %c: memref<1024x256xf32>) {
  // expected-remark @below {{not mapped onto cooperative matrices: not f16 x f16 or bf16 x bf16 into f32}}
  // expected-remark @below {{not on the tensor cores: only 64 64x64 output tiles}}
  // expected-remark @below {{tiled matmul: 1024x256x256 in 64x64 output tiles, k step 16, 256 threads of 4x4, k split 4 ways}}
  linalg.matmul ins(%a, %b : memref<1024x256xf32>, memref<256x256xf32>) outs(%c : memref<1024x256xf32>)
  return
}

// -----

// A channels-last convolution (fx-convs-channels-last): 8 neighbouring
// channels of one pixel and tap are one 16-byte-aligned run of the input,
// read as two 16-byte words of the unpadded input (the padding as bounds
// checks) and converted in the kernel: no repacking kernels. The filter
// [F][KH][KW][C] is read as words along k as a matmul's is.
// HIGH-LABEL: func.func @nhwc_conv
// HIGH-SAME: %[[IN:.*]]: memref<16x32x32x32xf32>, %[[W:.*]]: memref<64x3x3x32xf32>
// HIGH-DAG: %[[WW:.*]] = builtin.unrealized_conversion_cast %[[W]] : memref<64x3x3x32xf32> to memref<4608xvector<4xi32>>
// HIGH-DAG: %[[INW:.*]] = builtin.unrealized_conversion_cast %[[IN]] : memref<16x32x32x32xf32> to memref<131072xvector<4xi32>>
// HIGH: gpu.launch
// HIGH: memref.load %[[INW]][%{{.*}}] : memref<131072xvector<4xi32>>
// HIGH: memref.load %[[INW]][%{{.*}}] : memref<131072xvector<4xi32>>
// HIGH: memref.load %[[WW]][%{{.*}}] : memref<4608xvector<4xi32>>
// HIGH: gpu.subgroup_mma_compute
// HIGH-NOT: gpu.launch
// HIGH: return
func.func @nhwc_conv(%in: memref<16x32x32x32xf32>, %w: memref<64x3x3x32xf32>, %out: memref<16x32x32x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %pad = memref.alloc() : memref<16x34x34x32xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<16x34x34x32xf32>)
  %inner = memref.subview %pad[0, 1, 1, 0] [16, 32, 32, 32] [1, 1, 1, 1] : memref<16x34x34x32xf32> to memref<16x32x32x32xf32, strided<[36992, 1088, 32, 1], offset: 1120>>
  memref.copy %in, %inner : memref<16x32x32x32xf32> to memref<16x32x32x32xf32, strided<[36992, 1088, 32, 1], offset: 1120>>
  linalg.fill ins(%zero : f32) outs(%out : memref<16x32x32x64xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 16384x64x288 on bf16x3 fragments, 64x64 tiles, k step 16}}
  // expected-remark @below {{fused into the kernel: input 0 read through its zero padding, zero initial value}}
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%pad, %w : memref<16x34x34x32xf32>, memref<64x3x3x32xf32>) outs(%out : memref<16x32x32x64xf32>)
  return
}

// -----

// Wider tiles for NCHW convolutions of many output tiles
// (widenConvolutionTiles): 8 subgroups (256 threads) of 2x2 fragments,
// 64x128 tiles where the output channels are 64 and 128x64 where they are
// 128; the operands repacked (3x3 filters).
// HIGH-LABEL: func.func @wide_conv_64
// HIGH: gpu.launch
// HIGH: gpu.launch
// HIGH: gpu.launch blocks({{.*}}) in ({{.*}} = %c784{{[_0-9]*}}, {{.*}} = %c1{{[_0-9]*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{[_0-9]*}},
// HIGH: gpu.subgroup_mma_compute
func.func @wide_conv_64(%in: memref<32x64x58x58xf32>, %w: memref<64x64x3x3xf32>, %out: memref<32x64x56x56xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<32x64x56x56xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 64x100352x576 on bf16x3 fragments, 64x128 tiles, k step 32, operands repacked}}
  // expected-remark @below {{fused into the kernel: zero initial value}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%in, %w : memref<32x64x58x58xf32>, memref<64x64x3x3xf32>) outs(%out : memref<32x64x56x56xf32>)
  return
}

// -----

// HIGH-LABEL: func.func @wide_conv_128
// HIGH: gpu.launch blocks({{.*}}) in ({{.*}} = %c392{{[_0-9]*}}, {{.*}} = %c1{{[_0-9]*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{[_0-9]*}},
func.func @wide_conv_128(%in: memref<32x128x30x30xf32>, %w: memref<128x128x3x3xf32>, %out: memref<32x128x28x28xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<32x128x28x28xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 128x25088x1152 on bf16x3 fragments, 128x64 tiles, k step 32, operands repacked}}
  // expected-remark @below {{fused into the kernel: zero initial value}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%in, %w : memref<32x128x30x30xf32>, memref<128x128x3x3xf32>) outs(%out : memref<32x128x28x28xf32>)
  return
}

// -----

// 512 output channels at 7x7: 52 tiles of 128x128, fewer than a wave;
// k (4608) split 2 ways to make one (the grid's z: batch x splits), the
// partial sums added by the last of each tile's two workgroups.
// HIGH-LABEL: func.func @wide_conv_split
// HIGH: gpu.launch
// HIGH: gpu.launch
// HIGH: memref.alloc() {fx.persistent_zeros} : memref<52xi32>
// HIGH: gpu.launch blocks({{.*}}) in ({{.*}} = %c13{{[_0-9]*}}, {{.*}} = %c4{{[_0-9]*}}, {{.*}} = %c2{{[_0-9]*}}) threads({{.*}}) in ({{.*}} = %c256{{[_0-9]*}},
// HIGH: memref.atomic_rmw addi
// HIGH-NOT: gpu.launch
// HIGH: return
func.func @wide_conv_split(%in: memref<32x512x9x9xf32>, %w: memref<512x512x3x3xf32>, %out: memref<32x512x7x7xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<32x512x7x7xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 512x1568x4608 on bf16x3 fragments, 128x128 tiles, k step 32, k split 2 ways, operands repacked}}
  // expected-remark @below {{fused into the kernel: zero initial value}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%in, %w : memref<32x512x9x9xf32>, memref<512x512x3x3xf32>) outs(%out : memref<32x512x7x7xf32>)
  return
}

// -----

// A pointwise convolution of 256 output channels or more and 128 input
// channels or more is repacked and takes 128x128 tiles (8 subgroups of
// 4x2 fragments).
// HIGH-LABEL: func.func @wide_pointwise_packed
// HIGH: gpu.launch
// HIGH: gpu.launch
// HIGH: gpu.launch blocks({{.*}}) in ({{.*}} = %c196{{[_0-9]*}}, {{.*}} = %c4{{[_0-9]*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{[_0-9]*}},
func.func @wide_pointwise_packed(%in: memref<32x128x28x28xf32>, %w: memref<512x128x1x1xf32>, %out: memref<32x512x28x28xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<32x512x28x28xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 512x25088x128 on bf16x3 fragments, 128x128 tiles, k step 32, operands repacked}}
  // expected-remark @below {{fused into the kernel: zero initial value}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%in, %w : memref<32x128x28x28xf32>, memref<512x128x1x1xf32>) outs(%out : memref<32x512x28x28xf32>)
  return
}

// -----

// Fewer output channels: unpacked, in 128x64 tiles (k step 32) where the
// reduction is 256 or longer; with a prologue computed as the input is
// loaded (DenseNet's), 64x64 tiles.
// A unit of the input is 8 neighbouring pixels of one channel, and an
// image's pixels (28 x 28, a multiple of 8) lie contiguously: two 16-byte
// loads from a view of the input as words.
// HIGH-LABEL: func.func @wide_pointwise
// HIGH-NOT: gpu.launch
// HIGH: %[[XW:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<32x512x28x28xf32> to memref<3211264xvector<4xi32>>
// HIGH: gpu.launch blocks({{.*}}) in ({{.*}} = %c392{{[_0-9]*}}, {{.*}} = %c1{{[_0-9]*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{[_0-9]*}},
// HIGH: memref.load %[[XW]]
func.func @wide_pointwise(%in: memref<32x512x28x28xf32>, %w: memref<128x512x1x1xf32>, %out: memref<32x128x28x28xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<32x128x28x28xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 128x25088x512 on bf16x3 fragments, 128x64 tiles, k step 32}}
  // expected-remark @below {{fused into the kernel: zero initial value}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%in, %w : memref<32x512x28x28xf32>, memref<128x512x1x1xf32>) outs(%out : memref<32x128x28x28xf32>)
  return
}

// HIGH-LABEL: func.func @pointwise_prologue_64x64
// HIGH: gpu.launch blocks({{.*}}) in ({{.*}} = %c392{{[_0-9]*}}, {{.*}} = %c2{{[_0-9]*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{[_0-9]*}},
func.func @pointwise_prologue_64x64(%x: memref<32x512x28x28xf32>, %scale: memref<512xf32>, %w: memref<128x512x1x1xf32>, %out: memref<32x128x28x28xf32>) {
  %zero = arith.constant 0.0 : f32
  %act = memref.alloc() : memref<32x512x28x28xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %scale : memref<32x512x28x28xf32>, memref<512xf32>) outs(%act : memref<32x512x28x28xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %m = arith.mulf %v, %s : f32
    %r = arith.maximumf %m, %zero : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%out : memref<32x128x28x28xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 128x25088x512 on bf16x3 fragments, 64x64 tiles, k step 16}}
  // expected-remark @below {{fused into the kernel: input 0 computed from its elementwise producer's inputs, zero initial value}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%act, %w : memref<32x512x28x28xf32>, memref<128x512x1x1xf32>) outs(%out : memref<32x128x28x28xf32>)
  memref.dealloc %act : memref<32x512x28x28xf32>
  return
}

// -----

// An image of 14 x 14 pixels (not a multiple of 8): a unit's pixels may
// straddle two images, so they are loaded one by one.
// HIGH-LABEL: func.func @pointwise_odd_image
// HIGH-NOT: memref<32x256x14x14xf32> to memref<
// HIGH: gpu.launch
// HIGH: memref.load %{{.*}} : memref<32x256x14x14xf32>
func.func @pointwise_odd_image(%in: memref<32x256x14x14xf32>, %w: memref<64x256x1x1xf32>, %out: memref<32x64x14x14xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<32x64x14x14xf32>)
  // expected-remark @below {{cooperative-matrix GEMM: 64x6272x256 on bf16x3 fragments, 64x64 tiles, k step 16}}
  // expected-remark @below {{fused into the kernel: zero initial value}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%in, %w : memref<32x256x14x14xf32>, memref<64x256x1x1xf32>) outs(%out : memref<32x64x14x14xf32>)
  return
}

// -----

// A channels-last linear layer (ConvNeXt's): its [1, 56, 56, 96] input and
// [1, 56, 56, 384] output are collapsed to rows of pixels. Those views keep
// the buffers' row-major order, so the input is still read, and the output
// written, as 16-byte words of the whole buffers under the views.
// HIGH-LABEL: func.func @collapsed_linear
// HIGH-DAG: %[[XW:.*]] = builtin.unrealized_conversion_cast %[[X:.*]] : memref<1x56x56x96xf32> to memref<75264xvector<4xi32>>
// HIGH-DAG: %[[YW:.*]] = builtin.unrealized_conversion_cast %[[Y:.*]] : memref<1x56x56x384xf32> to memref<301056xvector<4xi32>>
// HIGH: gpu.launch
// HIGH: memref.load %[[XW]][%{{.*}}] : memref<75264xvector<4xi32>>
// HIGH: memref.store %{{.*}}, %[[YW]][%{{.*}}] : memref<301056xvector<4xi32>>
func.func @collapsed_linear(%x: memref<1x56x56x96xf32>, %w: memref<384x96xf32>, %y: memref<1x56x56x384xf32>) {
  %zero = arith.constant 0.0 : f32
  %xc = memref.collapse_shape %x [[0, 1, 2], [3]] : memref<1x56x56x96xf32> into memref<3136x96xf32>
  %yc = memref.collapse_shape %y [[0, 1, 2], [3]] : memref<1x56x56x384xf32> into memref<3136x384xf32>
  linalg.fill ins(%zero : f32) outs(%yc : memref<3136x384xf32>)
  // expected-remark @below {{not mapped onto cooperative matrices: not a plain linalg.matmul}}
  // expected-remark @below {{cooperative-matrix GEMM: 3136x384x96 on bf16x3 fragments, 64x64 tiles, k step 16}}
  // expected-remark @below {{fused into the kernel: zero initial value}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%xc, %w : memref<3136x96xf32>, memref<384x96xf32>) outs(%yc : memref<3136x384xf32>)
  return
}

// -----

// A classifier at batch 1 (1 x 512 times a 1000 x 512 weight, then the
// bias): a matrix-vector product. A 32-lane subgroup computes each output,
// its lanes striding along k (neighbouring lanes read neighbouring weights),
// a subgroup reduction adds their sums and the first lane adds the bias and
// stores: one kernel, no split-k sum.
// HIGH-LABEL: func.func @classifier
// HIGH: gpu.launch blocks({{.*}}) in ({{.*}} = %c250{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}})
// HIGH: arith.remui %{{.*}}, %c32
// HIGH: scf.if
// HIGH: scf.for %{{.*}} = %{{.*}} to %c512 step %c32{{.*}} iter_args(%{{.*}} = %cst{{.*}}) -> (f32)
// HIGH: memref.load %arg0
// HIGH: memref.load %arg1
// HIGH: gpu.subgroup_reduce add %{{.*}} uniform : (f32) -> f32
// HIGH: arith.cmpi eq
// HIGH: memref.load %arg2
// HIGH: arith.addf
// HIGH: memref.store %{{.*}}, %arg3
// HIGH-NOT: gpu.launch
func.func @classifier(%x: memref<1x512xf32>, %w: memref<1000x512xf32>, %bias: memref<1000xf32>, %y: memref<1x1000xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<1x1000xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x1000xf32>)
  // expected-remark @below {{not mapped onto cooperative matrices: not a plain linalg.matmul}}
  // expected-remark @below {{dot-product kernel: 1x1000x512, a 32-lane subgroup per output}}
  // expected-remark @below {{fused into the kernel: zero initial value, elementwise epilogue}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : memref<1x512xf32>, memref<1000x512xf32>) outs(%acc : memref<1x1000xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %bias : memref<1x1000xf32>, memref<1000xf32>) outs(%y : memref<1x1000xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  memref.dealloc %acc : memref<1x1000xf32>
  return
}
