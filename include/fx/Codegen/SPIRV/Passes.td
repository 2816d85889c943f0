//===- Passes.td - SPIR-V code generation passes -----------*- tablegen -*-===//
//
// Passes of fx-vulkan-pipeline: linalg on buffers to GPU kernels (matmuls,
// row kernels, parallel loops), the kernel ABI, and SPIR-V legalization.
//
//===----------------------------------------------------------------------===//

#ifndef FX_CODEGEN_SPIRV_PASSES_TD
#define FX_CODEGEN_SPIRV_PASSES_TD

include "mlir/Pass/PassBase.td"

def FXMapMatmulsToGPU : Pass<"fx-map-matmuls-to-gpu", "func::FuncOp"> {
  let summary = "Map matmuls and convolutions to tiled GPU kernels that "
                "stage operand tiles in workgroup memory";
  let description = [{
    After bufferization, before `convert-linalg-to-parallel-loops`: a linalg
    op on buffers with static sizes, two floating-point inputs, an output
    indexed by its loop variables and a multiply-accumulate body
    (`linalg.matmul` with any transposition of its operands,
    `linalg.batch_matmul`, convolutions, their generic forms) is computed
    as a GEMM and becomes one `gpu.launch`:

    * the GEMM view: parallel loops that index only one input form the rows
      or the columns (the columns are the group of the output's innermost
      loop, so that stores coalesce), loops that index both inputs are a
      batch, the reduction loops are k. A convolution is an implicit GEMM:
      output channels x (batch, output pixels) x (input channels, window);
      input indices such as `oh * stride + kh` are computed per element;
    * a workgroup per output tile (128 wide along a dimension of at least
      128 when that still gives 256 workgroups, else 64x64), the batch in
      the grid's z;
    * split-k when the output has fewer than 128 tiles and k is long (a
      ResNet's last convolutions): up to 256 workgroups, each reducing a
      slice of at least 4 k steps into a temporary, then a second kernel
      adds the slices to the output;
    * 256 threads, each accumulating a 8x8, 8x4, 4x8 or 4x4 block of the
      tile in registers, strided so that neighbouring threads own
      neighbouring columns;
    * per k step (8, or 16 for 64x64 tiles), the workgroup copies both
      operand tiles to workgroup memory (neighbouring threads load along
      each operand's innermost dimension, out-of-range elements are zero),
      synchronizes, and every thread runs the op's own multiply-accumulate
      body over the step.

    Accumulators start from the output's values, as linalg accumulates
    into its init; mixed types (f16 operands, f32 accumulator) follow the
    body's casts.

    The kernel absorbs the ops that bufferization leaves around a GEMM, so
    that a convolution with its padding and epilogue is one dispatch:
    an input that is a zero-padded copy (an allocation filled with zero,
    then a buffer copied into a subview of it) is read from the copied
    buffer with a bounds check; an output last written by a zero fill (or
    a copy of a zero-filled buffer) with no read in between starts its
    accumulators from zero and the fill or copy goes away; and an
    elementwise `linalg.generic` right after the GEMM that reads its
    output at the same element (bias, batch norm, activation, residual
    add) is applied to each result before the store, the GEMM's own output
    written only when something after reads it. Nothing is fused across an
    op that may write the buffers involved, nor when the epilogue writes
    what the kernel reads. An input last written by an elementwise linalg
    op (a `linalg.generic` with the identity output map, a
    `linalg.transpose`) into an allocation that nothing after it but the
    GEMM reads is computed by the kernel as it reads it, from the producer's
    own inputs (DenseNet's batch norm and ReLU before each convolution,
    attention's permuted heads): tiled kernels and cooperative-matrix
    kernels (whose loads of that operand are then not 16-byte words; of
    convolutions only the input).

    Convolutions without a GEMM view whose reduction is a window of at most
    64 iterations per output (a depthwise convolution: no loop indexes only
    its filter), and max and sum pooling, get a window kernel instead: one
    thread per output element (neighbouring threads own neighbouring
    elements of the output), the window's taps reduced in a register,
    absorbing padding, constant start and epilogue as above. The padding
    and the start may be any constant there (max pooling's -inf: the
    kernel reads the constant outside the input): a 3x3 max pooling is one
    kernel instead of four (resnet50 at batch 32 on an H200: 210 -> 47 us).

    With `cooperative-matrix` (whose targets run 32-lane subgroups), a
    GEMM whose output is a vector (its rows or its columns one element: a
    classifier's `linear` at batch 1, a squeeze-and-excitation block's
    first 1x1 convolution on a 1x1 image) of static sizes and a reduction
    of at least 64 gets a dot-product kernel: a subgroup per output
    element, its lanes striding along k, `gpu.subgroup_reduce` adding their
    sums, the first lane applying the epilogue and storing; with the same
    fusion as the GEMM kernels, no split-k and no second kernel. On an
    H200 (precision high, GPU time): efficientnet_b0 0.714 -> 0.678 ms,
    144 -> 128 steps; mobilenet_v2 0.412 -> 0.406; resnet18 0.420 -> 0.414.

    Not mapped (they stay for `fx-map-parallel-loops-to-gpu`, one thread
    per output element): dynamic sizes, integer ops, matrix-vector products
    of long reductions (a loop that indexes only one input and none that
    indexes only the other), reductions shorter than 8. With `report`, every contraction and
    convolution gets a remark: its GEMM sizes and tile, its window kernel,
    or why it was not mapped.

    With `cooperative-matrix` (targets with SPV_KHR_cooperative_matrix), a
    `linalg.matmul` of f16 operands into an f32 output, row-major and with
    M and N multiples of 64 and K of 16, uses the tensor cores instead:
    `gpu.subgroup_mma_*` ops (lowered to `spirv.KHR.CooperativeMatrix*`) on
    16x16x16 fragments. Each 32-lane subgroup accumulates a 64x64 block
    (4x4 f32 fragments); a workgroup of 2x2 subgroups takes a 128x128 tile
    where M and N allow (else 1x2, 2x1 or 1x1). Operand tiles go through
    workgroup memory k steps of 32 (16 where K is not a multiple of 32) at
    a time: A and B are read as flat arrays of 16-byte `vector<4xi32>`
    (an `unrealized_conversion_cast` of the whole buffer, which the Vulkan
    schedule binds to the same buffer), every thread copying whole vectors;
    the next step is loaded into registers while the fragments of the
    current one multiply. Tile rows are padded by one vector against bank
    conflicts, and fragments load from the vector-typed workgroup memory
    directly (no pointer casts). The accumulators load from the output and
    store back to it, except that a zero `linalg.fill` of the output right
    before the matmul is dropped and the accumulators start as zero
    fragments. When the op right after the matmul truncates its f32 output
    to an f16 buffer and nothing else reads the f32 output, the kernel
    writes the f16 result itself (fragments through workgroup memory, 16-byte
    stores), and the truncation and the f32 buffer go away.

    Other GEMMs with static sizes (convolutions as implicit GEMMs,
    transposed and batched matmuls) use the general tensor-core kernel
    when their operands are f16, or f32 at `precision` high or medium, and
    the output has at least 132 tiles of 64x64, enough for an H200's SMs
    (convolutions with fewer, and unpacked ones with fewer than 198, whose
    second wave would be less than half full, split k over about 264
    workgroups, each reducing at least two k steps into a temporary; with
    at most 9 splits the last workgroup of each tile to finish (an atomic
    counter per tile, in a zero-initialized buffer that persists between
    calls) sums them and applies the epilogue, with more a second kernel
    does; other GEMMs with
    fewer than 132 take the SIMT kernel's split-k, which measured faster
    for them): 2x2 subgroups of
    4x4 fragments (128x128 tiles) for contractions where those are 132 or
    more, else of 2x2 fragments (64x64 tiles; a convolution's implicit-GEMM
    loads keep more registers live, and 4x4 fragments spill). Unsplit NCHW
    convolutions take 8 subgroups (256 threads) instead where the tiles
    still fill most of the GPU: repacked ones 128x128 tiles of 4x2
    fragments per subgroup with 256 output channels or more (where those
    tiles are fewer than a wave, k split up to 4 ways to make one, each
    split at least 8 k steps), 128x64 with 128 or more, 64x128 with 64;
    unpacked ones 128x64 with 128 output
    channels or more, a reduction of 256 or more and no producer computed
    in the loads, where the output channels are 128 or the tiles one wave
    (the kernel waits on its loads; bigger tiles read fewer bytes per
    product and keep more loads in flight). Operand
    elements loaded through the op's indexing maps (padding and bounds
    checked; 16-byte words where a unit's 8 elements are neighbours in
    memory: along k in a row-major operand, along the columns in an NCHW
    pointwise convolution's input whose images have a multiple of 8
    pixels), converted (bf16 rounding to nearest even; `high` also the
    remainder, truncated to bf16) and packed 8 to a 16-byte unit along
    each operand's innermost dimension, row- or column-major tiles
    accordingly; results
    leave through workgroup memory a fragment at a time, with the output's
    initial value, the epilogue and guarded stores.

    NCHW convolutions (`linalg.conv_2d_nchw_fchw`) with channels a multiple
    of 8 and at least `packed-conv-min-macs` multiply-accumulates, other
    than pointwise ones (1x1, stride 1: their input is a GEMM operand as it
    is) of fewer than 256 output or 128 input channels, first repack both operands, each with a small kernel of its own: the input
    (through its zero padding) as [N][H][W][C/8] (a strided 1x1
    convolution's only at the rows and columns it reads) and the filter as
    [F][KH][KW][C/8] units of 8 channels, converted to the fragments' type
    once (bf16x3 as two planes, high and low parts). The GEMM then runs
    over k = (kh, kw, c) and stages a unit with one 16-byte load: the
    implicit-GEMM loads of an NCHW input otherwise cost eight loads, index
    computations, bounds checks and conversions per unit, for every tap of
    the window.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Remark on every contraction and convolution: its tiling or why "
           "it stays a one-thread-per-output kernel">,
    Option<"cooperativeMatrix", "cooperative-matrix", "bool",
           /*default=*/"false",
           "Map f16 matmuls with f32 accumulation onto cooperative-matrix "
           "(tensor core) fragments">,
    Option<"bf16CooperativeMatrix", "bf16-cooperative-matrix", "bool",
           /*default=*/"false",
           "Also bf16 matmuls with f32 accumulation (their kernels use f16 "
           "fragments until fx-retype-bf16-cooperative-matrices)">,
    Option<"precision", "precision", "std::string", /*default=*/"\"highest\"",
           "How f32 GEMMs use the tensor cores (with cooperative-matrix): "
           "'highest' (f32 on the SIMT kernel), 'high' (bf16x3: operands "
           "split into bf16 high and low parts, three products summed in "
           "f32), 'medium' (operands rounded to bf16, f16 without bf16 "
           "fragments; f32 accumulation)">,
    Option<"packedConvMinMacs", "packed-conv-min-macs", "int64_t",
           /*default=*/"268435456",
           "NCHW convolutions of at least this many multiply-accumulates "
           "on the tensor cores repack their operands first (two more "
           "dispatches); -1: never">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::spirv::SPIRVDialect",
                           "::mlir::vector::VectorDialect"];
}

def FXMapRowKernelsToGPU : Pass<"fx-map-row-kernels-to-gpu", "func::FuncOp"> {
  let summary = "Give each row of a row kernel (scf.forall tagged "
                "fx.row_kernel) a workgroup";
  let description = [{
    After bufferization, before `convert-linalg-to-parallel-loops`: each
    `scf.forall` tagged `fx.row_kernel` by `fx-form-dispatch-regions`
    (softmax, layer norm, row reductions: linalg ops on one row) becomes one
    `gpu.launch` with a workgroup per row (rows beyond `max-workgroups`
    are strided over). Inside a row, in program order:

    * an op that writes device memory and reduces nothing (the row's
      output, a fill) is distributed over the workgroup's threads: thread
      `t` runs iterations `t`, `t + size`, ... of its linearized iteration
      space, so that neighbouring threads touch neighbouring elements;
    * a reduction to one value (a row's max, sum, or sum of squares) is
      computed by every thread over a strided part of the row, then
      combined across each subgroup with `gpu.subgroup_reduce` and across
      subgroups through workgroup memory; NaN still propagates through
      `maximumf`/`minimumf` (the subgroup instructions drop NaN, so a flag
      is reduced beside the value);
    * per-row temporaries (the reductions' results) live in each thread's
      private memory: every thread holds the combined value.

    The workgroup has `workgroup-size` threads when the row kernel reads
    its row more than once (softmax, layer norm: measured fastest on an
    H200), half as many for a lone reduction, and fewer (a power of two, at
    least 32) when the longest op of the row has fewer iterations. Many
    short rows (32768 rows or more of at most 64 elements: a global average
    pooling at batch 32) take a thread each instead, 128 rows to a
    workgroup, with nothing combined across threads (on an H200, ResNet-50's
    at batch 32, 65536 rows of 49, took 43.6 us as a workgroup per row).
    With `subgroup-rows` (targets whose subgroups have 32 lanes: those with
    cooperative matrices), 512 rows or more of at most 1024 elements take a
    subgroup each, four rows to a workgroup of 128 threads, combined by
    subgroup operations alone (ConvNeXt's layer norms over 96 to 768
    channels). A split-k sum that `fx-map-matmuls-to-gpu` left as an
    elementwise generic (`fx.split_sum`) right before the row kernel, whose
    result only the row kernel reads (directly or through an
    `expand_shape`) before the buffer is written anew, is computed by the
    row kernel as it reads each element (the partial sums added, the
    epilogue applied), and the generic goes: a transformer's projections
    before their residual add and layer norm need no sum kernel. An
    op whose iterations divide evenly among the threads, at most 32 per thread,
    is emitted as straight-line code, and the elements it loads stay in
    registers for the row's later ops that read them the same way (until the
    row writes their buffer): softmax and layer norm read their row from
    device memory once. Other ops run strided loops of four elements per
    trip, their loads issued before their stores (several loads in flight
    per thread). An op
    that reads device memory written earlier in the same row by other
    threads would need a device-memory barrier: that is an error (row
    kernels formed by fx-form-dispatch-regions have none). Only f32 and i32
    reductions are combined across threads.
  }];
  let options = [
    Option<"workgroupSize", "workgroup-size", "int64_t", /*default=*/"512",
           "Most threads per workgroup (a power of two)">,
    Option<"maxWorkgroups", "max-workgroups", "int64_t", /*default=*/"65535",
           "Largest grid; more rows are strided over">,
    Option<"subgroupRows", "subgroup-rows", "bool", /*default=*/"false",
           "The target's subgroups have 32 lanes: short rows may take a "
           "subgroup each">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def FXTransposeGemmsForEpilogues : Pass<"fx-transpose-gemms-for-epilogues",
                                        "func::FuncOp"> {
  let summary = "Compute a channels-last linear layer whose NCHW consumer "
                "reads it permuted as channels by pixels";
  let description = [{
    In the Vulkan pipeline, on tensors before bufferization. A linear layer
    over channels-last pixels (`linalg.matmul` of [H * W, K] by a [C, K]
    weight, from a zero fill, its bias generic after it) whose result an
    NCHW elementwise op reads through `tensor.expand_shape` to [1, H, W, C]
    and the permutation (n, c, h, w) -> (n, h, w, c) (ConvNeXt's layer
    scale and residual add at batch 1) is computed with its operands
    swapped, [C, H * W], and the elementwise op, with the bias fused into
    it, over those two dimensions (its other operands collapsed where they
    are indexed by (h, w) together). The GEMM kernel then takes it as its
    epilogue (`fx-map-matmuls-to-gpu`), where before it ran as a kernel of
    its own. Other shapes, batches above 1 and ops reading h or w apart are
    left alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FXHoistIndependentGemms : Pass<"fx-hoist-independent-gemms",
                                   "func::FuncOp"> {
  let summary = "Give an elementwise op of two GEMMs' results to the GEMM "
                "on the longer chain";
  let description = [{
    In the Vulkan pipeline, on tensors before bufferization. A GEMM kernel
    (`fx-map-matmuls-to-gpu`) fuses the elementwise op right after it as
    its epilogue. Where an elementwise op reads the results of two matmuls
    or convolutions, the later one would take it, and with it wait for the
    earlier one. This pass moves the later GEMM, with the ops after the
    earlier GEMM that it alone needs, ahead of the earlier GEMM's setup
    (its padding and zero fill): the earlier GEMM, which is on the longer
    chain, then takes the epilogue, and the other one, free of it, runs as
    soon as its operands are ready. In a ResNet block the downsampling
    convolution of the block's input then runs beside the block's first
    convolution (the runtime overlaps independent steps) instead of after
    the second; on an H200 at batch 1 that is one barrier fewer per
    downsampling block. Nothing moves where the later GEMM depends on the
    earlier one or on an op with side effects between them.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FXPrepareLinalgForGPU : Pass<"fx-prepare-linalg-for-gpu", "func::FuncOp"> {
  let summary = "Put the parallel loops of linalg.generic ops outermost";
  let description = [{
    Before `convert-linalg-to-parallel-loops` in the Vulkan pipeline: the
    loops of every linalg op left outside a kernel are put in the order the
    GPU wants. Parallel loops come first (a softmax or sum over dim 0 would
    otherwise leave a host loop around kernels): they become one
    `scf.parallel`, one GPU thread per output element, with the reductions
    as sequential loops inside. And they follow the output's dimensions,
    so that the output's innermost dimension is the fastest-moving thread
    index and stores coalesce: a depthwise convolution, which iterates
    `(n, oh, ow, c, kh, kw)`, is generalized and interchanged into
    `(n, c, oh, ow, kh, kw)` (neighbouring threads then read and write
    neighbouring columns instead of channels a plane apart).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FXMapParallelLoopsToGPU : Pass<"fx-map-parallel-loops-to-gpu",
                                   "func::FuncOp"> {
  let summary = "Turn each outermost scf.parallel on buffers into a gpu.launch";
  let description = [{
    After bufferization and `convert-linalg-to-parallel-loops`: every
    outermost `scf.parallel` (without reductions) becomes one `gpu.launch`
    of one-dimensional workgroups of `workgroup-size` threads. The loop's
    iteration space is linearized: thread `g * workgroup-size + t` runs the
    iteration with that linear index (delinearized over the loop's static
    trip counts, innermost fastest, so neighbouring threads touch
    neighbouring elements), guarded against the tail. When the trip count
    needs more than `max-workgroups` workgroups, each thread strides over
    the iteration space by the grid size, four iterations per trip: their
    indices clamped to the last iteration, their loads issued first and
    their stores guarded (one load in flight per thread reaches about a
    third of an H200's bandwidth; bodies with regions stride one by one).

    Why not upstream `scf-parallel-loop-tiling` + `gpu-map-parallel-loops`:
    those map loop dimensions one-to-one onto at most three grid dimensions
    and need per-loop tile sizes; a linearized mapping handles every rank
    with one workgroup size and keeps every thread of a workgroup busy.

    Loops with dynamic bounds are an error (the Vulkan pipeline specializes
    shapes before compiling). Loops nested in other loops stay sequential
    inside the thread that runs them; an accumulator they load and store at
    the same loop-invariant element (a depthwise convolution's or a
    pooling's window) is carried in a register through them instead, when
    nothing else in the loops writes memory or touches that buffer.
    `memref.copy` between views becomes a loop first (copies between whole buffers stay for the runtime). What is
    left on the host that computes (loops without parallel dimensions, the
    loads and stores of a reduction to a scalar) runs as a kernel of one
    thread, each maximal run of such ops one kernel.
  }];
  let options = [
    Option<"workgroupSize", "workgroup-size", "int64_t", /*default=*/"256",
           "Threads per workgroup">,
    Option<"maxWorkgroups", "max-workgroups", "int64_t", /*default=*/"65535",
           "Largest grid (the Vulkan guaranteed minimum of "
           "maxComputeWorkGroupCount[0]); larger loops stride">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def FXPassKernelSizes : Pass<"fx-pass-kernel-sizes", "ModuleOp"> {
  let summary = "Give kernels the dynamic sizes of their buffers as index "
                "arguments";
  let description = [{
    After `gpu-kernel-outlining`, which sinks `memref.dim` ops into the
    kernels that use their result: a kernel cannot ask a SPIR-V storage
    buffer for the size of a dimension. Each `memref.dim` of a kernel
    argument becomes a new `index` argument of the kernel, and every
    `gpu.launch_func` of it passes the `memref.dim` of its operand, computed
    on the host (where the Vulkan schedule evaluates it from the input
    shapes). A `memref.dim` of anything else in a kernel is an error, and so
    is a kernel buffer with a dynamic dimension other than the outermost
    (SPIR-V storage buffers are indexed with static strides).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def FXSetSPIRVEntryPointABI : Pass<"fx-set-spirv-entry-point-abi",
                                   "ModuleOp"> {
  let summary = "Give every GPU kernel the SPIR-V entry point ABI of its "
                "launch's workgroup size";
  let description = [{
    `convert-gpu-to-spirv` needs `spirv.entry_point_abi` on every kernel;
    this pass derives it from the `known_block_size` that
    `gpu-kernel-outlining` records from constant launch sizes. A kernel
    without a known block size is an error. Runs after
    `spirv-attach-target`: GPU modules without cooperative-matrix ops have
    a SPIR-V 1.4+ target lowered to 1.3 (without the cooperative-matrix
    capability and extension), since `spirv-update-vce` gives them the
    version their ops need and their entry points must then list only
    input and output variables.
  }];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect"];
}

def FXLegalizeTypesForSPIRV : Pass<"fx-legalize-types-for-spirv",
                                   "ModuleOp"> {
  let summary = "Store bf16 as i16 with integer conversions, narrow "
                "comparisons of sign-extended integers, and reject element "
                "types the SPIR-V target cannot hold";
  let description = [{
    MLIR 22's SPIR-V type converter turns a `bf16` or `f16` it cannot keep
    (bf16 always; f16 without the `Float16` and `StorageBuffer16BitAccess`
    capabilities) into `f32`, also as the element type of a buffer. A buffer
    of N 16-bit floats then becomes an array of N/2 `f32` read at the
    16-bit element's index: a silently wrong answer, not an error.

    This pass runs on the GPU modules with a SPIR-V target environment,
    after `spirv-attach-target` and before `convert-gpu-to-spirv`:

    - `bf16` arithmetic is done in `f32` (upstream
      `arith-emulate-unsupported-floats` patterns), `bf16` <-> `f32`
      conversions become integer shifts and rounding (upstream `arith-expand`
      bf16 patterns), and every remaining `bf16` value, buffer and vector
      becomes `i16` with the same bits: loads, stores, copies, selects and
      constants move the bits unchanged. Launches pass their bf16 buffers
      through an `unrealized_conversion_cast` to the i16 buffer type (the
      same bytes), which the Vulkan schedule reads as the buffer itself.
    - `f16` without `Float16` and `StorageBuffer16BitAccess`, `f64` without
      `Float64` and `i64` without `Int64` are errors naming the Vulkan
      features the kernel needs.
    - An integer comparison of a sign-extended value (`extsi`, or an
      `index_cast` of an index: 32 bits in SPIR-V) with a constant that
      fits the narrower type compares the narrower values: cheaper on GPUs,
      and Mesa 22.3's lavapipe miscompiles the 64-bit form (`arange(16) >=
      12` came out all true).

    An op that computes on `bf16` and has no `f32` emulation (a subgroup
    reduction, a math function) is an error at its location.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FXExpandMathForSPIRV : Pass<"fx-expand-math-for-spirv"> {
  let summary = "Expand math and arith ops that SPIR-V has no instruction for";
  let description = [{
    `math.erf` becomes MLIR's polynomial approximation (GLSL.std.450 has no
    erf), `math.ipowi` square-and-multiply over the exponent's bits, and `arith` ops SPIR-V lacks (`ceildivsi`, `floordivsi`,
    `ceildivui`, `maxsi`-style variants) become sequences of basic ops
    (upstream `arith-expand` patterns). Subgroup reductions lose their
    `uniform` flag: convert-gpu-to-spirv lowers uniform ones to the OpenCL
    `Group*` instructions, and Vulkan has only the `GroupNonUniform*` ones.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def FXGuardZeroTripLoops : Pass<"fx-guard-zero-trip-loops"> {
  let summary = "Give loop results a defined value when a loop runs zero "
                "times, for the SPIR-V conversion";
  let description = [{
    MLIR 22's `scf.for` to SPIR-V conversion returns a loop's results
    through function variables that only the loop body stores: a loop that
    runs zero times yields uninitialized values instead of its init values
    (fixed upstream after MLIR 22, llvm-project PR 206280). A thread of a
    row kernel whose first element lies past the row's end runs such a loop,
    and NVIDIA's driver then reads garbage (lavapipe happens to read zeros).

    This pass wraps every `scf.for` with results whose trip count is not a
    known constant of at least one in
    `scf.if (lb < ub) { scf.for ... } else { yield inits }`; the `scf.if`
    conversion stores on both branches. Run it right before
    convert-gpu-to-spirv.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def FXRetypeBF16CooperativeMatrices
    : Pass<"fx-retype-bf16-cooperative-matrices", "ModuleOp"> {
  let summary = "Give the cooperative-matrix kernels of bf16 matmuls bf16 "
                "operand fragments in SPIR-V";
  let description = [{
    MLIR 22's `!gpu.mma_matrix` has no bf16 element type, and its SPIR-V
    type converter turns bf16 into f32. The cooperative-matrix matmul kernel
    only moves its operands' bits (16-byte copies through workgroup memory)
    and multiplies fragments, so `fx-map-matmuls-to-gpu` builds the kernel
    of a bf16 matmul with f16 fragments, reading the bf16 buffers through
    `vector<4xi32>` views. After `convert-gpu-to-spirv` and
    `spirv-update-vce`, this pass finds the kernels launched with a view of
    a bf16 buffer and makes their `MatrixA`/`MatrixB` cooperative matrices
    bf16 (SPIR-V `OpTypeFloat 16 BFloat16KHR`), adding the
    `BFloat16TypeKHR` and `BFloat16CooperativeMatrixKHR` capabilities and
    `SPV_KHR_bfloat16` to the module.
  }];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect"];
}

#endif // FX_CODEGEN_SPIRV_PASSES_TD
