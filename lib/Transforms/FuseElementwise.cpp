//===- FuseElementwise.cpp - the fx-fuse-elementwise pass -----------------===//
//
// Upstream elementwise fusion with a control function that keeps
// contractions intact (see the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx/Transforms/LinalgUtils.h"
#include "fx/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXFUSEELEMENTWISE
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

struct FuseElementwisePass
    : public fx::impl::FXFuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Upstream's default rule (a producer with one use, so nothing is
    // computed twice) plus: never into a contraction-like consumer.
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
      return producer && producer->hasOneUse() &&
             !(consumer && fx::isContractionLike(consumer));
    };
    // Reshapes are propagated through elementwise ops but not through
    // contractions: expanding a matmul's dims turns it into a generic with
    // several m dims, which the CPU tiling cannot register-block.
    linalg::ControlFusionFn reshapeControl = [](OpOperand *fused) {
      auto keepsContraction = [](Operation *op) {
        auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
        return !linalgOp || (!fx::isContractionLike(linalgOp) &&
                             !linalg::isaContractionOpInterface(linalgOp));
      };
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             keepsContraction(producer) && keepsContraction(fused->getOwner());
    };
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshapeControl);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
