//===- FXToLinalg.h - FX to linalg conversion patterns ----------*- C++ -*-===//

#ifndef FX_CONVERSION_FXTOLINALG_FXTOLINALG_H
#define FX_CONVERSION_FXTOLINALG_FXTOLINALG_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
class ConversionTarget;
class RewritePatternSet;

namespace fx {

/// Adds the patterns that lower every FX op to linalg/tensor/arith/math.
void populateFXToLinalgConversionPatterns(RewritePatternSet &patterns);

/// Marks the FX dialect illegal and the dialects the patterns produce legal.
void configureFXToLinalgConversionTarget(ConversionTarget &target);

} // namespace fx
} // namespace mlir

#endif // FX_CONVERSION_FXTOLINALG_FXTOLINALG_H
