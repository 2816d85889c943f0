//===- fx-run.cpp - compile and run an FX function ------------------------===//
//
// Compiles one function of an FX-dialect file for the CPU (JIT) or for a
// Vulkan device (SPIR-V kernels run by the project's Vulkan runtime), binds
// its parameters from a .safetensors file and its inputs from .npy files (or
// seeded random data), runs it, and writes, compares or times the outputs.
//
//===----------------------------------------------------------------------===//

#include "fx/Compiler/Compiler.h"
#include "fx/Compiler/CompilerFlags.h"
#include "fx/Compiler/VulkanCompiler.h"
#include "fx/Runtime/Artifact.h"
#include "fx/Runtime/Model.h"
#include "fx/Runtime/Parallel.h"
#include "fx/Runtime/Runner.h"
#include "fx/Runtime/VulkanRuntime.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

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
            cl::desc("Time every step of one run and print the table: "
                     "Vulkan, each dispatch and copy by GPU timestamps; CPU, "
                     "each parallel loop (named by its op and source line) "
                     "and the serial code between loops. With --bench, the "
                     "wall times come from runs without timing and the step "
                     "times are medians of N more runs with it"),
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
                   "max, and the compile time (Vulkan: also where a run's "
                   "time went on the host)"),
          cl::value_desc("N"), cl::init(0), cl::cat(category));
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
  fx::printToolError("fx-run", message);
  return rt::kExitError;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  fx::registerCompilerFlags(category);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fx-run: compile an FX-dialect function for the CPU or a Vulkan "
      "device and run it\n\n"
      "  fx-run model.mlir --weights model.safetensors --input x.npy \\\n"
      "         --output y.npy --expect ref.npy --bench 20\n"
      "  fx-run model.mlir --profile                 (CPU: time per loop)\n"
      "  fx-run model.mlir --target vulkan --profile (GPU: time per dispatch)\n"
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

  fx::CompilerOptions options;
  if (rt::Status s = fx::applyCompilerFlags(options); !s.isOk())
    return fail(s.message());
  options.target = target;
  options.vulkanDevice = device;
  options.vulkanValidation = vulkanValidation;
  if (numThreads > 0)
    rt::setNumThreads(numThreads);
  options.threads = rt::getNumThreads();
  fx::Compiler compiler(options);
  auto source = compiler.parseFile(inputFile);
  if (!source.isOk())
    return fail(source.message());

  // Bind every argument (parameters from --weights, others from --input or
  // random data), then compile for the shapes bound.
  auto declared = compiler.declaredEntry(*source.value(), entry);
  if (!declared.isOk())
    return fail(declared.message());
  rt::ArgumentSources sources;
  sources.weights = weights;
  sources.inputs = inputs;
  sources.seed = seed;
  auto bound = rt::bindArguments(declared.value().name,
                                 declared.value().signature.inputs, sources);
  if (!bound.isOk())
    return fail(bound.message());
  std::vector<rt::Tensor> args = bound.take();

  auto compileStart = std::chrono::steady_clock::now();
  fx::EntryRequest request;
  request.name = entry;
  for (const rt::Tensor &arg : args)
    request.argumentShapes.push_back(arg.shape());
  auto compiled = compiler.compileEntry(*source.value(), request);
  if (!compiler.lastCompile().diagnostics.empty())
    llvm::errs() << compiler.lastCompile().diagnostics << "\n";
  if (!compiled.isOk())
    return fail(compiled.message());
  rt::Artifact artifact;
  artifact.producer = "fx-run (fx-mlir)";
  artifact.entries.push_back(compiled.take());
  if (artifact.entries[0].vulkan && !dumpSPIRV.empty())
    if (std::string error =
            fx::writeSPIRVFiles(*artifact.entries[0].vulkan, dumpSPIRV, "");
        !error.empty())
      return fail(error);
  if (!saveArtifact.empty())
    if (rt::Status s = rt::writeArtifact(saveArtifact, artifact); !s.isOk())
      return fail(s.message());
  auto model = compiler.load(artifact);
  if (!model.isOk())
    return fail(model.message());
  if (profile)
    if (rt::Status s = model.value()->enableProfiling(); !s.isOk())
      return fail(s.message());
  rt::Executor executor = model.value()->executor();

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
