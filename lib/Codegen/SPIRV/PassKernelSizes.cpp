//===- PassKernelSizes.cpp - buffer sizes as kernel args ------------------===//
//
// fx-pass-kernel-sizes: gives kernels the dynamic sizes of their buffers
// as index arguments computed on the host, since SPIR-V kernels cannot
// ask a buffer for its size.
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
#define GEN_PASS_DEF_FXPASSKERNELSIZES
#include "fx/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

struct PassKernelSizesPass
    : public fx::impl::FXPassKernelSizesBase<PassKernelSizesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The launches of each kernel, by its symbol.
    llvm::DenseMap<Operation *, SmallVector<gpu::LaunchFuncOp>> launches;
    SymbolTableCollection symbols;
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (Operation *kernel =
              symbols.lookupNearestSymbolFrom(launch, launch.getKernel()))
        launches[kernel].push_back(launch);
    });
    WalkResult result = module.walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel() || func.isExternal())
        return WalkResult::advance();
      // SPIR-V storage buffers are arrays indexed with static strides: a
      // buffer can only have a dynamic outermost dimension.
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
        auto memref = dyn_cast<MemRefType>(type);
        if (!memref || memref.getRank() < 2 ||
            llvm::none_of(memref.getShape().drop_front(),
                          ShapedType::isDynamic))
          continue;
        Operation *at = func;
        if (!launches.lookup(func).empty())
          at = launches.lookup(func).front();
        at->emitOpError("passes a buffer of type ")
            << type
            << " to a kernel: on Vulkan only the outermost dimension of a "
               "buffer can be dynamic (kernels index storage buffers with "
               "static strides); compile for fixed sizes instead "
               "(fx-compile --dynamic-sizes)";
        return WalkResult::interrupt();
      }
      // (argument, dimension) -> the kernel argument holding its size.
      std::map<std::pair<unsigned, int64_t>, Value> sizes;
      SmallVector<std::pair<unsigned, int64_t>> added;
      SmallVector<memref::DimOp> dims;
      func.walk([&](memref::DimOp dim) { dims.push_back(dim); });
      for (memref::DimOp dim : dims) {
        auto arg = dyn_cast<BlockArgument>(dim.getSource());
        std::optional<int64_t> index = dim.getConstantIndex();
        if (!arg || arg.getOwner() != &func.getBody().front() ||
            arg.getArgNumber() >= func.getNumArguments() || !index) {
          dim.emitOpError("asks a kernel for the size of a buffer that is "
                          "not one of its arguments; the Vulkan pipeline "
                          "passes only argument sizes to kernels");
          return WalkResult::interrupt();
        }
        auto key = std::make_pair(arg.getArgNumber(), *index);
        Value &size = sizes[key];
        if (!size) {
          unsigned position = func.getNumArguments();
          if (failed(func.insertArgument(position,
                                         IndexType::get(&getContext()),
                                         DictionaryAttr(), dim.getLoc())))
            return WalkResult::interrupt();
          size = func.getArgument(position);
          added.push_back(key);
        }
        dim.replaceAllUsesWith(size);
        dim.erase();
      }
      for (gpu::LaunchFuncOp launch : launches.lookup(func)) {
        OpBuilder b(launch);
        for (auto [argument, index] : added) {
          Value size = memref::DimOp::create(
              b, launch.getLoc(), launch.getKernelOperands()[argument], index);
          launch.getKernelOperandsMutable().append(size);
        }
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
