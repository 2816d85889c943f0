//===- PrefetchNextRows.cpp - the next row's loads during this row --------===//
//
// A row normalization (softmax, log_softmax, layer norm) walks each row of
// its input several times: a reduction (the max, the mean), then the
// element loops that read the row again. The first pass over a row reads it
// from memory, the later ones from the cache, and while they compute (exp,
// the division) the memory bus idles until the next row's first pass, which
// then waits for its loads: on one core a 4096x4096 softmax ran at 0.44x of
// the measured bandwidth. Here the last loop that reads a row also
// prefetches the same columns of the next row, so the next row's first
// pass finds it in the cache: on one core of an AVX-512 Xeon, that softmax
// went from 18.2-23.0 to 15.3-18.9 ms (minima of 3 alternating rounds of
// 20 runs). Rows of at least 4 KiB only (shorter ones the hardware
// prefetchers cover), and only where a later pass computes a math function
// per element (an exp), or where the row's results leave through
// non-temporal stores (fx-cpu-streaming-stores runs first). A layer norm's
// passes are too short to hide the loads while ordinary stores share the
// bus (5.5-5.8 ms either way for 4096x4096 on one Zen 5 thread); with
// non-temporal stores the prefetch took it from 3.9-4.2 to 3.3-3.5 ms.
// The prefetches fill the L2 cache, not the L1 (locality 2: prefetcht1 on
// x86): on one Zen 4 thread (4096x4096, 15-run medians of fxrt-run,
// alternated three times) into the L1 the softmax took 7.7-8.1 ms and the
// layer norm 6.8-7.6, into the L2 5.4-5.9 (one run 9.8) and 6.0-6.5, with
// no prefetch 7.0-7.3 and 6.7-8.3: a row of 16 KiB prefetched into the
// 32 KiB L1 evicts the row being normalized and its weights.
//
// On buffers, after bufferization and fx-outline-forall: a row is a
// `memref.subview` of a buffer defined outside an `scf.for` of step 1 whose
// induction variable is the subview's offset in a dimension of size 1; the
// loops over it read it through subviews of it with vector.transfer_read at
// constant zero indices, as fx-cpu-tile-and-vectorize leaves them.
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUPREFETCHNEXTROWS
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// Smallest row (bytes) worth prefetching.
constexpr int64_t kMinRowBytes = 4096;

/// The dimension of `row` (a subview) indexed by `iv` with size 1, its
/// other offsets static; else -1.
int64_t rowDimension(memref::SubViewOp row, Value iv) {
  int64_t dim = -1;
  for (auto [d, offset] : llvm::enumerate(row.getMixedOffsets())) {
    if (auto value = dyn_cast<Value>(offset)) {
      if (value != iv || dim >= 0)
        return -1;
      dim = d;
    }
  }
  if (dim < 0)
    return -1;
  std::optional<int64_t> size = getConstantIntValue(row.getMixedSizes()[dim]);
  return size == 1 ? dim : -1;
}

/// The vector reads of `row` inside `loop`: transfer_reads at constant zero
/// indices of a subview of `row`, with that subview.
SmallVector<std::pair<vector::TransferReadOp, memref::SubViewOp>>
rowReads(scf::ForOp loop, Value row) {
  SmallVector<std::pair<vector::TransferReadOp, memref::SubViewOp>> reads;
  loop.walk([&](vector::TransferReadOp read) {
    auto view = read.getBase().getDefiningOp<memref::SubViewOp>();
    if (!view || view.getSource() != row ||
        !llvm::all_of(read.getIndices(),
                      [](Value index) { return isConstantIntValue(index, 0); }))
      return;
    reads.push_back({read, view});
  });
  return reads;
}

void prefetchNextRow(scf::ForOp rows, memref::SubViewOp row) {
  Value iv = rows.getInductionVar();
  int64_t dim = rowDimension(row, iv);
  auto type = cast<MemRefType>(row.getType());
  if (dim < 0 || !type.hasStaticShape() ||
      !type.getElementType().isIntOrFloat() ||
      type.getNumElements() * type.getElementTypeBitWidth() / 8 < kMinRowBytes)
    return;
  // The loops over the row, in order; the last one prefetches.
  SmallVector<scf::ForOp> loops;
  for (Operation &op : *rows.getBody())
    if (auto loop = dyn_cast<scf::ForOp>(op);
        loop && llvm::any_of(row->getUsers(), [&](Operation *user) {
          return loop->isAncestor(user);
        }))
      loops.push_back(loop);
  if (loops.size() < 2)
    return;
  // Only where the passes after the first compute for long enough to hide
  // the next row's loads (an exp per element): a layer norm's (a few
  // multiply-adds) showed no gain, its 4096x4096 at 12.4-13.5 ms either
  // way.
  bool computes = llvm::any_of(ArrayRef(loops).drop_front(), [](scf::ForOp l) {
    return l
        ->walk([](Operation *op) {
          return isa<math::MathDialect>(op->getDialect())
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  });
  // Or where the row's results leave through non-temporal stores
  // (fx-cpu-streaming-stores, which runs first): the loads then have the
  // memory bus to themselves.
  bool streams = rows->walk([](vector::StoreOp store) {
                       return store.getNontemporal() ? WalkResult::interrupt()
                                                     : WalkResult::advance();
                     })
                     .wasInterrupted();
  if (!computes && !streams)
    return;
  scf::ForOp last = loops.back();
  auto reads = rowReads(last, row.getResult());
  if (reads.empty())
    return;
  // The next row (the last one again at the end: a prefetch of memory the
  // loop reads anyway).
  OpBuilder b(last);
  Location loc = row.getLoc();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value next = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, iv, one),
      arith::SubIOp::create(b, loc, rows.getUpperBound(), one));
  SmallVector<OpFoldResult> offsets = row.getMixedOffsets();
  offsets[dim] = next;
  Value nextRow =
      memref::SubViewOp::create(b, loc, type, row.getSource(), offsets,
                                row.getMixedSizes(), row.getMixedStrides());
  for (auto [read, view] : reads) {
    OpBuilder rb(read);
    SmallVector<Value> indices;
    for (OpFoldResult offset : view.getMixedOffsets())
      indices.push_back(getValueOrCreateConstantIndexOp(rb, loc, offset));
    memref::PrefetchOp::create(rb, loc, nextRow, indices, /*isWrite=*/false,
                               /*localityHint=*/2, /*isDataCache=*/true);
  }
}

struct PrefetchNextRowsPass
    : public fx::impl::FXCPUPrefetchNextRowsBase<PrefetchNextRowsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, memref::SubViewOp>> rows;
    getOperation().walk([&](scf::ForOp loop) {
      if (!isConstantIntValue(loop.getStep(), 1))
        return;
      for (Operation &op : *loop.getBody())
        if (auto view = dyn_cast<memref::SubViewOp>(op))
          if (loop.isDefinedOutsideOfLoop(view.getSource()))
            rows.push_back({loop, view});
    });
    for (auto [loop, view] : rows)
      prefetchNextRow(loop, view);
  }
};

} // namespace
