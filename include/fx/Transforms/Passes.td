//===- Passes.td - FX dialect transformation passes ------------*- tablegen -*-===//

#ifndef FX_TRANSFORMS_PASSES_TD
#define FX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FXRefineShapes : Pass<"fx-refine-shapes", "func::FuncOp"> {
  let summary = "Make result types as static as the operand types allow";
  let description = [{
    Re-runs result type inference of every FX op, in program order, and
    replaces each result type by the meet of the written and the inferred
    type: a dimension that is dynamic in one and static in the other becomes
    static. A refinement flows forward through the function, so a graph
    imported with dynamic shapes becomes fully static once its inputs are.

    A result is only refined when all of its users are FX ops or
    `func.return`, so other dialects never see a type change. When
    `func.return` operands change, the function's result types follow,
    unless the function has callers (refining them would break the calls).

    Example: with `%x : tensor<2x3xf32>`,
    `fx.relu %x : (tensor<2x3xf32>) -> tensor<?x3xf32>` becomes
    `fx.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>`.
  }];
  let dependentDialects = ["::mlir::fx::FXDialect"];
}

def FXEmitCInterface : Pass<"fx-emit-c-interface", "ModuleOp"> {
  let summary = "Give every public function a C-callable interface";
  let description = [{
    Sets `llvm.emit_c_interface` on every public `func.func` with a body, so
    that the LLVM lowering also emits `_mlir_ciface_<name>`, a wrapper that
    takes each memref as a pointer to its descriptor. The runtime calls
    compiled graphs through it.
  }];
}

def FXMarkInputsReadOnly : Pass<"fx-mark-inputs-read-only", "ModuleOp"> {
  let summary = "Mark the tensor arguments of public functions read-only "
                "for bufferization";
  let description = [{
    Sets `bufferization.writable = false` on every tensor argument of every
    public `func.func` with a body, before `one-shot-bufferize`: an op that
    would update an argument in place writes a copy instead. Arguments are
    the caller's inputs (wrapped user memory) and the model's parameters
    (resident on the device between runs), which a run must never change.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def FXOutlineForall : Pass<"fx-outline-forall", "ModuleOp"> {
  let summary = "Outline the bodies of scf.forall loops on buffers";
  let description = [{
    After bufferization: every outermost one-dimensional `scf.forall` without
    results becomes a call to a private declaration
    `@__fx_forall_dispatch_<n>(count, lower, step, captures...)`, and its body
    moves into `@__fx_forall_body_<n>(begin, end, lower, step, captures...)`,
    which runs iterations `[begin, end)` as an `scf.for`. After the LLVM
    lowering, `fx-forall-to-runtime` replaces the dispatch call with a call
    into the runtime's thread pool.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def FXForallToRuntime : Pass<"fx-forall-to-runtime", "ModuleOp"> {
  let summary = "Call the runtime thread pool for outlined scf.forall loops";
  let description = [{
    On the LLVM dialect, after `fx-outline-forall` and the lowering: each
    call to `@__fx_forall_dispatch_<n>` becomes
    `fxrtParallelFor(count, @__fx_forall_trampoline_<n>, context)`, where the
    context is a stack struct holding the call's remaining arguments and the
    trampoline loads them and calls `@__fx_forall_body_<n>`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def FXFoldConvBatchNorm : Pass<"fx-fold-conv-batch-norm", "func::FuncOp"> {
  let summary = "Fold inference batch norms into the convolutions before "
                "them when all weights are constants";
  let description = [{
    `fx.batch_norm(fx.convolution(x, W, b), mean, var, gamma, beta)`, where
    the convolution has no other use and `W`, `b`, `mean`, `var`, `gamma`
    and `beta` are `fx.constant`s (a model imported with `frozen=True`),
    becomes `fx.convolution(x, W', b')` with

        scale = gamma / sqrt(var + eps)
        W'[f] = W[f] * scale[f]
        b'[f] = (b[f] - mean[f]) * scale[f] + beta[f]

    computed in double precision and rounded once to the element type. A
    missing `gamma`/`beta`/`b` counts as 1/0/0. Transposed convolutions and
    batch norms whose operands are function arguments (weights bound at run
    time) are left alone. The folded ops carry the fused location of the
    convolution and the batch norm.
  }];
  let dependentDialects = ["::mlir::fx::FXDialect"];
}

def FXFuseElementwise : Pass<"fx-fuse-elementwise", "func::FuncOp"> {
  let summary = "Fuse elementwise linalg producers into their consumers, "
                "except into contractions, and sibling reductions of one "
                "input into one op";
  let description = [{
    Upstream `linalg-fuse-elementwise-ops` (producer/consumer fusion of
    `linalg.generic`s, reshape propagation by expansion) with one more rule:
    nothing is fused into a contraction-like reduction (one that reads two
    operands along its reduced dimensions, e.g. attention's P x V). Fusing
    softmax's division into P x V, as the upstream pass does, turns a
    contraction into a generic the CPU backend cannot register-tile (17x
    slower attention block, measured).

    Then horizontal fusion: reductions (generics with reduction loops, not
    contractions) with the same static iteration space that read one input
    through the same map, in the same block, independent of each other,
    become one generic with a result per reduction, so the input is read
    once (`x.sum(1)` with `x.amax(1)`). A reduction whose result is combined
    with that input again (softmax's max, layer norm's mean) is left to the
    dispatch region that fuses its normalization row by row. An epilogue of
    a convolution or matmul (an elementwise chain reading its result) is not
    fused into a reduction after it, so that it stays on the convolution's
    tiles.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::affine::AffineDialect",
  ];
}

def FXFormDispatchRegions : Pass<"fx-form-dispatch-regions",
                                  "func::FuncOp"> {
  let summary = "Group linalg ops into dispatch regions by tiling a root and "
                "fusing its producers into the tile loop";
  let description = [{
    Works on linalg on tensors (after `convert-fx-to-linalg` and elementwise
    fusion). Ops are visited from the last to the first; each op not yet in
    a region becomes the root of one and pulls in its producers
    (transitively) when

    * the producer is a linalg op on tensors (reshapes, pads, concatenations
      and other tensor ops cut a region),
    * every use of the producer's result is inside the region (otherwise it
      would be computed twice; the region is cut instead), unless it is
      cheap to recompute: a fill, or a broadcast/transpose/copy of values no
      linalg op computes, which every region using it recomputes per tile,
    * the consumer reads it through a projected permutation (a convolution
      window would recompute overlapping producer tiles), and
    * the dimensions along which it is broadcast into the root (the
      dimensions a reduction in the region runs over) are trailing
      dimensions of the root, so that no reduction is recomputed per tile,
    * an elementwise producer that ends another convolution or matmul (not
      yet in a region) is left to that op's region when this region already
      has one (epilogue fusion first),
    * and a region holds at most one contraction or convolution: a 2-d
      convolution (NCHW) or a contraction with one m, n and k dimension
      (matmul, batch_matmul, the transposed matmul of `linear`), whose
      elementwise epilogue is then computed on its output tiles.

    A region is materialized by tiling its root with
    `scf::tileConsumerAndFuseProducersUsingSCF`: one `scf.forall` over the
    first tiled dimension split into `threads` chunks (when `threads` > 1),
    then `scf.for` loops over row tiles (one row of the non-broadcast
    dimensions), for a convolution epilogue 1x16x1x16 output tiles
    (`conv-tile-f` x `conv-tile-w`), for a contraction epilogue blocks of
    `contraction-tile-m` (or more) whole rows, or blocks of
    `contraction-tile-n` columns when there are too few rows for the
    threads. Softmax, log_softmax and layer norm thus become one loop nest
    whose temporaries are one row, and biases, batch norm, activations and
    residual adds after a convolution or matmul are computed on its output
    tile while the tile is in cache. `fx-cpu-tile-and-vectorize` then tiles
    and vectorizes each op inside the tile.

    With `row-kernels` (the Vulkan pipeline), contractions and convolutions
    take no producers, and only *row kernels* are materialized: a region
    whose reductions each produce one value per row (a softmax, log_softmax
    or layer norm; a lone reduction over trailing dimensions such as
    `sum(-1)`), with f32 or i32 reductions the GPU can combine across a
    workgroup (add, mul, min and max). The region's root is
    tiled by one row (tile size 1 on every dimension but the whole ones)
    into one `scf.forall` tagged `fx.row_kernel`, and elementwise producers
    inside it are fused into every consumer (recomputed), so that the only
    temporaries left are the per-row values of the reductions.
    `fx-map-row-kernels-to-gpu` gives each row a workgroup. Other regions
    stay unmaterialized (one kernel per op).

    Every region is tagged `fx.dispatch = N`. With `report`, each region is
    described by a remark at its root (its ops and their locations, and the
    bytes it reads and writes: tensors defined outside it, not counting
    fills and empty tensors, and its results), every producer/consumer pair
    that was not fused by a remark at the producer giving the reason, every
    recomputed producer by a remark, and the function by the number of
    regions and the total bytes moved.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"0",
           "Split each region's first tiled loop into this many scf.forall "
           "chunks (0: the host's hardware threads; 1: no scf.forall)">,
    Option<"parallelMinWork", "parallel-min-work", "int64_t",
           /*default=*/"65536",
           "Only regions whose root has at least this many iterations get an "
           "scf.forall">,
    Option<"convTileF", "conv-tile-f", "int64_t", /*default=*/"16",
           "Output channels of a convolution epilogue tile">,
    Option<"convTileW", "conv-tile-w", "int64_t", /*default=*/"16",
           "Output columns of a convolution epilogue tile">,
    Option<"contractionTileM", "contraction-tile-m", "int64_t",
           /*default=*/"8",
           "Rows of a contraction epilogue tile (doubled while the tile's "
           "output fits in 256 KiB and every thread keeps a tile)">,
    Option<"contractionTileN", "contraction-tile-n", "int64_t",
           /*default=*/"128",
           "Columns of a contraction epilogue tile when the contraction has "
           "too few rows to split among the threads">,
    Option<"fuse", "fuse", "bool", /*default=*/"true",
           "Fuse producers into regions; false makes every linalg op but "
           "fills a region of its own (to count the dispatches and bytes of "
           "the unfused graph with `report`)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark per region (its ops, and the bytes it reads and "
           "writes) and per producer/consumer pair that did not fuse">,
    Option<"rowKernels", "row-kernels", "bool", /*default=*/"false",
           "GPU mode: materialize only row kernels (see above), as one "
           "scf.forall over rows tagged fx.row_kernel; contractions and "
           "convolutions stay alone">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::affine::AffineDialect",
  ];
}

def FXCPUTileAndVectorize : Pass<"fx-cpu-tile-and-vectorize",
                                 "func::FuncOp"> {
  let summary = "Tile linalg ops on tensors and vectorize the tiles for the CPU";
  let description = [{
    Works on linalg ops on tensors (after `convert-fx-to-linalg` and fusion,
    before bufferization), with the upstream TilingInterface
    (`scf::tileUsingSCF`) and `linalg::vectorize`:

    * contractions (matmul, batch_matmul, and generics with the contraction
      shape) are tiled `[1 per batch dim, m-tile, n-tile, 1]` so that each
      tile is a register-blocked outer-product update; the accumulator tile
      is kept in vector registers across the k loop once
      `loop-invariant-subset-hoisting` runs;
    * `linalg.conv_2d_nchw_fchw` is tiled to one output row, a block of
      output channels and columns, and one window position; full tiles
      decompose into `linalg.conv_1d_ncw_fcw` (upstream
      `populateDecomposeConvolutionPatterns`), which is vectorized;
    * every other linalg op is tiled to one vector of `vector-width` elements
      along its innermost loop (1 along the others) and vectorized.

    Large ops whose outermost loop is parallel are first split into one
    `scf.forall` chunk per thread (`threads`); the tiling below happens inside
    each chunk. `fx-outline-forall` and `fx-forall-to-runtime` later turn the
    `scf.forall` into calls to the runtime's thread pool.

    Contraction tile loops are peeled: full tiles are vectorized without
    masks and the remainders stay scalar loops. Other ops' boundary tiles are
    vectorized with masks. Convolutions, pooling and gathers (ops the
    vectorizer rejects) stay loops.
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"16",
           "Elements per vector for elementwise and reduction tiles (16 f32 "
           "lanes is one AVX-512 register)">,
    Option<"tileM", "tile-m", "int64_t", /*default=*/"8",
           "Rows of a contraction tile">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"32",
           "Columns of a contraction tile">,
    Option<"threads", "threads", "int64_t", /*default=*/"0",
           "Split the outermost parallel loop of large ops into this many "
           "scf.forall chunks for the runtime's thread pool (0: the host's "
           "hardware threads; 1: no scf.forall)">,
    Option<"parallelMinWork", "parallel-min-work", "int64_t",
           /*default=*/"65536",
           "Only ops with at least this many loop iterations get an "
           "scf.forall">,
    Option<"convTileF", "conv-tile-f", "int64_t", /*default=*/"16",
           "Output channels of a 2-d convolution tile">,
    Option<"convTileW", "conv-tile-w", "int64_t", /*default=*/"16",
           "Output columns of a 2-d convolution tile">,
    Option<"convTileC", "conv-tile-c", "int64_t", /*default=*/"16",
           "Input channels per step of a 2-d convolution tile: the largest "
           "divisor of the channel count up to this many (the step's outer "
           "products are unrolled, so this bounds the code size)">,
    Option<"lowerVectorOps", "lower-vector-ops", "bool", /*default=*/"true",
           "Lower vector.contract and multi-reductions to outer products and "
           "inner reductions (off: leave the vectorizer's output)">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::affine::AffineDialect",
  ];
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
    inside the thread that runs them. `memref.copy` between views becomes a
    loop first (copies between whole buffers stay for the runtime). What is
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
    body's casts. Not mapped (they stay for `fx-map-parallel-loops-to-gpu`,
    one thread per output element): dynamic sizes, integer ops, pooling
    (not a multiply-accumulate), matrix-vector products (a depthwise
    convolution), reductions shorter than 8. With `report`, every
    contraction and convolution gets a remark: its GEMM sizes and tile, or
    why it was not mapped.

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
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
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
    least 32) when the longest op of the row has fewer iterations. An op
    whose iterations divide evenly among the threads, at most 32 per thread,
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
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def FXPrepareLinalgForGPU : Pass<"fx-prepare-linalg-for-gpu", "func::FuncOp"> {
  let summary = "Put the parallel loops of linalg.generic ops outermost";
  let description = [{
    Before `convert-linalg-to-parallel-loops` in the Vulkan pipeline: a
    `linalg.generic` whose iterators put a reduction before a parallel loop
    (a softmax or sum over dim 0) is interchanged so that all parallel loops
    come first, in their original order. Its parallel loops then become one
    `scf.parallel` (one GPU thread per output element) with the reductions
    as sequential loops inside, instead of a host loop around kernels.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
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

def FXLegalizeTypesForSPIRV : Pass<"fx-legalize-types-for-spirv",
                                   "ModuleOp"> {
  let summary = "Store bf16 as i16 with integer conversions, and reject "
                "element types the SPIR-V target cannot hold";
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

    An op that computes on `bf16` and has no `f32` emulation (a subgroup
    reduction, a math function) is an error at its location.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // FX_TRANSFORMS_PASSES_TD
