//===- Passes.td - CPU code generation passes --------------*- tablegen -*-===//
//
// Passes of fx-cpu-pipeline that only the CPU path runs: tiling and
// vectorization for the host's registers, the C interface, and parallel
// loops through the runtime's thread pool.
//
//===----------------------------------------------------------------------===//

#ifndef FX_CODEGEN_CPU_PASSES_TD
#define FX_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def FXCPUPackConvolutions : Pass<"fx-cpu-pack-convolutions",
                                  "func::FuncOp"> {
  let summary = "Compute the tiles of 2-d convolutions with parameter filters "
                "from a packed filter, vectors along the output channels";
  let description = [{
    Runs on dispatch regions (after `fx-form-dispatch-regions`), before
    `fx-hoist-parameter-computations`, which moves the packing into the
    function run once per binding of the weights. A
    `linalg.conv_2d_nchw_fchw` tile of one image and one output row
    (`1 x Ft x 1 x W`, `Ft <= block`, the window larger than 1x1) whose
    filter is a slice of a parameter (or of a weight constant of a frozen
    model: a non-splat constant of at least 1024 elements) at an
    output-channel offset that is a multiple of `block`, reads the filter
    packed as
    `[F / block][C][KH][KW][block]` (zero-padded to whole blocks):

    * the filter is packed once by a `linalg.generic` at the top of the
      function (after the constant, for a weight constant);
    * the tile becomes a generic tagged `fx.packed_conv`, loops
      `(w, f, c, kh, kw)`, that accumulates into a `W x Ft` tile (an output
      column's channels contiguous), and a generic that adds its transpose
      to the tile's initial value.

    `fx-cpu-tile-and-vectorize` then computes each `fx.packed_conv` tile
    with one vector of `Ft` output channels per output column: per input
    channel and window position, one load of the packed filter and one FMA
    per column with the broadcast input element. Unlike the NCHW outer
    products (vectors along the output row), this fills the vector lanes
    whatever the image width (a 7x7 image used 7 of 16 lanes) and reads the
    filter contiguously (the outer products broadcast elements `C*KH*KW`
    apart). This is the kernel oneDNN and ONNX Runtime's MLAS use for
    direct convolutions; packing every run would cost more than it gains,
    so the pass is meant to run with the hoisting. Where the tile's input
    rows are a slice of a zero-padded tensor, its window-row loop runs only
    over the rows that read the image (at the top and bottom of the image
    the others read padding, whose products are zeros).
  }];
  let options = [
    Option<"block", "block", "int64_t", /*default=*/"16",
           "Output channels per packed filter block (the CPU's f32 lanes)">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
  ];
}

def FXCPUPackMatmuls : Pass<"fx-cpu-pack-matmuls", "func::FuncOp"> {
  let summary = "Compute matmuls by a weight (or a large operand) from it "
                "packed in panels of columns";
  let description = [{
    Runs after `fx-form-dispatch-regions`, before
    `fx-hoist-parameter-computations`, which moves the packing into the
    function run once per binding of the weights. A `linalg.matmul` of f32
    `A [M, K]` by `B` (`[K, N]`, or `[N, K]` as `linear`'s weight is read),
    where `B` is a parameter or a weight constant (through slices along its
    columns at multiples of `block`, or a transpose), with at least
    `min-rows` rows (or a dynamic count) and a multiple of `block` columns,
    reads the weight packed as `[N / block][K][block]` (zero-padded to
    whole panels):

    * the weight is packed once by a `linalg.generic` at the top of the
      function (after the constant, for a weight constant);
    * the matmul becomes a loop over the panels of its columns, each a
      `linalg.matmul` of `A` by one panel (`[K, block]`, contiguous) into
      the output's columns of the panel. The loop is an `scf.for` inside a
      dispatch region's loop (the region's thread split stays), an
      `scf.forall` (the panels shared among `threads` threads) outside one.
    * `k` is split into blocks of at most `k-block` (a divisor of `k`), so
      that a panel's block stays in the L1 cache across the row tiles. At
      384 (a 48 KiB block of 32 columns), not 128, a row tile reloads its
      accumulators a third as often: on a Zen 5 EPYC at 2 threads
      (fxrt-run minima, alternated) GPT-2 86.1-87.2 -> 79.7-80.8 ms,
      BERT-base 56.3-57.9 -> 53.3-54.1, ConvNeXt-T 26.0-26.5 -> 25.4-25.6;
      square matmuls of 512 to 1024 unchanged (`bench/cpu/run.py`).

    A `B` computed at run time (or a function argument that is not a
    parameter) is packed the same way where that repays on every call: 256
    rows or more, so each element packed feeds 256 multiplies, and 4 MiB or
    more of `B`, beyond the L2 cache, where the cache blocks read in place
    take their k rows from few cache sets. The packing then runs in the
    function on every call (a 1024^3 matmul of two inputs on a Zen 5: one
    thread 10.2 -> 9.7 ms, code for x86-64-v3 24.0 -> 17.6 ms).

    `fx-cpu-tile-and-vectorize` then tiles each panel's matmul into its
    register tile (`block` must be its `tile-n`): per k step, one
    contiguous row of the panel and a broadcast element per row of `A`. The
    weight's rows are read in order, a panel stays in cache across the row
    tiles, and no k step strides across rows of the weight (a `[K, N]`
    weight read `N * 4` bytes apart per k step, a page apart at `N = 1024`;
    an `[N, K]` one was computed as dot products, four rows of `A` per
    load of the weight). This is BLIS's packed B panel (and the `N0 x K0`
    inner tiles of `linalg.mmt4d` in IREE's data tiling) without packing
    `A`, whose rows the tile reads in place.
  }];
  let options = [
    Option<"block", "block", "int64_t", /*default=*/"32",
           "Columns per panel: the CPU's matmul register tile width (0: off)">,
    Option<"minRows", "min-rows", "int64_t", /*default=*/"8",
           "Fewest (static) rows of a matmul worth packing its weight for">,
    Option<"kBlock", "k-block", "int64_t", /*default=*/"384",
           "Most k per block of a panel's matmul (the largest divisor of k "
           "from half of it up; 0: the whole k)">,
    Option<"threads", "threads", "int64_t", /*default=*/"0",
           "Threads sharing the panels of a matmul outside dispatch "
           "regions (0: the host's hardware threads; 1: one)">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
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
      `conv-tile-f` output channels by `conv-tile-w` output columns, a step
      of input channels and one window position; each static tile becomes
      one outer product per input channel (a contiguous input row times
      broadcast filter elements, in NCHW order, no transposes), with the
      accumulator kept in registers across the channel steps and window
      positions;
    * every other linalg op is tiled to one vector of `vector-width` elements
      along its innermost loop (1 along the others) and vectorized; float
      sums and products of a vector into a scalar are marked `reassoc`, so
      that LLVM adds the lanes as a tree instead of one after another.

    Large ops whose outermost loop is parallel are first split into one
    `scf.forall` chunk per thread (`threads`); the tiling below happens inside
    each chunk. `fx-outline-forall` and `fx-forall-to-runtime` later turn the
    `scf.forall` into calls to the runtime's thread pool.

    Contraction and convolution tile loops are peeled, innermost first:
    with static bounds every tile, remainders included, has a static shape
    and is vectorized without masks; remainders of dynamic size stay scalar
    loops. Other ops' boundary tiles are
    vectorized with masks. Depthwise convolutions and max/sum pooling are
    tiled and vectorized like 2-d convolutions (one FMA, max or add per
    channel instead of an outer product). Other convolutions, other pooling
    and gathers (ops the vectorizer rejects) stay loops.
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"16",
           "Elements per vector for elementwise and reduction tiles "
           "(fx-cpu-pipeline sets it, tile-m and tile-n from its "
           "vector-bits and vector-registers)">,
    Option<"tileM", "tile-m", "int64_t", /*default=*/"8",
           "Rows of a contraction tile">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"32",
           "Columns of a contraction tile">,
    Option<"cacheBlockBytes", "cache-block-bytes", "int64_t",
           /*default=*/"262144",
           "Matmuls whose rhs (k x n) is larger than this step through n in "
           "blocks of that many bytes of the rhs (whole register tiles), so "
           "that a block stays in the L2 cache while every row tile of the "
           "lhs passes over it (0: no blocking)">,
    Option<"threads", "threads", "int64_t", /*default=*/"0",
           "Split the outermost parallel loop of large ops into this many "
           "scf.forall chunks for the runtime's thread pool (0: the host's "
           "hardware threads; 1: no scf.forall)">,
    Option<"parallelMinWork", "parallel-min-work", "int64_t",
           /*default=*/"65536",
           "Only ops with at least this many loop iterations get an "
           "scf.forall">,
    Option<"registerLanes", "register-lanes", "int64_t", /*default=*/"16",
           "f32 elements of one vector register (fx-cpu-pipeline sets it "
           "from vector-bits): the vector length of dot-product tiles">,
    Option<"dotMinK", "dot-min-k", "int64_t", /*default=*/"256",
           "Contractions whose operands are both contiguous along k (the "
           "lhs [m, k], the rhs [n, k], as in `linear`) with at least this "
           "many reduced elements are tiled as dot products with the whole k "
           "in the tile">,
    Option<"dotTileM", "dot-tile-m", "int64_t", /*default=*/"4",
           "Rows of a dot-product contraction tile">,
    Option<"dotTileN", "dot-tile-n", "int64_t", /*default=*/"4",
           "Columns of a dot-product contraction tile">,
    Option<"convTileF", "conv-tile-f", "int64_t", /*default=*/"16",
           "Output channels of a 2-d convolution tile">,
    Option<"convTileW", "conv-tile-w", "int64_t", /*default=*/"16",
           "Output columns of a 2-d convolution tile">,
    Option<"depthwiseTileC", "depthwise-tile-c", "int64_t", /*default=*/"4",
           "Channels of a depthwise convolution tile (of 4 output rows and "
           "the whole window): 4 x this many accumulator registers">,
    Option<"packedConvTileW", "packed-conv-tile-w", "int64_t",
           /*default=*/"28",
           "Output columns of an fx.packed_conv tile (one accumulator "
           "vector each)">,
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

def FXEmitCInterface : Pass<"fx-emit-c-interface", "ModuleOp"> {
  let summary = "Give every public function a C-callable interface";
  let description = [{
    Sets `llvm.emit_c_interface` on every public `func.func` with a body, so
    that the LLVM lowering also emits `_mlir_ciface_<name>`, a wrapper that
    takes each memref as a pointer to its descriptor. The runtime calls
    compiled graphs through it.
  }];
}

def FXCPUFuseRowReductions : Pass<"fx-cpu-fuse-row-reductions",
                                  "::mlir::func::FuncOp"> {
  let summary = "Compute an elementwise op's result and its reduction in "
                "one loop";
  let description = [{
    On tensors, before `fx-cpu-tile-and-vectorize`: a `linalg.generic`
    reduction whose input is the result of an elementwise `linalg.generic`
    (all loops parallel, one result, identity indexing maps on both sides,
    the same loop ranges) that something after the reduction also reads
    becomes one generic with two results: the elementwise value, stored
    as before for its other readers, and the reduction, combined as the
    value is computed. A softmax's `exp(x - max)` and its sum, a layer
    norm's `x - mean` and its sum of squares: one walk of the row each
    instead of two. Upstream's elementwise fusion leaves these alone (the
    producer has other readers; fusing would compute it twice). Except
    cheap values: an elementwise generic of at most two arithmetic
    operations (no math function) reading exactly one input of its whole
    iteration space (a layer norm's `x - mean`), all of whose readers are
    generics it fuses into, is computed again by each reader and never
    stored (storing and reloading the row cost more than the subtraction).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FXCPUVectorAccumulators : Pass<"fx-cpu-vector-accumulators",
                                   "::mlir::func::FuncOp"> {
  let summary = "Carry row reductions in vector accumulators";
  let description = [{
    After `fx-cpu-tile-and-vectorize` and `loop-invariant-subset-hoisting`:
    an `scf.for` that reduces each vector of a row into a scalar it carries
    (`vector.extract` of a `vector<1xT>` iteration argument, `vector.reduction
    <kind>, %v, %acc`, `vector.broadcast` back to the yield) carries a vector
    of partial results instead, combined lane by lane with each vector
    (`arith.maximumf`, `arith.addf`, ...), and reduces it once after the loop.
    For float add, mul, and the four max and min kinds. Where the loop's
    trip count is a multiple of four, it then carries four such vectors,
    four steps per iteration each combining into its own, so that no step
    waits for the previous one's combine; they combine after the loop. Max
    and min are exact in any order; sums and products are reassociated.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def FXCPUPrefetchNextRows : Pass<"fx-cpu-prefetch-next-rows",
                                 "::mlir::func::FuncOp"> {
  let summary = "Prefetch the next row where several loops walk a row";
  let description = [{
    On buffers, after bufferization: in an `scf.for` of step 1 over the rows
    of a buffer (a `memref.subview` of a buffer defined outside the loop, of
    size 1 in the dimension the induction variable indexes, at least 4 KiB),
    whose body walks the row in two or more loops (a softmax's max, exp and
    normalization) and computes a math function (an exp) per element in a
    loop after the first, or writes its results with non-temporal stores
    (`fx-cpu-streaming-stores`, which runs before it: a layer norm's output
    larger than the cache), the last loop that reads the row also prefetches the
    same columns of the next row (`memref.prefetch` beside each
    `vector.transfer_read` of the row at constant zero indices of a subview
    of it) into the L2 cache (locality 2; into the L1 the next row evicted
    the row being computed). The first pass over the next row then reads the
    cache while the memory bus would otherwise idle during this row's
    computation.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def FXCPUPipelineRows : Pass<"fx-cpu-pipeline-rows", "::mlir::func::FuncOp"> {
  let summary = "Write a row's results while the next row computes";
  let description = [{
    On buffers, after `fx-cpu-streaming-stores` and
    `fx-cpu-prefetch-next-rows`: in an `scf.for` of step 1 over rows whose
    body ends with two loops of the same static bounds (then only
    deallocations), where the last loop writes a row of a buffer from
    outside the row loop that nothing else in the body touches, and reads
    buffers allocated in the body (a softmax's exponentials and their sum,
    a layer norm's centred row and its scale) or buffers the body does not
    write: the last loop of row `r` runs inside the loop before it of row
    `r + 1`, one element step of each per iteration. Its buffers from the
    body get two copies, alternating between rows; the first row's loops
    before the last run ahead of the row loop and the last row's last loop
    after it. The stores of one row (non-temporal ones bound by the memory
    bus) then overlap the next row's arithmetic (an exp per element)
    instead of following it. Only where the loop before the last computes
    at least 8 vector operations per element step (an exp: a layer norm's
    three were slower pipelined) over at least 16 steps; other row loops
    are left alone.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def FXCPUPrefetchPackedFilters : Pass<"fx-cpu-prefetch-packed-filters",
                                      "::mlir::func::FuncOp"> {
  let summary = "Prefetch the next block of a packed filter during this one";
  let description = [{
    On buffers, after bufferization: where a packed convolution tile reads one
    block of output channels of its packed filter (a rank-reducing
    `memref.subview` `[blk, 0, 0, 0, 0] [1, C, KH, KW, B]` of a static 5-d
    buffer of at least two blocks) through subviews with
    `vector.transfer_read`, each read also prefetches (`memref.prefetch`,
    into the L2 cache) the cache lines of the same elements of the next block
    (the last block prefetches itself). Every output row of a block reads the
    whole block: the first from memory, the others from the cache. With the
    next block on its way during all of them, a model whose weights do not
    fit the caches stops waiting on DRAM at the first row of each block.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def FXCPUStreamingStores : Pass<"fx-cpu-streaming-stores",
                                "::mlir::func::FuncOp"> {
  let summary = "Write buffers larger than the cache with non-temporal stores";
  let description = [{
    On buffers, after bufferization and fx-outline-forall, for x86-64 code:
    a buffer of at least `min-bytes` (the CPU's last-level cache) that a
    function only writes (a function argument whose every use, through
    `memref.subview`s, is a `vector.transfer_write`) cannot be in the cache
    when its consumer reads it. An ordinary store first reads each of its
    cache lines from memory (a read for ownership) and then evicts another
    line to make room; a non-temporal store writes whole lines without
    either. Each such write of a whole 64-byte line or more, in bounds and
    unmasked, inside an `scf.for`, whose offset is a multiple of its size,
    becomes a `vector.store {nontemporal = true}` aligned to its size, in a
    copy of the loop that runs where the buffer's address is aligned too
    (`scf.if`; the original loop runs otherwise). The function then ends with
    an `sfence`, which makes the non-temporal stores visible to the thread
    that reads them after this function returns (`lock`-prefixed
    instructions, what LLVM emits for a sequentially consistent fence on
    x86, do not order them on every CPU).
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"0",
           "Smallest buffer (bytes) written with non-temporal stores; 0 "
           "turns the pass off (fx-cpu-pipeline's streaming-store-bytes: "
           "the last-level cache of x86-64 CPUs)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def FXCPUFillBordersInTiles : Pass<"fx-cpu-fill-borders-in-tiles",
                                   "::mlir::func::FuncOp"> {
  let summary = "Fill a padded buffer's borders in its producer's tiles";
  let description = [{
    On buffers, after bufferization (and before `fx-outline-forall`): where
    `fx-pad-in-place` left a padded buffer whose border strips are filled
    before the `scf.forall` that writes its interior, the fills move into
    that loop. Every tile of the loop that writes whole rows of the
    interior owns the part of the buffer its box reaches when extended to
    the buffer's edge in each dimension where it touches the interior's
    edge; after its writes it fills the strips within that part: the pad
    columns of its rows while those cache lines are hot, the pad rows above
    and below where it writes the first or last rows, on the thread that
    owns the tile. The tiles cover the interior, so their parts cover the
    whole buffer and no fill is left before the loop. Filled apart, in the
    serial code between parallel loops, a column strip touched one cache
    line per row (mobilenet_v2: 1.5 of 10.7 ms on two threads), and the pad
    rows of a stage's buffers 0.46 of 4.6 ms (4.4 of 47 ms at batch 8).

    Applies when the buffer's uses before the loop are the strip fills (of
    static boxes apart from the interior) and views, the interior view is
    used by the loop and ops after it, the loop's writes into the interior
    (known through the memory-effect interface) each go through a view of
    whole rows inside the loop, and only subviews of unit strides and no
    rank reduction lead from a tile to the interior; otherwise the fills
    stay.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
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

def FXTileBuffersToStack : Pass<"fx-tile-buffers-to-stack",
                                 "::mlir::func::FuncOp"> {
  let summary = "Give the temporaries of loop iterations a stack slot";
  let description = [{
    After `fx-outline-forall`: a `memref.alloc` of static shape (at most
    `max-bytes`) inside a loop, whose buffer lives only within the loop
    iteration (freed by a `memref.dealloc` in the same block, never yielded,
    returned or passed to a call), becomes one `memref.alloca` at the
    function's entry, reused by every iteration, and its deallocations go.
    These are the tile-sized buffers that bufferization gives a fused tile's
    intermediate (a convolution tile before its epilogue): allocated and
    freed through the runtime's allocator once per tile, they cost a lock
    each. After outlining, the loops of a function run on one thread, so
    one slot per function is private to each thread of a parallel loop;
    allocations inside a remaining `scf.forall` are left alone.

    Upstream `promote-buffers-to-stack` replaces an allocation in place (an
    alloca inside a loop grows the stack every iteration) and
    `buffer-loop-hoisting` would hoist out of `scf.forall` too, sharing one
    buffer among threads: hence this pass.
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"65536",
           "Largest buffer (bytes) moved to the stack">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def FXTemporaryArena : Pass<"fx-temporary-arena", "::mlir::func::FuncOp"> {
  let summary = "Place a function's temporaries in one arena by live range";
  let description = [{
    After bufferization and its deallocation (which frees every temporary
    at the end of the function's block) and after `fx-outline-forall`: each
    `memref.alloc` of static shape and identity layout in the function's
    entry block, freed only by `memref.dealloc`s in that block and never
    returned, becomes a `memref.view` into one arena allocated at the
    function's start and freed before its return. Its live range runs from
    the first to the last op of the entry block that uses it or a view of it
    (an op that uses it in a nested region counts as a whole; the view ops
    themselves, which touch no memory, do not count); temporaries
    whose ranges overlap get disjoint bytes, the others may share them.
    Offsets are found greedily, largest buffer first, each at the lowest
    offset (aligned to `alignment`, or the allocation's larger alignment)
    where it overlaps no placed buffer that is live at the same time.

    Why: freed at the end, every temporary of a model is live at once and
    has memory of its own, so a run touches all of it: mobilenet_v2's 36
    temporaries took 25 MiB, which with its 14 MiB of weights does not fit
    a 32 MiB L3 cache, and every layer's output went to memory and came back
    (its first layers ran 2x slower in the whole model than in the model cut
    after them). In an arena, a layer writes where a layer before it wrote a
    moment ago. Allocations in nested regions, of dynamic size, or that
    escape are left alone. Upstream has no such pass for host code (the
    buffer-deallocation pipeline frees at the end of the block).
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Alignment (bytes) of every buffer in the arena">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
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

def FXFlattenGlobals : Pass<"fx-flatten-globals", "ModuleOp"> {
  let summary = "Store constant buffers of rank 2 and more as 1-d globals";
  let description = [{
    Every `memref.global` of static shape, identity layout, rank of 2 or
    more and a dense initial value becomes a 1-d global of the same elements;
    each `memref.get_global` of it reads the 1-d global and expands it back
    (`memref.expand_shape`, no copy). MLIR's LLVM translation turns an n-d
    constant into nested arrays with one LLVM constant per innermost row:
    the 3x3 rows of a frozen ResNet's filters made millions of uniqued
    constants, and the LLVM context spent most of a 48 s compile creating
    and destroying them. A 1-d constant is one `ConstantDataArray` built
    from the raw bytes.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def FXByteBoolVectors : Pass<"fx-byte-bool-vectors", "ModuleOp"> {
  let summary = "Load and store vectors of i1 as bytes, as scalars are";
  let description = [{
    On the LLVM dialect, after the lowering: MLIR stores a boolean tensor
    element as a byte (an LLVM `i1` occupies one), and the runtime passes
    `bool` tensors as bytes, but LLVM stores a `<N x i1>` vector as N packed
    bits. A vectorized loop reading or writing a boolean tensor (a mask
    input, a comparison's result, an `i1` temporary) then read or wrote
    the wrong bytes: `torch.where(mask, a, b)` with a 4x32 mask, or `a > 0`
    as an output, were wrong on the CPU. Each `llvm.load` and `llvm.store`
    of a vector of `i1`, and each masked load and store of one, becomes one
    of bytes (`zext` before a store, `trunc` after a load).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // FX_CODEGEN_CPU_PASSES_TD
