//===- VulkanPipeline.cpp - FX dialect to SPIR-V kernels for Vulkan -------===//

#include "fx/Pipelines/Pipelines.h"

#include "fx/Codegen/SPIRV/Passes.h"
#include "fx/Runtime/VulkanDevice.h"
#include "fx/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVEnums.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

#include <iterator>
#include <string>

using namespace mlir;
using namespace mlir::fx;

std::optional<mlir::fx::SPIRVTarget>
mlir::fx::getSPIRVTarget(StringRef target) {
  namespace vk = ::fx::rt::vk;
  SPIRVTarget env;
  if (target.consume_front("caps=")) {
    // spirv-attach-target drops names it does not know: check them here.
    SmallVector<StringRef> names;
    target.split(names, ',');
    for (StringRef name : names) {
      if (!spirv::symbolizeCapability(name))
        return std::nullopt;
      env.capabilities.push_back(name.str());
    }
  } else if (std::optional<vk::DeviceInfo> device =
                 vk::profileDevice(target.str())) {
    env.capabilities = vk::capabilitiesFor(*device);
  } else {
    return std::nullopt;
  }
  env.cooperativeMatrix =
      llvm::is_contained(env.capabilities, "CooperativeMatrixKHR");
  env.bf16CooperativeMatrix =
      env.cooperativeMatrix &&
      llvm::is_contained(env.capabilities, "BFloat16CooperativeMatrixKHR");
  // Cooperative matrices (tensor cores) need SPV_KHR_cooperative_matrix,
  // which needs SPIR-V 1.6 (Vulkan 1.3 devices).
  env.version = env.cooperativeMatrix ? "v1.6" : "v1.3";
  env.extensions = {"SPV_KHR_storage_buffer_storage_class"};
  for (const std::string &name : env.capabilities)
    if (const vk::Capability *row = vk::findCapability(name))
      if (row->spirvExtension &&
          !llvm::is_contained(env.extensions, row->spirvExtension))
        env.extensions.push_back(row->spirvExtension);
  return env;
}

std::string mlir::fx::vulkanTargetHelp() {
  std::string text;
  for (const ::fx::rt::vk::DeviceProfile &profile :
       ::fx::rt::vk::deviceProfiles())
    text += std::string(text.empty() ? "" : "; ") + profile.name +
            (text.empty() ? " (the default: " : " (") + profile.description +
            ")";
  return text + "; or caps=CAP,CAP,... listing SPIR-V capabilities (what "
                "fx-run --list-devices shows as a device's target)";
}

std::string mlir::fx::SPIRVTarget::str() const {
  return "ver=" + version + " caps=" + llvm::join(capabilities, ",") +
         " exts=" + llvm::join(extensions, ",") + " client_api=Vulkan";
}

LogicalResult
mlir::fx::buildVulkanPipeline(OpPassManager &pm,
                              const VulkanPipelineOptions &options) {
  std::optional<SPIRVTarget> target = getSPIRVTarget(options.target);
  if (!target)
    return failure();
  CPUPipelineOptions fusion;
  fusion.fuseElementwise = options.fuseElementwise;
  fusion.channelsLast = options.channelsLast;
  // Dispatch regions are the CPU's parallel chunks (scf.forall); the GPU
  // path maps each fused linalg op onto a grid of its own.
  fusion.dispatchRegions = false;
  buildFusionStages(pm, fusion);
  if (options.fuseElementwise) {
    // Softmax, layer norm and row reductions become one kernel with a
    // workgroup per row (fx-map-row-kernels-to-gpu below).
    pm.addNestedPass<func::FuncOp>(createFXFormRowKernels());
    addCleanup(pm);
  }
  // GEMM epilogues: a channels-last linear layer's NCHW consumer, and an
  // elementwise op of two GEMMs into the one on the longer chain.
  pm.addNestedPass<func::FuncOp>(createFXTransposeGemmsForEpilogues());
  pm.addNestedPass<func::FuncOp>(createFXHoistIndependentGemms());
  // Tensors to buffers, with the CPU pipeline's calling convention. The
  // runtime owns every buffer, so no deallocation pipeline.
  buildBufferizationStages(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Every linalg op (and memref.copy) becomes a gpu.launch over its
  // parallel loops. Parallel loops go outermost first, so that reductions
  // become sequential loops inside one thread per output element; parallel
  // loops nested in kernels run sequentially too.
  OpPassManager &fn = pm.nest<func::FuncOp>();
  FXMapMatmulsToGPUOptions matmuls;
  matmuls.cooperativeMatrix = target->cooperativeMatrix;
  matmuls.bf16CooperativeMatrix = target->bf16CooperativeMatrix;
  matmuls.precision = options.precision;
  matmuls.report = options.report;
  fn.addPass(createFXMapMatmulsToGPU(matmuls));
  FXMapRowKernelsToGPUOptions rowKernels;
  rowKernels.workgroupSize = options.rowWorkgroupSize;
  // Cooperative-matrix targets run 32-lane subgroups (their GEMM kernels
  // assume it too).
  rowKernels.subgroupRows = target->cooperativeMatrix;
  fn.addPass(createFXMapRowKernelsToGPU(rowKernels));
  fn.addPass(createFXPrepareLinalgForGPU());
  fn.addPass(createConvertLinalgToParallelLoopsPass());
  FXMapParallelLoopsToGPUOptions loops;
  loops.workgroupSize = options.workgroupSize;
  fn.addPass(createFXMapParallelLoopsToGPU(loops));
  fn.addPass(createParallelForToNestedForsPass());
  // Kernels read the underlying buffers: views fold into indices.
  pm.addPass(memref::createFoldMemRefAliasOpsPass());
  addCleanup(pm);
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createFXPassKernelSizes());
  GpuSPIRVAttachTargetOptions attach;
  attach.spirvVersion = target->version;
  attach.spirvCapabilities.assign(target->capabilities.begin(),
                                  target->capabilities.end());
  attach.spirvExtensions.assign(target->extensions.begin(),
                                target->extensions.end());
  attach.clientApi = "Vulkan";
  attach.deviceId = 0; // (The text option's value when not given.)
  pm.addPass(createGpuSPIRVAttachTarget(attach));
  pm.addPass(createFXSetSPIRVEntryPointABI());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createFXLegalizeTypesForSPIRV());
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createFXExpandMathForSPIRV());
  kernels.addPass(createConvertMathToSPIRVPass());
  kernels.addPass(createFXGuardZeroTripLoops());
  pm.addPass(createConvertGPUToSPIRVPass());
  OpPassManager &spirvModules = pm.nest<spirv::ModuleOp>();
  spirvModules.addPass(spirv::createSPIRVLowerABIAttributesPass());
  spirvModules.addPass(spirv::createSPIRVUpdateVCEPass());
  if (target->bf16CooperativeMatrix)
    pm.addPass(createFXRetypeBF16CooperativeMatrices());
  return success();
}

void mlir::fx::registerVulkanPipeline() {
  // Registered by hand rather than with PassPipelineRegistration so that an
  // unknown target is an error of the pipeline text, not a crash.
  registerPassPipeline(
      "fx-vulkan-pipeline",
      "Lower the FX dialect to SPIR-V kernels for the Vulkan runtime: FX "
      "folds, convert-fx-to-linalg, elementwise fusion and row kernels, "
      "one-shot bufferization with outputs as caller-provided buffers, "
      "tiled matmul and convolution kernels (fx-map-matmuls-to-gpu), a "
      "workgroup per row (fx-map-row-kernels-to-gpu), a gpu.launch per "
      "remaining loop nest (fx-map-parallel-loops-to-gpu), kernel outlining, "
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
                              options.target + "' (expected " +
                              vulkanTargetHelp() + ")");
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(VulkanPipelineOptions());
      });
}
