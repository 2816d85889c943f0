//===- LinalgUtils.cpp - linalg queries shared by the FX passes -----------===//

#include "fx/Transforms/LinalgUtils.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <thread>

using namespace mlir;

bool mlir::fx::isContractionLike(linalg::LinalgOp op) {
  // Convolutions read two operands along their window dims too, but have
  // their own tiling.
  if (op.getNumReductionLoops() == 0 ||
      isa<linalg::ConvolutionOpInterface>(op.getOperation()))
    return false;
  SmallVector<unsigned> reductionDims;
  op.getReductionDims(reductionDims);
  int64_t readers = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (llvm::any_of(reductionDims,
                     [&](unsigned d) { return map.isFunctionOfDim(d); }))
      ++readers;
  }
  return readers > 1;
}

int64_t mlir::fx::resolveThreadCount(int64_t threads) {
  return threads > 0
             ? threads
             : std::max<int64_t>(std::thread::hardware_concurrency(), 1);
}

int64_t mlir::fx::staticIterationCount(linalg::LinalgOp op) {
  int64_t work = 1;
  for (int64_t r : op.getStaticLoopRanges())
    work = ShapedType::isDynamic(r) ? work : work * r;
  return work;
}
