//===- Compiler.cpp - the C++ embedding API of the compiler ---------------===//

#include "fx/Compiler/Compiler.h"

#include "fx/Compiler/CPUCompiler.h"
#include "fx/Compiler/Entry.h"
#include "fx/Compiler/VulkanCompiler.h"
#include "fx/InitAll.h"
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
        : stream(text), handler(sourceMgr, &context, stream) {}
    rt::Status error(const std::string &fallback) {
      std::string message = text;
      while (!message.empty() && message.back() == '\n')
        message.pop_back();
      return rt::Status::error(message.empty() ? fallback : message);
    }

  private:
    std::string text;
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

  /// Parses `buffer` and compiles it; the diagnostics name `buffer`'s
  /// identifier.
  rt::Result<rt::Artifact>
  compileBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer) {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    Diagnostics diagnostics(context, sourceMgr);
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      return diagnostics.error("the input is not valid MLIR");
    return compile(*module, diagnostics);
  }

  rt::Result<rt::Artifact> compileModule(ModuleOp module) {
    llvm::SourceMgr sourceMgr;
    Diagnostics diagnostics(context, sourceMgr);
    return compile(module, diagnostics);
  }

  /// The options that change the code, as cache key text.
  std::string optionsKey(const std::string &targetKey) const {
    std::string key =
        "target=" + options.target + ";mode=" + modeName(options.mode) +
        ";fusion=" + std::to_string(options.fusion) +
        ";entry=" + options.entry +
        ";threads=" + std::to_string(options.threads) + ";" + targetKey;
    for (const auto &shape : options.argumentShapes) {
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

  rt::Result<rt::Artifact> compile(ModuleOp input, Diagnostics &diagnostics) {
    auto start = std::chrono::steady_clock::now();
    stats = CompileStats();
    auto finish = [&](rt::Result<rt::Artifact> result) {
      stats.milliseconds = rt::millisecondsSince(start);
      return result;
    };
    if (options.target != "cpu" && options.target != "vulkan")
      return rt::Status::error("unknown target '" + options.target +
                               "' (expected cpu or vulkan)");

    // The entry alone, specialized: what the cache key hashes.
    EntryShapes shapes;
    shapes.arguments = options.argumentShapes;
    shapes.staticHint = "compiled code needs static shapes: give "
                        "CompilerOptions::argumentShapes";
    FailureOr<PreparedEntry> prepared =
        prepareEntry(input, options.entry, shapes);
    if (failed(prepared))
      return diagnostics.error("cannot prepare the entry point");
    OwningOpRef<ModuleOp> module = std::move(prepared->module);
    std::string name = prepared->func.getName().str();
    const rt::FunctionSignature &signature = prepared->signature;

    // The cache key: compiler build, options, target, IR.
    std::string targetKey = "cpu=" + options.cpu;
    VulkanCompileOptions vulkanOptions;
    vulkanOptions.fuseElementwise = options.fusion;
    if (options.target == "vulkan") {
      auto context = vulkanContext();
      if (!context.isOk())
        return context.status();
      vulkanOptions.target = targetForDevice(context.value()->device());
      targetKey = "vulkan=" + vulkanOptions.target;
    }
    std::string ir;
    {
      llvm::raw_string_ostream os(ir);
      module->print(os, OpPrintingFlags().enableDebugInfo(false));
    }
    llvm::SHA256 hash;
    for (const std::string &part :
         {version(), buildIdentity(), optionsKey(targetKey), ir}) {
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
    if (options.mode == CompileMode::MaxAutotune && options.target == "cpu")
      stats.notes.push_back("max-autotune: nothing to tune on the CPU yet; "
                            "compiled like default");
    if (!options.cacheDir.empty()) {
      std::string path = cachePath(stats.cacheKey);
      if (llvm::sys::fs::exists(path)) {
        auto cached = rt::readArtifact(path);
        if (cached.isOk() && cached.value().entries.size() == 1 &&
            cached.value().entries[0].signature == signature) {
          stats.cacheHit = true;
          return finish(cached.take());
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
    entry.signature = signature;
    if (options.target == "cpu") {
      CPUCodeOptions cpuOptions;
      cpuOptions.compile.fuseElementwise = options.fusion;
      cpuOptions.compile.dispatchRegions = options.fusion;
      cpuOptions.compile.threads = options.threads;
      cpuOptions.compile.cpu = options.cpu;
      std::string llvmIR, assembly;
      if (!options.dumpDir.empty()) {
        cpuOptions.llvmIR = &llvmIR;
        cpuOptions.assembly = &assembly;
      }
      FailureOr<rt::CPUCode> code = compileCPUCode(*module, name, cpuOptions);
      if (failed(code))
        return diagnostics.error("CPU compilation failed");
      if (!options.dumpDir.empty()) {
        if (rt::Status s = writeText(name + ".ll", llvmIR); !s.isOk())
          return s;
        if (rt::Status s = writeText(name + ".s", assembly); !s.isOk())
          return s;
      }
      entry.cpu = std::move(*code);
    } else {
      auto program =
          compileVulkan(*module, name, signature, vulkanOptions, diagnostics);
      if (!program.isOk())
        return program.status();
      if (!options.dumpDir.empty())
        if (std::string error =
                writeSPIRVFiles(program.value(), options.dumpDir, name + "-");
            !error.empty())
          return rt::Status::error(error);
      entry.vulkan = program.take();
    }

    rt::Artifact artifact;
    artifact.producer = "fx::Compiler (" + version() + ")";
    artifact.entries.push_back(std::move(entry));
    if (!options.cacheDir.empty()) {
      if (std::error_code ec =
              llvm::sys::fs::create_directories(options.cacheDir))
        return rt::Status::error("cannot create the cache directory " +
                                 options.cacheDir + ": " + ec.message());
      // Written under a temporary name and renamed: a reader never sees a
      // partial file, and concurrent writers of one key both succeed.
      std::string path = cachePath(stats.cacheKey);
      std::string partial = path + ".partial-" + std::to_string(::getpid());
      if (rt::Status s = rt::writeArtifact(partial, artifact); !s.isOk())
        return s;
      if (std::error_code ec = llvm::sys::fs::rename(partial, path))
        return rt::Status::error("cannot write " + path + ": " + ec.message());
    }
    return finish(std::move(artifact));
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

rt::Result<rt::Artifact>
Compiler::compileFileToArtifact(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return rt::Status::error(path +
                             ": cannot open: " + buffer.getError().message());
  return impl->compileBuffer(std::move(*buffer));
}

rt::Result<rt::Artifact>
Compiler::compileStringToArtifact(const std::string &text,
                                  const std::string &bufferName) {
  return impl->compileBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, bufferName));
}

/// Loads the one entry of a compiled artifact onto the compiler's target.
static rt::Result<std::unique_ptr<rt::Model>>
loadCompiled(Compiler::Impl &impl, rt::Result<rt::Artifact> artifact) {
  if (!artifact.isOk())
    return artifact.status();
  rt::ModelOptions modelOptions;
  modelOptions.target = impl.options.target;
  if (impl.options.target == "vulkan") {
    auto context = impl.vulkanContext();
    if (!context.isOk())
      return context.status();
    modelOptions.context = context.value();
  }
  return rt::Model::load(artifact.value(), modelOptions);
}

rt::Result<std::unique_ptr<rt::Model>>
Compiler::compileFile(const std::string &path) {
  return loadCompiled(*impl, compileFileToArtifact(path));
}

rt::Result<std::unique_ptr<rt::Model>>
Compiler::compileString(const std::string &text,
                        const std::string &bufferName) {
  return loadCompiled(*impl, compileStringToArtifact(text, bufferName));
}

rt::Result<std::unique_ptr<rt::Model>>
Compiler::compileModule(ModuleOp module) {
  if (module->getContext() != &impl->context)
    return rt::Status::error("the module is not in the compiler's context "
                             "(build it in Compiler::context())");
  return loadCompiled(*impl, impl->compileModule(module));
}

} // namespace fx
