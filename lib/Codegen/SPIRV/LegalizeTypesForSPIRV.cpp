//===- LegalizeTypesForSPIRV.cpp - bf16 storage and type checks -----------===//
//
// MLIR 22's SPIRVTypeConverter maps a 16-bit float type it cannot keep to
// f32, including inside buffer types, so a memref of bf16 becomes an f32
// array of half the length indexed per bf16 element. Nothing in upstream
// rewrites bf16 buffers to an integer storage type (IREE has its own pass
// for this), so this pass does: the bits move as i16, and arithmetic happens
// in f32 after integer conversions.
//
// The retyping mutates types in place rather than going through a
// DialectConversion: after the upstream patterns have removed the bf16
// arithmetic, every op still touching bf16 only moves bits (loads, stores,
// selects, loop-carried values), so changing the element type is exactly
// right for it, whatever its dialect, and a conversion would need one
// pattern per such op.
//
//===----------------------------------------------------------------------===//
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
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXLEGALIZETYPESFORSPIRV
#include "fx/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// The element type of `type` if it is shaped, else `type` itself.
Type elementTypeOf(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return type;
}

/// `type` with bf16 (as a scalar or an element type) replaced by i16; null
/// if it holds no bf16.
Type storageTypeOf(Type type) {
  auto i16 = IntegerType::get(type.getContext(), 16);
  if (type.isBF16())
    return i16;
  if (auto shaped = dyn_cast<ShapedType>(type))
    if (shaped.getElementType().isBF16())
      return shaped.clone(i16);
  return nullptr;
}

bool holdsBF16(Type type) { return elementTypeOf(type).isBF16(); }

/// True for ops that compute on their values rather than move them: bf16
/// may not reach these once the f32 emulation has run.
bool computesOnValues(Operation *op) {
  if (isa<arith::ConstantOp, arith::SelectOp, arith::BitcastOp>(op))
    return false;
  StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace() : "";
  if (dialect == "arith" || dialect == "math")
    return true;
  return isa<gpu::SubgroupReduceOp, gpu::AllReduceOp, gpu::ShuffleOp,
             gpu::SubgroupMmaComputeOp, vector::ReductionOp,
             vector::MultiDimReductionOp, vector::ContractionOp, vector::FMAOp>(
      op);
}

/// The i16 form of a bf16 constant's value (same bits).
Attribute storageAttrOf(Attribute value) {
  auto i16 = IntegerType::get(value.getContext(), 16);
  if (auto f = dyn_cast<FloatAttr>(value))
    return IntegerAttr::get(i16, f.getValue().bitcastToAPInt());
  if (auto dense = dyn_cast<DenseFPElementsAttr>(value))
    return dense.bitcast(i16);
  return nullptr;
}

/// cmpi(pred, extsi(a : iN), c) with the constant c in iN's signed range
/// becomes cmpi(pred, a, c as iN), and likewise with the operands the
/// other way round and for an index_cast from index (32 bits in SPIR-V)
/// with c in i32's range: a sign extension keeps both the signed and the
/// unsigned order of iN. The narrower comparison is cheaper (64-bit
/// integers are pairs of 32-bit ones on GPUs), and the 64-bit one of a
/// sign-extended value with a constant is miscompiled by Mesa 22.3's
/// lavapipe: arange(16) >= 12 in i64 came out all true (Hugging Face's
/// Swin, whose shifted-window mask compares positions so).
struct NarrowExtendedComparison : OpRewritePattern<arith::CmpIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::CmpIOp cmp,
                                PatternRewriter &rewriter) const override {
    if (!cmp.getLhs().getType().isSignlessInteger())
      return failure();
    for (unsigned side : {0u, 1u}) {
      APInt constant;
      if (!matchPattern(cmp->getOperand(1 - side), m_ConstantInt(&constant)))
        continue;
      Value narrow;
      unsigned bits = 0;
      Operation *ext = cmp->getOperand(side).getDefiningOp();
      if (auto sext = dyn_cast_or_null<arith::ExtSIOp>(ext)) {
        narrow = sext.getIn();
        bits = narrow.getType().getIntOrFloatBitWidth();
      } else if (auto cast = dyn_cast_or_null<arith::IndexCastOp>(ext);
                 cast && cast.getIn().getType().isIndex()) {
        narrow = cast.getIn();
        bits = 32;
      }
      if (!narrow || !constant.isSignedIntN(bits))
        continue;
      Location loc = cmp.getLoc();
      Value value =
          narrow.getType().isIndex()
              ? arith::ConstantIndexOp::create(rewriter, loc,
                                               constant.getSExtValue())
                    .getResult()
              : arith::ConstantOp::create(
                    rewriter, loc,
                    IntegerAttr::get(narrow.getType(), constant.trunc(bits)))
                    .getResult();
      Value lhs = side == 0 ? narrow : value, rhs = side == 0 ? value : narrow;
      rewriter.replaceOpWithNewOp<arith::CmpIOp>(cmp, cmp.getPredicate(), lhs,
                                                 rhs);
      return success();
    }
    return failure();
  }
};

struct LegalizeTypesForSPIRVPass
    : public fx::impl::FXLegalizeTypesForSPIRVBase<LegalizeTypesForSPIRVPass> {
  void runOnOperation() override {
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      spirv::TargetEnvAttr env;
      if (ArrayAttr targets = module.getTargetsAttr())
        for (Attribute target : targets)
          if ((env = dyn_cast<spirv::TargetEnvAttr>(target)))
            break;
      if (!env)
        continue;
      RewritePatternSet narrowing(&getContext());
      narrowing.add<NarrowExtendedComparison>(&getContext());
      if (failed(checkTargetTypes(module, env)) ||
          failed(applyPatternsGreedily(module, std::move(narrowing))) ||
          failed(emulateArithmetic(module)) || failed(retypeStorage(module)))
        return signalPassFailure();
    }
    castLaunchOperands();
  }

  /// Element types the target environment cannot hold are errors, not
  /// types the SPIR-V conversion silently changes.
  LogicalResult checkTargetTypes(gpu::GPUModuleOp module,
                                 spirv::TargetEnvAttr envAttr) {
    spirv::TargetEnv env(envAttr);
    struct Need {
      bool (*matches)(Type);
      SmallVector<spirv::Capability, 2> caps;
      const char *typeName, *features;
    };
    const Need needs[] = {
        {[](Type t) { return t.isF16(); },
         {spirv::Capability::Float16,
          spirv::Capability::StorageBuffer16BitAccess},
         "f16",
         "shaderFloat16 and storageBuffer16BitAccess"},
        {[](Type t) { return t.isF64(); },
         {spirv::Capability::Float64},
         "f64",
         "shaderFloat64"},
        {[](Type t) { return t.isInteger(64); },
         {spirv::Capability::Int64},
         "i64",
         "shaderInt64"},
    };
    WalkResult result = module.walk([&](Operation *op) {
      auto check = [&](Type type) {
        Type element = elementTypeOf(type);
        for (const Need &need : needs)
          if (need.matches(element) &&
              !llvm::all_of(need.caps, [&](spirv::Capability cap) {
                return env.allows(cap);
              })) {
            op->emitError()
                << "kernel uses " << need.typeName
                << " values, but the Vulkan target lacks the " << need.features
                << " features they need (the device does "
                   "not have them, or the named target "
                   "excludes them)";
            return false;
          }
        return true;
      };
      for (Type type : op->getResultTypes())
        if (!check(type))
          return WalkResult::interrupt();
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (!check(arg.getType()))
              return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// bf16 arithmetic in f32, then bf16 <-> f32 conversions as integer ops.
  LogicalResult emulateArithmetic(gpu::GPUModuleOp module) {
    MLIRContext *ctx = &getContext();
    Type bf16 = BFloat16Type::get(ctx), f32 = Float32Type::get(ctx);
    TypeConverter converter;
    arith::populateEmulateUnsupportedFloatsConversions(converter, {bf16}, f32);
    RewritePatternSet emulation(ctx);
    arith::populateEmulateUnsupportedFloatsPatterns(emulation, converter);
    ConversionTarget target(*ctx);
    arith::populateEmulateUnsupportedFloatsLegality(target, converter);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(emulation))))
      return failure();

    RewritePatternSet expansion(ctx);
    arith::populateExpandBFloat16Patterns(expansion);
    return applyPatternsGreedily(module, std::move(expansion));
  }

  /// Every bf16 left only moves bits: it becomes i16.
  LogicalResult retypeStorage(gpu::GPUModuleOp module) {
    WalkResult result = module.walk([&](Operation *op) {
      bool touches = llvm::any_of(op->getOperandTypes(), holdsBF16) ||
                     llvm::any_of(op->getResultTypes(), holdsBF16);
      if (!touches)
        return WalkResult::advance();
      if (computesOnValues(op)) {
        op->emitError() << "'" << op->getName()
                        << "' on bf16 has no f32 emulation for SPIR-V";
        return WalkResult::interrupt();
      }
      if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
        Attribute bits = storageAttrOf(constant.getValue());
        if (!bits) {
          op->emitError("bf16 constant of an unexpected attribute kind");
          return WalkResult::interrupt();
        }
        constant.setValueAttr(cast<TypedAttr>(bits));
      }
      for (OpResult res : op->getResults())
        if (Type storage = storageTypeOf(res.getType()))
          res.setType(storage);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();

    // Block arguments (kernel parameters, loop-carried values) and the
    // kernels' signatures.
    module.walk([](Block *block) {
      for (BlockArgument arg : block->getArguments())
        if (Type storage = storageTypeOf(arg.getType()))
          arg.setType(storage);
    });
    module.walk([](gpu::GPUFuncOp func) {
      func.setFunctionType(FunctionType::get(
          func.getContext(), func.getBody().front().getArgumentTypes(),
          func.getFunctionType().getResults()));
    });
    // The expansion's bitcasts between i16 and bf16 are now i16 to i16.
    module.walk([](arith::BitcastOp cast) {
      if (cast.getIn().getType() == cast.getType()) {
        cast.replaceAllUsesWith(cast.getIn());
        cast.erase();
      }
    });
    return success();
  }

  /// Launches of retyped kernels pass the host's bf16 buffers as the i16
  /// buffers the kernels now take (the same bytes).
  void castLaunchOperands() {
    SymbolTableCollection symbols;
    getOperation().walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!kernel)
        return;
      OpBuilder b(launch);
      for (auto [operand, type] : llvm::zip(launch.getKernelOperandsMutable(),
                                            kernel.getArgumentTypes())) {
        if (operand.get().getType() == type)
          continue;
        operand.set(UnrealizedConversionCastOp::create(b, launch.getLoc(), type,
                                                       operand.get())
                        .getResult(0));
      }
    });
  }
};

} // namespace
