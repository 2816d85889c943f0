//===- LinalgUtils.h - linalg queries shared by the FX passes ---*- C++ -*-===//

#ifndef FX_TRANSFORMS_LINALGUTILS_H
#define FX_TRANSFORMS_LINALGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::fx {

/// A reduction other than a convolution that reads more than one operand
/// along its reduced dimensions: it multiplies tensors like a matmul (attention's P x V, a
/// batched linear written as a generic). Such ops need register-blocked
/// contraction tiles, so neither elementwise fusion nor dispatch regions
/// merge other ops into them.
bool isContractionLike(linalg::LinalgOp op);

} // namespace mlir::fx

#endif // FX_TRANSFORMS_LINALGUTILS_H
