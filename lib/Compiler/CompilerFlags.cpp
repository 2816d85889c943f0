//===- CompilerFlags.cpp - the compiler's command-line flags --------------===//

#include "fx/Compiler/CompilerFlags.h"

#include "fx/Codegen/SPIRV/Passes.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace cl = llvm::cl;

namespace {

struct Flags {
  explicit Flags(cl::OptionCategory &category)
      : mode("mode",
             cl::desc("Compilation mode, as torch.compile's: default, "
                      "reduce-overhead (like default: runs already replay "
                      "recorded commands), max-autotune (Vulkan: time "
                      "several workgroup sizes on the device, keep the "
                      "fastest)"),
             cl::init("default"), cl::cat(category)),
        cpu("cpu",
            cl::desc("CPU to compile for: native (this machine's CPU and "
                     "all its features; default), or an LLVM CPU name such "
                     "as x86-64-v3 (AVX2) or x86-64-v4 (AVX-512), whose code "
                     "any CPU of that level runs"),
            cl::init("native"), cl::cat(category)),
        tuneCPU("tune-cpu",
                cl::desc("CPU whose scheduling model LLVM's code generation "
                         "follows (the instructions stay those of --cpu): "
                         "auto (the CPU compiled for, except AMD Zen 4 and "
                         "Zen 5, whose models make LLVM spill the register "
                         "tiles: tuned for Zen 3 there) or an LLVM CPU name"),
                cl::init("auto"), cl::cat(category)),
        subBatch(
            "sub-batch",
            cl::desc("CPU: run a batch-separable model (each index of its "
                     "inputs' outermost dimension computed on its own, as in "
                     "convolution nets) as calls on slices of the batch: "
                     "auto (one item per call where one item's temporaries "
                     "and the weights fit the caches better than the whole "
                     "batch's temporaries), off, or the items per call (a "
                     "divisor of the batch)"),
            cl::init("auto"), cl::cat(category)),
        linker("linker",
               cl::desc("ELF linker for the CPU code (default: ld.lld from "
                        "PATH or LLVM's bin directory)"),
               cl::value_desc("path"), cl::cat(category)),
        noFusion("no-fusion",
                 cl::desc("Disable fusion (batch-norm folding, elementwise "
                          "fusion, dispatch regions and row kernels): one "
                          "kernel per op, to measure what fusion gains"),
                 cl::init(false), cl::cat(category)),
        noDispatchRegions(
            "no-dispatch-regions",
            cl::desc("CPU: keep elementwise fusion but form no dispatch "
                     "regions (reductions and convolution epilogues stay "
                     "separate loops)"),
            cl::init(false), cl::cat(category)),
        fusionReport(
            "fusion-report",
            cl::desc("Print, as remarks at the ops' source locations, on "
                     "the CPU each dispatch region (root and fused ops, "
                     "bytes read and written) and every producer that did "
                     "not fuse, with the reason; on Vulkan each matmul's and "
                     "convolution's kernel (tensor cores or SIMT, tile, k "
                     "step and split, what it fused)"),
            cl::init(false), cl::cat(category)),
        noVectorize("no-vectorize",
                    cl::desc("CPU: disable tiling and vectorization"),
                    cl::init(false), cl::cat(category)),
        streamingStores(
            "streaming-stores",
            cl::desc("CPU, x86-64: write buffers that a kernel only writes "
                     "and that are at least this large with non-temporal "
                     "stores, which skip reading each line first: auto (the "
                     "last-level cache of the CPU compiled for), off, or a "
                     "size in bytes"),
            cl::init("auto"), cl::cat(category)),
        workgroupSize("workgroup-size",
                      cl::desc("Vulkan: threads per workgroup of elementwise "
                               "and loop kernels (256)"),
                      cl::init(256), cl::cat(category)),
        rowWorkgroupSize(
            "row-workgroup-size",
            cl::desc("Vulkan: most threads per workgroup of row kernels "
                     "(softmax, layer norm; half of it for a lone row "
                     "reduction; a power of two, 512)"),
            cl::init(512), cl::cat(category)),
        precision(
            "precision",
            cl::desc("Vulkan: how f32 matmuls and convolutions use the "
                     "tensor cores of devices with cooperative matrices, as "
                     "torch.set_float32_matmul_precision: 'highest' (true "
                     "f32 on the SIMT cores), 'high' (the default: bf16x3, "
                     "three bf16 products per f32 one, about 16 bits of "
                     "mantissa, more than the TF32 of PyTorch's "
                     "convolutions), 'medium' (bf16 operands); all "
                     "accumulate in f32"),
            cl::init("high"), cl::cat(category)),
        channelsLast(
            "channels-last",
            cl::desc("Vulkan: compute NCHW convolutions and poolings in "
                     "NHWC, the layout changes between them cancelled "
                     "(fx-convs-channels-last). Experimental: on an H200 "
                     "resnet50 at batch 32 took 1.6x as long"),
            cl::init(false), cl::cat(category)),
        noBufferReuse(
            "no-buffer-reuse",
            cl::desc("Vulkan: give every temporary memory of its own instead "
                     "of sharing an arena between temporaries never live at "
                     "once"),
            cl::init(false), cl::cat(category)),
        cacheDir("cache-dir",
                 cl::desc("Keep compiled code in this directory and reuse it "
                          "when the same IR is compiled with the same "
                          "options for the same target"),
                 cl::value_desc("DIR"), cl::cat(category)) {}

  cl::opt<std::string> mode, cpu, tuneCPU, subBatch, linker;
  cl::opt<bool> noFusion, noDispatchRegions, fusionReport, noVectorize;
  cl::opt<std::string> streamingStores;
  cl::opt<int64_t> workgroupSize, rowWorkgroupSize;
  cl::opt<std::string> precision;
  cl::opt<bool> channelsLast, noBufferReuse;
  cl::opt<std::string> cacheDir;
};

std::unique_ptr<Flags> &flags() {
  static std::unique_ptr<Flags> instance;
  return instance;
}

} // namespace

void fx::registerCompilerFlags(cl::OptionCategory &category) {
  if (!flags())
    flags() = std::make_unique<Flags>(category);
}

fx::rt::Status fx::applyCompilerFlags(CompilerOptions &options) {
  const Flags *f = flags().get();
  if (!f)
    return rt::Status::error("registerCompilerFlags was not called");
  rt::Result<CompileMode> mode = parseMode(f->mode);
  if (!mode.isOk())
    return rt::Status::error("--mode: " + mode.message());
  options.mode = mode.value();
  options.cpu = f->cpu;
  options.tuneCPU = f->tuneCPU;
  if (rt::Status s = checkSubBatch(f->subBatch); !s.isOk())
    return rt::Status::error("--sub-batch: " + s.message());
  options.subBatch = f->subBatch;
  options.linker = f->linker;
  options.fusion = !f->noFusion;
  options.dispatchRegions = !f->noDispatchRegions;
  options.fusionReport = f->fusionReport;
  options.vectorize = !f->noVectorize;
  if (rt::Status s = checkStreamingStores(f->streamingStores); !s.isOk())
    return rt::Status::error("--streaming-stores: " + s.message());
  options.streamingStores = f->streamingStores;
  for (int64_t size : {int64_t(f->workgroupSize), int64_t(f->rowWorkgroupSize)})
    if (size <= 0)
      return rt::Status::error("workgroup sizes must be positive, got " +
                               std::to_string(size));
  if (!mlir::fx::parseMatmulPrecision(f->precision))
    return rt::Status::error("--precision: expected highest, high or medium, "
                             "got '" +
                             f->precision + "'");
  options.precision = f->precision;
  options.workgroupSize = f->workgroupSize;
  options.rowWorkgroupSize = f->rowWorkgroupSize;
  options.reuseTemporaries = !f->noBufferReuse;
  options.channelsLast = f->channelsLast;
  options.cacheDir = f->cacheDir;
  return rt::Status::ok();
}

void fx::printToolError(llvm::StringRef tool, const std::string &message) {
  llvm::StringRef firstLine = llvm::StringRef(message).split('\n').first;
  if (firstLine.contains(": error: "))
    llvm::errs() << message << "\n";
  else
    llvm::errs() << tool << ": error: " << message << "\n";
}
