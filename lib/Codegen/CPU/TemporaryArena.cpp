//===- TemporaryArena.cpp - a function's temporaries in one arena ---------===//
//
// fx-temporary-arena: the temporaries of a function's entry block become
// views of one arena, placed by their live ranges (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "BufferUses.h"

#include "fx/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXTEMPORARYARENA
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// A temporary placed in the arena.
struct Temporary {
  memref::AllocOp alloc;
  SmallVector<memref::DeallocOp> deallocs;
  /// Bytes and alignment.
  int64_t bytes = 0;
  int64_t alignment = 0;
  /// The live range: positions in the entry block of the first and the
  /// last op using it.
  int64_t first = 0, last = 0;
  /// Where it goes.
  int64_t offset = 0;
};

int64_t alignTo(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// Fills `t`'s deallocations and live range from the uses of its buffer and
/// of every view of it; false if the buffer may escape or be freed
/// elsewhere. `position` numbers the entry block's ops.
bool analyze(Temporary &t, Block &entry,
             const DenseMap<Operation *, int64_t> &position) {
  t.first = std::numeric_limits<int64_t>::max();
  t.last = -1;
  // View ops touch no memory: only their users count (bufferization hoists
  // the subviews of padded buffers to the allocations, which made every
  // range start there).
  bool placeable = fx::cpu::forEachBufferUse(
      t.alloc.getResult(),
      [&](memref::DeallocOp dealloc) {
        t.deallocs.push_back(dealloc);
        return dealloc->getBlock() == &entry;
      },
      [&](Operation *user) {
        // An op that may return the buffer (or leave the function with it).
        if (llvm::any_of(user->getResultTypes(),
                         llvm::IsaPred<BaseMemRefType>) ||
            user->hasTrait<OpTrait::IsTerminator>())
          return false;
        Operation *top = entry.findAncestorOpInBlock(*user);
        if (!top)
          return false;
        int64_t at = position.lookup(top);
        t.first = std::min(t.first, at);
        t.last = std::max(t.last, at);
        return true;
      });
  return placeable && !t.deallocs.empty();
}

/// Offsets for `temporaries`, largest first, each at the lowest aligned
/// offset clear of the placed ones live at the same time; returns the
/// arena's size.
int64_t place(MutableArrayRef<Temporary> temporaries) {
  SmallVector<Temporary *> order;
  for (Temporary &t : temporaries)
    order.push_back(&t);
  // Ties by live range keep the plan deterministic.
  llvm::sort(order, [](const Temporary *a, const Temporary *b) {
    return std::tie(b->bytes, a->first, a->last) <
           std::tie(a->bytes, b->first, b->last);
  });
  SmallVector<Temporary *> placed;
  int64_t size = 0;
  for (Temporary *t : order) {
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (Temporary *other : placed)
      if (other->first <= t->last && t->first <= other->last)
        busy.push_back({other->offset, other->offset + other->bytes});
    llvm::sort(busy);
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (alignTo(offset, t->alignment) + t->bytes <= begin)
        break;
      offset = std::max(offset, end);
    }
    t->offset = alignTo(offset, t->alignment);
    size = std::max(size, t->offset + t->bytes);
    placed.push_back(t);
  }
  return size;
}

struct TemporaryArenaPass
    : public fx::impl::FXTemporaryArenaBase<TemporaryArenaPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // One block: the arena is freed before its return.
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
      func.emitError("fx-temporary-arena: alignment must be a power of two");
      return signalPassFailure();
    }
    Block &entry = func.getBody().front();
    DenseMap<Operation *, int64_t> position;
    for (auto [i, op] : llvm::enumerate(entry))
      position[&op] = i;

    SmallVector<Temporary> temporaries;
    for (auto alloc : entry.getOps<memref::AllocOp>()) {
      std::optional<int64_t> bytes =
          fx::cpu::staticBufferBytes(alloc.getType());
      if (!bytes || alloc.getType().getMemorySpace())
        continue;
      Temporary t;
      t.alloc = alloc;
      t.bytes = std::max<int64_t>(1, *bytes);
      t.alignment = std::max<int64_t>(
          alignment, alloc.getAlignment() ? *alloc.getAlignment() : 1);
      if (!analyze(t, entry, position))
        continue;
      // Never used but freed: its range is its allocation.
      if (t.last < 0)
        t.first = t.last = position.lookup(alloc);
      temporaries.push_back(std::move(t));
    }
    if (temporaries.size() < 2)
      return;
    int64_t size = place(temporaries);
    int64_t arenaAlignment = alignment;
    for (const Temporary &t : temporaries)
      arenaAlignment = std::max(arenaAlignment, t.alignment);

    OpBuilder b(&entry, entry.begin());
    Location loc = func.getLoc();
    auto arenaType = MemRefType::get({size}, b.getI8Type());
    Value arena = memref::AllocOp::create(b, loc, arenaType,
                                          b.getI64IntegerAttr(arenaAlignment));
    for (Temporary &t : temporaries) {
      b.setInsertionPoint(t.alloc);
      Value offset =
          arith::ConstantIndexOp::create(b, t.alloc.getLoc(), t.offset);
      Value view = memref::ViewOp::create(
          b, t.alloc.getLoc(), t.alloc.getType(), arena, offset, ValueRange());
      for (memref::DeallocOp dealloc : t.deallocs)
        dealloc.erase();
      t.alloc.replaceAllUsesWith(view);
      t.alloc.erase();
    }
    b.setInsertionPoint(entry.getTerminator());
    memref::DeallocOp::create(b, loc, arena);
  }
};

} // namespace
