//===- CPUCompiler.cpp - compile FX functions to CPU code in memory -------===//

#include "fx/Compiler/CPUCompiler.h"

#include "fx/Compiler/Entry.h"
#include "fx/Pipelines/Pipelines.h"
#include "fx/Runtime/CPULibrary.h"
#include "fx/Runtime/CompilerRuntime.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Transforms/Utils/SplitModule.h"

using namespace mlir;

// Definitions live inside the namespace: with `using namespace mlir`, a
// qualified `fx::` would be ambiguous with the dialect's mlir::fx.
namespace fx {

/// The bytes of the last-level cache one core shares with the threads of a
/// run: this host's (Linux's sysfs; the whole-package figure of
/// sysconf(_SC_LEVEL3_CACHE_SIZE) counts other chiplets' caches), or 32 MiB
/// where it cannot be read or the code is for another CPU.
int64_t sharedCacheBytes(const std::string &cpu) {
  constexpr int64_t kDefault = int64_t(32) << 20;
  if (cpu != "native")
    return kDefault;
  for (int index = 3; index >= 2; --index) {
    auto buffer =
        llvm::MemoryBuffer::getFile("/sys/devices/system/cpu/cpu0/cache/index" +
                                        std::to_string(index) + "/size",
                                    /*IsText=*/true);
    if (!buffer)
      continue;
    llvm::StringRef text = (*buffer)->getBuffer().trim();
    int64_t scale = text.consume_back("K")   ? 1024
                    : text.consume_back("M") ? int64_t(1) << 20
                                             : 1;
    int64_t size;
    if (!text.getAsInteger(10, size) && size > 0)
      return size * scale;
  }
  return kDefault;
}

/// LLVM's default module pipeline at `optLevel`, with LLVM's loop unroller
/// restricted to loops that ask for it. Why not makeOptimizingTransformer:
/// the MLIR pipeline already unrolls what should be unrolled (vector register
/// tiles); LLVM's full unroller on top flattens nests with constant trip
/// counts (the 24x49 rows of a zero-fill in swin_t) into basic blocks of
/// thousands of stores, and SelectionDAG's store combining is quadratic in
/// such blocks: swin_t spent 400 s of its compile there, 3 s without it.
static llvm::Error optimizeModule(llvm::Module *module, unsigned optLevel,
                                  llvm::TargetMachine *targetMachine) {
  llvm::OptimizationLevel level;
  switch (optLevel) {
  case 0:
    level = llvm::OptimizationLevel::O0;
    break;
  case 1:
    level = llvm::OptimizationLevel::O1;
    break;
  case 2:
    level = llvm::OptimizationLevel::O2;
    break;
  default:
    level = llvm::OptimizationLevel::O3;
    break;
  }
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(targetMachine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes =
      level == llvm::OptimizationLevel::O0
          ? builder.buildO0DefaultPipeline(level)
          : builder.buildPerModuleDefaultPipeline(level);
  passes.run(*module, mam);
  return llvm::Error::success();
}

JitModule::JitModule(std::unique_ptr<ExecutionEngine> engine)
    : engine(std::move(engine)) {}

JitModule::~JitModule() = default;

/// The vector registers of the CPU `subtarget` describes: bits per
/// register and how many there are, which the tiling sizes its vectors and
/// matmul register tiles by.
static std::pair<int64_t, int64_t>
vectorRegisters(const llvm::MCSubtargetInfo &subtarget) {
  const llvm::Triple &triple = subtarget.getTargetTriple();
  if (triple.isX86()) {
    if (subtarget.checkFeatures("+avx512f"))
      return {512, 32};
    if (subtarget.checkFeatures("+avx"))
      return {256, 16};
    return {128, 16};
  }
  if (triple.isAArch64())
    return {128, 32}; // NEON
  return {128, 16};
}

/// Lowers `module` with fx-cpu-pipeline for the CPU `subtarget` describes
/// to the LLVM dialect and checks that its entry points follow the
/// runtime's calling convention.
static LogicalResult lowerToLLVMDialect(ModuleOp module,
                                        const CPUCompileOptions &options,
                                        const llvm::MCSubtargetInfo &subtarget,
                                        bool hoistParameters = false) {
  PassManager pm(module.getContext());
  mlir::fx::CPUPipelineOptions pipelineOptions;
  auto [bits, registers] = vectorRegisters(subtarget);
  pipelineOptions.vectorBits = bits;
  pipelineOptions.vectorRegisters = registers;
  pipelineOptions.fuseElementwise = options.fuseElementwise;
  pipelineOptions.fusionReport = options.fusionReport;
  pipelineOptions.dispatchRegions = options.dispatchRegions;
  pipelineOptions.vectorize = options.vectorize;
  pipelineOptions.threads = options.threads;
  pipelineOptions.hoistParameters = hoistParameters;
  // Non-temporal stores for buffers the cache cannot hold (fenced with
  // x86's sfence, hence x86 only).
  if (subtarget.getTargetTriple().isX86())
    pipelineOptions.streamingStoreBytes = options.streamingStoreBytes < 0
                                              ? sharedCacheBytes(options.cpu)
                                              : options.streamingStoreBytes;
  std::optional<llvm::raw_string_ostream> graph;
  if (options.dispatchGraph) {
    graph.emplace(*options.dispatchGraph);
    pipelineOptions.dispatchGraphStream = &*graph;
  }
  mlir::fx::buildCPUPipeline(pm, pipelineOptions);
  if (failed(pm.run(module)))
    return failure();
  // Parameter names are runtime metadata (see getSignature); LLVM has no use
  // for them and warns about unknown argument attributes.
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      for (StringRef name : {"fx.param", "fx.prepared", "fx.argument"})
        fn.removeArgAttr(i, StringAttr::get(module.getContext(), name));
  // The runtime passes outputs as buffers: a C interface that still returns
  // a value would be called wrongly, so refuse it here.
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
    if (!fn.getName().starts_with("_mlir_ciface_"))
      continue;
    if (!isa<LLVM::LLVMVoidType>(fn.getFunctionType().getReturnType()))
      return fn.emitError()
             << "compiled entry point '" << fn.getName()
             << "' returns a value; the CPU calling convention needs every "
                "result as an output buffer";
  }
  return success();
}

/// The error for a CPU name LLVM does not know.
static InFlightDiagnostic unknownCPUError(Location loc, StringRef cpu) {
  return emitError(loc) << "unknown CPU '" << cpu
                        << "' (expected native, or an LLVM CPU name such as "
                           "x86-64-v2, x86-64-v3, x86-64-v4)";
}

/// The features code for `subtarget` may use that a host may lack (those
/// of rt::supportedCPUFeatures()): what an artifact records for its loader
/// to check, and what the JIT checks against this host.
static std::vector<std::string>
requiredCPUFeatures(const llvm::MCSubtargetInfo &subtarget) {
  std::vector<std::string> required;
  for (const std::string &feature : rt::supportedCPUFeatures())
    if (subtarget.checkFeatures("+" + feature))
      required.push_back(feature);
  return required;
}

/// The CPU whose scheduling model code generation follows for code for
/// `cpu` (a resolved LLVM CPU name): `requested`, or for `auto` `cpu`
/// itself except where LLVM's model for it is known to hurt this
/// compiler's code. LLVM 22's Zen 4 and Zen 5 models make the machine
/// scheduler hoist the broadcasts and loads of a matmul or convolution
/// register tile far ahead of their FMAs, and the register allocator then
/// spills the accumulators: resnet18's code had 6391 stack moves of vector
/// registers tuned for znver5, 675 tuned for znver3 or x86-64-v4, and ran
/// 1.5x slower on a Zen 5 EPYC. Zen 3's model schedules the same
/// instructions (AVX-512 included) without that. An empty result: no
/// "tune-cpu" attribute (tune for `cpu`).
static FailureOr<std::string>
resolveTuneCPU(Location loc, StringRef cpu, StringRef requested,
               const llvm::MCSubtargetInfo &subtarget) {
  if (requested == "auto")
    return std::string(cpu == "znver4" || cpu == "znver5" ? "znver3" : "");
  if (!subtarget.isCPUStringValid(requested)) {
    emitError(loc) << "unknown --tune-cpu '" << requested
                   << "' (expected auto or an LLVM CPU name such as znver3, "
                      "x86-64-v4, generic)";
    return failure();
  }
  return requested == cpu ? std::string() : requested.str();
}

/// Tunes every function `module` defines for `tuneCPU` (see
/// resolveTuneCPU; nothing if empty).
static void setTuneCPU(llvm::Module &module, StringRef tuneCPU) {
  if (tuneCPU.empty())
    return;
  for (llvm::Function &fn : module)
    if (!fn.isDeclaration())
      fn.addFnAttr("tune-cpu", tuneCPU);
}

static void initializeNativeTarget() {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
}

FailureOr<std::unique_ptr<JitModule>>
JitModule::compile(ModuleOp module, const CPUCompileOptions &options) {
  initializeNativeTarget();
  auto tmBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder) {
    emitError(module.getLoc()) << "cannot detect the host CPU: "
                               << llvm::toString(tmBuilder.takeError());
    return failure();
  }
  // The host CPU and all of its features, or a named CPU (x86-64-v3) and
  // only its own.
  if (options.cpu == "native") {
    tmBuilder->setCPU(llvm::sys::getHostCPUName().str());
  } else {
    tmBuilder->setCPU(options.cpu);
    tmBuilder->getFeatures() = llvm::SubtargetFeatures();
  }
  auto tm = tmBuilder->createTargetMachine();
  if (!tm) {
    emitError(module.getLoc())
        << "cannot create a target machine: " << llvm::toString(tm.takeError());
    return failure();
  }
  if (!(*tm)->getMCSubtargetInfo()->isCPUStringValid(tmBuilder->getCPU())) {
    unknownCPUError(module.getLoc(), options.cpu);
    return failure();
  }
  // The JIT runs the code here: refuse features this host lacks (as the
  // loader of an artifact does) rather than crash on an illegal
  // instruction.
  if (options.cpu != "native") {
    std::string missing;
    std::vector<std::string> host = rt::hostCPUFeatures();
    for (const std::string &feature :
         requiredCPUFeatures(*(*tm)->getMCSubtargetInfo()))
      if (!llvm::is_contained(host, feature))
        missing += (missing.empty() ? "" : ", ") + feature;
    if (!missing.empty()) {
      emitError(module.getLoc()) << "this host cannot run code for CPU '"
                                 << options.cpu << "': it lacks " << missing;
      return failure();
    }
  }
  FailureOr<std::string> tuneCPU =
      resolveTuneCPU(module.getLoc(), tmBuilder->getCPU(), options.tuneCPU,
                     *(*tm)->getMCSubtargetInfo());
  if (failed(tuneCPU))
    return failure();
  // The target is known good: lower (the slow part) only now.
  if (failed(lowerToLLVMDialect(module, options, *(*tm)->getMCSubtargetInfo())))
    return failure();
  // The options hold a function_ref: the transformer must outlive create().
  llvm::TargetMachine *targetMachine = tm->get();
  unsigned optLevel = options.optLevel;
  std::function<llvm::Error(llvm::Module *)> transformer =
      [=, tune = *tuneCPU](llvm::Module *module) {
        setTuneCPU(*module, tune);
        return optimizeModule(module, optLevel, targetMachine);
      };
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(std::min(options.optLevel, 3u));
  auto engine = ExecutionEngine::create(module, engineOptions, std::move(*tm));
  if (!engine) {
    emitError(module.getLoc())
        << "JIT compilation failed: " << llvm::toString(engine.takeError());
    return failure();
  }
  // Support functions that compiled code calls come from the fx runtime, not
  // from MLIR's runner libraries.
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (const rt::CPUImport &import : rt::cpuImports())
      symbols[interner(import.name)] = {
          llvm::orc::ExecutorAddr::fromPtr(import.address),
          llvm::JITSymbolFlags::Exported};
    // Conversions LLVM turns into compiler-runtime calls (f32 -> bf16 on a
    // CPU without AVX512-BF16): the JIT must not rely on the process
    // exporting them.
    for (const rt::CompilerRuntimeFunction &fn : rt::compilerRuntimeFunctions())
      symbols[interner(fn.name)] = {
          llvm::orc::ExecutorAddr::fromPtr(fn.address),
          llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  return std::unique_ptr<JitModule>(new JitModule(std::move(*engine)));
}

llvm::Expected<rt::PackedFunction> JitModule::lookup(StringRef name) const {
  auto fn = engine->lookupPacked(("_mlir_ciface_" + name).str());
  if (!fn)
    return fn.takeError();
  return reinterpret_cast<rt::PackedFunction>(*fn);
}

} // namespace fx

//===----------------------------------------------------------------------===//
// Ahead-of-time compilation into a shared object
//===----------------------------------------------------------------------===//

namespace fx {

/// Gives each runtime function the code calls (a declaration) a body that
/// calls through the pointer variable `__fxrt_import_<name>`, which the
/// loader fills; returns the names. This way the shared object has no
/// undefined symbol the process must provide.
static std::vector<std::string> routeImports(llvm::Module &module) {
  std::vector<std::string> routed;
  llvm::LLVMContext &ctx = module.getContext();
  auto *ptrType = llvm::PointerType::getUnqual(ctx);
  for (const std::string &name : rt::cpuImportNames()) {
    llvm::Function *fn = module.getFunction(name);
    if (!fn || !fn->isDeclaration())
      continue;
    auto *slot = new llvm::GlobalVariable(
        module, ptrType, /*isConstant=*/false,
        llvm::GlobalValue::ExternalLinkage,
        llvm::ConstantPointerNull::get(ptrType), rt::kCPUImportPrefix + name);
    fn->setLinkage(llvm::GlobalValue::InternalLinkage);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
    llvm::Value *target = b.CreateLoad(ptrType, slot);
    llvm::SmallVector<llvm::Value *> args;
    for (llvm::Argument &arg : fn->args())
      args.push_back(&arg);
    llvm::CallInst *call = b.CreateCall(fn->getFunctionType(), target, args);
    if (fn->getReturnType()->isVoidTy())
      b.CreateRetVoid();
    else
      b.CreateRet(call);
    routed.push_back(name);
  }
  return routed;
}

/// Defines `symbol(void **args)`, the packed form of `ciface`: args[i]
/// points to the pointer to argument i's memref descriptor (CPUFunction.h).
static void definePackedEntry(llvm::Module &module, llvm::Function *ciface,
                              llvm::StringRef symbol) {
  llvm::LLVMContext &ctx = module.getContext();
  auto *ptrType = llvm::PointerType::getUnqual(ctx);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrType},
                                       /*isVarArg=*/false);
  auto *packed = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, symbol, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", packed));
  llvm::SmallVector<llvm::Value *> args;
  for (unsigned i = 0, e = ciface->arg_size(); i < e; ++i) {
    llvm::Value *slot =
        b.CreateConstGEP1_64(ptrType, packed->getArg(0), uint64_t(i));
    llvm::Value *descriptorRef = b.CreateLoad(ptrType, slot);
    args.push_back(b.CreateLoad(ptrType, descriptorRef));
  }
  b.CreateCall(ciface, args);
  b.CreateRetVoid();
}

/// Runs the code generator of `tm` on `module` into bytes.
static std::optional<std::string> emitCode(llvm::Module &module,
                                           llvm::TargetMachine &tm,
                                           llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, stream, nullptr, type))
    return std::nullopt;
  pm.run(module);
  return std::string(buffer.begin(), buffer.end());
}

/// How many partitions compileCPUCode generates code for in parallel: a
/// fixed number, so the code does not depend on the compiling host.
static constexpr unsigned kCodegenPartitions = 4;
/// Modules with fewer defined functions are compiled whole.
static constexpr unsigned kMinFunctionsToSplit = 8;

/// The object code of `module` (optimized already): one object, or for a
/// module of many functions (the outlined parallel chunks of a model) one
/// per partition of llvm::SplitModule, generated on a thread pool. Code
/// generation is per function, so the machine code is that of the whole
/// module; only the compile takes less wall time (resnet18's 2.5 s of
/// code generation is most of what the 2 cores of a small machine can
/// share). Each partition gets its own LLVMContext (contexts are not
/// thread-safe) through bitcode, and its own TargetMachine.
static std::optional<std::vector<std::string>> emitObjects(
    llvm::Module &module,
    const std::function<std::unique_ptr<llvm::TargetMachine>()> &makeTM) {
  unsigned functions = 0;
  for (llvm::Function &fn : module)
    functions += !fn.isDeclaration();
  if (functions < kMinFunctionsToSplit) {
    std::unique_ptr<llvm::TargetMachine> tm = makeTM();
    std::optional<std::string> object =
        tm ? emitCode(module, *tm, llvm::CodeGenFileType::ObjectFile)
           : std::nullopt;
    if (!object)
      return std::nullopt;
    return std::vector<std::string>{std::move(*object)};
  }
  std::vector<llvm::SmallString<0>> parts;
  llvm::SplitModule(
      module, kCodegenPartitions,
      [&](std::unique_ptr<llvm::Module> part) {
        llvm::SmallString<0> &bitcode = parts.emplace_back();
        llvm::raw_svector_ostream os(bitcode);
        llvm::WriteBitcodeToFile(*part, os);
      },
      /*PreserveLocals=*/false);
  std::vector<std::optional<std::string>> objects(parts.size());
  {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency());
    for (size_t i = 0; i < parts.size(); ++i)
      pool.async([&, i] {
        llvm::LLVMContext context;
        llvm::Expected<std::unique_ptr<llvm::Module>> part =
            llvm::parseBitcodeFile(
                llvm::MemoryBufferRef(parts[i].str(), "partition"), context);
        if (!part) {
          llvm::consumeError(part.takeError());
          return;
        }
        std::unique_ptr<llvm::TargetMachine> tm = makeTM();
        if (tm)
          objects[i] = emitCode(**part, *tm, llvm::CodeGenFileType::ObjectFile);
      });
    pool.wait();
  }
  std::vector<std::string> result;
  for (std::optional<std::string> &object : objects) {
    if (!object)
      return std::nullopt;
    result.push_back(std::move(*object));
  }
  return result;
}

/// The first of `candidates` that exists.
static std::string firstExisting(llvm::ArrayRef<std::string> candidates) {
  for (const std::string &path : candidates)
    if (llvm::sys::fs::exists(path))
      return path;
  return {};
}

/// The linker: `requested`, else ld.lld on PATH, else in LLVM's bin dir.
static std::string findLinker(llvm::StringRef requested) {
  if (!requested.empty()) {
    if (requested.contains('/'))
      return llvm::sys::fs::can_execute(requested) ? requested.str()
                                                   : std::string();
    if (auto path = llvm::sys::findProgramByName(requested))
      return *path;
    return {};
  }
  for (const char *name : {"ld.lld", "ld.lld-22"})
    if (auto path = llvm::sys::findProgramByName(name))
      return *path;
  return firstExisting({FX_LLVM_TOOLS_DIR "/ld.lld"});
}

/// The libraries the shared object links with: the compiler runtime's
/// builtins (f16/bf16 conversions), libm and libc.
static std::vector<std::string> findLinkLibraries(llvm::StringRef linker,
                                                  llvm::StringRef arch) {
  std::vector<std::string> libraries;
  // The builtins archive of the clang next to the linker (LLVM's layout:
  // bin/ld.lld, lib/clang/<version>/lib/linux/).
  llvm::SmallString<256> clangLib =
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(linker));
  llvm::sys::path::append(clangLib, "lib", "clang");
  std::error_code ec;
  std::string builtins;
  for (llvm::sys::fs::directory_iterator it(clangLib, ec), end;
       !ec && it != end && builtins.empty(); it.increment(ec))
    builtins = firstExisting(
        {it->path() + "/lib/linux/libclang_rt.builtins-" + arch.str() + ".a",
         it->path() + "/lib/" + arch.str() +
             "-pc-linux-gnu/libclang_rt.builtins.a",
         it->path() + "/lib/" + arch.str() +
             "-unknown-linux-gnu/libclang_rt.builtins.a"});
  std::string multiarch = arch.str() + "-linux-gnu";
  auto systemLibrary = [&](const std::string &name) {
    return firstExisting({"/lib/" + multiarch + "/" + name,
                          "/usr/lib/" + multiarch + "/" + name,
                          "/lib64/" + name, "/usr/lib64/" + name});
  };
  if (!builtins.empty())
    libraries.push_back(builtins);
  else if (std::string gcc = systemLibrary("libgcc_s.so.1"); !gcc.empty())
    libraries.push_back(gcc);
  for (const char *name : {"libm.so.6", "libc.so.6"})
    if (std::string path = systemLibrary(name); !path.empty())
      libraries.push_back(path);
  return libraries;
}

/// Links `object` into a shared object with `linker`.
static FailureOr<std::vector<uint8_t>>
linkSharedObject(Location loc, llvm::ArrayRef<std::string> objects,
                 const CPUCompileOptions &options, llvm::StringRef arch) {
  std::string linker = findLinker(options.linker);
  if (linker.empty())
    return emitError(loc)
           << (options.linker.empty()
                   ? std::string("cannot find the linker ld.lld (install "
                                 "lld, or name one with --linker)")
                   : "cannot find the linker '" + options.linker + "'");
  llvm::SmallString<128> libraryPath, logPath;
  std::vector<std::string> objectPaths;
  std::vector<llvm::FileRemover> removeObjects;
  removeObjects.reserve(objects.size());
  for (const std::string &object : objects) {
    llvm::SmallString<128> objectPath;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("fx-cpu", "o", objectPath))
      return emitError(loc)
             << "cannot create a temporary file: " << ec.message();
    removeObjects.emplace_back(objectPath);
    std::error_code ec;
    llvm::raw_fd_ostream out(objectPath, ec);
    if (ec)
      return emitError(loc)
             << "cannot write " << objectPath << ": " << ec.message();
    out << object;
    objectPaths.push_back(objectPath.str().str());
  }
  (void)llvm::sys::fs::createTemporaryFile("fx-cpu", "so", libraryPath);
  llvm::FileRemover removeLibrary(libraryPath);
  (void)llvm::sys::fs::createTemporaryFile("fx-cpu-link", "log", logPath);
  llvm::FileRemover removeLog(logPath);
  std::vector<std::string> args = {linker,
                                   "-shared",
                                   "--no-undefined",
                                   "-z",
                                   "noexecstack",
                                   "-z",
                                   "now",
                                   "--hash-style=gnu",
                                   "--build-id=none",
                                   "-o",
                                   libraryPath.str().str()};
  args.insert(args.end(), objectPaths.begin(), objectPaths.end());
  for (std::string &library : findLinkLibraries(linker, arch))
    args.push_back(std::move(library));
  llvm::SmallVector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logPath.str(),
                                                logPath.str()};
  std::string error;
  int rc =
      llvm::sys::ExecuteAndWait(linker, argRefs, std::nullopt, redirects,
                                /*SecondsToWait=*/0, /*MemoryLimit=*/0, &error);
  if (rc != 0) {
    auto log = llvm::MemoryBuffer::getFile(logPath);
    return emitError(loc) << "linking the CPU code with " << linker << " failed"
                          << (error.empty() ? "" : ": " + error) << "\n"
                          << (log ? (*log)->getBuffer() : "");
  }
  auto library = llvm::MemoryBuffer::getFile(libraryPath);
  if (!library)
    return emitError(loc) << "cannot read the linked CPU code: "
                          << library.getError().message();
  llvm::StringRef bytes = (*library)->getBuffer();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

FailureOr<rt::CPUCode> compileCPUCode(ModuleOp module, StringRef entry,
                                      const CPUCompileOptions &options) {
  Location loc = module.getLoc();
  initializeNativeTarget();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(loc) << "no LLVM target for " << triple.str() << ": "
                          << error;
  std::string cpu = options.cpu, features;
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures hostFeatures;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      hostFeatures.AddFeature(feature.first(), feature.second);
    features = hostFeatures.getString();
  }
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt,
      static_cast<llvm::CodeGenOptLevel>(std::min(options.optLevel, 3u))));
  if (!tm || !tm->getMCSubtargetInfo()->isCPUStringValid(cpu))
    return unknownCPUError(loc, options.cpu);
  FailureOr<std::string> tuneCPU =
      resolveTuneCPU(loc, cpu, options.tuneCPU, *tm->getMCSubtargetInfo());
  if (failed(tuneCPU))
    return failure();

  // Computations on the weights alone move into a prepare function the
  // runtime calls once per binding (CPULibrary; the JIT keeps them inline).
  if (failed(lowerToLLVMDialect(module, options, *tm->getMCSubtargetInfo(),
                                /*hoistParameters=*/true)))
    return failure();
  std::optional<rt::CPUPrepare> prepare;
  if (auto records = module->getAttrOfType<DictionaryAttr>("fx.prepare")) {
    if (auto record = records.getAs<DictionaryAttr>(entry)) {
      rt::CPUPrepare &info = prepare.emplace();
      info.symbol = rt::kCPUEntryPrefix +
                    record.getAs<StringAttr>("function").getValue().str();
      for (int64_t index :
           record.getAs<DenseI64ArrayAttr>("arguments").asArrayRef())
        info.arguments.push_back(index);
      for (auto [i, attr] :
           llvm::enumerate(record.getAs<ArrayAttr>("results"))) {
        auto type = cast<RankedTensorType>(cast<TypeAttr>(attr).getValue());
        std::optional<rt::DType> dtype = toDType(type.getElementType());
        if (!dtype)
          return emitError(loc) << "a prepared parameter has the type " << type
                                << ", which has no runtime dtype";
        info.results.push_back(
            rt::TensorSpec{"prepared." + std::to_string(i), *dtype,
                           std::vector<int64_t>(type.getShape().begin(),
                                                type.getShape().end())});
      }
    }
    module->removeAttr("fx.prepare");
  }
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "fx");
  if (!llvmModule)
    return emitError(loc) << "translation to LLVM IR failed";
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(triple);

  llvm::Function *ciface =
      llvmModule->getFunction(("_mlir_ciface_" + entry).str());
  if (!ciface)
    return emitError(loc) << "no compiled entry point '" << entry << "'";
  rt::CPUCode code;
  code.arch = triple.getArchName().str();
  code.cpu = cpu;
  code.symbol = rt::kCPUEntryPrefix + entry.str();
  code.imports = routeImports(*llvmModule);
  definePackedEntry(*llvmModule, ciface, code.symbol);
  if (prepare) {
    std::string name = prepare->symbol.substr(strlen(rt::kCPUEntryPrefix));
    llvm::Function *prepareInterface =
        llvmModule->getFunction("_mlir_ciface_" + name);
    if (!prepareInterface)
      return emitError(loc) << "no compiled prepare function '" << name << "'";
    definePackedEntry(*llvmModule, prepareInterface, prepare->symbol);
    code.prepare = std::move(prepare);
  }
  // Only the entry points, the import table and the loop table are
  // visible: everything else is internal, so LLVM may inline, specialize and
  // drop it.
  for (llvm::Function &fn : *llvmModule)
    if (!fn.isDeclaration() && fn.getName() != code.symbol &&
        (!code.prepare || fn.getName() != code.prepare->symbol))
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable &global : llvmModule->globals())
    if (!global.isDeclaration() && !global.getName().starts_with("llvm.") &&
        !global.getName().starts_with(rt::kCPUImportPrefix) &&
        global.getName() != rt::kCPULoopTable)
      global.setLinkage(llvm::GlobalValue::InternalLinkage);
  setTuneCPU(*llvmModule, *tuneCPU);
  if (llvm::Error err =
          optimizeModule(llvmModule.get(), options.optLevel, tm.get()))
    return emitError(loc) << "LLVM optimization failed: "
                          << llvm::toString(std::move(err));
  if (options.llvmIR) {
    options.llvmIR->clear();
    llvm::raw_string_ostream os(*options.llvmIR);
    llvmModule->print(os, nullptr);
  }
  if (options.assembly) {
    std::optional<std::string> text =
        emitCode(*llvmModule, *tm, llvm::CodeGenFileType::AssemblyFile);
    if (!text)
      return emitError(loc) << "the target cannot emit assembly";
    *options.assembly = std::move(*text);
  }
  auto makeTM = [&]() {
    return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
        triple, cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_,
        std::nullopt,
        static_cast<llvm::CodeGenOptLevel>(std::min(options.optLevel, 3u))));
  };
  std::optional<std::vector<std::string>> objects =
      emitObjects(*llvmModule, makeTM);
  if (!objects)
    return emitError(loc) << "the target cannot emit object code";

  // The features the code may use that a host may lack, checked at load.
  code.features = requiredCPUFeatures(*tm->getMCSubtargetInfo());

  FailureOr<std::vector<uint8_t>> library =
      linkSharedObject(loc, *objects, options, code.arch);
  if (failed(library))
    return failure();
  code.library = std::move(*library);
  return code;
}

} // namespace fx
