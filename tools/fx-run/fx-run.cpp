//===- fx-run.cpp - compile and run an FX function ------------------------===//
//
// Compiles one function of an FX-dialect file for the CPU (JIT) or for a
// Vulkan device (SPIR-V kernels run by the project's Vulkan runtime), binds
// its parameters from a .safetensors file and its inputs from .npy files (or
// seeded random data), runs it, and writes, compares or times the outputs.
//
//===----------------------------------------------------------------------===//

#include "fx/Compiler/CPUCompiler.h"
#include "fx/Compiler/Entry.h"
#include "fx/Compiler/VulkanCompiler.h"
#include "fx/InitAll.h"
#include "fx/Runtime/Artifact.h"
#include "fx/Runtime/CPUFunction.h"
#include "fx/Runtime/Model.h"
#include "fx/Runtime/Parallel.h"
#include "fx/Runtime/Runner.h"
#include "fx/Runtime/VulkanRuntime.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = fx::rt;

static cl::OptionCategory category("fx-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<file.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string> artifactFile(
    "artifact",
    cl::desc("Run this compiled artifact (from fx-compile) instead of "
             "compiling a .mlir file; the flags mean what they mean for "
             "fxrt-run, and --target defaults to the artifact's CPU code"),
    cl::value_desc("model.fxa"), cl::cat(category));
static cl::opt<std::string>
    entry("entry", cl::desc("Function to run (default: the only public one)"),
          cl::value_desc("name"), cl::cat(category));
static cl::opt<std::string>
    target("target",
           cl::desc("Where to run: cpu (default) or vulkan (the device of "
                    "--device)"),
           cl::init("cpu"), cl::cat(category));
static cl::opt<bool>
    listDevices("list-devices",
                cl::desc("List the Vulkan devices and what they support, "
                         "then exit"),
                cl::init(false), cl::cat(category));
static cl::opt<int>
    device("device",
           cl::desc("Vulkan device index from --list-devices (default: "
                    "FX_VULKAN_DEVICE, else the first discrete GPU, else 0)"),
           cl::init(-1), cl::cat(category));
static cl::opt<bool> vulkanValidation(
    "vulkan-validation",
    cl::desc("Run under the Khronos validation layer (also "
             "FX_VULKAN_VALIDATION=1); validation errors fail the run"),
    cl::init(false), cl::cat(category));
static cl::opt<std::string> dumpSPIRV(
    "dump-spirv",
    cl::desc("Vulkan: write each kernel's SPIR-V to DIR/<n>-<kernel>.spv "
             "(for spirv-val or spirv-dis)"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string> saveArtifact(
    "save-artifact",
    cl::desc("Also write the compiled code (for the input shapes and the "
             "target: CPU code for this machine's CPU, or the Vulkan program "
             "for the device) to this artifact, which fxrt-run runs without "
             "MLIR"),
    cl::value_desc("file.fxa"), cl::cat(category));
static cl::opt<bool>
    profile("profile",
            cl::desc("Vulkan: time every dispatch and copy of one run with "
                     "GPU timestamps and print the table"),
            cl::init(false), cl::cat(category));
static cl::opt<std::string>
    weights("weights",
            cl::desc("Bind arguments tagged {fx.param = \"name\"} from this "
                     ".safetensors file"),
            cl::value_desc("file.safetensors"), cl::cat(category));
static cl::list<std::string>
    inputs("input",
           cl::desc("A .npy file for the next non-parameter argument, in "
                    "argument order (repeat the flag). Without any, seeded "
                    "random inputs are made"),
           cl::value_desc("file.npy"), cl::cat(category));
static cl::opt<std::string>
    output("output",
           cl::desc("Write the outputs: one to .npy, several (or any) to .npz "
                    "as output0, output1, ..."),
           cl::value_desc("file.npy|file.npz"), cl::cat(category));
static cl::opt<std::string>
    expect("expect",
           cl::desc("Compare the outputs with a .npy (one output) or .npz "
                    "(outputs in order); exit code 1 on mismatch"),
           cl::value_desc("file.npy|file.npz"), cl::cat(category));
static cl::opt<double> relTolerance("rtol",
                                    cl::desc("Relative tolerance (1e-5)"),
                                    cl::init(1e-5), cl::cat(category));
static cl::opt<double> absTolerance("atol",
                                    cl::desc("Absolute tolerance (1e-6)"),
                                    cl::init(1e-6), cl::cat(category));
static cl::opt<unsigned> seed("seed", cl::desc("Seed of random inputs (0)"),
                              cl::init(0), cl::cat(category));
static cl::opt<unsigned>
    bench("bench",
          cl::desc("Time N runs after 3 warm-up runs; print median, min and "
                   "max, and the compile time"),
          cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<bool>
    noFusion("no-fusion",
             cl::desc("Disable fusion (batch-norm folding, elementwise "
                      "fusion and dispatch regions), to measure its gain"),
             cl::init(false), cl::cat(category));
static cl::opt<bool> noBufferReuse(
    "no-buffer-reuse",
    cl::desc("Vulkan: give every temporary memory of its own instead of "
             "sharing an arena between temporaries never live at once"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> noDispatchRegions(
    "no-dispatch-regions",
    cl::desc("Keep elementwise fusion but do not form dispatch regions "
             "(reductions and convolution epilogues stay separate loops)"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> fusionReport(
    "fusion-report",
    cl::desc("Print each dispatch region (root and fused ops, bytes read "
             "and written) and every producer that did not fuse, with the "
             "reason, as remarks at the ops' source locations"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> noVectorize("no-vectorize",
                                 cl::desc("Disable tiling and vectorization"),
                                 cl::init(false), cl::cat(category));
static cl::opt<std::string>
    cpu("cpu",
        cl::desc("CPU the JIT compiles for (--target cpu): native (this "
                 "machine's CPU and all its features; default), or an LLVM "
                 "CPU name such as x86-64-v3 (AVX2) to run code for a lesser "
                 "CPU here"),
        cl::init("native"), cl::cat(category));
static cl::opt<unsigned> numThreads(
    "num-threads",
    cl::desc("Threads for parallel loops (default: FX_NUM_THREADS or "
             "the hardware threads; 1 for single-threaded code)"),
    cl::init(0), cl::cat(category));
static cl::opt<bool> printOutputs("print",
                                  cl::desc("Print a summary of each output"),
                                  cl::init(false), cl::cat(category));

namespace {

int fail(const std::string &message) {
  llvm::errs() << "fx-run: error: " << message << "\n";
  return rt::kExitError;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fx-run: compile an FX-dialect function for the CPU or a Vulkan "
      "device and run it\n\n"
      "  fx-run model.mlir --weights model.safetensors --input x.npy \\\n"
      "         --output y.npy --expect ref.npy --bench 20\n"
      "  fx-run model.mlir --target vulkan --profile\n"
      "  fx-run --artifact model.fxa --weights model.safetensors\n"
      "  fx-run --list-devices\n\n"
      "Arguments tagged {fx.param = \"name\"} are bound from --weights by "
      "name; the\nothers take the --input files in order (or seeded random "
      "data if no --input\nis given). Dynamic dimensions are specialized to "
      "the given inputs.\nExit codes: 0 ok, 1 outputs differ from --expect, 2 "
      "error.\n");

  if (listDevices) {
    auto devices = rt::vk::Context::listDevices();
    if (!devices.isOk())
      return fail(devices.message());
    for (const rt::vk::DeviceInfo &info : devices.value())
      llvm::outs() << info.describe();
    return 0;
  }
  if (target != "cpu" && target != "vulkan")
    return fail("unknown --target '" + target + "' (supported: cpu, vulkan)");
  if (!artifactFile.empty()) {
    if (!inputFile.empty())
      return fail("give either a .mlir file or --artifact, not both");
    rt::ArtifactRunOptions run;
    run.artifact = artifactFile;
    run.model.entry = entry;
    // --target's default (cpu) is implicit: an artifact without CPU code
    // then runs on Vulkan.
    if (target.getNumOccurrences())
      run.model.target = target;
    run.model.vulkan.device = device;
    run.model.vulkan.validation = vulkanValidation;
    run.sources.weights = weights;
    run.sources.inputs = inputs;
    run.sources.seed = seed;
    run.run.bench = bench;
    run.run.print = printOutputs;
    run.run.output = output;
    run.run.expect = expect;
    run.run.rtol = relTolerance;
    run.run.atol = absTolerance;
    run.profile = profile;
    if (numThreads > 0)
      rt::setNumThreads(numThreads);
    auto exitCode = rt::runArtifact(
        run, [](std::string_view text) { llvm::outs() << text; });
    if (!exitCode.isOk())
      return fail(exitCode.message());
    return exitCode.value();
  }
  if (inputFile.empty())
    return fail("no input file (usage: fx-run [options] <file.mlir>, or "
                "fx-run --artifact <model.fxa>)");
  if (profile && target != "vulkan")
    return fail("--profile needs --target=vulkan");

  fx::registerAllPasses();
  DialectRegistry registry;
  fx::registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  // Diagnostics point at the user's source; a dump of the failing op in
  // generic form would bury them.
  ctx.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &ctx);
  std::string openError;
  auto file = openInputFile(inputFile, &openError);
  if (!file)
    return fail(openError);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  if (!module)
    return rt::kExitError;
  func::FuncOp func = fx::findEntry(*module, entry);
  if (!func)
    return rt::kExitError;

  // Bind every argument: parameters from --weights, others from --input or
  // random data.
  std::vector<rt::TensorSpec> argumentSpecs;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto type = dyn_cast<RankedTensorType>(func.getArgumentTypes()[i]);
    std::optional<rt::DType> dtype =
        type ? fx::toDType(type.getElementType()) : std::nullopt;
    if (!dtype)
      return fail("argument " + std::to_string(i) +
                  " has a type with no runtime dtype");
    rt::TensorSpec spec{"", *dtype, {}};
    for (int64_t d = 0; d < type.getRank(); ++d)
      spec.shape.push_back(type.isDynamicDim(d) ? rt::kDynamicDim
                                                : type.getDimSize(d));
    if (auto param = func.getArgAttrOfType<StringAttr>(i, "fx.param")) {
      spec.name = param.str();
      spec.parameter = true;
    }
    argumentSpecs.push_back(std::move(spec));
  }
  rt::ArgumentSources sources;
  sources.weights = weights;
  sources.inputs = inputs;
  sources.seed = seed;
  auto bound = rt::bindArguments(func.getName().str(), argumentSpecs, sources);
  if (!bound.isOk())
    return fail(bound.message());
  std::vector<rt::Tensor> args = bound.take();
  std::vector<std::vector<int64_t>> shapes;
  for (const rt::Tensor &arg : args)
    shapes.push_back(arg.shape());

  // Compile only the entry point and what it calls, specialized to the
  // arguments' shapes.
  auto compileStart = std::chrono::steady_clock::now();
  std::string entryName = func.getName().str();
  fx::EntryShapes entryShapes;
  entryShapes.arguments = std::move(shapes);
  FailureOr<fx::PreparedEntry> prepared =
      fx::prepareEntry(*module, entryName, entryShapes);
  if (failed(prepared))
    return rt::kExitError;
  module = std::move(prepared->module);
  const rt::FunctionSignature &signature = prepared->signature;
  // What runs the compiled graph, whichever the target.
  rt::Executor executor;
  std::unique_ptr<fx::JitModule> jitModule;
  std::optional<rt::CPUFunction> cpuFunction;
  std::shared_ptr<rt::vk::Context> vulkanContext;
  std::unique_ptr<rt::vk::Executable> executable;
  if (target == "cpu") {
    fx::CPUCompileOptions options;
    options.fuseElementwise = !noFusion;
    options.fusionReport = fusionReport;
    options.dispatchRegions = !noDispatchRegions;
    options.vectorize = !noVectorize;
    options.cpu = cpu;
    if (numThreads > 0) {
      options.threads = numThreads;
      rt::setNumThreads(numThreads);
    } else {
      options.threads = rt::getNumThreads();
    }
    if (!saveArtifact.empty()) {
      // The artifact gets code compiled ahead of time from a copy (the JIT
      // consumes the module); same options, for this machine's CPU.
      OwningOpRef<ModuleOp> copy = cast<ModuleOp>((*module)->clone());
      fx::CPUCodeOptions aotOptions;
      aotOptions.compile = options;
      FailureOr<rt::CPUCode> code =
          fx::compileCPUCode(*copy, entryName, aotOptions);
      if (failed(code))
        return rt::kExitError;
      rt::Artifact artifact;
      artifact.producer = "fx-run (fx-mlir)";
      rt::ArtifactEntry &saved = artifact.entries.emplace_back();
      saved.name = entryName;
      saved.signature = signature;
      saved.cpu = std::move(*code);
      if (rt::Status s = rt::writeArtifact(saveArtifact, artifact); !s.isOk())
        return fail(s.message());
    }
    auto jit = fx::JitModule::compile(*module, options);
    if (failed(jit))
      return rt::kExitError;
    jitModule = std::move(*jit);
    auto packed = jitModule->lookup(entryName);
    if (!packed)
      return fail(llvm::toString(packed.takeError()));
    cpuFunction.emplace(*packed, signature);
    executor.run = [&](const std::vector<rt::Tensor> &in) {
      return cpuFunction->run(in);
    };
    executor.runInto = [&](const std::vector<rt::Tensor> &in,
                           std::vector<rt::Tensor> &out) {
      return cpuFunction->runInto(in, out);
    };
  } else {
    rt::vk::ContextOptions contextOptions;
    contextOptions.device = device;
    contextOptions.validation = vulkanValidation;
    auto context = rt::vk::Context::create(contextOptions);
    if (!context.isOk())
      return fail(context.message());
    vulkanContext = context.take();
    fx::VulkanCompileOptions options;
    options.fuseElementwise = !noFusion;
    options.target = fx::targetForDevice(vulkanContext->device());
    options.reuseTemporaries = !noBufferReuse;
    FailureOr<rt::vk::Program> program =
        fx::compileForVulkan(*module, entryName, signature, options);
    if (failed(program))
      return rt::kExitError;
    if (!dumpSPIRV.empty())
      if (std::string error = fx::writeSPIRVFiles(*program, dumpSPIRV, "");
          !error.empty())
        return fail(error);
    if (!saveArtifact.empty()) {
      rt::Artifact artifact;
      artifact.producer = "fx-run (fx-mlir)";
      rt::ArtifactEntry &saved = artifact.entries.emplace_back();
      saved.name = entryName;
      saved.signature = signature;
      saved.vulkan = *program;
      if (rt::Status s = rt::writeArtifact(saveArtifact, artifact); !s.isOk())
        return fail(s.message());
    }
    auto loaded = rt::vk::Executable::load(vulkanContext, std::move(*program));
    if (!loaded.isOk())
      return fail(loaded.message());
    executable = loaded.take();
    if (profile) {
      rt::Status s = executable->enableProfiling();
      if (!s.isOk())
        return fail(s.message());
      executor.lastProfile = [&] { return executable->lastProfile(); };
    }
    executor.run = [&](const std::vector<rt::Tensor> &in) {
      return executable->run(in);
    };
    executor.runInto = [&](const std::vector<rt::Tensor> &in,
                           std::vector<rt::Tensor> &out) {
      return executable->runInto(in, out);
    };
    executor.validationErrors = [&] {
      return vulkanContext->validationErrors();
    };
    executor.memoryUse = [&] { return executable->memoryUse(); };
  }

  rt::RunOptions runOptions;
  runOptions.bench = bench;
  runOptions.prepareLabel = "compile";
  runOptions.prepareMs = rt::millisecondsSince(compileStart);
  runOptions.print = printOutputs;
  runOptions.output = output;
  runOptions.expect = expect;
  runOptions.rtol = relTolerance;
  runOptions.atol = absTolerance;
  auto passed =
      rt::runAndReport(executor, args, runOptions,
                       [](std::string_view text) { llvm::outs() << text; });
  if (!passed.isOk())
    return fail(passed.message());
  return passed.value() ? 0 : rt::kExitMismatch;
}
