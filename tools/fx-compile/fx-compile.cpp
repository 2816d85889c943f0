//===- fx-compile.cpp - compile FX functions into an artifact -------------===//
//
// Compiles the public functions of an FX-dialect file ahead of time and
// writes them as one versioned artifact (.fxa, fx/Runtime/Artifact.h), which
// fxrt-run and the runtime load without MLIR or LLVM: CPU code as a shared
// object compiled by LLVM ahead of time, and Vulkan programs (SPIR-V kernels
// and their schedule). --emit writes the intermediate forms instead.
//
//===----------------------------------------------------------------------===//

#include "fx/Compiler/Compiler.h"
#include "fx/Compiler/CompilerFlags.h"
#include "fx/Compiler/VulkanCompiler.h"
#include "fx/Pipelines/Pipelines.h"
#include "fx/Runtime/Artifact.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"

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
static cl::list<int64_t> dynamicSizes(
    "dynamic-sizes",
    cl::desc("Compile each function with dynamic dimensions once per size, "
             "every dynamic dimension taking that size (e.g. the batch: "
             "--dynamic-sizes=1,8,32); the runtime picks the entry of the "
             "inputs' shapes"),
    cl::value_desc("N,..."), cl::CommaSeparated, cl::cat(category));
static cl::opt<std::string> dumpSPIRV(
    "dump-spirv",
    cl::desc("Also write each kernel's SPIR-V to DIR/<entry>-<n>-<kernel>.spv"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string> dispatchGraph(
    "dispatch-graph",
    cl::desc("Also draw the CPU code's dispatch regions (what fused with "
             "what, the values between them) as a Graphviz graph: FILE.dot, "
             "or FILE.svg drawn by Graphviz's dot (several entries: one "
             "FILE.<entry>.svg each)"),
    cl::value_desc("FILE"), cl::cat(category));
static cl::opt<bool> verbose("v",
                             cl::desc("Print each entry's compile time, "
                                      "kernels and dispatches, and the "
                                      "compiler's notes (how the CPU code "
                                      "runs a batch, what a mode did)"),
                             cl::init(false), cl::cat(category));

namespace {

int fail(const llvm::Twine &message) {
  ::fx::printToolError("fx-compile", message.str());
  return 1;
}

/// Writes `text` to the file at `path`. Returns an error message, or empty.
std::string writeFile(const std::string &path, const std::string &text) {
  std::string error;
  auto out = mlir::openOutputFile(path, &error);
  if (!out)
    return error;
  out->os() << text;
  out->keep();
  return "";
}

/// Writes --dispatch-graph: all digraphs into one .dot file, or each drawn
/// by `dot` (the program's path) into FILE.svg (one entry) or
/// FILE.<entry>[-<n>].svg. Returns an error message, or empty.
std::string writeDispatchGraphs(
    const std::vector<std::pair<std::string, std::string>> &graphs,
    const std::string &dot) {
  if (dot.empty()) {
    std::string text;
    for (const auto &graph : graphs)
      text += graph.second;
    return writeFile(dispatchGraph, text);
  }
  llvm::StringMap<int> seen;
  for (const auto &[name, text] : graphs) {
    std::string path = dispatchGraph;
    if (graphs.size() > 1) {
      llvm::SmallString<256> stem(dispatchGraph);
      llvm::sys::path::replace_extension(stem, "");
      int n = seen[name]++;
      path = (stem + "." + name + (n ? "-" + std::to_string(n) : "") + ".svg")
                 .str();
    }
    llvm::SmallString<128> input;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("fx-dispatch", "dot", input))
      return "cannot create a temporary file: " + ec.message();
    llvm::FileRemover remove(input);
    if (std::string error = writeFile(input.str().str(), text); !error.empty())
      return error;
    std::string message;
    llvm::StringRef args[] = {dot, "-Tsvg", "-o", path, input};
    int status =
        llvm::sys::ExecuteAndWait(dot, args, std::nullopt, {}, 0, 0, &message);
    if (status != 0)
      return "dot could not draw " + path + " (exit status " +
             std::to_string(status) + (message.empty() ? "" : ", " + message) +
             ")";
  }
  return "";
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  ::fx::registerCompilerFlags(category);
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

  // --dispatch-graph: a .dot file, or SVG through Graphviz's dot (looked
  // up before compiling, so that a missing dot fails fast).
  std::string dotProgram;
  bool svgGraph = llvm::StringRef(dispatchGraph).ends_with(".svg");
  if (!dispatchGraph.empty()) {
    if (!wantCPU)
      return fail("--dispatch-graph draws the dispatch regions of the CPU "
                  "code: it needs --target cpu or all");
    if (svgGraph) {
      auto found = llvm::sys::findProgramByName("dot");
      if (!found)
        return fail("--dispatch-graph=" + dispatchGraph +
                    " needs Graphviz's dot on PATH to draw SVG (apt install "
                    "graphviz), or write a .dot file instead");
      dotProgram = *found;
    }
  }

  ::fx::CompilerOptions options;
  if (rt::Status s = ::fx::applyCompilerFlags(options); !s.isOk())
    return fail(s.message());
  if (!dispatchGraph.empty() && !(options.fusion && options.dispatchRegions))
    return fail("--dispatch-graph draws dispatch regions, which "
                "--no-fusion and --no-dispatch-regions turn off");
  options.keepDispatchGraph = !dispatchGraph.empty();
  options.target = wantCPU && wantVulkan ? "all" : wantCPU ? "cpu" : "vulkan";
  options.vulkanTarget = vulkanTarget;
  options.threads = threads;
  options.keepCPUText = emit == "llvm-ir" || emit == "asm";
  ::fx::Compiler compiler(options);
  auto source = compiler.parseFile(inputFile);
  if (!source.isOk())
    return fail(source.message());

  std::vector<std::string> names(entries.begin(), entries.end());
  if (names.empty()) {
    names = source.value()->entryPoints();
    if (names.empty())
      return fail(inputFile + " has no public function with a body");
  }
  for (int64_t size : dynamicSizes)
    if (size <= 0)
      return fail("--dynamic-sizes takes positive sizes, got " +
                  std::to_string(size));
  // Each entry with dynamic dimensions is compiled once per size. Without
  // --dynamic-sizes it is compiled as it is: a Vulkan program sized at run
  // time (the CPU side reports that it needs sizes).
  std::vector<::fx::EntryRequest> requests;
  for (const std::string &name : names) {
    auto declared = compiler.declaredEntry(*source.value(), name);
    if (!declared.isOk())
      return fail(declared.message());
    ::fx::EntryRequest request;
    request.name = name;
    request.staticHint =
        "CPU code needs static shapes: give --dynamic-sizes=N,... to "
        "compile it for those sizes of its dynamic dimensions (--target "
        "vulkan compiles one program for all sizes)";
    const std::vector<rt::TensorSpec> &arguments =
        declared.value().signature.inputs;
    bool dynamic = llvm::any_of(arguments, [](const rt::TensorSpec &spec) {
      return llvm::is_contained(spec.shape, rt::kDynamicDim);
    });
    if (!dynamic || dynamicSizes.empty()) {
      requests.push_back(request);
      continue;
    }
    for (int64_t size : dynamicSizes) {
      request.argumentShapes.clear();
      for (const rt::TensorSpec &spec : arguments) {
        std::vector<int64_t> shape = spec.shape;
        for (int64_t &dim : shape)
          if (dim == rt::kDynamicDim)
            dim = size;
        request.argumentShapes.push_back(std::move(shape));
      }
      requests.push_back(request);
    }
  }

  rt::Artifact artifact;
  artifact.producer = "fx-compile (fx-mlir)";
  std::string text; // --emit=llvm-ir or asm, all entries.
  // --dispatch-graph: each CPU entry's name and DOT digraph.
  std::vector<std::pair<std::string, std::string>> graphs;
  for (const ::fx::EntryRequest &request : requests) {
    auto compiled = compiler.compileEntry(*source.value(), request);
    const ::fx::CompileStats &stats = compiler.lastCompile();
    if (!stats.diagnostics.empty())
      llvm::errs() << stats.diagnostics << "\n";
    if (!compiled.isOk())
      return fail(compiled.message());
    rt::ArtifactEntry entry = compiled.take();
    const std::string &name = entry.name;
    std::string summary;
    if (entry.cpu) {
      const std::string &emitted =
          emit == "asm" ? stats.assembly : stats.llvmIR;
      if (options.keepCPUText)
        text +=
            (emit == "asm" ? "# entry " : "; entry ") + name + "\n" + emitted;
      if (options.keepDispatchGraph)
        graphs.emplace_back(name, stats.dispatchGraph);
      summary += llvm::formatv("CPU code for {0} ({1} KiB)", entry.cpu->cpu,
                               (entry.cpu->library.size() + 1023) / 1024);
      if (entry.cpu->subBatch)
        summary += llvm::formatv(", {0} item(s) per call (--sub-batch)",
                                 entry.cpu->subBatch);
    }
    if (entry.vulkan) {
      const rt::vk::Program &program = *entry.vulkan;
      std::string spirvDir = emit == "spirv" ? output : dumpSPIRV.getValue();
      if (!spirvDir.empty())
        if (std::string error =
                ::fx::writeSPIRVFiles(program, spirvDir, name + "-");
            !error.empty())
          return fail(error);
      uint64_t temporaryBytes = 0;
      for (const rt::vk::Buffer &buffer : program.buffers)
        if (buffer.kind == rt::vk::Buffer::Kind::Temporary)
          temporaryBytes += buffer.bytes;
      summary += llvm::formatv(
          "{0}{1} kernels, {2} dispatches, {3} buffers, temporaries {4} KiB",
          summary.empty() ? "" : "; ", program.kernels.size(),
          program.dispatches.size(), program.buffers.size(),
          (temporaryBytes + 1023) / 1024);
      if (program.arenaBytes)
        summary += llvm::formatv(" in a {0} KiB arena",
                                 (program.arenaBytes + 1023) / 1024);
    }
    if (verbose) {
      std::string label =
          name + (request.argumentShapes.empty()
                      ? std::string()
                      : " (" + entry.signature.inputsString() + ")");
      llvm::errs() << llvm::formatv("fx-compile: {0}: {1}; {2:f1} ms\n", label,
                                    summary, stats.milliseconds);
      for (const std::string &note : stats.notes)
        llvm::errs() << "fx-compile: " << label << ": note: " << note << "\n";
    }
    artifact.entries.push_back(std::move(entry));
  }
  if (!graphs.empty())
    if (std::string error = writeDispatchGraphs(graphs, dotProgram);
        !error.empty())
      return fail(error);
  if (emit == "spirv")
    return 0;
  if (emit == "llvm-ir" || emit == "asm") {
    if (std::string error = writeFile(output, text); !error.empty())
      return fail(error);
    return 0;
  }
  rt::Status written = rt::writeArtifact(output, artifact);
  if (!written.isOk())
    return fail(written.message());
  return 0;
}
