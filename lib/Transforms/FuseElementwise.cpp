//===- FuseElementwise.cpp - the fx-fuse-elementwise pass -----------------===//
//
// Upstream elementwise fusion with a control function that keeps
// contractions intact (see the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx/Transforms/LinalgUtils.h"
#include "fx/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <functional>

namespace mlir::fx {
#define GEN_PASS_DEF_FXFUSEELEMENTWISE
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// Whether fusing `producer` into the consumer of `use` would recompute a
/// costly body (exp, division, square root: any math op or division) for
/// every element the consumer broadcasts it to. Squeeze-and-excitation's
/// sigmoid of one value per channel, fused into the product with the
/// feature map, ran once per pixel: 49 to 12544 times as often
/// (efficientnet_b0). Left apart, it runs once per channel and the product
/// reads it broadcast.
bool isCostlyBroadcast(Operation *producer, OpOperand *use) {
  auto consumer = dyn_cast<linalg::LinalgOp>(use->getOwner());
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!consumer || !generic)
    return false;
  AffineMap map = consumer.getMatchingIndexingMap(use);
  if (map.isPermutation())
    return false;
  return llvm::any_of(generic.getBody()->getOperations(), [](Operation &op) {
    return isa<math::MathDialect>(op.getDialect()) ||
           isa<arith::DivFOp, arith::RemFOp>(op);
  });
}

/// A reduction `fuseSiblingReductions` may merge: a generic on tensors with
/// reduction loops and static loop ranges that is not a contraction.
bool isSiblingCandidate(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() && op.getNumReductionLoops() > 0 &&
         !fx::isContractionLike(op) && !linalg::isaContractionOpInterface(op) &&
         llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic);
}

/// Whether `a` (before `b` in their block) and `b` can become one generic:
/// the same iteration space, an input read by both through the same map,
/// `b` not depending on `a`, and every user of `a` after `b` (the merged op
/// takes `b`'s place).
bool canMergeSiblings(linalg::GenericOp a, linalg::GenericOp b) {
  if (a.getIteratorTypesArray() != b.getIteratorTypesArray() ||
      a.getStaticLoopRanges() != b.getStaticLoopRanges())
    return false;
  Value shared;
  for (OpOperand *x : a.getDpsInputOperands())
    for (OpOperand *y : b.getDpsInputOperands())
      if (x->get() == y->get() &&
          a.getMatchingIndexingMap(x) == b.getMatchingIndexingMap(y))
        shared = x->get();
  if (!shared)
    return false;
  // A reduction whose result is combined with the input again (softmax's
  // max, layer norm's mean) belongs to a normalization that a dispatch
  // region fuses vertically, row by row; merging it with a sibling would
  // give it a use outside that region.
  for (linalg::GenericOp op : {a, b})
    for (Operation *user : op->getUsers())
      if (isa<linalg::LinalgOp>(user) &&
          llvm::is_contained(user->getOperands(), shared))
        return false;
  if (!fx::usedOnlyAfter(a->getResults(), b))
    return false;
  Block *block = a->getBlock();
  BackwardSliceOptions options;
  options.filter = [&](Operation *op) {
    return op->getBlock() == block && !op->isBeforeInBlock(a);
  };
  SetVector<Operation *> slice;
  (void)getBackwardSlice(b.getOperation(), &slice, options);
  return !slice.contains(a);
}

/// One generic computing both `a` and `b` (inputs, outputs and bodies
/// concatenated), at `b`'s place.
linalg::GenericOp mergeSiblings(RewriterBase &rewriter, linalg::GenericOp a,
                                linalg::GenericOp b) {
  // Operands: a's inputs, b's inputs that a does not read through the same
  // map, a's outputs, b's outputs; `argOf` says which block argument of the
  // merged body each (op, operand number) becomes.
  SmallVector<Value> inputs, outputs;
  SmallVector<AffineMap> inputMaps, outputMaps;
  DenseMap<std::pair<Operation *, unsigned>, unsigned> argOf;
  for (linalg::GenericOp op : {a, b})
    for (OpOperand *operand : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(operand);
      unsigned index = inputs.size();
      for (unsigned i = 0; i < inputs.size(); ++i)
        if (inputs[i] == operand->get() && inputMaps[i] == map)
          index = i;
      if (index == inputs.size()) {
        inputs.push_back(operand->get());
        inputMaps.push_back(map);
      }
      argOf[{op, operand->getOperandNumber()}] = index;
    }
  for (linalg::GenericOp op : {a, b})
    for (OpOperand &operand : op.getDpsInitsMutable()) {
      argOf[{op, operand.getOperandNumber()}] = inputs.size() + outputs.size();
      outputs.push_back(operand.get());
      outputMaps.push_back(op.getMatchingIndexingMap(&operand));
    }
  SmallVector<AffineMap> maps(inputMaps);
  llvm::append_range(maps, outputMaps);
  SmallVector<Type> resultTypes(a->getResultTypes());
  llvm::append_range(resultTypes, b->getResultTypes());
  rewriter.setInsertionPoint(b);
  auto merged = linalg::GenericOp::create(
      rewriter, rewriter.getFusedLoc({a.getLoc(), b.getLoc()}), resultTypes,
      inputs, outputs, maps, a.getIteratorTypesArray());
  Block *body = rewriter.createBlock(&merged.getRegion());
  for (Value v : llvm::concat<Value>(inputs, outputs))
    body->addArgument(cast<ShapedType>(v.getType()).getElementType(),
                      v.getLoc());
  SmallVector<Value> yields;
  rewriter.setInsertionPointToEnd(body);
  for (linalg::GenericOp op : {a, b}) {
    IRMapping mapping;
    for (OpOperand &operand : op->getOpOperands())
      mapping.map(op.getMatchingBlockArgument(&operand),
                  body->getArgument(argOf[{op, operand.getOperandNumber()}]));
    for (Operation &inner : op.getBody()->without_terminator())
      rewriter.clone(inner, mapping);
    for (Value v : op.getBody()->getTerminator()->getOperands())
      yields.push_back(mapping.lookupOrDefault(v));
  }
  linalg::YieldOp::create(rewriter, merged.getLoc(), yields);
  rewriter.replaceOp(a, merged->getResults().take_front(a->getNumResults()));
  rewriter.replaceOp(b, merged->getResults().drop_front(a->getNumResults()));
  return merged;
}

/// Horizontal fusion: reductions over the same iteration space that read
/// the same input become one generic, so the input is read once (e.g.
/// `x.sum(1)` and `x.amax(1)`). Upstream has no such pass for linalg on
/// tensors (its fusion is producer/consumer only), hence ours.
void fuseSiblingReductions(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<linalg::GenericOp> candidates;
    func.walk([&](linalg::GenericOp op) {
      if (isSiblingCandidate(op))
        candidates.push_back(op);
    });
    for (auto [i, a] : llvm::enumerate(candidates)) {
      for (linalg::GenericOp b : ArrayRef(candidates).drop_front(i + 1)) {
        if (a->getBlock() != b->getBlock() || !canMergeSiblings(a, b))
          continue;
        mergeSiblings(rewriter, a, b);
        changed = true;
        break;
      }
      if (changed)
        break;
    }
  }
}

struct FuseElementwisePass
    : public fx::impl::FXFuseElementwiseBase<FuseElementwisePass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Upstream's default rule (a producer with one use, so nothing is
    // computed twice) plus: never into a contraction-like consumer.
    // And: an epilogue of a convolution or matmul (an elementwise op that
    // reads one's result) stays out of a reduction after it, so that the
    // dispatch regions can compute it on the convolution's tiles (ResNet's
    // last batch norm + add + ReLU would otherwise go into the average
    // pool's sum).
    // (Through a chain of elementwise ops: batch norm + add, then ReLU.)
    std::function<bool(Operation *, int)> isEpilogue = [&](Operation *op,
                                                           int depth) {
      return depth < 8 && llvm::any_of(
                              op->getOperands(),
                              [&](Value v) {
                                auto def = v.getDefiningOp<linalg::LinalgOp>();
                                if (!def)
                                  return false;
                                if (linalg::isaContractionOpInterface(def) ||
                                    linalg::isaConvolutionOpInterface(def))
                                  return true;
                                return def.getNumReductionLoops() == 0 &&
                                       isEpilogue(def, depth + 1);
                              });
    };
    linalg::ControlFusionFn control = [&](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
      if (!producer || !producer->hasOneUse() || !consumer)
        return producer && producer->hasOneUse();
      if (fx::isContractionLike(consumer))
        return false;
      if (!recomputeCostlyBroadcasts && isCostlyBroadcast(producer, fused))
        return false;
      return !(consumer.getNumReductionLoops() > 0 && isEpilogue(producer, 0));
    };
    // Reshapes are propagated through elementwise ops but not through
    // contractions: expanding a matmul's dims turns it into a generic with
    // several m dims, which the CPU tiling cannot register-block.
    auto isContraction = [](Operation *op) {
      auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
      return linalgOp && (fx::isContractionLike(linalgOp) ||
                          linalg::isaContractionOpInterface(linalgOp));
    };
    // An elementwise op reading a contraction's result directly (an
    // epilogue in the contraction's shape, see below) is not expanded
    // again: expansion and collapsing would undo each other.
    auto readsContraction = [&](Operation *op) {
      auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
      return generic && generic.getNumReductionLoops() == 0 &&
             llvm::any_of(generic.getDpsInputs(), [&](Value v) {
               return isContraction(v.getDefiningOp());
             });
    };
    linalg::ControlFusionFn reshapeControl = [&](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() && !isContraction(producer) &&
             !isContraction(fused->getOwner()) && !readsContraction(producer) &&
             !readsContraction(fused->getOwner());
    };
    // An elementwise op that reads a contraction's result through an
    // expand_shape (`linear` of a [1, H, W, C] input: a 2-d matmul whose
    // result is expanded back, then a GELU or a scale) is collapsed to the
    // contraction's shape instead, so that it reads the result at the same
    // element and fuses as its epilogue (dispatch regions on the CPU, the
    // GEMM kernel on Vulkan); the expand_shape moves after it, where it
    // often cancels with the collapse_shape of the next linear's input.
    // Down a chain: the bias add, then the GELU that reads it.
    linalg::ControlFusionFn collapseControl = [&](OpOperand *fused) {
      auto expand = fused->get().getDefiningOp<tensor::ExpandShapeOp>();
      auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
      Operation *source = expand ? expand.getSrc().getDefiningOp() : nullptr;
      return consumer && consumer.getNumReductionLoops() == 0 &&
             (isContraction(source) || readsContraction(source));
    };
    // A transpose read only by an elementwise op (ConvNeXt's permute back
    // to NCHW before the layer scale and the residual add) becomes a
    // generic, which fuses into that op: one loop (one kernel on Vulkan)
    // reading the input transposed, instead of a transposed copy first.
    {
      IRRewriter rewriter(ctx);
      SmallVector<linalg::TransposeOp> transposes;
      getOperation().walk([&](linalg::TransposeOp op) {
        Value result = op->getResult(0);
        auto user = dyn_cast_or_null<linalg::GenericOp>(
            result.hasOneUse() ? *result.getUsers().begin() : nullptr);
        if (user && user.getNumReductionLoops() == 0)
          transposes.push_back(op);
      });
      for (linalg::TransposeOp op : transposes) {
        rewriter.setInsertionPoint(op);
        (void)linalg::generalizeNamedOp(rewriter, op);
      }
    }
    {
      RewritePatternSet collapse(ctx);
      linalg::populateFoldReshapeOpsByCollapsingPatterns(collapse,
                                                         collapseControl);
      // The chain's links fuse as they collapse: a later link left apart
      // (reading the first through an expand_shape) would be expanded back
      // by the reshape propagation below before it could fuse.
      linalg::ControlFusionFn chainControl = [&](OpOperand *fused) {
        auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
        return consumer && consumer.getNumReductionLoops() == 0 &&
               readsContraction(fused->get().getDefiningOp()) && control(fused);
      };
      linalg::populateElementwiseOpsFusionPatterns(collapse, chainControl);
      tensor::ExpandShapeOp::getCanonicalizationPatterns(collapse, ctx);
      tensor::CollapseShapeOp::getCanonicalizationPatterns(collapse, ctx);
      if (failed(applyPatternsGreedily(getOperation(), std::move(collapse))))
        return signalPassFailure();
    }
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    // Powers by constants (folded into the bodies above) as multiplies and
    // square roots: GPT-2's GELU cubes its input with torch.pow(x, 3.0),
    // which as math.powf was a libm call per element on the CPU (1.5 ms
    // per layer for 128 x 3072 elements, two threads of a Zen 5 EPYC) and
    // an exp2(y * log2|x|) on Vulkan.
    populateMathAlgebraicSimplificationPatterns(patterns);
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
    fuseSiblingReductions(getOperation());
  }
};

} // namespace
