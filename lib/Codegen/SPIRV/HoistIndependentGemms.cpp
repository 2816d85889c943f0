//===- HoistIndependentGemms.cpp - the epilogue on the longer chain -------===//
//
// fx-hoist-independent-gemms: where an elementwise op reads the results of
// two GEMMs (a ResNet block's residual add of its last convolution and its
// downsampling one), moves the later GEMM, with what it alone needs, ahead
// of the earlier one. The GPU kernels fuse an elementwise op into the GEMM
// right before it (fx-map-matmuls-to-gpu); after the move that is the GEMM
// on the longer chain, and the other one, epilogue-free, no longer waits
// for that chain: the runtime overlaps it with the chain's first steps.
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/SPIRV/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXHOISTINDEPENDENTGEMMS
#include "fx/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// A linalg op on tensors with a reduction: a matmul or convolution, which
/// the GPU runs as a GEMM kernel that can take an epilogue.
static bool isGemmLike(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureTensorSemantics() &&
         linalgOp.getNumReductionLoops() > 0 && linalgOp.getNumDpsInits() == 1;
}

/// Whether `op` is an elementwise op on tensors (every loop parallel).
static bool isElementwise(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() &&
         op.getNumParallelLoops() == op.getNumLoops();
}

/// Setup that a GEMM's kernel absorbs (its padding, zero start): the
/// position before such ops right before `gemm` is where a GEMM moved
/// ahead of it goes, so that they stay next to their GEMM.
static Operation *setupStart(Operation *gemm,
                             const llvm::SetVector<Operation *> &moved) {
  Operation *start = gemm;
  while (Operation *prev = start->getPrevNode()) {
    if (!isa<tensor::PadOp, tensor::EmptyOp, linalg::FillOp, arith::ConstantOp>(
            prev) ||
        moved.contains(prev))
      break;
    // Only setup that the ops from `start` to the GEMM alone use.
    if (!llvm::all_of(prev->getUsers(), [&](Operation *user) {
          return user->getBlock() == gemm->getBlock() &&
                 !user->isBeforeInBlock(start) && !gemm->isBeforeInBlock(user);
        }))
      break;
    start = prev;
  }
  return start;
}

/// Moves `later` (and the ops after `earlier`'s setup that it alone needs)
/// ahead of `earlier`'s setup; false, changing nothing, where `later`
/// depends on `earlier` or on an op with side effects there.
static bool hoistAhead(Operation *later, Operation *earlier) {
  Block *block = earlier->getBlock();
  if (later->getBlock() != block || !earlier->isBeforeInBlock(later))
    return false;
  // `later`'s backward slice among the ops after `earlier`'s position.
  llvm::SetVector<Operation *> slice;
  SmallVector<Operation *> work{later};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!slice.insert(op))
      continue;
    auto visit = [&](Value operand) {
      Operation *def = operand.getDefiningOp();
      if (def && def->getBlock() == block && earlier->isBeforeInBlock(def))
        work.push_back(def);
      return def == earlier;
    };
    bool dependsOnEarlier = false;
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        dependsOnEarlier |= visit(operand);
    });
    if (dependsOnEarlier || !isMemoryEffectFree(op))
      return false;
  }
  Operation *insertion = setupStart(earlier, slice);
  // The slice cannot reach back before `earlier`'s setup start past ops it
  // uses: those are before `earlier`, and setup ops it shares stay put.
  bool dominated = true;
  for (Operation *op : slice)
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && def->getBlock() == block && !slice.contains(def) &&
            !def->isBeforeInBlock(insertion))
          dominated = false;
    });
  if (!dominated)
    return false;
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ordered)
    op->moveBefore(insertion);
  return true;
}

struct HoistIndependentGemmsPass
    : fx::impl::FXHoistIndependentGemmsBase<HoistIndependentGemmsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> consumers;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isElementwise(op))
        consumers.push_back(op);
    });
    for (linalg::GenericOp consumer : consumers) {
      // Its GEMM producers in the same block, in program order.
      SmallVector<Operation *> gemms;
      for (Value input : consumer.getDpsInputs()) {
        Operation *def = input.getDefiningOp();
        if (isGemmLike(def) && def->getBlock() == consumer->getBlock() &&
            !llvm::is_contained(gemms, def))
          gemms.push_back(def);
      }
      if (gemms.size() < 2)
        continue;
      llvm::sort(gemms, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      // The last one would take the epilogue: move it ahead of the one
      // before it, if it does not depend on that one.
      hoistAhead(gemms.back(), gemms[gemms.size() - 2]);
    }
  }
};

} // namespace
