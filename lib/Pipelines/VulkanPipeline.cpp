//===- VulkanPipeline.cpp - FX dialect to SPIR-V kernels for Vulkan -------===//

#include "fx/Pipelines/Pipelines.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVEnums.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringSwitch.h"

#include <string>

using namespace mlir;

std::string fx::spirvTargetOptions(StringRef target) {
  // What every supported device has (Vulkan 1.3 desktop GPUs, lavapipe):
  // 64/16/8-bit integers, f16, 8/16-bit storage buffers and subgroup
  // operations.
  const char *common =
      "Shader,Int64,Int16,Int8,Float16,StorageBuffer8BitAccess,"
      "StorageBuffer16BitAccess,GroupNonUniform,GroupNonUniformArithmetic,"
      "GroupNonUniformBallot,GroupNonUniformShuffle";
  std::string caps;
  // Cooperative matrices (tensor cores) need SPV_KHR_cooperative_matrix,
  // which needs SPIR-V 1.6 (Vulkan 1.3 devices).
  bool coop = false, bf16Coop = false;
  if (target.consume_front("caps=")) {
    // spirv-attach-target drops names it does not know: check them here.
    SmallVector<StringRef> names;
    target.split(names, ',');
    for (StringRef name : names)
      if (!spirv::symbolizeCapability(name))
        return "";
    caps = target.str();
    coop = llvm::is_contained(names, "CooperativeMatrixKHR");
    bf16Coop =
        coop && llvm::is_contained(names, "BFloat16CooperativeMatrixKHR");
  } else if (target == "vulkan13")
    caps = common;
  else if (target == "lavapipe")
    caps = std::string(common) + ",Float64";
  else if (target == "nvidia-h200") {
    // Tensor cores through VK_KHR_cooperative_matrix (16x16x16 f16 and,
    // with VK_KHR_shader_bfloat16, bf16 with f32 accumulators, 32-lane
    // subgroups).
    caps = std::string(common) + ",Float64,CooperativeMatrixKHR,"
                                 "BFloat16TypeKHR,BFloat16CooperativeMatrixKHR";
    coop = bf16Coop = true;
  } else {
    return "";
  }
  return std::string(coop ? "ver=v1.6" : "ver=v1.3") + " caps=" + caps +
         " exts=SPV_KHR_storage_buffer_storage_class,SPV_KHR_8bit_storage,"
         "SPV_KHR_16bit_storage" +
         (coop ? ",SPV_KHR_cooperative_matrix" : "") +
         (bf16Coop ? ",SPV_KHR_bfloat16" : "") + " client_api=Vulkan";
}

LogicalResult fx::buildVulkanPipeline(OpPassManager &pm,
                                      const VulkanPipelineOptions &options) {
  std::string targetOptions = spirvTargetOptions(options.target);
  if (targetOptions.empty())
    return failure();
  CPUPipelineOptions fusion;
  fusion.fuseElementwise = options.fuseElementwise;
  // Dispatch regions are the CPU's parallel chunks (scf.forall); the GPU
  // path maps each fused linalg op onto a grid of its own.
  fusion.dispatchRegions = false;
  std::string pipeline = buildFusionStages(fusion);
  if (options.fuseElementwise)
    // Softmax, layer norm and row reductions become one kernel with a
    // workgroup per row (fx-map-row-kernels-to-gpu below).
    pipeline += ",func.func(fx-form-dispatch-regions{row-kernels=true "
                "threads=1}),canonicalize,cse";
  // Tensors to buffers, with the CPU pipeline's calling convention. The
  // runtime owns every buffer, so no deallocation pipeline.
  pipeline += buildBufferizationStages();
  bool cooperativeMatrix =
      StringRef(targetOptions).contains("SPV_KHR_cooperative_matrix");
  bool bf16CooperativeMatrix =
      StringRef(targetOptions).contains("BFloat16CooperativeMatrixKHR");
  pipeline +=
      std::string(
          ",convert-bufferization-to-memref"
          // Every linalg op (and memref.copy) becomes a gpu.launch over its
          // parallel loops.
          // Parallel loops go outermost first, so that reductions become
          // sequential loops inside one thread per output element; parallel
          // loops nested in kernels run sequentially too.
          ",func.func(fx-map-matmuls-to-gpu{cooperative-matrix=") +
      (cooperativeMatrix ? "true" : "false") +
      " bf16-cooperative-matrix=" + (bf16CooperativeMatrix ? "true" : "false") +
      "},fx-map-row-kernels-to-gpu{"
      "workgroup-size=" +
      std::to_string(options.rowWorkgroupSize) +
      "},fx-prepare-linalg-for-gpu,convert-linalg-to-parallel-loops,"
      "fx-map-parallel-loops-to-gpu{workgroup-size=" +
      std::to_string(options.workgroupSize) +
      "},scf-parallel-for-to-nested-fors)"
      // Kernels read the underlying buffers: views fold into indices.
      ",fold-memref-alias-ops,canonicalize,cse"
      ",gpu-launch-sink-index-computations,gpu-kernel-outlining"
      ",fx-pass-kernel-sizes"
      ",spirv-attach-target{" +
      targetOptions +
      "},fx-set-spirv-entry-point-abi,lower-affine,canonicalize"
      ",fx-legalize-types-for-spirv"
      ",gpu.module(fx-expand-math-for-spirv,convert-math-to-spirv"
      ",fx-guard-zero-trip-loops)"
      ",convert-gpu-to-spirv"
      ",spirv.module(spirv-lower-abi-attrs,spirv-update-vce)";
  if (bf16CooperativeMatrix)
    pipeline += ",fx-retype-bf16-cooperative-matrices";
  // parsePassPipeline reports what it rejects (a bad capability name in
  // target=caps=...) on stderr.
  return parsePassPipeline(pipeline, pm);
}

void fx::registerVulkanPipeline() {
  // Registered by hand rather than with PassPipelineRegistration so that an
  // unknown target is an error of the pipeline text, not a crash.
  registerPassPipeline(
      "fx-vulkan-pipeline",
      "Lower the FX dialect to SPIR-V kernels for the Vulkan runtime: FX "
      "folds, convert-fx-to-linalg, elementwise fusion, one-shot "
      "bufferization with outputs as caller-provided buffers, one gpu.launch "
      "per linalg op (fx-map-parallel-loops-to-gpu), kernel outlining, "
      "SPIR-V for the target environment",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        VulkanPipelineOptions options;
        std::string parseErrors;
        llvm::raw_string_ostream errorStream(parseErrors);
        if (failed(options.parseFromString(text, errorStream)))
          return errorHandler(parseErrors);
        if (failed(buildVulkanPipeline(pm, options)))
          return errorHandler("fx-vulkan-pipeline: unknown target '" +
                              options.target +
                              "' (expected vulkan13, lavapipe, nvidia-h200 "
                              "or caps=CAP,... with SPIR-V capability "
                              "names)");
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(VulkanPipelineOptions());
      });
}
