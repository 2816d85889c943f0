//===- fx-compile.cpp - compile FX functions into an artifact -------------===//
//
// Compiles the public functions of an FX-dialect file ahead of time and
// writes them as one versioned artifact (.fxa, fx/Runtime/Artifact.h), which
// fxrt-run and the runtime load without MLIR or LLVM: CPU code as a shared
// object compiled by LLVM ahead of time, and Vulkan programs (SPIR-V kernels
// and their schedule). --emit writes the intermediate forms instead.
//
//===----------------------------------------------------------------------===//

#include "fx/Compiler/CPUCompiler.h"
#include "fx/Compiler/Entry.h"
#include "fx/Compiler/VulkanCompiler.h"
#include "fx/InitAll.h"
#include "fx/Pipelines/Pipelines.h"
#include "fx/Runtime/Artifact.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

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
           cl::desc("Code to put in the artifact: cpu (a shared object for "
                    "--cpu), vulkan (SPIR-V kernels for --vulkan-target) or "
                    "all (both; default)"),
           cl::init("all"), cl::cat(category));
static cl::opt<std::string>
    cpu("cpu",
        cl::desc("CPU to compile for: native (this machine's CPU and all "
                 "its features; default), or an LLVM CPU name such as "
                 "x86-64-v3 (AVX2) or x86-64-v4 (AVX-512) to run on any CPU "
                 "of that level"),
        cl::init("native"), cl::cat(category));
static cl::opt<std::string>
    linker("linker",
           cl::desc("ELF linker for the CPU code (default: ld.lld from PATH "
                    "or LLVM's bin directory)"),
           cl::value_desc("path"), cl::cat(category));
static cl::opt<std::string> emit(
    "emit",
    cl::desc("What to write: artifact (default), llvm-ir (the optimized LLVM "
             "IR of the CPU code, to -o or <input>.ll), asm (its assembly, "
             "to -o or <input>.s), spirv (each Vulkan kernel as "
             "DIR/<entry>-<n>-<kernel>.spv, DIR from -o or <input>.spirv)"),
    cl::init("artifact"), cl::cat(category));
static cl::opt<int64_t>
    threads("cpu-threads",
            cl::desc("Parallel chunks per large CPU op, fixed at compile "
                     "time (0: this machine's hardware threads)"),
            cl::init(0), cl::cat(category));
static const std::string vulkanTargetDesc =
    "SPIR-V target environment, one of: " + mlir::fx::vulkanTargetHelp();
static cl::opt<std::string> vulkanTarget("vulkan-target",
                                         cl::desc(vulkanTargetDesc),
                                         cl::init("vulkan13"),
                                         cl::cat(category));
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
static cl::list<int64_t> dynamicSizes(
    "dynamic-sizes",
    cl::desc("Compile each function with dynamic dimensions once per size, "
             "every dynamic dimension taking that size (e.g. the batch: "
             "--dynamic-sizes=1,8,32); the runtime picks the entry of the "
             "inputs' shapes"),
    cl::value_desc("N,..."), cl::CommaSeparated, cl::cat(category));
static cl::opt<bool> noBufferReuse(
    "no-buffer-reuse",
    cl::desc("Give every Vulkan temporary memory of its own instead of "
             "sharing an arena between temporaries never live at once"),
    cl::init(false), cl::cat(category));
static cl::opt<std::string> dumpSPIRV(
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
      "  fx-compile model.mlir -o model.fxa     # CPU and Vulkan code\n"
      "  fx-compile model.mlir --target cpu --cpu x86-64-v3 -o model.fxa\n"
      "  fx-compile model.mlir --target vulkan --vulkan-target nvidia-h200 "
      "-o model.fxa\n"
      "  fx-compile model.mlir --emit asm -o model.s\n"
      "  fxrt-run model.fxa --weights model.safetensors --input x.npy\n"
      "  fx-run --artifact model.fxa --target cpu --input x.npy\n\n"
      "A function with dynamic dimensions compiles for Vulkan (--target "
      "vulkan) into one\nprogram for every size of its outermost dimensions "
      "(a batch). CPU code, and Vulkan\nkernels that need static shapes, are "
      "compiled per size with --dynamic-sizes=N,...\n(one entry per size, "
      "picked by the inputs' shapes at run time).\nArguments tagged {fx.param "
      "= "
      "\"name\"} become "
      "parameters, bound by name when\nthe artifact is run. Exit code 0 on "
      "success, 1 on any error.\n");

  if (inputFile.empty())
    return fail("no input file (usage: fx-compile [options] <file.mlir>)");
  if (target != "cpu" && target != "vulkan" && target != "all")
    return fail("unknown --target '" + target +
                "' (expected cpu, vulkan or all)");
  if (emit != "artifact" && emit != "llvm-ir" && emit != "asm" &&
      emit != "spirv")
    return fail("unknown --emit '" + emit +
                "' (expected artifact, llvm-ir, asm or spirv)");
  bool wantCPU = target != "vulkan", wantVulkan = target != "cpu";
  if (emit == "llvm-ir" || emit == "asm")
    wantCPU = true, wantVulkan = false;
  if (emit == "spirv")
    wantCPU = false, wantVulkan = true;
  if (wantVulkan && !mlir::fx::getSPIRVTarget(vulkanTarget))
    return fail("unknown --vulkan-target '" + vulkanTarget + "' (expected " +
                mlir::fx::vulkanTargetHelp() + ")");
  std::string output = outputFile;
  if (output.empty()) {
    llvm::SmallString<128> path(inputFile);
    llvm::sys::path::replace_extension(path, emit == "artifact"  ? ".fxa"
                                             : emit == "llvm-ir" ? ".ll"
                                             : emit == "asm"     ? ".s"
                                                                 : ".spirv");
    output = path.str().str();
  }

  ::fx::registerAllPasses();
  DialectRegistry registry;
  ::fx::registerAllDialects(registry);
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
  std::string text; // --emit=llvm-ir or asm, all entries.
  for (int64_t size : dynamicSizes)
    if (size <= 0)
      return fail("--dynamic-sizes takes positive sizes, got " +
                  std::to_string(size));
  // Each entry with dynamic dimensions is compiled once per size.
  struct Variant {
    std::string name;
    /// Argument shapes to specialize to (empty: the function is static).
    std::vector<std::vector<int64_t>> shapes;
  };
  std::vector<Variant> variants;
  for (const std::string &name : names) {
    func::FuncOp func = ::fx::findEntry(*module, name);
    if (!func)
      return 1; // findEntry said why.
    bool dynamic = false;
    for (Type type : func.getArgumentTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(type))
        dynamic |= !tensor.hasStaticShape();
    // Without --dynamic-sizes a dynamic function is compiled as it is: a
    // Vulkan program sized at run time (the CPU side reports that it needs
    // sizes).
    if (!dynamic || dynamicSizes.empty()) {
      variants.push_back({name, {}});
      continue;
    }
    for (int64_t size : dynamicSizes) {
      Variant variant{name, {}};
      for (Type type : func.getArgumentTypes()) {
        std::vector<int64_t> shape;
        if (auto tensor = dyn_cast<RankedTensorType>(type))
          for (int64_t dim : tensor.getShape())
            shape.push_back(ShapedType::isDynamic(dim) ? size : dim);
        variant.shapes.push_back(shape);
      }
      variants.push_back(std::move(variant));
    }
  }

  for (const Variant &variant : variants) {
    const std::string &name = variant.name;
    auto start = std::chrono::steady_clock::now();
    rt::ArtifactEntry entry;
    entry.name = name;
    // Each target compiles its own copy: the pipelines consume it.
    auto prepare = [&](bool allowDynamic) -> OwningOpRef<ModuleOp> {
      ::fx::EntryShapes shapes;
      shapes.arguments = variant.shapes;
      shapes.allowDynamic = allowDynamic;
      shapes.staticHint =
          "CPU code needs static shapes: give --dynamic-sizes=N,... to "
          "compile it for those sizes of its dynamic dimensions (--target "
          "vulkan compiles one program for all sizes)";
      FailureOr<::fx::PreparedEntry> prepared =
          ::fx::prepareEntry(*module, name, shapes);
      if (failed(prepared))
        return nullptr;
      entry.signature = std::move(prepared->signature);
      return std::move(prepared->module);
    };
    std::string summary;
    if (wantCPU) {
      OwningOpRef<ModuleOp> copy = prepare(/*allowDynamic=*/false);
      if (!copy)
        return 1;
      ::fx::CPUCodeOptions options;
      options.compile.fuseElementwise = !noFusion;
      options.compile.dispatchRegions = !noFusion;
      options.compile.threads = threads;
      options.compile.cpu = cpu;
      options.linker = linker;
      std::string emitted;
      if (emit == "llvm-ir")
        options.llvmIR = &emitted;
      if (emit == "asm")
        options.assembly = &emitted;
      FailureOr<rt::CPUCode> code = ::fx::compileCPUCode(*copy, name, options);
      if (failed(code))
        return 1;
      if (!emitted.empty())
        text +=
            (emit == "asm" ? "# entry " : "; entry ") + name + "\n" + emitted;
      summary += llvm::formatv("CPU code for {0} ({1} KiB)", code->cpu,
                               (code->library.size() + 1023) / 1024);
      entry.cpu = std::move(*code);
    }
    if (wantVulkan) {
      OwningOpRef<ModuleOp> copy = prepare(/*allowDynamic=*/true);
      if (!copy)
        return 1;
      ::fx::VulkanCompileOptions options;
      options.fuseElementwise = !noFusion;
      options.target = vulkanTarget;
      options.workgroupSize = workgroupSize;
      options.rowWorkgroupSize = rowWorkgroupSize;
      options.reuseTemporaries = !noBufferReuse;
      FailureOr<rt::vk::Program> program =
          ::fx::compileForVulkan(*copy, name, entry.signature, options);
      if (failed(program))
        return 1;
      std::string spirvDir = emit == "spirv" ? output : dumpSPIRV.getValue();
      if (!spirvDir.empty())
        if (std::string error =
                ::fx::writeSPIRVFiles(*program, spirvDir, name + "-");
            !error.empty())
          return fail(error);
      uint64_t temporaryBytes = 0;
      for (const rt::vk::Buffer &buffer : program->buffers)
        if (buffer.kind == rt::vk::Buffer::Kind::Temporary)
          temporaryBytes += buffer.bytes;
      summary += llvm::formatv(
          "{0}{1} kernels, {2} dispatches, {3} buffers, temporaries {4} KiB",
          summary.empty() ? "" : "; ", program->kernels.size(),
          program->dispatches.size(), program->buffers.size(),
          (temporaryBytes + 1023) / 1024);
      if (program->arenaBytes)
        summary += llvm::formatv(" in a {0} KiB arena",
                                 (program->arenaBytes + 1023) / 1024);
      entry.vulkan = std::move(*program);
    }
    if (verbose)
      llvm::errs() << llvm::formatv(
          "fx-compile: {0}: {1}; {2:f1} ms\n",
          name + (variant.shapes.empty()
                      ? std::string()
                      : " (" + entry.signature.inputsString() + ")"),
          summary,
          std::chrono::duration<double, std::milli>(
              std::chrono::steady_clock::now() - start)
              .count());
    artifact.entries.push_back(std::move(entry));
  }
  if (emit == "spirv")
    return 0;
  if (emit == "llvm-ir" || emit == "asm") {
    std::string error;
    auto out = openOutputFile(output, &error);
    if (!out)
      return fail(error);
    out->os() << text;
    out->keep();
    return 0;
  }
  rt::Status written = rt::writeArtifact(output, artifact);
  if (!written.isOk())
    return fail(written.message());
  return 0;
}
