//===- PrepareLinalgForGPU.cpp - parallel loops outermost -----------------===//
//
// fx-prepare-linalg-for-gpu: puts the parallel loops of linalg.generic ops
// outermost before they become loops mapped to GPU threads.
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
#define GEN_PASS_DEF_FXPREPARELINALGFORGPU
#include "fx/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

struct PrepareLinalgForGPUPass
    : public fx::impl::FXPrepareLinalgForGPUBase<PrepareLinalgForGPUPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      SmallVector<unsigned> parallel, reduction;
      for (auto [i, it] : llvm::enumerate(iterators))
        (linalg::isParallelIterator(it) ? parallel : reduction).push_back(i);
      if (parallel.empty() || reduction.empty() ||
          reduction.front() > parallel.back())
        continue;
      SmallVector<unsigned> permutation(parallel);
      permutation.append(reduction.begin(), reduction.end());
      rewriter.setInsertionPoint(op);
      if (failed(linalg::interchangeGenericOp(rewriter, op, permutation))) {
        op.emitOpError("could not be interchanged to put its parallel loops "
                       "first");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
