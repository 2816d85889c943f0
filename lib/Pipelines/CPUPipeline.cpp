//===- CPUPipeline.cpp - FX dialect to LLVM for the host CPU --------------===//

#include "fx/Pipelines/Pipelines.h"

#include "fx/Codegen/CPU/Passes.h"
#include "fx/Conversion/Passes.h"
#include "fx/Dialect/FX/Transforms/Passes.h"
#include "fx/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::fx;

void fx::addCleanup(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

// The pipelines are built from typed pass constructors, so a misspelled
// pass or option fails to build rather than at run time; every stage is
// still a registered pass, runnable and tested on its own with fx-opt, and
// `--dump-pass-pipeline` prints the pipeline as text.

static FXCPUTileAndVectorizeOptions cpuTiling(const CPUPipelineOptions &o);
static int64_t packedConvBlock(const CPUPipelineOptions &o);

void fx::buildFusionStages(OpPassManager &pm,
                           const CPUPipelineOptions &options) {
  // FX level: folds (batch norms into convolutions with constant weights,
  // with fusion on), then lowering to linalg on tensors.
  OpPassManager &fn = pm.nest<func::FuncOp>();
  fn.addPass(createCanonicalizerPass());
  if (options.fuseElementwise)
    fn.addPass(createFXFoldConvBatchNorm());
  fn.addPass(createConvertFXToLinalg());
  if (options.fuseElementwise && options.channelsLast)
    fn.addPass(createFXConvsChannelsLast());
  // The CPU's patchify convolutions are matmuls (before fusion: their
  // epilogues fuse into the matmul). The GPU's implicit-GEMM kernels take
  // them as they are.
  if (options.fuseElementwise && options.dispatchRegions)
    fn.addPass(createFXPatchConvolutionsToMatmuls());
  addCleanup(pm);
  if (options.fuseElementwise) {
    // Elementwise chains fuse into single generics; dispatch regions then
    // pull reductions and convolutions into their consumers' tile loops.
    // Without dispatch regions (the GPU's pipeline), an op left apart is a
    // dispatch or loop nest of its own: recomputing a costly broadcast
    // producer per element costs less there.
    FXFuseElementwiseOptions fuse;
    fuse.recomputeCostlyBroadcasts = !options.dispatchRegions;
    pm.addNestedPass<func::FuncOp>(createFXFuseElementwise(fuse));
    addCleanup(pm);
  }
  if (options.fuseElementwise && options.dispatchRegions) {
    FXFormDispatchRegionsOptions regions;
    regions.threads = options.threads;
    regions.report = options.fusionReport;
    // Convolution regions are tiled like the convolution inside them.
    FXCPUTileAndVectorizeOptions tiling = cpuTiling(options);
    regions.convTileF = tiling.convTileF;
    regions.convTileW = tiling.convTileW;
    if (options.hoistParameters && options.vectorize) {
      regions.packedConvTileF = packedConvBlock(options);
      regions.packedConvTileW = tiling.packedConvTileW;
    }
    regions.dotMinK = tiling.dotMinK;
    regions.transposePreparedWeights = options.hoistParameters;
    pm.addNestedPass<func::FuncOp>(createFXFormDispatchRegions(regions));
    // (Before the cleanup, which folds the loop of a one-tile region into
    // its body, tag and all.)
    if (options.dispatchGraphStream) {
      pm.addPass(
          createFXPrintDispatchGraphToStream(*options.dispatchGraphStream));
    } else if (!options.dispatchGraph.empty()) {
      FXPrintDispatchGraphOptions graph;
      graph.output = options.dispatchGraph;
      pm.addPass(createFXPrintDispatchGraph(graph));
    }
    addCleanup(pm);
  }
}

void fx::buildBufferizationStages(OpPassManager &pm) {
  // Concatenations become views of one buffer their parts are computed
  // into.
  pm.addNestedPass<func::FuncOp>(createFXConcatInPlace());
  // Inputs and parameters are the caller's: never written in place.
  pm.addPass(createFXMarkInputsReadOnly());
  // Every result its own buffer (each becomes an out-parameter).
  pm.addPass(createFXDistinctResults());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Tiled loops carry their output buffer and copy each tile onto itself;
  // CSE + canonicalization fold both, so the result is the allocation
  // itself and buffer-results-to-out-params replaces it by the caller's
  // buffer.
  addCleanup(pm);
  pm.addPass(createCanonicalizerPass());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createCanonicalizerPass());
}

/// Tile sizes for the target's vector registers.
///
/// Elementwise and reduction tiles are 16 f32, at least one register: one
/// AVX-512 register, two AVX2 ones. Two registers per op hide the latency
/// of reductions and exp: on a Zen 4 host, code for x86-64-v3 ran softmax
/// 4096x4096 in 28.8 ms with 16 lanes and 37.7 ms with 8
/// (bench/cpu/run.py); on AVX-512, 32 lanes sped softmax up (31.0 -> 27.6
/// ms) but slowed a 4-op elementwise chain (8.2 -> 8.6 ms), so 16 stays.
///
/// A matmul tile of M rows and N columns keeps M x N/lanes accumulators in
/// registers across the k loop, with N/lanes registers of B and one
/// broadcast element of A: 8 x 2 + 3 = 19 of AVX-512's 32 registers (8x32
/// f32), 6 x 2 + 3 = 15 of AVX2's 16 (6x16, as BLIS's Haswell kernel). The
/// 8x32 tile on AVX2 needs 32 accumulators and spilled them to the stack on
/// every k step: 1024^3 took 54.7 ms on one thread, 6x16 takes 32.2 ms.
///
/// A convolution tile is F output channels by one vector of output columns
/// (NCHW: the columns are contiguous), updated by one FMA per channel with a
/// broadcast filter element: F accumulators, one input row, one broadcast.
/// 16 x 16 on AVX-512 (3x3, 64 channels at 56x56, one Zen 4 thread: 2.16
/// ms, oneDNN 2.08), 12 x 8 on AVX2 (16 x 16 needed 32 registers there).
///
/// A dot-product tile (`linear`'s weight is [N, K], contiguous along k) of
/// M x N outputs keeps M x N vectors of partial sums: 4 x 4 on AVX-512, 3 x
/// 4 on AVX2 (12 accumulators, 3 rows of A; B's rows are FMA operands).
static FXCPUTileAndVectorizeOptions cpuTiling(const CPUPipelineOptions &o) {
  FXCPUTileAndVectorizeOptions tiling;
  tiling.threads = o.threads;
  int64_t lanes = std::max<int64_t>(4, o.vectorBits / 32);
  tiling.vectorWidth = std::max<int64_t>(16, lanes);
  tiling.tileN = 2 * lanes;
  tiling.tileM = o.vectorRegisters >= 32 ? 8 : 6;
  tiling.convTileW = lanes;
  tiling.convTileF = o.vectorRegisters >= 32 ? 16 : 12;
  // Depthwise tiles of 4 rows: 16 accumulators with 32 registers, 8 with
  // AVX2's 16 (16 spilled there: mobilenet_v2 for x86-64-v3 on the
  // AVX-512 Xeon, alternated minima, 6.29 -> 6.51 ms).
  tiling.depthwiseTileC = o.vectorRegisters >= 32 ? 4 : 2;
  // Packed convolution tiles hold the accumulators of a block of channels
  // per output column (two registers), leaving four registers for the
  // filter and the broadcasts.
  int64_t perColumn = llvm::divideCeil(packedConvBlock(o), lanes);
  tiling.packedConvTileW =
      std::max<int64_t>(1, (o.vectorRegisters - 4) / perColumn);
  tiling.registerLanes = lanes;
  tiling.dotTileM = o.vectorRegisters >= 32 ? 4 : 3;
  tiling.dotTileN = 4;
  return tiling;
}

/// Output channels per packed filter block: two vector registers (32 f32
/// on AVX-512, 16 on AVX2), at least 16, which divides the channel counts
/// of common networks. Each input element broadcast then feeds two FMAs
/// and each filter load a column tile of half the width: with one AVX-512
/// register per column (16 channels, 28 columns) every FMA needed a load of
/// its own. Per-loop minima on a 2-thread AVX-512 Xeon (resnet18 at batch
/// 8, bench/models/ab_profile.py): its 3x3 convolutions 6.0-8.8 -> 5.2-8.4
/// ms each, the model 122 -> 107 ms; a lone 3x3 convolution 8x512x7x7 9.0
/// -> 6.2 ms. (Blocks of 64, four registers, were slower at 14x14 and 7x7.)
static int64_t packedConvBlock(const CPUPipelineOptions &o) {
  return std::max<int64_t>(16, 2 * (o.vectorBits / 32));
}

void fx::buildCPUPipeline(OpPassManager &pm,
                          const CPUPipelineOptions &options) {
  buildFusionStages(pm, options);
  if (options.hoistParameters) {
    // Convolution filters are packed once per binding of the weights, so
    // the convolution tiles can read them packed (with the hoisting only:
    // packing every run would cost more than it gains).
    if (options.vectorize && options.fuseElementwise &&
        options.dispatchRegions) {
      FXCPUPackConvolutionsOptions packing;
      packing.block = packedConvBlock(options);
      pm.addNestedPass<func::FuncOp>(createFXCPUPackConvolutions(packing));
      // Matmuls by a weight read it in panels of their register tile's
      // width.
      FXCPUTileAndVectorizeOptions tiling = cpuTiling(options);
      FXCPUPackMatmulsOptions panels;
      panels.block = tiling.tileN;
      panels.minRows = tiling.tileM;
      panels.threads = options.threads;
      pm.addNestedPass<func::FuncOp>(createFXCPUPackMatmuls(panels));
    }
    pm.addPass(createFXHoistParameterComputations());
    addCleanup(pm);
  }
  if (options.vectorize) {
    // Register-blocked contractions keep their accumulator in registers
    // across the k loop once the loop-invariant subset is hoisted.
    FXCPUTileAndVectorizeOptions tiling = cpuTiling(options);
    // Row loops compute an elementwise value and its reduction together.
    pm.addNestedPass<func::FuncOp>(createFXCPUFuseRowReductions());
    pm.addNestedPass<func::FuncOp>(createFXCPUTileAndVectorize(tiling));
    addCleanup(pm);
    pm.addPass(createLoopInvariantSubsetHoistingPass());
    pm.addPass(createCanonicalizerPass());
    // Row reductions (softmax's max and sum, layer norm's, means) combine
    // vectors lane by lane in the loop and reduce across lanes once.
    pm.addNestedPass<func::FuncOp>(createFXCPUVectorAccumulators());
  }
  if (options.emitCInterface)
    pm.addPass(createFXEmitCInterface());
  // Padded convolution inputs: their producers write the interior of the
  // padded buffer (no copy of every padded tensor).
  pm.addNestedPass<func::FuncOp>(createFXPadInPlace());
  // Each op writing into a filled tensor fills its own (no copies of one
  // shared filled buffer).
  pm.addNestedPass<func::FuncOp>(createFXUnshareFills());
  // Tensors to buffers; internal buffers are freed by the ownership-based
  // deallocation.
  buildBufferizationStages(pm);
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Pad columns are filled by the tiles that write their rows.
  pm.addNestedPass<func::FuncOp>(createFXCPUFillBordersInTiles());
  // Parallel chunks (scf.forall) become outlined bodies ...
  pm.addPass(createFXOutlineForall());
  // Packed convolutions fetch the next block of their filter meanwhile.
  pm.addNestedPass<func::FuncOp>(createFXCPUPrefetchPackedFilters());
  // Buffers larger than the cache are written without reading their lines
  // first (x86-64 only: the pass fences with sfence).
  if (options.streamingStoreBytes > 0) {
    FXCPUStreamingStoresOptions streaming;
    streaming.minBytes = options.streamingStoreBytes;
    pm.addNestedPass<func::FuncOp>(createFXCPUStreamingStores(streaming));
  }
  // Row normalizations fetch their next row while they compute this one.
  pm.addNestedPass<func::FuncOp>(createFXCPUPrefetchNextRows());
  // ... and write a row's results during the next row's arithmetic.
  pm.addNestedPass<func::FuncOp>(createFXCPUPipelineRows());
  // Tile temporaries: one stack slot per function, not a heap buffer per
  // tile.
  pm.addNestedPass<func::FuncOp>(createFXTileBuffersToStack());
  // A function's temporaries share one arena by their live ranges: a run
  // touches far less memory, and a layer's output lands where recent ones
  // did, in cache.
  pm.addNestedPass<func::FuncOp>(createFXTemporaryArena());
  // Constant buffers (frozen weights) as 1-d globals: one LLVM constant
  // each, not one per innermost row.
  pm.addPass(createFXFlattenGlobals());
  // Loops, then LLVM. The per-function stages run on the functions in
  // parallel (MLIR's context thread pool): after outlining, every parallel
  // chunk is a function of its own.
  OpPassManager &funcs = pm.nest<func::FuncOp>();
  funcs.addPass(createConvertLinalgToLoopsPass());
  VectorTransferToSCFOptions transfers;
  transfers.enableFullUnroll();
  funcs.addPass(createConvertVectorToSCFPass(transfers));
  // Unrolled transfers of strided 1-element rows leave loops of one
  // iteration (256 per 3x3 convolution tile); LLVM's loop passes would
  // spend seconds on thousands of them. Canonicalization inlines them.
  funcs.addPass(createCanonicalizerPass());
  funcs.addPass(vector::createLowerVectorMaskPass());
  funcs.addPass(createLowerAffinePass());
  funcs.addPass(createSCFToControlFlowPass());
  funcs.addPass(memref::createExpandStridedMetadataPass());
  funcs.addPass(createLowerAffinePass());
  // To LLVM: the passes that add declarations to the module run on it,
  // the others per function (in parallel), in the same order.
  pm.addPass(createConvertMathToFuncs());
  pm.addNestedPass<func::FuncOp>(createConvertVectorToLLVMPass());
  // Temporaries come from the runtime's caching allocator
  // (fx/Runtime/HostAllocator.h), not straight from malloc.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addNestedPass<func::FuncOp>(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  OpPassManager &scalars = pm.nest<func::FuncOp>();
  scalars.addPass(createArithToLLVMConversionPass());
  scalars.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  // ... called through the runtime's thread pool.
  pm.addPass(createFXForallToRuntime());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // Boolean tensors hold a byte per element, also for vector code.
  pm.addPass(createFXByteBoolVectors());
}

void fx::buildFusionReportPipeline(OpPassManager &pm,
                                   const CPUPipelineOptions &options) {
  CPUPipelineOptions reporting;
  reporting.threads = options.threads;
  reporting.fuseElementwise = options.fuseElementwise;
  reporting.dispatchRegions = options.dispatchRegions;
  reporting.fusionReport = true;
  reporting.dispatchGraph = options.dispatchGraph;
  buildFusionStages(pm, reporting);
}

void fx::registerCPUPipeline() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "fx-fusion-report",
      "Run the fusion stages of fx-cpu-pipeline (FX folds, "
      "convert-fx-to-linalg, fx-fold-conv-batch-norm, fx-fuse-elementwise, "
      "fx-form-dispatch-regions) and report every dispatch region (ops, "
      "bytes read and written) and every producer that did not fuse, with "
      "the reason, as remarks at the ops' source locations; the output is "
      "the fused linalg IR",
      buildFusionReportPipeline);
  PassPipelineRegistration<CPUPipelineOptions>(
      "fx-cpu-pipeline",
      "Lower the FX dialect to the LLVM dialect for the host CPU: FX folds, "
      "convert-fx-to-linalg, elementwise fusion, one-shot bufferization with "
      "outputs as caller-provided buffers, loops, LLVM",
      buildCPUPipeline);
}
