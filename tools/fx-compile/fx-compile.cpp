//===- fx-compile.cpp - compile FX functions into an artifact -------------===//
//
// Compiles the public functions of an FX-dialect file ahead of time and
// writes them as one versioned artifact (.fxa, fx/Runtime/Artifact.h), which
// fxrt-run and the runtime load without MLIR or LLVM. Today the artifact
// carries Vulkan programs (SPIR-V kernels and their schedule); CPU code in
// artifacts is the next step.
//
//===----------------------------------------------------------------------===//

#include "fx/Compiler/CpuCompiler.h"
#include "fx/Compiler/VulkanCompiler.h"
#include "fx/Pipelines/Pipelines.h"
#include "fx/Runtime/Artifact.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = ::fx::rt;

static cl::OptionCategory category("fx-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<file.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string>
    outputFile("o",
               cl::desc("Artifact to write (default: the input's name "
                        "with .fxa)"),
               cl::value_desc("model.fxa"), cl::cat(category));
static cl::list<std::string>
    entries("entry",
            cl::desc("Function to compile (repeat for several; default: "
                     "every public function with a body)"),
            cl::value_desc("name"), cl::cat(category));
static cl::opt<std::string>
    target("target",
           cl::desc("Code to put in the artifact: vulkan (SPIR-V kernels). "
                    "cpu and all are not supported yet"),
           cl::init("vulkan"), cl::cat(category));
static cl::opt<std::string> vulkanTarget(
    "vulkan-target",
    cl::desc("SPIR-V target environment: vulkan13 (default; any Vulkan 1.3 "
             "GPU), lavapipe, nvidia-h200, or caps=CAP,... (what fx-run "
             "--list-devices reports as a device's target)"),
    cl::init("vulkan13"), cl::cat(category));
static cl::opt<int64_t>
    workgroupSize("workgroup-size",
                  cl::desc("Threads per Vulkan workgroup (256)"), cl::init(256),
                  cl::cat(category));
static cl::opt<int64_t> rowWorkgroupSize(
    "row-workgroup-size",
    cl::desc("Most threads per workgroup of row kernels (softmax, layer "
             "norm; half of it for a lone row reduction; a power of two, "
             "512)"),
    cl::init(512), cl::cat(category));
static cl::opt<bool>
    noFusion("no-fusion",
             cl::desc("Disable fusion (elementwise chains and row kernels)"),
             cl::init(false), cl::cat(category));
static cl::opt<std::string> dumpSpirv(
    "dump-spirv",
    cl::desc("Also write each kernel's SPIR-V to DIR/<entry>-<n>-<kernel>.spv"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<bool> verbose("v",
                             cl::desc("Print each entry's compile time, "
                                      "kernels and dispatches"),
                             cl::init(false), cl::cat(category));

namespace {

int fail(const llvm::Twine &message) {
  llvm::errs() << "fx-compile: error: " << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fx-compile: compile FX-dialect functions ahead of time into an "
      "artifact\n\n"
      "  fx-compile model.mlir --target vulkan --vulkan-target nvidia-h200 "
      "-o model.fxa\n"
      "  fxrt-run model.fxa --weights model.safetensors --input x.npy\n\n"
      "Every argument needs a static shape (an artifact is compiled for "
      "fixed shapes).\nArguments tagged {fx.param = \"name\"} become "
      "parameters, bound by name when\nthe artifact is run. Exit code 0 on "
      "success, 1 on any error.\n");

  if (inputFile.empty())
    return fail("no input file (usage: fx-compile [options] <file.mlir>)");
  if (target == "cpu" || target == "all")
    return fail("--target=" + target +
                ": CPU code in artifacts is not supported yet; use "
                "--target=vulkan, or fx-run for the CPU");
  if (target != "vulkan")
    return fail("unknown --target '" + target +
                "' (supported: vulkan; cpu and all are not implemented yet)");
  if (mlir::fx::spirvTargetOptions(vulkanTarget).empty())
    return fail("unknown --vulkan-target '" + vulkanTarget +
                "' (expected vulkan13, lavapipe, nvidia-h200 or caps=CAP,... "
                "with SPIR-V capability names)");
  std::string output = outputFile;
  if (output.empty()) {
    llvm::SmallString<128> path(inputFile);
    llvm::sys::path::replace_extension(path, ".fxa");
    output = path.str().str();
  }

  DialectRegistry registry;
  ::fx::registerCpuCompilerDependencies(registry);
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
    return 1;

  std::vector<std::string> names(entries.begin(), entries.end());
  if (names.empty()) {
    for (auto func : module->getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        names.push_back(func.getName().str());
    if (names.empty())
      return fail(inputFile + " has no public function with a body");
  }

  rt::Artifact artifact;
  artifact.producer = "fx-compile (fx-mlir)";
  for (const std::string &name : names) {
    auto start = std::chrono::steady_clock::now();
    // Each entry is compiled from its own copy: the pipeline consumes it.
    OwningOpRef<ModuleOp> copy = cast<ModuleOp>((*module)->clone());
    func::FuncOp func = ::fx::findEntry(*copy, name);
    if (!func)
      return 1;
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (tensor && !tensor.hasStaticShape()) {
        func.emitError() << "argument " << i << " of '" << name
                         << "' has the dynamic type " << type
                         << "; fx-compile needs static shapes (artifacts "
                            "with dynamic dimensions are not supported yet)";
        return 1;
      }
    }
    for (auto other : llvm::make_early_inc_range(copy->getOps<func::FuncOp>()))
      if (other != func && SymbolTable::symbolKnownUseEmpty(other, *copy))
        other.erase();
    FailureOr<rt::FunctionSignature> signature = ::fx::getSignature(func);
    if (failed(signature))
      return 1;
    ::fx::VulkanCompileOptions options;
    options.fuseElementwise = !noFusion;
    options.target = vulkanTarget;
    options.workgroupSize = workgroupSize;
    options.rowWorkgroupSize = rowWorkgroupSize;
    FailureOr<rt::vk::Program> program =
        ::fx::compileForVulkan(*copy, name, *signature, options);
    if (failed(program))
      return 1;
    if (!dumpSpirv.empty())
      if (std::string error =
              ::fx::writeSpirvFiles(*program, dumpSpirv, name + "-");
          !error.empty())
        return fail(error);
    if (verbose)
      llvm::errs() << llvm::format(
          "fx-compile: %s: %zu kernels, %zu dispatches, %zu buffers, %.1f "
          "ms\n",
          name.c_str(), program->kernels.size(), program->dispatches.size(),
          program->buffers.size(),
          std::chrono::duration<double, std::milli>(
              std::chrono::steady_clock::now() - start)
              .count());
    rt::ArtifactEntry entry;
    entry.name = name;
    entry.signature = *signature;
    entry.vulkan = std::move(*program);
    artifact.entries.push_back(std::move(entry));
  }
  rt::Status written = rt::writeArtifact(output, artifact);
  if (!written.isOk())
    return fail(written.message());
  return 0;
}
