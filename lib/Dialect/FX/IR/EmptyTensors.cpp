//===- EmptyTensors.cpp - Canonicalizing zero-element tensors away --------===//
//
// Tensors with a zero-size dimension are common at the edges of real
// programs (an empty batch, a split of size 0, padding of an empty input).
// They hold no values, so what computes them does not matter; but tiling,
// vectorization and bufferization assume at least one element. These
// dialect-wide canonicalization patterns remove them at the FX level,
// before lowering:
//
//   * a used result without elements of an op with operands becomes
//     `fx.zeros` (its producer dies once nothing else uses it);
//   * `fx.cat` drops its empty operands;
//   * a contraction over an empty dimension (`mm`, `bmm`, `linear`,
//     `addmm`) is zero plus its bias, a `sum` over one is zero.
//
// They are patterns rather than a pass so that every canonicalization (the
// first step of both pipelines, and fx-opt --canonicalize) applies them.
//
//===----------------------------------------------------------------------===//

#include "fx/Dialect/FX/IR/FXDialect.h"
#include "fx/Dialect/FX/IR/FXOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::fx;

namespace {

/// True for a ranked tensor type with a static dimension of size 0.
bool hasNoElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && llvm::is_contained(tensor.getShape(), 0);
}

/// A used result without elements -> fx.zeros of its type.
struct EmptyResultToZeros : public RewritePattern {
  EmptyResultToZeros(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    // Creation ops (fx.zeros, fx.constant, ...) compute nothing from
    // operands; fx.zeros also folds to fx.constant, so they stay.
    if (!isa<FXDialect>(op->getDialect()) || op->getNumOperands() == 0 ||
        !isPure(op))
      return failure();
    bool changed = false;
    for (OpResult result : op->getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (result.use_empty() || !type || !type.hasStaticShape() ||
          !hasNoElements(type))
        continue;
      Value zeros = ZerosOp::create(rewriter, op->getLoc(), type);
      rewriter.replaceAllUsesWith(result, zeros);
      changed = true;
    }
    return success(changed);
  }
};

/// cat(a, empty, b) -> cat(a, b) when something is left.
struct CatDropsEmptyOperands : public OpRewritePattern<CatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CatOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> kept;
    for (Value tensor : op.getTensors())
      if (!hasNoElements(tensor.getType()))
        kept.push_back(tensor);
    if (kept.empty() || kept.size() == op.getTensors().size())
      return failure();
    if (kept.size() == 1 && kept.front().getType() == op.getType()) {
      rewriter.replaceOp(op, kept.front());
      return success();
    }
    rewriter.modifyOpInPlace(op, [&] { op.getTensorsMutable().assign(kept); });
    return success();
  }
};

/// `zeros + bias` in the result's type (fx.add broadcasts the bias).
Value zerosPlus(PatternRewriter &rewriter, Operation *op, Value bias) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Value zeros = ZerosOp::create(rewriter, op->getLoc(), type);
  if (!bias)
    return zeros;
  return AddOp::create(rewriter, op->getLoc(), type, zeros, bias,
                       rewriter.getF64FloatAttr(1.0));
}

/// A contraction over an empty dimension: mm, bmm and linear are zero (plus
/// linear's bias), addmm with beta = 1 is its input (broadcast).
template <typename OpTy>
struct EmptyContraction : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !resultType.hasStaticShape() ||
        hasNoElements(resultType))
      return failure();
    Value lhs, bias;
    if constexpr (std::is_same_v<OpTy, LinearOp>) {
      lhs = op.getInput();
      bias = op.getBias();
    } else if constexpr (std::is_same_v<OpTy, AddmmOp>) {
      lhs = op.getMat1();
      bias = op.getSelf();
      if (op.getBeta().convertToDouble() != 1.0)
        return failure();
    } else {
      lhs = op.getSelf();
    }
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    if (lhsType.getRank() == 0 || lhsType.getShape().back() != 0)
      return failure();
    if (bias && cast<RankedTensorType>(bias.getType()).getElementType() !=
                    resultType.getElementType())
      return failure();
    rewriter.replaceOp(op, zerosPlus(rewriter, op, bias));
    return success();
  }
};

/// sum over an empty dimension with a non-empty result -> zeros.
struct EmptySum : public OpRewritePattern<SumOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SumOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || !resultType.hasStaticShape() ||
        hasNoElements(resultType) || !hasNoElements(op.getSelf().getType()))
      return failure();
    rewriter.replaceOp(op, zerosPlus(rewriter, op, Value()));
    return success();
  }
};

} // namespace

void FXDialect::getCanonicalizationPatterns(RewritePatternSet &patterns) const {
  patterns.add<EmptyResultToZeros, CatDropsEmptyOperands, EmptySum,
               EmptyContraction<MmOp>, EmptyContraction<BmmOp>,
               EmptyContraction<LinearOp>, EmptyContraction<AddmmOp>>(
      getContext());
  populatePermuteMotionPatterns(patterns);
}
