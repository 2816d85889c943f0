//===- Pipelines.h - registered FX compilation pipelines --------*- C++ -*-===//

#ifndef FX_PIPELINES_PIPELINES_H
#define FX_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/LogicalResult.h"

#include <optional>
#include <string>
#include <vector>

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
  /// Convolutions and poolings in NHWC (fx-convs-channels-last), set by
  /// the Vulkan pipeline only: the CPU's convolution tiles are NCHW ones,
  /// and an NHWC convolution there runs as scalar loops (resnet18 took
  /// 1.2 s instead of 14 ms).
  bool channelsLast = false;
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
  Option<int64_t> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Bits per vector register of the target CPU (512: "
                     "AVX-512, 256: AVX2, 128: SSE or NEON): the vector "
                     "width of elementwise and reduction tiles and, with "
                     "vector-registers, the matmul register tile. fx-run, "
                     "fx-compile and fx::Compiler derive both from the CPU "
                     "they compile for"),
      llvm::cl::init(512)};
  Option<int64_t> vectorRegisters{
      *this, "vector-registers",
      llvm::cl::desc("Vector registers of the target CPU (32 with AVX-512 "
                     "or NEON, 16 with AVX2 or SSE)"),
      llvm::cl::init(32)};
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
  Option<bool> hoistParameters{
      *this, "hoist-parameters",
      llvm::cl::desc("Move computations on parameters alone (weights "
                     "transposed for the register tiles) into a "
                     "`<name>__prepare` function that the runtime calls once "
                     "per binding of the weights; the entry takes its "
                     "results as extra arguments "
                     "(fx-hoist-parameter-computations)"),
      llvm::cl::init(false)};
  Option<int64_t> streamingStoreBytes{
      *this, "streaming-store-bytes",
      llvm::cl::desc("Write buffers of at least this many bytes, which a "
                     "kernel only writes, with non-temporal stores "
                     "(fx-cpu-streaming-stores; x86-64 code only); 0, the "
                     "default here, keeps ordinary stores. fx-run, "
                     "fx-compile and fx::Compiler set it to the last-level "
                     "cache of the CPU they compile for"),
      llvm::cl::init(0)};
  Option<std::string> dispatchGraph{
      *this, "dispatch-graph",
      llvm::cl::desc("Write the dispatch regions of each function to this "
                     "file as a Graphviz graph right after they are formed "
                     "(fx-print-dispatch-graph; - for stderr)"),
      llvm::cl::init("")};

  /// If not null, the dispatch graph goes to this stream instead (a C++
  /// hook for fx::Compiler, not a textual option).
  llvm::raw_ostream *dispatchGraphStream = nullptr;
};

/// Adds canonicalize and cse at the level of `pm`: the cleanup after each
/// stage.
void addCleanup(OpPassManager &pm);

/// The FX and linalg-on-tensors stages of the pipelines: FX folds, lowering
/// to linalg, and the fusion passes (what `fx-fusion-report` runs on its
/// own).
void buildFusionStages(OpPassManager &pm, const CPUPipelineOptions &options);

/// Tensors to buffers: the calling convention of both pipelines (inputs
/// then caller-provided outputs, all identity-layout memrefs), with the
/// result buffers replaced by the outputs. Deallocation, which only the CPU
/// needs, is not included.
void buildBufferizationStages(OpPassManager &pm);

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

/// Options of `fx-vulkan-pipeline`.
struct VulkanPipelineOptions
    : public PassPipelineOptions<VulkanPipelineOptions> {
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fold batch norms into convolutions with constant "
                     "weights and fuse producer/consumer chains of "
                     "elementwise linalg ops (each fused op is one kernel)"),
      llvm::cl::init(true)};
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("The SPIR-V target environment: a named profile "
                     "(vulkan13, the default: a generic Vulkan 1.3 desktop "
                     "GPU; lavapipe; nvidia-h200: with tensor cores) or "
                     "'caps=CAP,CAP...' listing SPIR-V capabilities (what "
                     "fx-run derives from the probed device)"),
      llvm::cl::init("vulkan13")};
  Option<int64_t> workgroupSize{
      *this, "workgroup-size",
      llvm::cl::desc("Threads per workgroup of elementwise and loop kernels"),
      llvm::cl::init(256)};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("How f32 matmuls and convolutions use the tensor cores "
                     "of targets with cooperative matrices: highest (true "
                     "f32 on the SIMT cores), high (bf16x3, about 16 bits "
                     "of mantissa), medium (bf16 operands, f32 "
                     "accumulation)"),
      llvm::cl::init("high")};
  Option<int64_t> rowWorkgroupSize{
      *this, "row-workgroup-size",
      llvm::cl::desc("Most threads per workgroup of row kernels (softmax, "
                     "layer norm; half of it for a row read once, as a lone "
                     "row reduction; a power of two)"),
      llvm::cl::init(512)};
  Option<bool> report{
      *this, "report",
      llvm::cl::desc("Remark, at each matmul's and convolution's source "
                     "location, which kernel it became (cooperative "
                     "matrices or SIMT, tile, k step and split, what it "
                     "fused) or why not the tensor cores"),
      llvm::cl::init(false)};
  Option<bool> channelsLast{
      *this, "channels-last",
      llvm::cl::desc("Compute NCHW convolutions and poolings in NHWC, the "
                     "layout changes pushed through elementwise ops until "
                     "they cancel (fx-convs-channels-last; experimental: on "
                     "an H200, resnet50 at batch 32 took 1.6x as long)"),
      llvm::cl::init(false)};
};

/// FX dialect -> host function of gpu.launch_func calls + one spirv.module
/// per kernel. After it, the public function takes its inputs and then its
/// outputs as identity-layout memrefs, and its body holds only constants,
/// allocations, global constant buffers, launches and deallocations (the
/// schedule the Vulkan runtime replays). Fails for an unknown target, or a
/// capability list that spirv-attach-target rejects.
LogicalResult buildVulkanPipeline(OpPassManager &pm,
                                  const VulkanPipelineOptions &options);

/// A SPIR-V target environment: what spirv-attach-target gives the kernels.
struct SPIRVTarget {
  /// "v1.3", or "v1.6" with cooperative matrices.
  std::string version;
  std::vector<std::string> capabilities;
  std::vector<std::string> extensions;
  /// Kernels may use VK_KHR_cooperative_matrix (f16 fragments) ...
  bool cooperativeMatrix = false;
  /// ... and bf16 ones (VK_KHR_shader_bfloat16).
  bool bf16CooperativeMatrix = false;
  /// The spirv-attach-target options as pass-pipeline text (for messages
  /// and cache keys).
  std::string str() const;
};

/// The target environment of a target profile or capability list (see
/// VulkanPipelineOptions::target), or nullopt for an unknown profile or
/// capability name.
std::optional<SPIRVTarget> getSPIRVTarget(llvm::StringRef target);

/// The named profiles and the caps= form, for --help texts and errors.
std::string vulkanTargetHelp();

/// Registers `fx-vulkan-pipeline`.
void registerVulkanPipeline();

} // namespace fx
} // namespace mlir

#endif // FX_PIPELINES_PIPELINES_H
