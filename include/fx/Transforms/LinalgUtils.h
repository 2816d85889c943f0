//===- LinalgUtils.h - linalg queries shared by the FX passes ---*- C++ -*-===//

#ifndef FX_TRANSFORMS_LINALGUTILS_H
#define FX_TRANSFORMS_LINALGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::fx {

/// A reduction other than a convolution that reads more than one operand
/// along its reduced dimensions: it multiplies tensors like a matmul
/// (attention's P x V, a batched linear written as a generic). Such ops need
/// register-blocked contraction tiles, so neither elementwise fusion nor
/// dispatch regions merge other ops into them.
bool isContractionLike(linalg::LinalgOp op);

/// The number of thread chunks a `threads` pass option asks for: the
/// option itself, or the host's hardware threads when it is 0.
int64_t resolveThreadCount(int64_t threads);

/// The product of `op`'s static loop ranges (dynamic ones count as 1): the
/// work measure the parallel-min-work options compare against.
int64_t staticIterationCount(linalg::LinalgOp op);

/// The op of a single-result reduction's body that combines the running
/// value (the output block argument) with the next element, or nullptr when
/// `op` is not such a reduction.
Operation *getReductionCombiner(linalg::LinalgOp op);

/// Whether partial results of `combiner` can be combined across a GPU
/// workgroup: add, mul, min and max (the gpu.subgroup_reduce kinds that
/// convert-gpu-to-spirv lowers for Vulkan).
bool isWorkgroupCombinable(Operation *combiner);

} // namespace mlir::fx

#endif // FX_TRANSFORMS_LINALGUTILS_H
