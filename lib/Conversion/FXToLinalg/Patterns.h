//===- Patterns.h - FX to linalg patterns by op family ----------*- C++ -*-===//

#ifndef FX_LIB_CONVERSION_FXTOLINALG_PATTERNS_H
#define FX_LIB_CONVERSION_FXTOLINALG_PATTERNS_H

namespace mlir {
class RewritePatternSet;
namespace fx::tolinalg {

void populateElementwisePatterns(RewritePatternSet &patterns);
void populateLinearPatterns(RewritePatternSet &patterns);
void populateConvolutionPatterns(RewritePatternSet &patterns);
void populatePoolingPatterns(RewritePatternSet &patterns);
void populateNormalizationPatterns(RewritePatternSet &patterns);
void populateReductionPatterns(RewritePatternSet &patterns);
void populateDataMovementPatterns(RewritePatternSet &patterns);
void populateCreationPatterns(RewritePatternSet &patterns);
void populateAttentionPatterns(RewritePatternSet &patterns);

} // namespace fx::tolinalg
} // namespace mlir

#endif // FX_LIB_CONVERSION_FXTOLINALG_PATTERNS_H
