//===- CPUPipeline.cpp - FX dialect to LLVM for the host CPU --------------===//

#include "fx/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <string>

using namespace mlir;

std::string fx::buildFusionStages(const CPUPipelineOptions &options) {
  std::string pipeline =
      // FX level: folds (batch norms into convolutions with constant
      // weights, with fusion on), then lowering to linalg on tensors.
      std::string("func.func(canonicalize,") +
      (options.fuseElementwise ? "fx-fold-conv-batch-norm," : "") +
      "convert-fx-to-linalg),canonicalize,cse";
  if (options.fuseElementwise)
    // Elementwise chains fuse into single generics; dispatch regions then
    // pull reductions and convolutions into their consumers' tile loops.
    pipeline += ",func.func(fx-fuse-elementwise),canonicalize,cse";
  if (options.fuseElementwise && options.dispatchRegions)
    pipeline += ",func.func(fx-form-dispatch-regions{threads=" +
                std::to_string(options.threads) +
                (options.fusionReport ? " report=true" : "") +
                "}),canonicalize,cse";
  return pipeline;
}

std::string fx::buildBufferizationStages() {
  // Inputs and parameters are the caller's: never written in place.
  return ",fx-mark-inputs-read-only"
         ",one-shot-bufferize{bufferize-function-boundaries "
         "function-boundary-type-conversion=identity-layout-map}"
         // Tiled loops carry their output buffer and copy each tile onto
         // itself; CSE + canonicalization fold both, so the result is the
         // allocation itself and buffer-results-to-out-params replaces it by
         // the caller's buffer.
         ",canonicalize,cse,canonicalize"
         ",buffer-results-to-out-params{hoist-static-allocs=true "
         "modify-public-functions=true}"
         ",canonicalize";
}

void fx::buildCPUPipeline(OpPassManager &pm,
                          const CPUPipelineOptions &options) {
  // The pipeline is spelled as pass-pipeline text: every stage is a
  // registered pass with its own lit test, visible and runnable on its own
  // with fx-opt, and the text is what `--dump-pass-pipeline` prints.
  std::string pipeline = buildFusionStages(options);
  if (options.vectorize)
    // Register-blocked contractions keep their accumulator in registers
    // across the k loop once the loop-invariant subset is hoisted.
    pipeline +=
        ",func.func(fx-cpu-tile-and-vectorize{threads=" +
        std::to_string(options.threads) +
        "}),canonicalize,cse,loop-invariant-subset-hoisting,canonicalize";
  if (options.emitCInterface)
    pipeline += ",fx-emit-c-interface";
  // Tensors to buffers; internal buffers are freed by the ownership-based
  // deallocation.
  pipeline += buildBufferizationStages();
  pipeline +=
      ",buffer-deallocation-pipeline"
      ",convert-bufferization-to-memref"
      // Parallel chunks (scf.forall) become outlined bodies ...
      ",fx-outline-forall"
      // Loops, then LLVM.
      ",func.func(convert-linalg-to-loops)"
      ",convert-vector-to-scf{full-unroll=true},func.func(lower-vector-mask)"
      ",lower-affine,convert-scf-to-cf,expand-strided-metadata,lower-affine"
      ",convert-math-to-funcs,convert-vector-to-llvm,finalize-memref-to-llvm"
      ",convert-math-to-llvm"
      ",convert-math-to-libm"
      ",convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm"
      // ... called through the runtime's thread pool.
      ",fx-forall-to-runtime"
      ",convert-cf-to-llvm,convert-ub-to-llvm,reconcile-unrealized-casts";
  if (failed(parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error("fx-cpu-pipeline: invalid pass pipeline text");
}

void fx::buildFusionReportPipeline(OpPassManager &pm,
                                   const CPUPipelineOptions &options) {
  CPUPipelineOptions reporting;
  reporting.threads = options.threads;
  reporting.fuseElementwise = options.fuseElementwise;
  reporting.dispatchRegions = options.dispatchRegions;
  reporting.fusionReport = true;
  if (failed(parsePassPipeline(buildFusionStages(reporting), pm)))
    llvm::report_fatal_error("fx-fusion-report: invalid pass pipeline text");
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
