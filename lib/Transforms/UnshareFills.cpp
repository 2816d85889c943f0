//===- UnshareFills.cpp - the fx-unshare-fills pass -----------------------===//
//
// Ops that accumulate into one filled tensor each get a fill of their own
// (see the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

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

/// True if `op` computes a tensor from constants alone into empty tensors:
/// a linalg.fill of a constant, or a loop nest of them (a fill tiled by the
/// CPU tiling into an scf.forall or scf.for: its operands and the values it
/// captures are constants or empty tensors, and nothing inside has memory
/// effects).
bool isConstantFill(Operation *op) {
  auto isConstantOrEmpty = [](Value v) {
    Operation *def = v.getDefiningOp();
    return def && (def->hasTrait<OpTrait::ConstantLike>() ||
                   isa<tensor::EmptyOp>(def));
  };
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.hasPureTensorSemantics() &&
           llvm::all_of(fill->getOperands(), isConstantOrEmpty);
  if (!isa<scf::ForallOp, scf::ForOp>(op) ||
      !llvm::all_of(op->getOperands(), isConstantOrEmpty))
    return false;
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegion(0), captured);
  if (!llvm::all_of(captured, isConstantOrEmpty))
    return false;
  WalkResult result = op->getRegion(0).walk([](Operation *inner) {
    if (isa<tensor::ParallelInsertSliceOp, scf::InParallelOp>(inner) ||
        isMemoryEffectFree(inner))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

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
      if (op->getNumResults() == 1 && !op->hasOneUse() && isConstantFill(op))
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
