//===- Passes.h - CPU code generation passes --------------------*- C++ -*-===//

#ifndef FX_CODEGEN_CPU_PASSES_H
#define FX_CODEGEN_CPU_PASSES_H

#include "fx/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::fx {

/// The attribute fx-cpu-pack-convolutions puts on the packed convolution
/// tiles it makes (the column stride), by which fx-cpu-tile-and-vectorize
/// finds them.
constexpr llvm::StringLiteral kPackedConvAttr = "fx.packed_conv";

/// exp of f32 scalars and vectors as a polynomial and a power of two
/// built in the exponent bits (ExpApproximation.cpp): fewer operations
/// than MLIR's polynomial approximation, which `benefit` should exceed.
void populateCPUExpApproximationPatterns(RewritePatternSet &patterns,
                                         PatternBenefit benefit);

#define GEN_PASS_DECL
#include "fx/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fx/Codegen/CPU/Passes.h.inc"

} // namespace mlir::fx

#endif // FX_CODEGEN_CPU_PASSES_H
