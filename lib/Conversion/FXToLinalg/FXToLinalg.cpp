//===- FXToLinalg.cpp - the convert-fx-to-linalg pass ---------------------===//

#include "fx/Conversion/FXToLinalg/FXToLinalg.h"
#include "Patterns.h"

#include "fx/Conversion/Passes.h"
#include "fx/Dialect/FX/IR/FXDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::fx {
#define GEN_PASS_DEF_CONVERTFXTOLINALG
#include "fx/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx;

void fx::populateFXToLinalgConversionPatterns(RewritePatternSet &patterns) {
  tolinalg::populateElementwisePatterns(patterns);
  tolinalg::populateLinearPatterns(patterns);
  tolinalg::populateConvolutionPatterns(patterns);
  tolinalg::populatePoolingPatterns(patterns);
  tolinalg::populateNormalizationPatterns(patterns);
  tolinalg::populateReductionPatterns(patterns);
  tolinalg::populateDataMovementPatterns(patterns);
  tolinalg::populateCreationPatterns(patterns);
  tolinalg::populateAttentionPatterns(patterns);
}

void fx::configureFXToLinalgConversionTarget(ConversionTarget &target) {
  target.addIllegalDialect<FXDialect>();
  target.addLegalDialect<arith::ArithDialect, cf::ControlFlowDialect,
                         linalg::LinalgDialect, math::MathDialect,
                         tensor::TensorDialect>();
}

namespace {
struct ConvertFXToLinalgPass
    : public fx::impl::ConvertFXToLinalgBase<ConvertFXToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    configureFXToLinalgConversionTarget(target);
    RewritePatternSet patterns(ctx);
    populateFXToLinalgConversionPatterns(patterns);
    // Partial conversion: ops of other dialects stay; an FX op that no
    // pattern lowers is reported at its location and fails the pass.
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
