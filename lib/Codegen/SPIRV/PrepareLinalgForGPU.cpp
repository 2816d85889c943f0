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

/// The loop order the GPU wants for `op`: its parallel loops in the order
/// of the output dimensions they index (the output's innermost dimension
/// innermost, so that neighbouring threads store neighbouring elements),
/// then its reductions in their order. Empty where the output is not
/// indexed by a permutation of the parallel loops.
static SmallVector<unsigned> gpuLoopOrder(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return {};
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!out.isProjectedPermutation())
    return {};
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> order;
  for (AffineExpr e : out.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      continue; // a unit dimension indexed by a constant
    if (!linalg::isParallelIterator(iterators[dim.getPosition()]))
      return {};
    order.push_back(dim.getPosition());
  }
  if ((int64_t)order.size() != op.getNumParallelLoops())
    return {};
  for (auto [i, it] : llvm::enumerate(iterators))
    if (!linalg::isParallelIterator(it))
      order.push_back(i);
  return order;
}

struct PrepareLinalgForGPUPass
    : public fx::impl::FXPrepareLinalgForGPUBase<PrepareLinalgForGPUPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op->getParentOfType<gpu::LaunchOp>())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      SmallVector<unsigned> order = gpuLoopOrder(op);
      if (order.empty() ||
          llvm::equal(order, llvm::seq<unsigned>(0, op.getNumLoops())))
        continue;
      // Named ops whose loops are in another order (a depthwise
      // convolution's channels inside its output pixels) become generics
      // first.
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      if (failed(linalg::interchangeGenericOp(rewriter, generic, order))) {
        generic.emitOpError("could not be interchanged into the output's "
                            "loop order");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
