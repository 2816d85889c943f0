//===- Compiler.cpp - the C++ embedding API of the compiler ---------------===//

#include "fx/Compiler/Compiler.h"

#include "fx/Compiler/CPUCompiler.h"
#include "fx/Compiler/Entry.h"
#include "fx/Compiler/VulkanCompiler.h"
#include "fx/Dialect/FX/Transforms/SubBatch.h"
#include "fx/InitAll.h"
#include "fx/Pipelines/Pipelines.h"
#include "fx/Runtime/Runner.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <dlfcn.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;

namespace fx {

const char *modeName(CompileMode mode) {
  switch (mode) {
  case CompileMode::Default:
    return "default";
  case CompileMode::ReduceOverhead:
    return "reduce-overhead";
  case CompileMode::MaxAutotune:
    return "max-autotune";
  }
  return "default";
}

rt::Result<CompileMode> parseMode(const std::string &name) {
  for (CompileMode mode : {CompileMode::Default, CompileMode::ReduceOverhead,
                           CompileMode::MaxAutotune})
    if (name == modeName(mode))
      return mode;
  return rt::Status::error("unknown mode '" + name +
                           "' (expected default, reduce-overhead or "
                           "max-autotune)");
}

/// Checks an option that is auto, off or a positive number of `units`.
static rt::Status checkAutoOffOrCount(const std::string &value,
                                      const char *units) {
  if (value == "auto" || value == "off")
    return rt::Status::ok();
  int64_t count;
  if (llvm::StringRef(value).getAsInteger(10, count) || count < 1)
    return rt::Status::error(std::string("expected auto, off or a positive "
                                         "number of ") +
                             units + ", got '" + value + "'");
  return rt::Status::ok();
}

rt::Status checkStreamingStores(const std::string &value) {
  return checkAutoOffOrCount(value, "bytes");
}

rt::Status checkSubBatch(const std::string &value) {
  return checkAutoOffOrCount(value, "items");
}

/// Re-types the CPU module's entry `func` for the sub-batch that
/// `request` (CompilerOptions::subBatch) asks for; returns the items per
/// call, or 0 for the whole batch. An explicit number for an entry that
/// cannot be split is an error at the op that keeps it from splitting.
static FailureOr<int64_t> applySubBatch(func::FuncOp func,
                                        const std::string &request,
                                        const std::string &cpu,
                                        std::vector<std::string> &notes) {
  if (request == "off")
    return 0;
  mlir::fx::BatchSplitFailure why;
  FailureOr<mlir::fx::BatchAnalysis> analysis =
      mlir::fx::analyzeBatch(func, why);
  int64_t items = 0;
  bool explicitItems = request != "auto";
  auto report = [&]() -> FailureOr<int64_t> {
    if (!explicitItems)
      return 0;
    mlir::fx::emitBatchSplitError(func, why, "--sub-batch " + request + ": ");
    return failure();
  };
  if (failed(analysis))
    return report();
  if (explicitItems) {
    llvm::StringRef(request).getAsInteger(10, items);
  } else {
    // One item per call when the batch's temporaries overflow the shared
    // cache and re-reading the weights once per item costs less than that:
    // they stay in the cache, or an item moves more bytes of temporaries
    // than the weights hold. Measured on a Zen 5 (32 MiB L3, 2 threads, one
    // item per call against the whole batch of 8): mobilenet_v2 17.8 /
    // 23.7 ms, efficientnet_b0 32.1 / 34.9, squeezenet1_1 19.5 / 22.5,
    // convnext_tiny 213 / 235 (114 MB of weights, 141 MB of temporaries per
    // item); resnet18 (47 MB of weights, 33 MB per item) 77.1 / 69.3, so
    // it keeps the batch.
    // An item must also be a computation of its own (an image, a sequence):
    // at least kMinItemBytes of temporaries, so that a call's fixed costs
    // (a parallel loop per kernel) stay small beside its work and its loops
    // still split between threads. Any function whose outermost dimension is
    // independent qualifies otherwise: a 2^24-element add took 57 ms as 2^24
    // calls of one element instead of 5 ms as one call on a Zen 5.
    constexpr int64_t kMinItemBytes = int64_t(1) << 20;
    int64_t cache = ::fx::sharedCacheBytes(cpu);
    bool overflows = analysis->itemBytes * analysis->batch > cache;
    bool weightsCheap = analysis->parameterBytes <= cache ||
                        analysis->itemBytes >= analysis->parameterBytes;
    bool itemLarge = analysis->itemBytes >= kMinItemBytes;
    if (overflows && weightsCheap && itemLarge)
      items = 1;
    auto mib = [](int64_t bytes) {
      return std::to_string((bytes + (1 << 19)) >> 20) + " MiB";
    };
    auto size = [&](int64_t bytes) {
      return bytes < (1 << 20) ? std::to_string(bytes) + " bytes" : mib(bytes);
    };
    if (!items) {
      std::string reason =
          !overflows ? "its temporaries, " +
                           mib(analysis->itemBytes * analysis->batch) +
                           ", fit the " + mib(cache) + " cache"
          : !weightsCheap
              ? "the weights, " + mib(analysis->parameterBytes) +
                    ", exceed the " + mib(cache) +
                    " cache and one item's temporaries, " +
                    mib(analysis->itemBytes)
              : "one item's temporaries, " + size(analysis->itemBytes) +
                    ", are too few for a call of their own (under " +
                    mib(kMinItemBytes) + ")";
      notes.push_back("CPU: the batch of " + std::to_string(analysis->batch) +
                      " runs in one call (--sub-batch auto: " + reason + ")");
      return 0;
    }
  }
  func::FuncOp copy = func.clone();
  if (failed(mlir::fx::subBatchFunction(copy, *analysis, items, why))) {
    copy.erase();
    return report();
  }
  func.getBody().takeBody(copy.getBody());
  func.setFunctionType(copy.getFunctionType());
  copy.erase();
  notes.push_back("CPU: the batch of " + std::to_string(analysis->batch) +
                  " runs as " + std::to_string(analysis->batch / items) +
                  " calls of " + std::to_string(items) + " (--sub-batch)");
  return items;
}

std::string Compiler::version() { return "fx-mlir 0.7"; }

/// Identifies this build of the compiler: the file holding this code, its
/// size and modification time. Any rebuild changes it, so cached artifacts
/// never outlive the compiler that wrote them.
static std::string buildIdentity() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&buildIdentity), &info) ||
      !info.dli_fname)
    return "unknown build";
  struct stat st;
  if (stat(info.dli_fname, &st) != 0)
    return info.dli_fname;
  return std::string(info.dli_fname) + ":" + std::to_string(st.st_size) + ":" +
         std::to_string(st.st_mtime);
}

struct Source::Impl {
  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module;
};

struct Compiler::Impl {
  CompilerOptions options;
  MLIRContext context;
  CompileStats stats;
  /// The Vulkan context, created on the first Vulkan compile and shared by
  /// the models.
  std::shared_ptr<rt::vk::Context> vulkan;

  explicit Impl(CompilerOptions options)
      : options(std::move(options)), context(makeRegistry()) {
    context.loadAllAvailableDialects();
    context.printOpOnDiagnostic(false);
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    ::fx::registerAllDialects(registry);
    ::fx::registerAllPasses();
    return registry;
  }

  /// Collects the diagnostics of a compile, with their locations.
  class Diagnostics {
  public:
    Diagnostics(MLIRContext &context, llvm::SourceMgr &sourceMgr)
        : stream(collected), handler(sourceMgr, &context, stream) {}
    /// What was reported so far, without the final newline.
    std::string text() const {
      std::string message = collected;
      while (!message.empty() && message.back() == '\n')
        message.pop_back();
      return message;
    }
    rt::Status error(const std::string &fallback) const {
      std::string message = text();
      return rt::Status::error(message.empty() ? fallback : message);
    }

  private:
    std::string collected;
    llvm::raw_string_ostream stream;
    SourceMgrDiagnosticHandler handler;
  };

  rt::Result<std::shared_ptr<rt::vk::Context>> vulkanContext() {
    if (!vulkan) {
      rt::vk::ContextOptions contextOptions;
      contextOptions.device = options.vulkanDevice;
      contextOptions.validation = options.vulkanValidation;
      auto created = rt::vk::Context::create(contextOptions);
      if (!created.isOk())
        return created.status();
      vulkan = created.take();
    }
    return vulkan;
  }

  /// Parses `buffer` into a Source; the diagnostics name `buffer`'s
  /// identifier.
  rt::Result<std::unique_ptr<Source>>
  parse(std::unique_ptr<llvm::MemoryBuffer> buffer) {
    auto source = std::make_unique<Source::Impl>();
    source->sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    Diagnostics diagnostics(context, source->sourceMgr);
    source->module = parseSourceFile<ModuleOp>(source->sourceMgr, &context);
    if (!source->module)
      return diagnostics.error("the input is not valid MLIR");
    return std::unique_ptr<Source>(new Source(std::move(source)));
  }

  /// The options that change the code, as cache key text.
  std::string optionsKey(const EntryRequest &request,
                         const std::string &targetKey) const {
    std::string key =
        "target=" + options.target + ";mode=" + modeName(options.mode) +
        ";fusion=" + std::to_string(options.fusion) +
        ";dispatch-regions=" + std::to_string(options.dispatchRegions) +
        ";vectorize=" + std::to_string(options.vectorize) +
        ";streaming-stores=" + options.streamingStores +
        ";entry=" + request.name +
        ";threads=" + std::to_string(options.threads) +
        ";workgroup=" + std::to_string(options.workgroupSize) + "," +
        std::to_string(options.rowWorkgroupSize) +
        ";precision=" + options.precision +
        ";reuse=" + std::to_string(options.reuseTemporaries) +
        ";channels-last=" + std::to_string(options.channelsLast) + ";" +
        targetKey;
    for (const auto &shape : request.argumentShapes) {
      key += ";shape=";
      for (int64_t d : shape)
        key += std::to_string(d) + "x";
    }
    return key;
  }

  std::string cachePath(const std::string &key) const {
    llvm::SmallString<256> path(options.cacheDir);
    llvm::sys::path::append(path, key + ".fxa");
    return path.str().str();
  }

  /// The SPIR-V target to compile for: options.vulkanTarget, else the
  /// device's.
  rt::Result<std::string> vulkanTarget() {
    if (!options.vulkanTarget.empty()) {
      if (!mlir::fx::getSPIRVTarget(options.vulkanTarget))
        return rt::Status::error("unknown Vulkan target '" +
                                 options.vulkanTarget + "' (expected " +
                                 mlir::fx::vulkanTargetHelp() + ")");
      return options.vulkanTarget;
    }
    auto context = vulkanContext();
    if (!context.isOk())
      return context.status();
    return targetForDevice(context.value()->device());
  }

  /// Compiles entry `request` of `input` (not modified) for the target(s)
  /// of the options, through the cache.
  rt::Result<rt::ArtifactEntry> compile(ModuleOp input,
                                        const EntryRequest &request,
                                        Diagnostics &diagnostics) {
    auto start = std::chrono::steady_clock::now();
    stats = CompileStats();
    auto finish = [&](rt::Result<rt::ArtifactEntry> result) {
      stats.milliseconds = rt::millisecondsSince(start);
      if (result.isOk())
        stats.diagnostics = diagnostics.text();
      return result;
    };
    if (rt::Status s = checkSubBatch(options.subBatch); !s.isOk())
      return rt::Status::error("sub-batch: " + s.message());
    if (rt::Status s = checkStreamingStores(options.streamingStores); !s.isOk())
      return rt::Status::error("streaming-stores: " + s.message());
    if (options.target != "cpu" && options.target != "vulkan" &&
        options.target != "all")
      return rt::Status::error("unknown target '" + options.target +
                               "' (expected cpu, vulkan or all)");
    bool wantCPU = options.target != "vulkan";
    bool wantVulkan = options.target != "cpu";

    // The entry alone, specialized: what the cache key hashes. Dimensions
    // may stay dynamic for Vulkan programs only.
    EntryShapes shapes;
    shapes.arguments = request.argumentShapes;
    shapes.allowDynamic = !wantCPU;
    shapes.staticHint = request.staticHint.empty()
                            ? "CPU code needs static shapes: give the shapes "
                              "to compile for (CompilerOptions::argumentShapes"
                              ", the C API's argument_shapes, Python's "
                              "argument_shapes=), or compile for Vulkan, one "
                              "program for all sizes"
                            : request.staticHint;
    FailureOr<PreparedEntry> prepared =
        prepareEntry(input, request.name, shapes);
    if (failed(prepared))
      return diagnostics.error("cannot prepare the entry point");
    OwningOpRef<ModuleOp> module = std::move(prepared->module);
    std::string name = prepared->func.getName().str();

    // The cache key: compiler build, options, target, IR.
    std::string targetKey;
    if (wantCPU)
      targetKey += "cpu=" + options.cpu + ";tune=" + options.tuneCPU +
                   ";sub-batch=" + options.subBatch + ";";
    VulkanCompileOptions vulkanOptions;
    if (wantVulkan) {
      auto target = vulkanTarget();
      if (!target.isOk())
        return target.status();
      vulkanOptions.target = target.value();
      vulkanOptions.fuseElementwise = options.fusion;
      vulkanOptions.workgroupSize = options.workgroupSize;
      vulkanOptions.precision = options.precision;
      vulkanOptions.rowWorkgroupSize = options.rowWorkgroupSize;
      vulkanOptions.reuseTemporaries = options.reuseTemporaries;
      vulkanOptions.report = options.fusionReport;
      vulkanOptions.channelsLast = options.channelsLast;
      targetKey += "vulkan=" + vulkanOptions.target;
    }
    std::string ir;
    {
      llvm::raw_string_ostream os(ir);
      module->print(os, OpPrintingFlags().enableDebugInfo(false));
    }
    llvm::SHA256 hash;
    for (const std::string &part :
         {version(), buildIdentity(), optionsKey(request, targetKey), ir}) {
      hash.update(part);
      hash.update(llvm::StringRef("\0", 1));
    }
    std::array<uint8_t, 32> digest = hash.final();
    stats.cacheKey = llvm::toHex(llvm::ArrayRef(digest.data(), 16), true);

    // What the mode means for this target, also for cached code.
    if (options.mode == CompileMode::ReduceOverhead)
      stats.notes.push_back("reduce-overhead: compiled like default, which "
                            "already replays a recorded command buffer with "
                            "resident parameters");
    if (options.mode == CompileMode::MaxAutotune && !wantVulkan)
      stats.notes.push_back("max-autotune: nothing to tune on the CPU yet; "
                            "compiled like default");
    // A cached entry has no remarks or text to give.
    bool useCache = !options.cacheDir.empty() && !options.fusionReport &&
                    !options.keepCPUText && !options.keepDispatchGraph;
    if (useCache) {
      std::string path = cachePath(stats.cacheKey);
      if (llvm::sys::fs::exists(path)) {
        auto cached = rt::readArtifact(path);
        if (cached.isOk() && cached.value().entries.size() == 1 &&
            cached.value().entries[0].signature == prepared->signature) {
          stats.cacheHit = true;
          return finish(std::move(cached.value().entries[0]));
        }
        stats.notes.push_back("the cached " + path +
                              " is unusable and was replaced" +
                              (cached.isOk() ? "" : ": " + cached.message()));
      }
    }

    if (!options.dumpDir.empty()) {
      if (std::error_code ec =
              llvm::sys::fs::create_directories(options.dumpDir))
        return rt::Status::error("cannot create " + options.dumpDir + ": " +
                                 ec.message());
      if (rt::Status s = writeText(name + ".input.mlir", ir); !s.isOk())
        return s;
    }

    rt::ArtifactEntry entry;
    entry.name = name;
    entry.signature = prepared->signature;
    if (wantCPU) {
      // The pipelines consume their module: the CPU compiles a copy when
      // Vulkan follows.
      OwningOpRef<ModuleOp> copy;
      if (wantVulkan)
        copy = cast<ModuleOp>((*module)->clone());
      ModuleOp cpuModule = wantVulkan ? *copy : *module;
      CPUCompileOptions cpuOptions;
      cpuOptions.fuseElementwise = options.fusion;
      cpuOptions.dispatchRegions = options.fusion && options.dispatchRegions;
      cpuOptions.fusionReport = options.fusionReport;
      cpuOptions.vectorize = options.vectorize;
      cpuOptions.streamingStoreBytes =
          options.streamingStores == "off" ? 0
          : options.streamingStores == "auto"
              ? -1
              : std::stoll(options.streamingStores);
      cpuOptions.threads = options.threads;
      cpuOptions.cpu = options.cpu;
      cpuOptions.tuneCPU = options.tuneCPU;
      cpuOptions.linker = options.linker;
      std::string llvmIR, assembly, graph;
      if (!options.dumpDir.empty() || options.keepCPUText) {
        cpuOptions.llvmIR = &llvmIR;
        cpuOptions.assembly = &assembly;
      }
      if (!options.dumpDir.empty() || options.keepDispatchGraph)
        cpuOptions.dispatchGraph = &graph;
      FailureOr<int64_t> subBatch =
          applySubBatch(cpuModule.lookupSymbol<func::FuncOp>(name),
                        options.subBatch, options.cpu, stats.notes);
      if (failed(subBatch))
        return diagnostics.error("cannot split the batch");
      FailureOr<rt::CPUCode> code = compileCPUCode(cpuModule, name, cpuOptions);
      if (failed(code))
        return diagnostics.error("CPU compilation failed");
      code->subBatch = *subBatch;
      if (!options.dumpDir.empty()) {
        if (rt::Status s = writeText(name + ".ll", llvmIR); !s.isOk())
          return s;
        if (rt::Status s = writeText(name + ".s", assembly); !s.isOk())
          return s;
        if (!graph.empty())
          if (rt::Status s = writeText(name + ".dispatch.dot", graph);
              !s.isOk())
            return s;
      }
      if (options.keepDispatchGraph)
        stats.dispatchGraph = std::move(graph);
      if (options.keepCPUText) {
        stats.llvmIR = std::move(llvmIR);
        stats.assembly = std::move(assembly);
      }
      entry.cpu = std::move(*code);
    }
    if (wantVulkan) {
      auto program = compileVulkan(*module, name, entry.signature,
                                   vulkanOptions, diagnostics);
      if (!program.isOk())
        return program.status();
      if (!options.dumpDir.empty())
        if (std::string error =
                writeSPIRVFiles(program.value(), options.dumpDir, name + "-");
            !error.empty())
          return rt::Status::error(error);
      entry.vulkan = program.take();
    }

    if (useCache) {
      if (std::error_code ec =
              llvm::sys::fs::create_directories(options.cacheDir))
        return rt::Status::error("cannot create the cache directory " +
                                 options.cacheDir + ": " + ec.message());
      // Written under a temporary name and renamed: a reader never sees a
      // partial file, and concurrent writers of one key both succeed.
      rt::Artifact artifact = artifactOf(entry);
      std::string path = cachePath(stats.cacheKey);
      std::string partial = path + ".partial-" + std::to_string(::getpid());
      if (rt::Status s = rt::writeArtifact(partial, artifact); !s.isOk())
        return s;
      if (std::error_code ec = llvm::sys::fs::rename(partial, path))
        return rt::Status::error("cannot write " + path + ": " + ec.message());
    }
    return finish(std::move(entry));
  }

  static rt::Artifact artifactOf(rt::ArtifactEntry entry) {
    rt::Artifact artifact;
    artifact.producer = "fx::Compiler (" + version() + ")";
    artifact.entries.push_back(std::move(entry));
    return artifact;
  }

  /// compileForVulkan, or under max-autotune the fastest of several
  /// workgroup sizes on the device.
  rt::Result<rt::vk::Program>
  compileVulkan(ModuleOp module, const std::string &name,
                const rt::FunctionSignature &signature,
                const VulkanCompileOptions &base, Diagnostics &diagnostics) {
    std::vector<std::pair<int64_t, int64_t>> sizes = {
        {base.workgroupSize, base.rowWorkgroupSize}};
    if (options.mode == CompileMode::MaxAutotune)
      sizes = {{256, 512}, {128, 512}, {512, 512}, {256, 256}};
    std::optional<rt::vk::Program> best;
    double bestMs = 0;
    std::string chosen;
    for (auto [workgroup, rowWorkgroup] : sizes) {
      OwningOpRef<ModuleOp> copy = cast<ModuleOp>(module->clone());
      VulkanCompileOptions variant = base;
      variant.workgroupSize = workgroup;
      variant.rowWorkgroupSize = rowWorkgroup;
      FailureOr<rt::vk::Program> program =
          compileForVulkan(*copy, name, signature, variant);
      if (failed(program))
        return diagnostics.error("Vulkan compilation failed");
      if (sizes.size() == 1)
        return std::move(*program);
      auto ms = timeOnDevice(*program, signature);
      if (!ms.isOk())
        return ms.status();
      std::string label = "workgroup " + std::to_string(workgroup) +
                          ", row workgroup " + std::to_string(rowWorkgroup);
      stats.notes.push_back("max-autotune: " + label + ": " +
                            std::to_string(ms.value()) + " ms");
      if (!best || ms.value() < bestMs) {
        best = std::move(*program);
        bestMs = ms.value();
        chosen = label;
      }
    }
    stats.notes.push_back("max-autotune chose " + chosen);
    return std::move(*best);
  }

  /// The median time of a few runs of `program` on random inputs.
  rt::Result<double> timeOnDevice(const rt::vk::Program &program,
                                  const rt::FunctionSignature &signature) {
    auto context = vulkanContext();
    if (!context.isOk())
      return context.status();
    auto executable = rt::vk::Executable::load(context.value(), program);
    if (!executable.isOk())
      return executable.status();
    std::mt19937_64 rng(0);
    std::vector<rt::Tensor> inputs;
    for (const rt::TensorSpec &spec : signature.inputs) {
      auto tensor = rt::makeRandom(spec, rng);
      if (!tensor.isOk())
        return tensor.status();
      inputs.push_back(tensor.take());
    }
    auto outputs = executable.value()->run(inputs); // warm-up
    if (!outputs.isOk())
      return outputs.status();
    std::vector<double> times;
    for (int i = 0; i < 5; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (rt::Status s = executable.value()->runInto(inputs, outputs.value());
          !s.isOk())
        return s;
      times.push_back(rt::millisecondsSince(start));
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }

  rt::Status writeText(const std::string &file, const std::string &text) {
    llvm::SmallString<256> path(options.dumpDir);
    llvm::sys::path::append(path, file);
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    if (ec)
      return rt::Status::error("cannot write " + path.str().str() + ": " +
                               ec.message());
    out << text;
    return rt::Status::ok();
  }
};

Compiler::Compiler(CompilerOptions options)
    : impl(std::make_unique<Impl>(std::move(options))) {}
Compiler::~Compiler() = default;

const CompilerOptions &Compiler::options() const { return impl->options; }
MLIRContext &Compiler::context() { return impl->context; }
const CompileStats &Compiler::lastCompile() const { return impl->stats; }

rt::Result<std::unique_ptr<Source>>
Compiler::parseFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return rt::Status::error(path +
                             ": cannot open: " + buffer.getError().message());
  return impl->parse(std::move(*buffer));
}

rt::Result<std::unique_ptr<Source>>
Compiler::parseString(const std::string &text, const std::string &bufferName) {
  return impl->parse(llvm::MemoryBuffer::getMemBufferCopy(text, bufferName));
}

rt::Result<DeclaredEntry> Compiler::declaredEntry(Source &source,
                                                  const std::string &entry) {
  Impl::Diagnostics diagnostics(impl->context, source.impl().sourceMgr);
  func::FuncOp func = findEntry(source.module(), entry);
  if (!func)
    return diagnostics.error("no entry point '" + entry + "'");
  FailureOr<rt::FunctionSignature> signature =
      getSignature(func, /*allowDynamic=*/true);
  if (failed(signature))
    return diagnostics.error("the entry point has no runtime signature");
  return DeclaredEntry{func.getName().str(), std::move(*signature)};
}

rt::Result<rt::ArtifactEntry>
Compiler::compileEntry(Source &source, const EntryRequest &request) {
  Impl::Diagnostics diagnostics(impl->context, source.impl().sourceMgr);
  return impl->compile(source.module(), request, diagnostics);
}

/// The request of options.entry and options.argumentShapes.
static EntryRequest optionsRequest(const CompilerOptions &options) {
  EntryRequest request;
  request.name = options.entry;
  request.argumentShapes = options.argumentShapes;
  return request;
}

/// Compiles options.entry of a parsed source into a one-entry artifact.
static rt::Result<rt::Artifact>
compileToArtifact(Compiler &compiler,
                  rt::Result<std::unique_ptr<Source>> source) {
  if (!source.isOk())
    return source.status();
  auto entry = compiler.compileEntry(*source.value(),
                                     optionsRequest(compiler.options()));
  if (!entry.isOk())
    return entry.status();
  return Compiler::Impl::artifactOf(entry.take());
}

rt::Result<rt::Artifact>
Compiler::compileFileToArtifact(const std::string &path) {
  return compileToArtifact(*this, parseFile(path));
}

rt::Result<rt::Artifact>
Compiler::compileStringToArtifact(const std::string &text,
                                  const std::string &bufferName) {
  return compileToArtifact(*this, parseString(text, bufferName));
}

rt::Result<std::unique_ptr<rt::Model>>
Compiler::load(const rt::Artifact &artifact, const std::string &entry) {
  rt::ModelOptions modelOptions;
  modelOptions.entry = entry;
  if (impl->options.target != "all")
    modelOptions.target = impl->options.target;
  if (impl->options.target == "vulkan") {
    auto context = impl->vulkanContext();
    if (!context.isOk())
      return context.status();
    modelOptions.context = context.value();
  }
  return rt::Model::load(artifact, modelOptions);
}

rt::Result<std::unique_ptr<rt::Model>>
Compiler::compileFile(const std::string &path) {
  auto artifact = compileFileToArtifact(path);
  if (!artifact.isOk())
    return artifact.status();
  return load(artifact.value());
}

rt::Result<std::unique_ptr<rt::Model>>
Compiler::compileString(const std::string &text,
                        const std::string &bufferName) {
  auto artifact = compileStringToArtifact(text, bufferName);
  if (!artifact.isOk())
    return artifact.status();
  return load(artifact.value());
}

rt::Result<std::unique_ptr<rt::Model>>
Compiler::compileModule(ModuleOp module) {
  if (module->getContext() != &impl->context)
    return rt::Status::error("the module is not in the compiler's context "
                             "(build it in Compiler::context())");
  llvm::SourceMgr sourceMgr;
  Impl::Diagnostics diagnostics(impl->context, sourceMgr);
  auto entry =
      impl->compile(module, optionsRequest(impl->options), diagnostics);
  if (!entry.isOk())
    return entry.status();
  return load(Impl::artifactOf(entry.take()));
}

Source::Source(std::unique_ptr<Impl> state) : state(std::move(state)) {}
Source::~Source() = default;

ModuleOp Source::module() const { return *state->module; }

std::vector<std::string> Source::entryPoints() const {
  std::vector<std::string> names;
  for (auto func : state->module->getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      names.push_back(func.getName().str());
  return names;
}

} // namespace fx
