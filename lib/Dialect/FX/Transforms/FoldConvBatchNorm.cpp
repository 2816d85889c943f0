//===- FoldConvBatchNorm.cpp - the fx-fold-conv-batch-norm pass -----------===//
//
// Inference-time batch norm after a convolution is an affine map per output
// channel, so with constant weights it folds into the convolution:
//
//   scale = gamma / sqrt(var + eps)
//   W'[f] = W[f] * scale[f]
//   b'[f] = (b[f] - mean[f]) * scale[f] + beta[f]
//
// The arithmetic is done in double and rounded once to the element type.
// This is the rewrite TorchInductor's freezing pass and IREE's
// const-eval make; it removes the batch norm from the graph entirely rather
// than fusing it (the epilogue of a fused convolution still costs a
// multiply-add per output element).
//
//===----------------------------------------------------------------------===//

#include "fx/Dialect/FX/IR/FXOps.h"
#include "fx/Dialect/FX/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::fx {
#define GEN_PASS_DEF_FXFOLDCONVBATCHNORM
#include "fx/Dialect/FX/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx;

namespace {

/// The values of an `fx.constant` as doubles, or nothing if `value` is not
/// one (or is not a floating-point constant).
std::optional<SmallVector<double>> constantValues(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto elements = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!elements || !isa<FloatType>(elements.getElementType()))
    return std::nullopt;
  SmallVector<double> values;
  values.reserve(elements.getNumElements());
  for (APFloat v : elements.getValues<APFloat>()) {
    bool lossy;
    v.convert(APFloat::IEEEdouble(), llvm::RoundingMode::NearestTiesToEven,
              &lossy);
    values.push_back(v.convertToDouble());
  }
  return values;
}

/// An `fx.constant` of `type` holding `values` rounded to its element type.
Value createConstant(PatternRewriter &rewriter, Location loc,
                     RankedTensorType type, ArrayRef<double> values) {
  auto floatType = cast<FloatType>(type.getElementType());
  SmallVector<APFloat> rounded;
  rounded.reserve(values.size());
  for (double v : values) {
    APFloat f(v);
    bool lossy;
    f.convert(floatType.getFloatSemantics(),
              llvm::RoundingMode::NearestTiesToEven, &lossy);
    rounded.push_back(f);
  }
  return ConstantOp::create(rewriter, loc, type,
                            DenseElementsAttr::get(type, rounded));
}

struct FoldBatchNormIntoConvolution : public OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    auto conv = bn.getInput().getDefiningOp<ConvolutionOp>();
    if (!conv || !conv->hasOneUse())
      return rewriter.notifyMatchFailure(bn, "input is not a convolution "
                                             "used only by the batch norm");
    if (conv.getTransposed())
      return rewriter.notifyMatchFailure(bn, "transposed convolution");
    auto weightType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
    auto resultType = dyn_cast<RankedTensorType>(conv.getType());
    if (!weightType || !weightType.hasStaticShape() || !resultType ||
        resultType.getElementType() != weightType.getElementType())
      return rewriter.notifyMatchFailure(bn, "weight of unknown shape");
    int64_t channels = weightType.getDimSize(0);

    std::optional<SmallVector<double>> weight =
        constantValues(conv.getWeight());
    std::optional<SmallVector<double>> mean =
        constantValues(bn.getRunningMean());
    std::optional<SmallVector<double>> var = constantValues(bn.getRunningVar());
    if (!weight || !mean || !var)
      return rewriter.notifyMatchFailure(bn, "weights are not constants");
    // Optional operands default to gamma = 1, beta = 0, conv bias = 0.
    auto optional = [&](Value v,
                        double dflt) -> std::optional<SmallVector<double>> {
      if (!v)
        return SmallVector<double>(channels, dflt);
      return constantValues(v);
    };
    std::optional<SmallVector<double>> gamma = optional(bn.getWeight(), 1.0);
    std::optional<SmallVector<double>> beta = optional(bn.getBias(), 0.0);
    std::optional<SmallVector<double>> bias = optional(conv.getBias(), 0.0);
    if (!gamma || !beta || !bias)
      return rewriter.notifyMatchFailure(bn, "weights are not constants");
    for (auto *values : {&*mean, &*var, &*gamma, &*beta, &*bias})
      if (static_cast<int64_t>(values->size()) != channels)
        return rewriter.notifyMatchFailure(bn, "per-channel shapes differ");

    double eps = bn.getEps().convertToDouble();
    int64_t perChannel = weightType.getNumElements() / channels;
    SmallVector<double> newBias(channels);
    for (int64_t f = 0; f < channels; ++f) {
      double scale = (*gamma)[f] / std::sqrt((*var)[f] + eps);
      for (int64_t i = 0; i < perChannel; ++i)
        (*weight)[f * perChannel + i] *= scale;
      newBias[f] = ((*bias)[f] - (*mean)[f]) * scale + (*beta)[f];
    }
    // The new constants carry the batch norm's location: it is what they
    // came from in the user's model.
    Location loc = rewriter.getFusedLoc({conv.getLoc(), bn.getLoc()});
    Value newWeight = createConstant(rewriter, loc, weightType, *weight);
    Value newBiasValue = createConstant(
        rewriter, loc,
        RankedTensorType::get({channels}, weightType.getElementType()),
        newBias);
    auto folded = ConvolutionOp::create(
        rewriter, loc, bn.getType(), conv.getInput(), newWeight, newBiasValue,
        conv.getStrideAttr(), conv.getPaddingAttr(), conv.getDilationAttr(),
        conv.getTransposedAttr(), conv.getOutputPaddingAttr(),
        conv.getGroupsAttr());
    rewriter.replaceOp(bn, folded.getResult());
    rewriter.eraseOp(conv);
    return success();
  }
};

struct FoldConvBatchNormPass
    : public fx::impl::FXFoldConvBatchNormBase<FoldConvBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBatchNormIntoConvolution>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
