//===- SetSPIRVEntryPointABI.cpp - kernel entry ABI -----------------------===//
//
// fx-set-spirv-entry-point-abi: gives every GPU kernel the SPIR-V entry
// point ABI of its launch's workgroup size, which convert-gpu-to-spirv
// needs and upstream sets only in a test pass.
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/SPIRV/GPUUtils.h"
#include "fx/Codegen/SPIRV/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <map>

namespace mlir::fx {
#define GEN_PASS_DEF_FXSETSPIRVENTRYPOINTABI
#include "fx/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

struct SetSPIRVEntryPointABIPass
    : public fx::impl::FXSetSPIRVEntryPointABIBase<SetSPIRVEntryPointABIPass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return WalkResult::advance();
      std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize();
      if (!known) {
        func.emitOpError("has no known block size: cannot derive its SPIR-V "
                         "workgroup size");
        return WalkResult::interrupt();
      }
      func->setAttr(spirv::getEntryPointABIAttrName(),
                    spirv::getEntryPointABIAttr(&getContext(), *known));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // SPIR-V 1.4+ entry points list every global variable they use, and
    // spirv-update-vce later lowers a module's version to what its ops
    // need; a module without cooperative-matrix ops (the only ones needing
    // 1.6 here) would end up 1.0 with a 1.4-style interface. So those
    // modules target SPIR-V 1.3 from the start.
    getOperation().walk([&](gpu::GPUModuleOp module) {
      ArrayAttr targets = module.getTargetsAttr();
      if (!targets)
        return;
      bool usesMma = false;
      module.walk([&](Operation *op) {
        usesMma |= isa<gpu::SubgroupMmaComputeOp, gpu::SubgroupMmaLoadMatrixOp,
                       gpu::SubgroupMmaStoreMatrixOp>(op);
      });
      if (usesMma)
        return;
      SmallVector<Attribute> lowered;
      for (Attribute target : targets) {
        auto env = dyn_cast<spirv::TargetEnvAttr>(target);
        if (!env || env.getVersion() <= spirv::Version::V_1_3) {
          lowered.push_back(target);
          continue;
        }
        SmallVector<spirv::Capability> caps;
        for (spirv::Capability cap : env.getCapabilities())
          if (cap != spirv::Capability::CooperativeMatrixKHR &&
              cap != spirv::Capability::BFloat16CooperativeMatrixKHR &&
              cap != spirv::Capability::BFloat16TypeKHR)
            caps.push_back(cap);
        SmallVector<spirv::Extension> exts;
        for (spirv::Extension ext : env.getExtensions())
          if (ext != spirv::Extension::SPV_KHR_cooperative_matrix &&
              ext != spirv::Extension::SPV_KHR_bfloat16)
            exts.push_back(ext);
        auto vce = spirv::VerCapExtAttr::get(spirv::Version::V_1_3, caps, exts,
                                             &getContext());
        lowered.push_back(spirv::TargetEnvAttr::get(
            vce, env.getResourceLimits(), env.getClientAPI(), env.getVendorID(),
            env.getDeviceType(), env.getDeviceID()));
      }
      module.setTargetsAttr(ArrayAttr::get(&getContext(), lowered));
    });
  }
};

} // namespace
