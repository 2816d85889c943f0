//===- PrefetchPackedFilters.cpp - the next filter block during this one --===//
//
// A packed convolution (fx-cpu-pack-convolutions) computes one block of
// output channels at a time, every output row of it reading the block's
// whole packed filter, [C, KH, KW, B]. The first row reads the block from
// memory and the later rows from the cache: in a model whose weights do not
// fit the caches, the first row waits on DRAM while the others compute with
// the memory bus idle. resnet18's 3x3 convolutions of 512 channels at 7x7
// took 510 us with their 9.4 MB filter in the L3 cache and 825 us reading
// it from DRAM (a Zen 5 EPYC, two threads).
//
// Here every read of the block's filter also prefetches the same element of
// the next block, so the next block arrives while this one computes, spread
// over all its rows. The prefetches of rows after the first find their
// lines in the cache and cost a load slot each.
//
// On buffers, after bufferization and fx-outline-forall: the block is a
// rank-reducing `memref.subview` [blk, 0, 0, 0, 0] [1, C, KH, KW, B] of a
// 5-d buffer; the tile reads it through subviews of it with
// vector.transfer_read (fx-cpu-tile-and-vectorize's packed tiles).
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUPREFETCHPACKEDFILTERS
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// Whether `view` is one block of a packed filter: a rank-reducing subview
/// of a static 5-d buffer at [blk, 0, 0, 0, 0] with sizes [1, C, KH, KW, B],
/// unit strides, of more than one block.
bool isFilterBlock(memref::SubViewOp view) {
  auto source = view.getSourceType();
  if (source.getRank() != 5 || !source.hasStaticShape() ||
      source.getDimSize(0) < 2 || view.getType().getRank() != 4 ||
      !view.hasUnitStride())
    return false;
  for (auto [d, offset] : llvm::enumerate(view.getMixedOffsets()))
    if (d > 0 && !isConstantIntValue(offset, 0))
      return false;
  for (auto [d, size] : llvm::enumerate(view.getMixedSizes()))
    if (!isConstantIntValue(size, d == 0 ? 1 : source.getDimSize(d)))
      return false;
  return true;
}

struct PrefetchPackedFiltersPass
    : public fx::impl::FXCPUPrefetchPackedFiltersBase<
          PrefetchPackedFiltersPass> {
  void runOnOperation() override {
    DominanceInfo dominance(getOperation());
    SmallVector<memref::SubViewOp> blocks;
    getOperation().walk([&](memref::SubViewOp view) {
      if (isFilterBlock(view))
        blocks.push_back(view);
    });
    for (memref::SubViewOp block : blocks)
      prefetchNextBlock(block, dominance);
  }

  /// The next block's subview (the last block prefetches itself), then a
  /// prefetch of each cache line a read of `block` touches, at the same
  /// place in the next block.
  void prefetchNextBlock(memref::SubViewOp block, DominanceInfo &dominance) {
    Location loc = block.getLoc();
    OpBuilder b(block->getContext());
    b.setInsertionPointAfter(block);
    int64_t last = block.getSourceType().getDimSize(0) - 1;
    Value index =
        getValueOrCreateConstantIndexOp(b, loc, block.getMixedOffsets()[0]);
    Value next = arith::MinUIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, index,
                              arith::ConstantIndexOp::create(b, loc, 1)),
        arith::ConstantIndexOp::create(b, loc, last));
    SmallVector<OpFoldResult> offsets = block.getMixedOffsets();
    offsets[0] = next;
    // The next block's offset is dynamic where `block`'s was a constant (a
    // select of a 5-d tensor's first slice, CaiT's q of its qkv): its type
    // is inferred, not `block`'s.
    auto nextBlock = memref::SubViewOp::create(
        b, loc,
        memref::SubViewOp::inferRankReducedResultType(
            block.getType().getShape(), block.getSourceType(), offsets,
            block.getMixedSizes(), block.getMixedStrides()),
        block.getSource(), offsets, block.getMixedSizes(),
        block.getMixedStrides());
    for (OpOperand &use : llvm::make_early_inc_range(block->getUses())) {
      auto view = dyn_cast<memref::SubViewOp>(use.getOwner());
      if (!view || !view.hasUnitStride())
        continue;
      // Reads of one row of the view whose indices are there before it
      // (the prefetches go right after it).
      SmallVector<vector::TransferReadOp> reads;
      for (Operation *user : view->getUsers()) {
        auto read = dyn_cast<vector::TransferReadOp>(user);
        if (read && read.getBase() == view.getResult() &&
            read.getVectorType().getRank() == 1 &&
            read.getPermutationMap().isMinorIdentity() &&
            llvm::all_of(read.getIndices(), [&](Value v) {
              return dominance.properlyDominates(v, view);
            }))
          reads.push_back(read);
      }
      if (reads.empty())
        continue;
      llvm::sort(reads, [](vector::TransferReadOp x, vector::TransferReadOp y) {
        return x->getBlock() == y->getBlock() ? x->isBeforeInBlock(y) : x < y;
      });
      b.setInsertionPointAfter(view);
      auto nextView = memref::SubViewOp::create(
          b, loc,
          memref::SubViewOp::inferRankReducedResultType(
              view.getType().getShape(), nextBlock.getType(),
              view.getMixedOffsets(), view.getMixedSizes(),
              view.getMixedStrides()),
          nextBlock, view.getMixedOffsets(), view.getMixedSizes(),
          view.getMixedStrides());
      int64_t bytes = view.getType().getElementTypeBitWidth() / 8;
      // Spread over the rows: row r prefetches the channel steps whose
      // index is r modulo the rows.
      if (Value take = rowShare(block, view, b)) {
        auto branch = scf::IfOp::create(b, loc, take, /*withElse=*/false);
        b.setInsertionPointToStart(&branch.getThenRegion().front());
      }
      // One prefetch per 64-byte line of each read.
      int64_t lanesPerLine = std::max<int64_t>(64 / bytes, 1);
      for (vector::TransferReadOp read : reads) {
        SmallVector<Value> indices(read.getIndices());
        for (int64_t lane = 0; lane < read.getVectorType().getNumElements();
             lane += lanesPerLine) {
          SmallVector<Value> at = indices;
          if (std::optional<int64_t> c = getConstantIntValue(at.back()))
            at.back() = arith::ConstantIndexOp::create(b, loc, *c + lane);
          else if (lane)
            at.back() = arith::AddIOp::create(
                b, loc, at.back(),
                arith::ConstantIndexOp::create(b, loc, lane));
          memref::PrefetchOp::create(b, loc, nextView, at, /*isWrite=*/false,
                                     /*localityHint=*/2,
                                     /*isDataCache=*/true);
        }
      }
    }
  }

  /// Whether this row prefetches the channel step `view` reads: (c / step)
  /// mod rows == row, for `view`'s channel offset c, the induction variable
  /// of an scf.for of constant step, and the row loop around `block`, an
  /// scf.for of constant bounds and step; null (every row) otherwise.
  static Value rowShare(memref::SubViewOp block, memref::SubViewOp view,
                        OpBuilder &b) {
    auto rowLoop = dyn_cast<scf::ForOp>(block->getParentOp());
    if (!rowLoop)
      return {};
    std::optional<int64_t> lb = getConstantIntValue(rowLoop.getLowerBound()),
                           ub = getConstantIntValue(rowLoop.getUpperBound()),
                           st = getConstantIntValue(rowLoop.getStep());
    auto channel = dyn_cast<Value>(view.getMixedOffsets()[0]);
    auto channelArg = dyn_cast_or_null<BlockArgument>(channel);
    auto channelLoop =
        channelArg ? dyn_cast<scf::ForOp>(channelArg.getOwner()->getParentOp())
                   : scf::ForOp();
    if (!lb || !ub || !st || *st <= 0 || !channelLoop ||
        channelLoop.getInductionVar() != channel)
      return {};
    std::optional<int64_t> channelStep =
        getConstantIntValue(channelLoop.getStep());
    int64_t rows = llvm::divideCeil(*ub - *lb, *st);
    if (!channelStep || *channelStep <= 0 || rows < 2)
      return {};
    Location loc = view.getLoc();
    auto cst = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };
    Value row = arith::DivUIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, rowLoop.getInductionVar(), cst(*lb)),
        cst(*st));
    Value stepIndex =
        arith::DivUIOp::create(b, loc, channel, cst(*channelStep));
    Value share =
        arith::RemUIOp::create(b, loc, stepIndex, cst(rows)).getResult();
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, share, row);
  }
};

} // namespace
