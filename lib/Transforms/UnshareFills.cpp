//===- UnshareFills.cpp - the fx-unshare-fills pass -----------------------===//
//
// Ops that accumulate into one filled tensor each get a fill of their own
// (see the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx/Transforms/LinalgUtils.h"
#include "fx/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXUNSHAREFILLS
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// True if `use` is written in place by its owner when bufferized: the
/// init of a destination-style op, the shared output of an scf.forall or
/// the initial value of an scf.for.
bool isDestination(OpOperand &use) {
  Operation *owner = use.getOwner();
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(owner))
    return dps.isDpsInit(&use);
  auto isIn = [&](MutableOperandRange range) {
    return llvm::any_of(range,
                        [&](OpOperand &operand) { return &operand == &use; });
  };
  if (auto forall = dyn_cast<scf::ForallOp>(owner))
    return isIn(forall.getOutputsMutable());
  if (auto loop = dyn_cast<scf::ForOp>(owner))
    return isIn(loop.getInitArgsMutable());
  return false;
}

struct UnshareFillsPass
    : public fx::impl::FXUnshareFillsBase<UnshareFillsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> fills;
    // Ops in the order they are written (pre-order).
    llvm::DenseMap<Operation *, int64_t> order;
    getOperation().walk<WalkOrder::PreOrder>(
        [&](Operation *op) { order[op] = order.size(); });
    getOperation().walk([&](Operation *op) {
      if (op->getNumResults() == 1 && !op->hasOneUse() &&
          fx::isConstantFill(op))
        fills.push_back(op);
    });
    OpBuilder b(&getContext());
    for (Operation *fill : fills) {
      SmallVector<OpOperand *> destinations;
      for (OpOperand &use : fill->getResult(0).getUses())
        if (isDestination(use))
          destinations.push_back(&use);
      // Every destination but the first in the block gets a copy of the
      // fill, made right before it (with its own empty tensors).
      if (destinations.size() < 2)
        continue;
      llvm::sort(destinations, [&](OpOperand *x, OpOperand *y) {
        return order.lookup(x->getOwner()) < order.lookup(y->getOwner());
      });
      for (OpOperand *use : llvm::drop_begin(destinations)) {
        b.setInsertionPoint(use->getOwner());
        IRMapping mapping;
        for (Value operand : fill->getOperands())
          if (auto empty = operand.getDefiningOp<tensor::EmptyOp>())
            mapping.map(operand, b.clone(*empty)->getResult(0));
        use->set(b.clone(*fill, mapping)->getResult(0));
      }
    }
  }
};

} // namespace
