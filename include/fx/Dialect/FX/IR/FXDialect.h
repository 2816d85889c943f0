//===- FXDialect.h - the FX dialect -----------------------------*- C++ -*-===//

#ifndef FX_DIALECT_FXDIALECT_H
#define FX_DIALECT_FXDIALECT_H

#include "mlir/IR/Dialect.h"

#include "fx/Dialect/FX/IR/FXDialect.h.inc"

namespace mlir {
class RewritePatternSet;
namespace fx {
/// Patterns that move permutes past linear layers and views so that they
/// merge (PermuteMotion.cpp); part of the dialect's canonicalization.
void populatePermuteMotionPatterns(RewritePatternSet &patterns);
} // namespace fx
} // namespace mlir

#endif // FX_DIALECT_FXDIALECT_H
