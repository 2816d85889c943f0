//===- SubBatch.h - run a batch as calls of a smaller one -------*- C++ -*-===//
//
// Most inference graphs of convolution nets treat each index of their
// inputs' outermost dimension (the batch) on its own: a batch of B images is
// B independent computations. Such a function can be compiled for a
// sub-batch s (a divisor of B) and run B / s times on consecutive slices of
// its inputs and outputs; on a CPU whose caches hold one image's
// temporaries but not B of them, that is faster (rt::CPUFunction runs the
// slices; fx-compile --sub-batch decides).
//
// analyzeBatch proves the independence op by op, from what each FX op does
// with its operands' outermost dimension (an explicit list: an op it does not
// know makes the function unsplittable), and subBatchFunction re-types the
// function for the sub-batch.
//
//===----------------------------------------------------------------------===//

#ifndef FX_DIALECT_FX_TRANSFORMS_SUBBATCH_H
#define FX_DIALECT_FX_TRANSFORMS_SUBBATCH_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace mlir::fx {

/// What analyzeBatch found.
struct BatchAnalysis {
  /// The batch: the outermost dimension of every input that is not a
  /// parameter (`fx.param`) and of every result.
  int64_t batch = 0;
  /// Bytes of the FX op results that depend on the inputs, per batch item
  /// (a measure of the temporaries one item moves through memory).
  int64_t itemBytes = 0;
  /// Bytes of the parameters and constants.
  int64_t parameterBytes = 0;
};

/// Why a function cannot be split: a sentence, and the op it is about (null
/// when it is about the signature).
struct BatchSplitFailure {
  std::string reason;
  Operation *op = nullptr;
};

/// Reports `failure` as an error at its op, or at `func` when it is about
/// the signature: "<prefix>cannot split the batch of '<func>': <reason>".
InFlightDiagnostic emitBatchSplitError(func::FuncOp func,
                                       const BatchSplitFailure &failure,
                                       StringRef prefix = "");

/// Whether `func` computes each index of its inputs' outermost dimension on
/// its own, every input that is not a parameter and every result having that
/// dimension, static and larger than 1.
FailureOr<BatchAnalysis> analyzeBatch(func::FuncOp func,
                                      BatchSplitFailure &failure);

/// Re-types `func` (which analyzeBatch accepted with `analysis`) to compute
/// `subBatch` items: the inputs', the results' and every batch-dependent
/// value's outermost dimension becomes `subBatch`, and the sizes of views
/// and expansions follow. Fails (naming the op) if an op's inferred result
/// type then disagrees, leaving `func` partly re-typed: work on a copy.
LogicalResult subBatchFunction(func::FuncOp func, const BatchAnalysis &analysis,
                               int64_t subBatch, BatchSplitFailure &failure);

} // namespace mlir::fx

#endif // FX_DIALECT_FX_TRANSFORMS_SUBBATCH_H
