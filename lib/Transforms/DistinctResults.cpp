//===- DistinctResults.cpp - the fx-distinct-results pass -----------------===//
//
// buffer-results-to-out-params gives each function result its own
// out-parameter; a buffer returned twice crashed it (MLIR 22). Copies at
// the tensor level give every result a tensor of its own before
// bufferization.
//
//===----------------------------------------------------------------------===//

#include "fx/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXDISTINCTRESULTS
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

struct DistinctResultsPass
    : public fx::impl::FXDistinctResultsBase<DistinctResultsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic())
        continue;
      func.walk([](func::ReturnOp ret) {
        llvm::SmallDenseSet<Value> seen;
        OpBuilder b(ret);
        for (OpOperand &operand : ret->getOpOperands()) {
          auto type = dyn_cast<RankedTensorType>(operand.get().getType());
          if (!type || seen.insert(operand.get()).second)
            continue;
          operand.set(bufferization::AllocTensorOp::create(
              b, ret.getLoc(), type, /*dynamicSizes=*/ValueRange(),
              /*copy=*/operand.get()));
        }
      });
    }
  }
};

} // namespace
