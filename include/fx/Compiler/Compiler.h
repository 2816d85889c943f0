//===- Compiler.h - the C++ embedding API of the compiler -------*- C++ -*-===//
//
// Compile an FX-dialect function (a file, a string or a module) into a
// loaded model (fx/Runtime/Model.h), ready to run:
//
//   fx::CompilerOptions options;
//   options.target = "cpu";
//   options.cacheDir = "/tmp/fx-cache";
//   fx::Compiler compiler(options);
//   auto model = compiler.compileFile("model.mlir");
//   if (!model.isOk()) { print(model.message()); return; }
//   model.value()->bindWeights("model.safetensors");
//   auto outputs = model.value()->run({fx::rt::Tensor::wrap(data, ...)});
//
// Errors come back as fx::rt::Status / Result values carrying the message
// (with source locations for errors in the IR); nothing is thrown and bad
// input never aborts.
//
// Compiled code goes through an artifact (fx/Runtime/Artifact.h), so the
// same code can be saved with compileToArtifact + rt::writeArtifact and run
// elsewhere by the runtime alone. With a cache directory, artifacts are
// kept on disk under a key hashing the IR, the options, the target (the CPU
// or the device's capabilities) and the compiler build: compiling the same
// model again loads the artifact instead of compiling.
//
//===----------------------------------------------------------------------===//

#ifndef FX_COMPILER_COMPILER_H
#define FX_COMPILER_COMPILER_H

#include "fx/Runtime/Artifact.h"
#include "fx/Runtime/Model.h"
#include "fx/Runtime/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class ModuleOp;
} // namespace mlir

namespace fx {

/// Compilation modes, in the spirit of torch.compile's:
///  - Default: fusion, tiled and vectorized kernels. On Vulkan the whole
///    graph is recorded into one command buffer once and replayed, and
///    parameters stay resident on the device (uploaded when first bound):
///    what torch.compile's reduce-overhead adds with CUDA graphs.
///  - ReduceOverhead: the same code as Default, which already has the
///    replayed command buffer and resident parameters; accepted so that
///    torch.compile users can keep their mode (CompileStats::notes says
///    so).
///  - MaxAutotune: Vulkan: compiles the entry with several workgroup sizes
///    (128, 256 and 512 threads; row kernels 256 and 512), times each on
///    the device with random inputs, and keeps the fastest (the timings are
///    in CompileStats::notes). Longer compiles, for models run many times.
///    On the CPU it compiles like Default.
enum class CompileMode { Default, ReduceOverhead, MaxAutotune };

/// "default", "reduce-overhead" or "max-autotune".
const char *modeName(CompileMode mode);
/// The mode of that name, or an error listing the names.
rt::Result<CompileMode> parseMode(const std::string &name);
/// Checks a CompilerOptions::subBatch value: auto, off or a positive number.
rt::Status checkSubBatch(const std::string &value);
/// Checks a CompilerOptions::streamingStores value: auto, off or a positive
/// number of bytes.
rt::Status checkStreamingStores(const std::string &value);

/// Everything that decides how the compiler compiles: the one options type
/// of the embedding API, fx-run and fx-compile (whose flags set these
/// fields, fx/Compiler/CompilerFlags.h) and the C API.
struct CompilerOptions {
  /// cpu or vulkan. Compiling to an artifact also takes "all": CPU code
  /// and a Vulkan program in each entry (what fx-compile writes by
  /// default).
  std::string target = "cpu";
  CompileMode mode = CompileMode::Default;

  /// Fusion: batch-norm folding, elementwise fusion and dispatch regions
  /// (off: one kernel per op).
  bool fusion = true;
  /// With fusion, also form dispatch regions (off: elementwise fusion
  /// only; reductions and convolution epilogues stay separate loops).
  bool dispatchRegions = true;
  /// Emit a remark per dispatch region and per producer that did not fuse
  /// (CPU), per matmul and convolution kernel (Vulkan), at the ops' source
  /// locations (CompileStats::diagnostics).
  bool fusionReport = false;

  /// If not empty, each compile writes its input IR
  /// (<entry>.input.mlir) and the code: <entry>.ll and <entry>.s for the
  /// CPU, <entry>-<n>-<kernel>.spv for Vulkan.
  std::string dumpDir;
  /// If not empty, the on-disk compile cache (created if missing).
  std::string cacheDir;
  /// The function compileFile/compileString/compileModule compile; empty:
  /// the only public one.
  std::string entry;
  /// Shapes for every argument of `entry`, in order, to specialize dynamic
  /// dimensions; empty: the arguments must be static.
  std::vector<std::vector<int64_t>> argumentShapes;

  /// CPU: native or an LLVM CPU name (x86-64-v3, ...).
  std::string cpu = "native";
  /// CPU: the CPU whose scheduling model LLVM's code generation follows:
  /// auto (see CPUCompileOptions::tuneCPU) or an LLVM CPU name.
  std::string tuneCPU = "auto";
  /// CPU: how a batch-separable entry (each index of its inputs' outermost
  /// dimension computed on its own: most convolution nets) runs a batch:
  /// "auto" (calls of one item where the caches hold one item's
  /// temporaries and the weights better than a whole batch's temporaries;
  /// see docs/Pipelines.md), "off" (the whole batch in one call), or a
  /// number N of items per call (a divisor of the batch; an error if the
  /// entry cannot be split). The CPU code then computes N items and the
  /// runtime calls it once per slice (rt::CPUCode::subBatch).
  std::string subBatch = "auto";
  /// CPU: parallel chunks per large op (0: the hardware threads).
  int64_t threads = 0;
  /// CPU: tile and vectorize (off: scalar loops).
  bool vectorize = true;
  /// CPU, x86-64 code: buffers a kernel only writes and at least this large
  /// are written with non-temporal stores: "auto" (the last-level cache of
  /// the CPU compiled for), "off", or a size in bytes.
  std::string streamingStores = "auto";
  /// CPU: the ELF linker; empty: ld.lld from PATH or LLVM's bin dir.
  std::string linker;
  /// CPU: keep the optimized LLVM IR and the assembly of each compile in
  /// CompileStats (fx-compile --emit).
  bool keepCPUText = false;
  /// CPU: keep the dispatch regions of each compile as a Graphviz graph in
  /// CompileStats (fx-compile --dispatch-graph). With dumpDir, the graph is
  /// also written there as <entry>.dispatch.dot.
  bool keepDispatchGraph = false;

  /// Vulkan: the SPIR-V target environment, a named profile (vulkan13,
  /// lavapipe, nvidia-h200) or "caps=CAP,..."; empty: what the device of
  /// vulkanDevice supports. A named target compiles without a device.
  std::string vulkanTarget;
  /// Vulkan: threads per workgroup of elementwise and loop kernels, and
  /// the most of row kernels (max-autotune tries others).
  int64_t workgroupSize = 256;
  int64_t rowWorkgroupSize = 512;
  /// Vulkan: how f32 matmuls and convolutions use tensor cores (targets
  /// with cooperative matrices), like torch.set_float32_matmul_precision:
  /// "highest" (true f32, SIMT cores), "high" (bf16x3: three bf16 products
  /// per f32 one, about 16 bits of mantissa: more than the TF32 that
  /// PyTorch's convolutions use by default), "medium" (bf16 operands).
  /// f32 accumulation in all three.
  std::string precision = "high";
  /// Vulkan: plan temporaries into one arena, sharing memory between those
  /// never live at once.
  bool reuseTemporaries = true;
  /// Vulkan: compute NCHW convolutions and poolings channels last (NHWC),
  /// the layout changes between them cancelled (fx-convs-channels-last).
  /// Experimental: slower than NCHW with the kernels of today.
  bool channelsLast = false;
  /// Vulkan: the device (-1: FX_VULKAN_DEVICE, else the first discrete
  /// GPU, else 0) and the validation layer.
  int vulkanDevice = -1;
  bool vulkanValidation = false;
};

/// What the last compile did.
struct CompileStats {
  /// The artifact came from the cache.
  bool cacheHit = false;
  /// Wall time of the compile (or of the cache lookup and load).
  double milliseconds = 0;
  /// The cache key (hex), also without a cache directory.
  std::string cacheKey;
  /// Remarks for people: what max-autotune chose, a damaged cache file
  /// that was replaced, ...
  std::vector<std::string> notes;
  /// Warnings and remarks of the compile (the fusion report), as MLIR
  /// prints them: with locations and the source lines they point at.
  std::string diagnostics;
  /// With CompilerOptions::keepCPUText: the CPU code as optimized LLVM IR
  /// and as assembly (empty for a cache hit).
  std::string llvmIR, assembly;
  /// With CompilerOptions::keepDispatchGraph: the dispatch regions of the
  /// CPU code as a DOT digraph (empty for a cache hit).
  std::string dispatchGraph;
};

/// One function to compile.
struct EntryRequest {
  /// Its name; empty: the only public function with a body.
  std::string name;
  /// Shapes for every argument, in order, to specialize dynamic dimensions
  /// to; empty: as declared (dynamic dimensions compile for Vulkan only).
  std::vector<std::vector<int64_t>> argumentShapes;
  /// Completes the error for an argument that must be static, in the
  /// caller's terms (a flag, an option); empty: names argumentShapes.
  std::string staticHint;
};

/// A function of a Source as declared.
struct DeclaredEntry {
  std::string name;
  rt::FunctionSignature signature;
};

/// FX-dialect IR parsed into a compiler's context. Keeps the text, so the
/// compiler's diagnostics quote the lines they point at.
class Source {
public:
  ~Source();
  Source(const Source &) = delete;
  Source &operator=(const Source &) = delete;

  mlir::ModuleOp module() const;
  /// The public functions with a body, in order: the possible entries.
  std::vector<std::string> entryPoints() const;

  struct Impl;

private:
  friend class Compiler;
  Impl &impl() { return *state; }
  explicit Source(std::unique_ptr<Impl> state);
  std::unique_ptr<Impl> state;
};

/// Compiles FX-dialect IR. Holds an MLIR context with every dialect the
/// compiler needs; one compile at a time.
class Compiler {
public:
  explicit Compiler(CompilerOptions options = {});
  ~Compiler();
  Compiler(const Compiler &) = delete;
  Compiler &operator=(const Compiler &) = delete;

  const CompilerOptions &options() const;

  /// The context modules given to compileModule must live in.
  mlir::MLIRContext &context();

  /// Compiles the file at `path` and loads the result.
  rt::Result<std::unique_ptr<rt::Model>> compileFile(const std::string &path);
  /// Compiles IR text (`bufferName` names it in error locations).
  rt::Result<std::unique_ptr<rt::Model>>
  compileString(const std::string &text,
                const std::string &bufferName = "<string>");
  /// Compiles a module of context() (it is not modified).
  rt::Result<std::unique_ptr<rt::Model>> compileModule(mlir::ModuleOp module);

  /// Like compileFile / compileString, returning the artifact (one entry)
  /// rather than loading it.
  rt::Result<rt::Artifact> compileFileToArtifact(const std::string &path);
  rt::Result<rt::Artifact>
  compileStringToArtifact(const std::string &text,
                          const std::string &bufferName = "<string>");

  /// The steps of the above, for front ends that bind arguments before
  /// compiling (fx-run) or write several entries into one artifact
  /// (fx-compile). Errors carry the diagnostics, with locations.
  ///
  /// Parses a file or IR text into context().
  rt::Result<std::unique_ptr<Source>> parseFile(const std::string &path);
  rt::Result<std::unique_ptr<Source>>
  parseString(const std::string &text,
              const std::string &bufferName = "<string>");
  /// Entry `entry` (empty: the only public function) as declared: its
  /// name and signature (dynamic dimensions are kDynamicDim), to bind
  /// arguments before choosing shapes.
  rt::Result<DeclaredEntry> declaredEntry(Source &source,
                                          const std::string &entry);
  /// Compiles one entry for options().target (through the cache).
  rt::Result<rt::ArtifactEntry> compileEntry(Source &source,
                                             const EntryRequest &request);
  /// Loads entry `entry` (empty: the only one) of an artifact onto
  /// options().target, on the compiler's Vulkan device if it has one.
  rt::Result<std::unique_ptr<rt::Model>> load(const rt::Artifact &artifact,
                                              const std::string &entry = "");

  /// What the last compile (of an entry) did.
  const CompileStats &lastCompile() const;

  /// "fx-mlir <version>": part of every cache key.
  static std::string version();

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

} // namespace fx

#endif // FX_COMPILER_COMPILER_H
