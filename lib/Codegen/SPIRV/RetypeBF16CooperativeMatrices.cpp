//===- RetypeBF16CooperativeMatrices.cpp - bf16 fragments -----------------===//
//
// fx-retype-bf16-cooperative-matrices: the cooperative-matrix kernels of
// bf16 matmuls are built with f16 fragments (MLIR 22's mma type has no
// bf16); this pass makes their SPIR-V MatrixA/MatrixB fragments bf16.
//
//===----------------------------------------------------------------------===//

#include "MatmulKernels.h"

#include "fx/Codegen/SPIRV/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVTypes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXRETYPEBF16COOPERATIVEMATRICES
#include "fx/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

struct RetypeBF16CooperativeMatricesPass
    : public fx::impl::FXRetypeBF16CooperativeMatricesBase<
          RetypeBF16CooperativeMatricesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // The kernel modules launched with a 16-byte-vector view of a bf16
    // buffer: the cooperative-matrix kernels of bf16 matmuls.
    llvm::StringSet<> bf16Modules;
    module.walk([&](gpu::LaunchFuncOp launch) {
      for (Value operand : launch.getKernelOperands()) {
        auto cast = operand.getDefiningOp<UnrealizedConversionCastOp>();
        if (!cast || cast.getNumOperands() != 1)
          continue;
        auto source = dyn_cast<MemRefType>(cast.getOperand(0).getType());
        auto view = dyn_cast<MemRefType>(operand.getType());
        if (source && view && source.getElementType().isBF16() &&
            isa<VectorType>(view.getElementType()))
          bf16Modules.insert(launch.getKernelModuleName().getValue());
      }
    });
    AttrTypeReplacer replacer;
    replacer.addReplacement(
        [&](spirv::CooperativeMatrixType type) -> std::optional<Type> {
          bool operand =
              type.getUse() == spirv::CooperativeMatrixUseKHR::MatrixA ||
              type.getUse() == spirv::CooperativeMatrixUseKHR::MatrixB;
          if (!operand || !type.getElementType().isF16())
            return std::nullopt;
          return spirv::CooperativeMatrixType::get(
              BFloat16Type::get(ctx), type.getRows(), type.getColumns(),
              type.getScope(), type.getUse());
        });
    for (spirv::ModuleOp spirvModule : module.getOps<spirv::ModuleOp>()) {
      std::optional<StringRef> name = spirvModule.getName();
      // Kernels of f32 GEMMs on bf16 fragments carry a marker location
      // (fx-map-matmuls-to-gpu's general tensor-core kernel).
      bool marked = false;
      spirvModule.walk([&](spirv::FuncOp func) {
        if (auto fused = dyn_cast<FusedLoc>(func.getLoc()))
          if (auto text = dyn_cast_or_null<StringAttr>(fused.getMetadata()))
            marked |= text.getValue() == fx::matmul::kBF16FragmentsMarker;
      });
      if (!marked && (!name || !name->consume_front("__spv__") ||
                      !bf16Modules.contains(*name)))
        continue;
      bool retyped = false;
      spirvModule.walk(
          [&](spirv::KHRCooperativeMatrixMulAddOp) { retyped = true; });
      if (!retyped)
        continue;
      replacer.recursivelyReplaceElementsIn(spirvModule, /*replaceAttrs=*/true,
                                            /*replaceLocs=*/false,
                                            /*replaceTypes=*/true);
      // spirv-update-vce does not know that bf16 cooperative matrices need
      // their own capability.
      std::optional<spirv::VerCapExtAttr> vce = spirvModule.getVceTriple();
      if (!vce)
        continue;
      SmallVector<spirv::Capability> caps(vce->getCapabilities());
      for (spirv::Capability cap :
           {spirv::Capability::BFloat16TypeKHR,
            spirv::Capability::BFloat16CooperativeMatrixKHR})
        if (!llvm::is_contained(caps, cap))
          caps.push_back(cap);
      SmallVector<spirv::Extension> exts(vce->getExtensions());
      if (!llvm::is_contained(exts, spirv::Extension::SPV_KHR_bfloat16))
        exts.push_back(spirv::Extension::SPV_KHR_bfloat16);
      spirvModule.setVceTripleAttr(
          spirv::VerCapExtAttr::get(vce->getVersion(), caps, exts, ctx));
    }
  }
};

} // namespace
