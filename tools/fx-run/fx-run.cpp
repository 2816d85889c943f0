//===- fx-run.cpp - compile and run an FX function ------------------------===//
//
// Compiles one function of an FX-dialect file for the CPU (JIT) or for a
// Vulkan device (SPIR-V kernels run by the project's Vulkan runtime), binds
// its parameters from a .safetensors file and its inputs from .npy files (or
// seeded random data), runs it, and writes, compares or times the outputs.
//
//===----------------------------------------------------------------------===//

#include "fx/Compiler/CpuCompiler.h"
#include "fx/Compiler/VulkanCompiler.h"
#include "fx/Runtime/CpuFunction.h"
#include "fx/Runtime/NumpyIO.h"
#include "fx/Runtime/Parallel.h"
#include "fx/Runtime/Safetensors.h"
#include "fx/Runtime/VulkanRuntime.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <random>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = fx::rt;

static cl::OptionCategory category("fx-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<file.mlir>"),
                                      cl::cat(category));
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
static cl::opt<std::string> dumpSpirv(
    "dump-spirv",
    cl::desc("Vulkan: write each kernel's SPIR-V to DIR/<n>-<kernel>.spv "
             "(for spirv-val or spirv-dis)"),
    cl::value_desc("DIR"), cl::cat(category));
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
static cl::opt<unsigned> numThreads(
    "num-threads",
    cl::desc("Threads for parallel loops (default: FX_NUM_THREADS or "
             "the hardware threads; 1 for single-threaded code)"),
    cl::init(0), cl::cat(category));
static cl::opt<bool> printOutputs("print",
                                  cl::desc("Print a summary of each output"),
                                  cl::init(false), cl::cat(category));

namespace {

/// Exit codes: 0 success, 1 outputs differ from --expect, 2 any error.
constexpr int kMismatch = 1, kError = 2;

int fail(const std::string &message) {
  llvm::errs() << "fx-run: error: " << message << "\n";
  return kError;
}

/// Seeded random data of `spec`: floats uniform in [-1, 1), integers in
/// [0, 10), bools 50/50.
rt::Tensor makeRandom(const rt::TensorSpec &spec, std::mt19937_64 &rng) {
  rt::Tensor t = rt::Tensor::allocate(spec.dtype, spec.shape);
  size_t n = t.numel();
  switch (spec.dtype) {
  case rt::DType::F32:
  case rt::DType::F16:
  case rt::DType::BF16: {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    rt::Tensor f = rt::Tensor::allocate(rt::DType::F32, spec.shape);
    for (size_t i = 0; i < n; ++i)
      f.dataAs<float>()[i] = dist(rng);
    return spec.dtype == rt::DType::F32 ? f : f.castTo(spec.dtype).take();
  }
  case rt::DType::I64:
  case rt::DType::I32: {
    std::uniform_int_distribution<int64_t> dist(0, 9);
    rt::Tensor l = rt::Tensor::allocate(rt::DType::I64, spec.shape);
    for (size_t i = 0; i < n; ++i)
      l.dataAs<int64_t>()[i] = dist(rng);
    return spec.dtype == rt::DType::I64 ? l : l.castTo(spec.dtype).take();
  }
  default: {
    std::bernoulli_distribution dist(0.5);
    for (size_t i = 0; i < n; ++i)
      static_cast<uint8_t *>(t.data())[i] = dist(rng);
    return t;
  }
  }
}

struct Comparison {
  double maxAbs = 0, maxRel = 0;
  size_t mismatches = 0;
};

/// numpy.allclose-style comparison (NaN matches NaN).
Comparison compare(const rt::Tensor &got, const rt::Tensor &want) {
  Comparison c;
  for (size_t i = 0; i < got.numel(); ++i) {
    double a = got.getAsDouble(i), b = want.getAsDouble(i);
    if (std::isnan(a) && std::isnan(b))
      continue;
    double abs = std::fabs(a - b);
    if (std::isnan(abs) || abs > absTolerance + relTolerance * std::fabs(b))
      ++c.mismatches;
    if (std::isnan(abs))
      abs = INFINITY;
    c.maxAbs = std::max(c.maxAbs, abs);
    if (b != 0)
      c.maxRel = std::max(c.maxRel, abs / std::fabs(b));
  }
  return c;
}

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
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
  if (inputFile.empty())
    return fail("no input file (usage: fx-run [options] <file.mlir>)");
  if (target != "cpu" && target != "vulkan")
    return fail("unknown --target '" + target + "' (supported: cpu, vulkan)");
  if (profile && target != "vulkan")
    return fail("--profile needs --target=vulkan");

  DialectRegistry registry;
  fx::registerCpuCompilerDependencies(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &ctx);
  std::string openError;
  auto file = openInputFile(inputFile, &openError);
  if (!file)
    return fail(openError);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  if (!module)
    return kError;
  func::FuncOp func = fx::findEntry(*module, entry);
  if (!func)
    return kError;

  // Bind every argument: parameters from --weights, others from --input or
  // random data.
  std::optional<rt::SafetensorsFile> weightFile;
  if (!weights.empty()) {
    auto opened = rt::SafetensorsFile::open(weights);
    if (!opened.isOk())
      return fail(opened.message());
    weightFile.emplace(opened.take());
  }
  size_t numInputs = 0;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (!func.getArgAttrOfType<StringAttr>(i, "fx.param"))
      ++numInputs;
  if (!inputs.empty() && inputs.size() != numInputs)
    return fail("'" + func.getName().str() + "' takes " +
                std::to_string(numInputs) + " inputs besides parameters, but " +
                std::to_string(inputs.size()) + " --input files were given");
  std::mt19937_64 rng(seed);
  std::vector<rt::Tensor> args;
  std::vector<std::vector<int64_t>> shapes;
  size_t nextInput = 0;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto type = dyn_cast<RankedTensorType>(func.getArgumentTypes()[i]);
    std::optional<rt::DType> dtype =
        type ? fx::toDType(type.getElementType()) : std::nullopt;
    std::string what = "argument " + std::to_string(i);
    if (!dtype)
      return fail(what + " has a type with no runtime dtype");
    rt::Tensor tensor;
    std::string source;
    if (auto param = func.getArgAttrOfType<StringAttr>(i, "fx.param")) {
      what += " (parameter '" + param.str() + "')";
      if (!weightFile)
        return fail(what + " needs a weights file: pass --weights");
      if (!weightFile->contains(param.str()))
        return fail(what + " is not in " + weights);
      auto t = weightFile->get(param.str());
      if (!t.isOk())
        return fail(t.message());
      tensor = t.take();
      source = weights;
    } else if (!inputs.empty()) {
      source = inputs[nextInput++];
      auto t = rt::readNpy(source);
      if (!t.isOk())
        return fail(t.message());
      tensor = t.take();
      what = "input " + std::to_string(nextInput - 1) + " (argument " +
             std::to_string(i) + ")";
    } else {
      if (!type.hasStaticShape())
        return fail(what + " has dynamic dimensions (" + [&] {
          std::string s;
          llvm::raw_string_ostream os(s);
          os << type;
          return s;
        }() + "); give its data with --input");
      tensor = makeRandom(
          rt::TensorSpec{"", *dtype, std::vector<int64_t>(type.getShape())},
          rng);
    }
    if (tensor.dtype() != *dtype)
      return fail(what + " expects dtype " + rt::dtypeName(*dtype) + " but " +
                  source + " holds " + rt::dtypeName(tensor.dtype()));
    bool fits = type.getRank() == static_cast<int64_t>(tensor.rank());
    for (size_t d = 0; fits && d < tensor.rank(); ++d)
      fits = type.isDynamicDim(d) || type.getDimSize(d) == tensor.shape()[d];
    if (!fits) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << type;
      return fail(what + " expects " + s + " but " + source + " has shape " +
                  tensor.shapeString());
    }
    shapes.push_back(tensor.shape());
    args.push_back(std::move(tensor));
  }

  // Compile only the entry point and what it calls.
  auto compileStart = std::chrono::steady_clock::now();
  for (auto other : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (other != func && SymbolTable::symbolKnownUseEmpty(other, *module))
      other.erase();
  if (failed(fx::specializeArguments(func, shapes)))
    return kError;
  FailureOr<rt::FunctionSignature> signature = fx::getSignature(func);
  if (failed(signature))
    return kError;
  std::string entryName = func.getName().str();
  // What runs the compiled graph, whichever the target.
  std::function<rt::Result<std::vector<rt::Tensor>>(
      const std::vector<rt::Tensor> &)>
      run;
  std::function<rt::Status(const std::vector<rt::Tensor> &,
                           std::vector<rt::Tensor> &)>
      runInto;
  std::unique_ptr<fx::JitModule> jitModule;
  std::optional<rt::CpuFunction> cpuFunction;
  std::shared_ptr<rt::vk::Context> vulkanContext;
  std::unique_ptr<rt::vk::Executable> executable;
  if (target == "cpu") {
    fx::CpuCompileOptions options;
    options.fuseElementwise = !noFusion;
    options.fusionReport = fusionReport;
    options.dispatchRegions = !noDispatchRegions;
    options.vectorize = !noVectorize;
    if (numThreads > 0) {
      options.threads = numThreads;
      rt::setNumThreads(numThreads);
    } else {
      options.threads = rt::getNumThreads();
    }
    auto jit = fx::JitModule::compile(*module, options);
    if (failed(jit))
      return kError;
    jitModule = std::move(*jit);
    auto packed = jitModule->lookup(entryName);
    if (!packed)
      return fail(llvm::toString(packed.takeError()));
    cpuFunction.emplace(*packed, *signature);
    run = [&](const std::vector<rt::Tensor> &in) {
      return cpuFunction->run(in);
    };
    runInto = [&](const std::vector<rt::Tensor> &in,
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
    FailureOr<rt::vk::Program> program =
        fx::compileForVulkan(*module, entryName, *signature, options);
    if (failed(program))
      return kError;
    if (!dumpSpirv.empty()) {
      if (std::error_code ec = llvm::sys::fs::create_directories(dumpSpirv))
        return fail("cannot create '" + dumpSpirv + "': " + ec.message());
      for (auto [i, kernel] : llvm::enumerate(program->kernels)) {
        std::string path = dumpSpirv + "/" + std::to_string(i) + "-" +
                           kernel.entryPoint + ".spv";
        std::error_code ec;
        llvm::raw_fd_ostream os(path, ec);
        if (ec)
          return fail("cannot write '" + path + "': " + ec.message());
        os.write(reinterpret_cast<const char *>(kernel.spirv.data()),
                 kernel.spirv.size() * sizeof(uint32_t));
      }
    }
    auto loaded = rt::vk::Executable::load(vulkanContext, std::move(*program));
    if (!loaded.isOk())
      return fail(loaded.message());
    executable = loaded.take();
    if (profile) {
      rt::Status s = executable->enableProfiling();
      if (!s.isOk())
        return fail(s.message());
    }
    run = [&](const std::vector<rt::Tensor> &in) {
      return executable->run(in);
    };
    runInto = [&](const std::vector<rt::Tensor> &in,
                  std::vector<rt::Tensor> &out) {
      return executable->runInto(in, out);
    };
  }
  double compileMs = msSince(compileStart);

  // Run.
  auto result = run(args);
  if (!result.isOk())
    return fail(result.message());
  std::vector<rt::Tensor> outputs = result.take();
  if (bench > 0) {
    for (int i = 0; i < 3; ++i)
      if (rt::Status s = runInto(args, outputs); !s.isOk())
        return fail(s.message());
    std::vector<double> times;
    for (unsigned i = 0; i < bench; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (rt::Status s = runInto(args, outputs); !s.isOk())
        return fail(s.message());
      times.push_back(msSince(start));
    }
    std::sort(times.begin(), times.end());
    llvm::outs() << llvm::format(
        "compile: %.1f ms\nrun (%u runs): median %.4f ms, min %.4f ms, max "
        "%.4f ms\n",
        compileMs, unsigned(bench), times[times.size() / 2], times.front(),
        times.back());
  }
  if (profile) {
    auto steps = executable->lastProfile();
    if (!steps.isOk())
      return fail(steps.message());
    double total = 0;
    for (const rt::vk::StepTime &step : steps.value())
      total += step.microseconds;
    llvm::outs() << llvm::format("profile: %zu steps, %.1f us on the GPU\n",
                                 steps.value().size(), total);
    for (auto [i, step] : llvm::enumerate(steps.value()))
      llvm::outs() << llvm::format(
                          "  %4zu %10.1f us  %5.1f%%  ", i, step.microseconds,
                          total > 0 ? 100 * step.microseconds / total : 0.0)
                   << step.name << "\n";
  }
  if (vulkanContext && vulkanContext->validationErrors() > 0)
    return fail(std::to_string(vulkanContext->validationErrors()) +
                " Vulkan validation error(s) (printed above)");
  if (printOutputs) {
    for (auto [i, t] : llvm::enumerate(outputs)) {
      double sum = 0;
      for (size_t j = 0; j < t.numel(); ++j)
        sum += t.getAsDouble(j);
      llvm::outs() << "output " << i << ": " << rt::dtypeName(t.dtype())
                   << t.shapeString() << " sum " << sum << "\n";
    }
  }

  if (!output.empty()) {
    rt::Status s = rt::Status::ok();
    if (outputs.size() == 1 && StringRef(output).ends_with(".npy")) {
      s = rt::writeNpy(output, outputs.front());
    } else if (StringRef(output).ends_with(".npz")) {
      std::vector<std::pair<std::string, rt::Tensor>> named;
      for (auto [i, t] : llvm::enumerate(outputs))
        named.push_back({"output" + std::to_string(i), t});
      s = rt::writeNpz(output, named);
    } else {
      return fail("--output must end in .npz for " +
                  std::to_string(outputs.size()) + " outputs, or .npy for one");
    }
    if (!s.isOk())
      return fail(s.message());
  }

  if (!expect.empty()) {
    std::vector<rt::Tensor> refs;
    if (StringRef(expect).ends_with(".npz")) {
      auto loaded = rt::readNpz(expect);
      if (!loaded.isOk())
        return fail(loaded.message());
      for (auto &entry : loaded.value())
        refs.push_back(entry.second);
    } else {
      auto loaded = rt::readNpy(expect);
      if (!loaded.isOk())
        return fail(loaded.message());
      refs.push_back(loaded.take());
    }
    if (refs.size() != outputs.size())
      return fail(expect + " holds " + std::to_string(refs.size()) +
                  " arrays but the function has " +
                  std::to_string(outputs.size()) + " outputs");
    bool ok = true;
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (refs[i].shape() != outputs[i].shape())
        return fail("output " + std::to_string(i) + " has shape " +
                    outputs[i].shapeString() + " but the expected array has " +
                    refs[i].shapeString());
      Comparison c = compare(outputs[i], refs[i]);
      llvm::outs() << llvm::format(
          "output %zu: max abs error %.3g, max rel error %.3g, %zu of %zu "
          "elements outside rtol=%g atol=%g\n",
          i, c.maxAbs, c.maxRel, c.mismatches, outputs[i].numel(),
          double(relTolerance), double(absTolerance));
      ok &= c.mismatches == 0;
    }
    llvm::outs() << (ok ? "PASS\n"
                        : "FAIL: outputs differ from " + expect + "\n");
    if (!ok)
      return kMismatch;
  }
  return 0;
}
