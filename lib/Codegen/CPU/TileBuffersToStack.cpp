//===- TileBuffersToStack.cpp - loop temporaries on the stack -------------===//
//
// fx-tile-buffers-to-stack: the per-iteration heap temporaries of outlined
// loop bodies become one stack slot per function (see Passes.td for why
// upstream's promote-buffers-to-stack and buffer-loop-hoisting do not fit).
//
//===----------------------------------------------------------------------===//

#include "BufferUses.h"

#include "fx/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXTILEBUFFERSTOSTACK
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

constexpr int64_t kMaxTotalBytes = 512 * 1024;

/// True if the buffer of `alloc` (and every view of it) stays inside the
/// iteration: no terminator or call passes it on, and it is freed only in
/// the allocation's own block. Fills `deallocs`.
static bool livesInIteration(memref::AllocOp alloc,
                             SmallVectorImpl<memref::DeallocOp> &deallocs) {
  return fx::cpu::forEachBufferUse(
      alloc.getResult(),
      [&](memref::DeallocOp dealloc) {
        deallocs.push_back(dealloc);
        return dealloc->getBlock() == alloc->getBlock();
      },
      [](Operation *user) {
        return !user->hasTrait<OpTrait::IsTerminator>() &&
               !isa<CallOpInterface>(user);
      });
}

struct TileBuffersToStackPass
    : public fx::impl::FXTileBuffersToStackBase<TileBuffersToStackPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &entry = func.getBody().front();
    SmallVector<std::pair<memref::AllocOp, int64_t>> allocs;
    func.walk([&](memref::AllocOp alloc) {
      if (alloc->getParentOp() == func.getOperation())
        return;
      if (alloc->getParentOfType<scf::ForallOp>() ||
          alloc->getParentOfType<scf::ParallelOp>())
        return;
      std::optional<int64_t> bytes =
          fx::cpu::staticBufferBytes(alloc.getType());
      if (!bytes || *bytes > maxBytes)
        return;
      allocs.push_back({alloc, *bytes});
    });
    OpBuilder builder = OpBuilder::atBlockBegin(&entry);
    // The slots of one function together stay far below a thread's stack
    // (8 MiB by default on Linux, for the caller and the pool's workers).
    int64_t total = 0;
    for (auto [alloc, bytes] : allocs) {
      SmallVector<memref::DeallocOp> deallocs;
      if (total + bytes > kMaxTotalBytes || !livesInIteration(alloc, deallocs))
        continue;
      total += bytes;
      auto slot =
          memref::AllocaOp::create(builder, alloc.getLoc(), alloc.getType(),
                                   ValueRange(), alloc.getAlignmentAttr());
      alloc.getResult().replaceAllUsesWith(slot.getResult());
      for (memref::DeallocOp dealloc : deallocs)
        dealloc->erase();
      alloc->erase();
    }
  }
};

} // namespace
