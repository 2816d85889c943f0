//===- Pipelines.h - registered FX compilation pipelines ---------*- C++
//-*-===//

#ifndef FX_PIPELINES_PIPELINES_H
#define FX_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace fx {

/// Options of `fx-cpu-pipeline`.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fusion: fold batch norms into convolutions with "
                     "constant weights (fx-fold-conv-batch-norm), fuse "
                     "producer/consumer chains of elementwise "
                     "linalg ops, then form dispatch regions "
                     "(fx-form-dispatch-regions: reductions, softmax/layer "
                     "norm and convolution epilogues in one loop nest)"),
      llvm::cl::init(true)};
  Option<bool> dispatchRegions{
      *this, "dispatch-regions",
      llvm::cl::desc("With fusion on, also form dispatch regions "
                     "(fx-form-dispatch-regions); off keeps elementwise "
                     "fusion only"),
      llvm::cl::init(true)};
  Option<bool> fusionReport{
      *this, "fusion-report",
      llvm::cl::desc("Emit a remark per dispatch region and per "
                     "producer/consumer pair that did not fuse, at the ops' "
                     "source locations"),
      llvm::cl::init(false)};
  Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize linalg ops for the host's vector "
                     "registers (fx-cpu-tile-and-vectorize); off gives plain "
                     "scalar loops"),
      llvm::cl::init(true)};
  Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Split large ops into this many parallel chunks run on "
                     "the runtime's thread pool (0: the host's hardware "
                     "threads, 1: single-threaded code)"),
      llvm::cl::init(0)};
  Option<bool> emitCInterface{
      *this, "emit-c-interface",
      llvm::cl::desc("Give every public function a C-callable "
                     "`_mlir_ciface_` wrapper taking memref descriptors"),
      llvm::cl::init(true)};
};

/// FX dialect -> LLVM dialect for the host CPU. After it, every public
/// function takes its inputs and then its outputs as memrefs with identity
/// layout (results become caller-provided output buffers).
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// The fusion stages of the CPU pipeline with the fusion report on
/// (`fx-fusion-report`).
void buildFusionReportPipeline(OpPassManager &pm,
                               const CPUPipelineOptions &options);

/// Registers `fx-cpu-pipeline` and `fx-fusion-report` with the pass
/// registry.
void registerCPUPipeline();

} // namespace fx
} // namespace mlir

#endif // FX_PIPELINES_PIPELINES_H
