//===- Passes.td - FX and target-independent passes --------*- tablegen -*-===//
//
// Passes on linalg that every target runs: elementwise fusion, dispatch
// regions and row kernels, and the calling convention before
// bufferization. Passes on the FX dialect itself are with the dialect
// (include/fx/Dialect/FX/Transforms/Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef FX_TRANSFORMS_PASSES_TD
#define FX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

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

def FXDistinctResults : Pass<"fx-distinct-results", "ModuleOp"> {
  let summary = "Return a copy where a public function returns one tensor "
                "at several positions";
  let description = [{
    Each result of a public function becomes an out-parameter of its own
    after bufferization (`buffer-results-to-out-params`), which cannot
    serve one buffer for two results (upstream it crashed). A graph that
    returns one value twice (AOTAutograd's forward graphs do, saving an
    output for the backward) gets a copy (`bufferization.alloc_tensor`
    with `copy`) at every position after the first.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def FXHoistParameterComputations
    : Pass<"fx-hoist-parameter-computations", "ModuleOp"> {
  let summary = "Move computations on parameters alone into a function run "
                "once when the weights are bound";
  let description = [{
    In every public function with parameters (arguments tagged
    `{fx.param = "name"}`), the ops whose values depend on parameters and
    constants only (no input, no side effect) and that compute something
    (a linalg op: a transposed or repacked weight) move into a new public
    function `@<name>__prepare`, which takes those parameters and returns
    the computed tensors. The entry point takes them as extra trailing
    arguments tagged `{fx.prepared = i}`; the runtime calls the prepare
    function once after the weights are bound and passes its results to
    every run, so no run repeats the work.

    ```mlir
    func.func @forward(%x: tensor<64x96xf32>,
                       %w: tensor<384x96xf32> {fx.param = "fc.weight"}) ... {
      %t = linalg.transpose ins(%w ...) outs(...) permutation = [1, 0]
      ... linalg.matmul ins(%x, %t ...)
    ```
    becomes
    ```mlir
    func.func @forward(%x: tensor<64x96xf32>,
                       %w: tensor<384x96xf32> {fx.param = "fc.weight"},
                       %t: tensor<96x384xf32> {fx.prepared = 0 : i64}) ... {
      ... linalg.matmul ins(%x, %t ...)
    func.func @forward__prepare(%w: tensor<384x96xf32> {fx.argument = 1 : i64}) -> tensor<96x384xf32> {
      %t = linalg.transpose ins(%w ...) ...
      return %t
    ```
    A value more than twice the size of the parameters it is computed from
    (a broadcast of a bias) stays in the entry: storing it would cost memory
    and reading it more time than recomputing it (a filter padded to whole
    blocks of channels is at most twice its size). The module records what moved in its
    `fx.prepare` attribute, one entry per function: the prepare function,
    the entry's argument indices it takes and the types it returns (what
    the CPU compiler puts into the artifact).
  }];
}

def FXConcatInPlace : Pass<"fx-concat-in-place", "func::FuncOp"> {
  let summary = "Concatenate in place: one tensor for a concatenation and "
                "those of its leading parts, written by the parts' producers";
  let description = [{
    A concatenation (convert-fx-to-linalg's chain of `tensor.insert_slice`
    ops into a `tensor.empty`, the parts whole slabs along one dimension)
    and the concatenations of its leading parts (DenseNet: each layer of a
    dense block reads `cat([x, f1, ..., fk])`, the next one
    `cat([x, f1, ..., fk, fk+1])`) become one chain of insertions into one
    tensor, each part inserted right after it is computed, and each
    concatenation a slice of the chain where it was:

    ```mlir
    %e = tensor.empty() : tensor<2x24x8x8xf32>
    %a = tensor.insert_slice %x into %e[0, 0, 0, 0] [2, 16, 8, 8] [1, 1, 1, 1]
    %cat = tensor.insert_slice %f into %a[0, 16, 0, 0] [2, 8, 8, 8] [1, 1, 1, 1]
    ```
    with `%f = linalg.conv_2d_nchw_fchw ... outs(%zero)`, `%zero` a fill
    of an empty tensor, becomes
    ```mlir
    %t = tensor.empty() : tensor<2x32x8x8xf32>   // the largest member
    %t1 = tensor.insert_slice %x into %t[0, 0, 0, 0] [2, 16, 8, 8] [1, 1, 1, 1]
    ...
    %s = tensor.extract_slice %t1[0, 16, 0, 0] [2, 8, 8, 8] [1, 1, 1, 1]
    %z = linalg.fill ins(%cst) outs(%s)
    %f = linalg.conv_2d_nchw_fchw ... outs(%z)
    %t2 = tensor.insert_slice %f into %t1[0, 16, 0, 0] [2, 8, 8, 8] [1, 1, 1, 1]
    %cat = tensor.extract_slice %t2[0, 0, 0, 0] [2, 24, 8, 8] [1, 1, 1, 1]
    ```
    A part's producer (a linalg op, or a dispatch region's loops) whose
    initial value was an empty tensor or a constant fill of one computes
    into its slab of the chain instead; one-shot bufferization then writes
    it there in place, and the concatenations are views of one buffer: no
    copies. Other parts (function arguments, values read in place
    elsewhere) are copied into their slab once per family, not once per
    concatenation (DenseNet-121 copied each layer's output into every
    later layer's input: 593 copy kernels on Vulkan). Runs right before
    bufferization.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FXPadInPlace : Pass<"fx-pad-in-place", "func::FuncOp"> {
  let summary = "Compute padded tensors' interiors where the padding lives";
  let description = [{
    A `tensor.pad` with a constant value and static amounts, of a tensor
    that an op computes into a `tensor.empty` (a linalg op, or the loops of
    a dispatch region: `scf.forall` shared outputs and `scf.for` iteration
    arguments, traced back to the empty tensor), becomes a fill of the
    padded tensor and an insert of the result into it, and the producer
    writes into the interior slice of the filled tensor instead of the empty
    one:

    ```mlir
    %e = tensor.empty() : tensor<1x32x112x112xf32>
    %r = linalg.generic ... outs(%e ...)
    %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] { yield %zero }
    ```
    becomes
    ```mlir
    %f = linalg.fill ins(%zero) outs(tensor.empty() : tensor<1x32x114x114xf32>)
    %s = tensor.extract_slice %f[0, 0, 1, 1] [1, 32, 112, 112] [1, 1, 1, 1]
    %r = linalg.generic ... outs(%s ...)
    %p = tensor.insert_slice %r into %f[0, 0, 1, 1] [1, 32, 112, 112] [1, 1, 1, 1]
    ```
    The insertion is placed right after the producer, and the producer's
    other readers (a residual connection) read the interior of `%p`
    instead of `%r`. One-shot bufferization then writes the producer
    straight into the padded buffer (the extract/insert pair is in place,
    and nothing reads `%r` after the insertion): the pad no longer copies
    the tensor (before, a convolution's padded input cost a fill and a
    strided copy of the whole tensor). Since the producer's initial value
    was an empty tensor, no element of its result depends on it, so the
    rewrite keeps the meaning. This is upstream's empty tensor elimination
    for pads; upstream `eliminate-empty-tensors` needs the fill to dominate
    the producer, which a decomposed pad (after the producer) does not.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FXUnshareFills : Pass<"fx-unshare-fills", "func::FuncOp"> {
  let summary = "Give each op that writes into a shared filled tensor a "
                "fill of its own";
  let description = [{
    A tensor filled with a constant (a `linalg.fill` into an empty tensor,
    or such a fill tiled into an `scf.forall`) that several ops write into
    in place (the zero initial value of convolutions or matmuls, merged by
    CSE) is filled again, right before each of them after the first, into
    an empty tensor of its own. One-shot bufferization gave the shared
    filled buffer to one writer and a copy of it to each other one: a
    serial `memref.copy` of the whole tensor (ConvNeXt's 7x7 depthwise
    convolutions, one per block), where a fill writes it once, in
    parallel. Runs right before bufferization, after the last CSE, which
    would merge the fills again.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FXPatchConvolutionsToMatmuls
    : Pass<"fx-patch-convolutions-to-matmuls", "func::FuncOp"> {
  let summary = "Compute convolutions of non-overlapping windows as a copy "
                "of the patches and a matmul";
  let description = [{
    A `linalg.conv_2d_nchw_fchw` of one image whose stride equals its
    window (larger than 1x1, no dilation): a "patchify" layer (ConvNeXt's
    stem and downsampling layers, a ViT's patch embedding). Each input
    pixel is in at most one window, so the patches, laid out
    `[C][KH][KW][OH][OW]` by a copying `linalg.generic`, are no larger than
    the input, and the convolution is the matmul of the filter
    `[F, C * KH * KW]` by the patches `[C * KH * KW, OH * OW]` into the
    output `[F, OH * OW]` (all views by collapse/expand_shape):

    ```mlir
    %y = linalg.conv_2d_nchw_fchw {strides = dense<2> ...}
        ins(%x, %w : tensor<1x96x56x56xf32>, tensor<192x96x2x2xf32>) ...
    ```
    becomes a `linalg.generic` copy into `tensor<96x2x2x28x28xf32>` and a
    `linalg.matmul` of `tensor<192x384xf32>` by `tensor<384x784xf32>`.

    The CPU pipeline runs it before elementwise fusion, so that the bias
    and what follows become the matmul's epilogue; the CPU's convolution
    tiles (one output row by a block of channels, a broadcast input
    element per FMA) ran these layers at a third of the matmul tiles'
    rate.

    A 1x1 convolution of a stride larger than 1 (ResNet's downsampling),
    of any batch, becomes a copying `linalg.generic` of the pixels it reads
    (`[N][C][OH][OW]`, every stride-th row and column) and a 1x1
    convolution of stride 1 on them, which the CPU computes as a matmul
    over the flattened pixels (the copy fuses into its tiles): resnet18's
    downsampling convolutions at batch 8 on a 2-thread Zen 5 1.62 -> 1.09
    ms in all.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FXConvsChannelsLast : Pass<"fx-convs-channels-last", "func::FuncOp"> {
  let summary = "Compute NCHW convolutions and poolings in NHWC, the layout "
                "changes pushed through elementwise ops until they cancel";
  let description = [{
    Each `linalg.conv_2d_nchw_fchw`, `linalg.pooling_nchw_max` and
    `linalg.pooling_nchw_sum` on static f32 tensors is computed channels
    last: its input (through a constant `tensor.pad`, whose padding is
    permuted) and initial value move to NHWC, and its NHWC result is
    transposed back. A 1x1 stride-1 convolution of an unpadded input
    becomes a matmul of the pixels `[N*H*W][C]` by the filter `[F][C]`
    (collapse/expand_shape views, no copy: `[F][C][1][1]` is `[F][C]`); other
    convolutions become `linalg.conv_2d_nhwc_fhwc`, a 1x1 filter reshaped
    and a larger one transposed to `[F][KH][KW][C]`.

    The transposes are `linalg.generic` copies through a permutation map.
    An elementwise generic that reads one is rewritten over permuted loops
    to compute in the transpose's source layout, and its result is
    transposed instead (the transpose moves down past it); a transpose read
    by any other generic (a reduction, another transpose) folds into that
    reader's indexing map. Between two convolutions the transposes meet and
    cancel, so a ResNet's activations stay NHWC from the first convolution
    to the final pooling, and each convolution's epilogue (batch norm,
    activation, residual add) reads its result in order:

    ```mlir
    %y = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<32x64x56x56xf32>,
        tensor<256x64x1x1xf32>) outs(%zero : tensor<32x256x56x56xf32>)
    %r = linalg.generic ... ins(%y, %bias ...)   // elementwise
    ```
    becomes a `linalg.generic` contraction of `tensor<100352x64xf32>` by
    `tensor<256x64xf32>`, expanded to `tensor<32x56x56x256xf32>`, the
    elementwise generic over NHWC loops reading it in order (the bias
    through `(n, h, w, c) -> (c)`), and a transpose of its result where
    an NCHW reader remains. The GPU's GEMM kernels then read 8 channels of
    a pixel as one unit (no repacking kernels) and 1x1 convolutions take
    the matmul kernel's large tiles. Runs on linalg on tensors, before
    elementwise fusion.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
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

    Powers by constants that fusion folded into a body become multiplies,
    divisions and square roots (MLIR's math algebraic simplification:
    `x^2`, `x^3`, `x^-1`, `x^0.5`, ...): GPT-2's GELU cubes with
    `torch.pow(x, 3.0)`, which as `math.powf` was a libm call per element
    on the CPU.

    Reshapes next to contractions are folded the other way: an elementwise
    op that reads a matmul's result through a `tensor.expand_shape`
    (`linear` of a [1, H, W, C] input is a 2-d matmul between views) is
    collapsed to the matmul's shape, down the chain of elementwise ops
    after it, and not expanded again, so that bias, GELU or scale read the
    result at the same element and become its epilogue (one dispatch
    region on the CPU, one GEMM kernel on Vulkan). ConvNeXt-tiny: 201 -> 168
    Vulkan dispatches, 1.79 -> 1.65 ms on an H200.

    Then horizontal fusion: reductions (generics with reduction loops, not
    contractions) with the same static iteration space that read one input
    through the same map, in the same block, independent of each other,
    become one generic with a result per reduction, so the input is read
    once (`x.sum(1)` with `x.amax(1)`). A reduction whose result is combined
    with that input again (softmax's max, layer norm's mean) is left to the
    dispatch region that fuses its normalization row by row. An epilogue of
    a convolution or matmul (an elementwise chain reading its result) is not
    fused into a reduction after it, so that it stays on the convolution's
    tiles. A producer whose body is costly (a math op or a division) is not
    fused into a consumer that reads it broadcast: squeeze-and-excitation's
    sigmoid of one value per channel would be recomputed for every pixel
    (efficientnet_b0), layer norm's rsqrt of a row's variance for every
    element of the row. With `recompute-costly-broadcasts` (the Vulkan
    pipeline's choice, where an op left apart is a dispatch of its own,
    which costs more than recomputing) such producers fuse too.
  }];
  let options = [
    Option<"recomputeCostlyBroadcasts", "recompute-costly-broadcasts",
           "bool", /*default=*/"false",
           "Fuse producers with costly bodies into consumers that read them "
           "broadcast (recomputing them per consumer element)">,
  ];
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
      convolution or depthwise convolution (NCHW) or a contraction with one m, n and k dimension
      (matmul, batch_matmul, the transposed matmul of `linear`), whose
      elementwise epilogue is then computed on its output tiles.

    A region is materialized by tiling its root with
    `scf::tileConsumerAndFuseProducersUsingSCF`: one `scf.forall` over the
    first tiled dimension split into `threads` chunks (when `threads` > 1),
    then `scf.for` loops over row tiles (one row of the non-broadcast
    dimensions), for a convolution epilogue 1x16x1x16 output tiles
    (`conv-tile-f` x `conv-tile-w`; for a convolution over a packed filter
    whole rows where `packed-conv-tile-w` divides them, so that no register
    tile is split), for a contraction epilogue blocks of
    `contraction-tile-m` (or more) whole rows, or blocks of
    `contraction-tile-n` columns when there are too few rows for the
    threads (or when a dot-product contraction has more columns than
    rows: a block per thread, with blocks of rows inside where A is
    larger than 512 KiB, so that a block of A stays in cache while the
    weight's panels pass by). Softmax, log_softmax and layer norm thus become one loop nest
    whose temporaries are one row, and biases, batch norm, activations and
    residual adds after a convolution or matmul are computed on its output
    tile while the tile is in cache. `fx-cpu-tile-and-vectorize` then tiles
    and vectorizes each op inside the tile.

    Before grouping, a matmul of A [M, K] by a weight read as [N, K]
    (`linear`) that the CPU does not compute as dot products (k below
    `dot-min-k`) and that has at least 16 rows gets its weight transposed
    once by a `linalg.transpose` outside its region, so that its register
    tiles read the weight along rows (3136 x 96 -> 384 on one thread: 8.6
    -> 2.5 ms). With `transpose-prepared-weights`, so does a weight of at
    most 1 MiB with a longer k that is prepared once (a parameter or a
    weight constant, which `fx-hoist-parameter-computations` computes on at
    binding time): outer products beat dot products there (ConvNeXt's
    3136 x 384 -> 96: 80 -> 160 GFLOP/s on two threads); a larger weight
    would be streamed from memory once per row block of the region.

    The Vulkan pipeline forms its regions with `fx-form-row-kernels`
    instead, which shares these rules.

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
    Option<"packedConvTileF", "packed-conv-tile-f", "int64_t",
           /*default=*/"0",
           "Output channels of the tile of a convolution whose filter is a "
           "parameter or a weight constant (fx-cpu-pack-convolutions' "
           "block; 0: conv-tile-f)">,
    Option<"packedConvTileW", "packed-conv-tile-w", "int64_t",
           /*default=*/"0",
           "Output columns of a packed convolution tile "
           "(fx-cpu-tile-and-vectorize's packed-conv-tile-w): a 1x1 "
           "convolution over a packable filter of an image of at most 64 "
           "pixels whose rows fit one such tile is tiled and packed like a "
           "larger window instead of running as a matmul, and packed "
           "convolutions whose rows are a multiple of it take whole rows "
           "(0: never)">,
    Option<"contractionTileM", "contraction-tile-m", "int64_t",
           /*default=*/"8",
           "Rows of a contraction epilogue tile (doubled while the tile's "
           "output fits in 256 KiB and every thread keeps a tile)">,
    Option<"contractionTileN", "contraction-tile-n", "int64_t",
           /*default=*/"128",
           "Columns of a contraction epilogue tile when the contraction has "
           "too few rows to split among the threads">,
    Option<"dotMinK", "dot-min-k", "int64_t", /*default=*/"256",
           "A contraction reading both operands along k (`linear`'s weight) "
           "with at least this many reduced elements and more columns than "
           "rows is split by columns (fx-cpu-tile-and-vectorize computes it "
           "as dot products, which keep the rows in cache)">,
    Option<"transposePreparedWeights", "transpose-prepared-weights", "bool",
           /*default=*/"false",
           "Transpose the [N, K] weight (at most 1 MiB) of a contraction "
           "with at least 16 rows whatever its k when the weight is a "
           "parameter or a weight constant (set when its computations run "
           "once per binding)">,
    Option<"fuse", "fuse", "bool", /*default=*/"true",
           "Fuse producers into regions; false makes every linalg op but "
           "fills a region of its own (to count the dispatches and bytes of "
           "the unfused graph with `report`)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark per region (its ops, and the bytes it reads and "
           "writes) and per producer/consumer pair that did not fuse">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::affine::AffineDialect",
  ];
}

def FXPrintDispatchGraph : Pass<"fx-print-dispatch-graph", "ModuleOp"> {
  let summary = "Write the dispatch regions of each function as a Graphviz "
                "graph";
  let description = [{
    Runs after `fx-form-dispatch-regions` (the fusion stages of
    `fx-cpu-pipeline`, `--fx-fusion-report` in `fx-opt`) and leaves the IR
    as it is. For each function with a body it writes a DOT `digraph`: a
    box per dispatch region (an op tagged `fx.dispatch`: a region's tile
    loop, a row kernel or a lone root) naming its root, the ops fused into
    it with their source locations and its result type; an ellipse per
    input (a function argument that is not a parameter: parameters are
    counted in the boxes that read them) and per result; an edge per value
    one region reads from another, through the views, pads and
    concatenations between them, labelled with the type the reader sees.
    `dot -Tsvg` draws it. `fx-compile --dispatch-graph=FILE` writes the same
    graph for the code it compiles for the CPU.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the graphs: a file, or - for stderr">,
  ];
}

def FXFormRowKernels : Pass<"fx-form-row-kernels", "func::FuncOp"> {
  let summary = "Form the row kernels of the GPU: softmax, layer norm and "
                "row reductions as one loop over rows";
  let description = [{
    The dispatch regions of the Vulkan pipeline, grouped by the rules of
    `fx-form-dispatch-regions` except that contractions and convolutions
    take no producers. Only *row kernels* are materialized: a region whose
    reductions each produce one value per row (a softmax, log_softmax or
    layer norm; a lone reduction over trailing dimensions such as
    `sum(-1)`; a mean, a sum followed by an elementwise op on its result),
    with f32 or i32 reductions the GPU can combine across a
    workgroup (add, mul, min and max). The region's root is tiled by one
    row (tile size 1 on every dimension but the whole ones) into one
    `scf.forall` tagged `fx.row_kernel`, its loops mapped to
    `#gpu.block<linear_dim_N>` (which also keeps canonicalization from
    dissolving a loop of one row), named ops in it are generalized,
    and its elementwise producers are fused into every consumer
    (recomputed), so that the only temporaries left are the per-row values
    of the reductions. `fx-map-row-kernels-to-gpu` gives each row a
    workgroup. Other regions stay unmaterialized (one kernel per op) and
    are tagged `fx.dispatch = N` like every region; `report` describes them
    as `fx-form-dispatch-regions` does, and says why a region with
    reductions is not a row kernel.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark per region and per producer/consumer pair that did "
           "not fuse, and say why a region is not a row kernel">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::affine::AffineDialect",
    "::mlir::gpu::GPUDialect",
  ];
}

#endif // FX_TRANSFORMS_PASSES_TD
