//===- VectorAccumulators.cpp - reductions into vector accumulators -------===//
//
// After fx-cpu-tile-and-vectorize and loop-invariant-subset-hoisting, a
// reduction along a row's innermost dimension is a loop over vectors of the
// row that reduces each vector into a scalar carried by the loop
// (`vector.reduction <kind>, %v, %acc`): a horizontal reduction per vector,
// and for softmax's NaN-propagating max one that LLVM expands to some sixty
// instructions. This pass carries a vector accumulator instead: the loop
// combines each vector into it lane by lane (one `arith.maximumf` or
// `arith.addf` on vectors), and one horizontal reduction after the loop
// folds it into the scalar. Where the trip count allows, the loop then
// carries four accumulators, four steps per iteration (a single one is a
// dependency chain: on one core of an AVX-512 Xeon, a 4096x4096 softmax
// took 14.1-14.6 ms with one and 11.7-12.7 ms with four, a layer norm
// 11.4-12.2 and 9.7-11.7; minima of 3 alternating rounds of 20 runs).
// Max and min give the same value in any order
// (NaN and signed zeros included); sums and products are reassociated, as
// fx-cpu-tile-and-vectorize already lets LLVM do within a vector.
//
// Written as a pattern of its own rather than through upstream
// splitReduction (which materializes the lanes as a tensor before tiling:
// measured slower, a softmax of 4096x4096 at 2 threads 14.4 -> 22.7 ms)
// because the carried scalar exists only once the loop's accumulator has
// been hoisted.
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUVECTORACCUMULATORS
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// The element a kind of reduction starts from, for float kinds this pass
/// rewrites.
std::optional<double> neutralOf(vector::CombiningKind kind) {
  switch (kind) {
  case vector::CombiningKind::ADD:
    return 0.0;
  case vector::CombiningKind::MUL:
    return 1.0;
  case vector::CombiningKind::MAXIMUMF:
  case vector::CombiningKind::MAXNUMF:
    return -std::numeric_limits<double>::infinity();
  case vector::CombiningKind::MINIMUMF:
  case vector::CombiningKind::MINNUMF:
    return std::numeric_limits<double>::infinity();
  default:
    return std::nullopt;
  }
}

/// An scf.for that carries `vector<1xT>` or `vector<T>` (a reduction of
/// whole rows into one element, after fx-cpu-tile-and-vectorize dropped
/// its unit dimensions: a squeeze-and-excitation mean) through
/// `vector.extract`,
/// `vector.reduction <kind>, %v, %acc` and `vector.broadcast` back to the
/// yield, with nothing else reading it.
struct CarriedReduction {
  unsigned index;
  vector::ReductionOp reduction;
};

std::optional<CarriedReduction> findCarriedReduction(scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
    auto type = dyn_cast<VectorType>(arg.getType());
    if (!type || type.getNumElements() != 1 || type.getRank() > 1 ||
        type.isScalable() || !isa<FloatType>(type.getElementType()) ||
        !arg.hasOneUse())
      continue;
    auto extract = dyn_cast<vector::ExtractOp>(*arg.getUsers().begin());
    if (!extract || !extract->hasOneUse() ||
        extract.getResult().getType() != type.getElementType())
      continue;
    auto reduction =
        dyn_cast<vector::ReductionOp>(*extract->getUsers().begin());
    if (!reduction || reduction.getAcc() != extract.getResult() ||
        reduction.getVector() == extract.getResult() ||
        !neutralOf(reduction.getKind()) || !reduction->hasOneUse())
      continue;
    auto broadcast =
        dyn_cast<vector::BroadcastOp>(*reduction->getUsers().begin());
    if (!broadcast || broadcast.getType() != type || !broadcast->hasOneUse() ||
        *broadcast->getUsers().begin() != yield.getOperation() ||
        yield.getOperand(i) != broadcast.getResult())
      continue;
    return CarriedReduction{static_cast<unsigned>(i), reduction};
  }
  return std::nullopt;
}

struct CarryVectorAccumulator : OpRewritePattern<scf::ForOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(scf::ForOp loop,
                                PatternRewriter &rewriter) const override {
    std::optional<CarriedReduction> found = findCarriedReduction(loop);
    if (!found)
      return rewriter.notifyMatchFailure(loop, "no carried reduction");
    unsigned index = found->index;
    vector::ReductionOp reduction = found->reduction;
    vector::CombiningKind kind = reduction.getKind();
    Location loc = reduction.getLoc();
    auto lanes = cast<VectorType>(reduction.getVector().getType());
    Type element = lanes.getElementType();
    Value init = loop.getInitArgs()[index];
    Type carried = init.getType();
    Value reduced = reduction.getVector();

    rewriter.setInsertionPoint(loop);
    Value start = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(
            lanes, rewriter.getFloatAttr(element, *neutralOf(kind))));
    FailureOr<LoopLikeOpInterface> grown =
        cast<LoopLikeOpInterface>(loop.getOperation())
            .replaceWithAdditionalYields(
                rewriter, ValueRange{start},
                /*replaceInitOperandUsesInLoop=*/false,
                [&](OpBuilder &b, Location, ArrayRef<BlockArgument> args) {
                  return SmallVector<Value>{vector::makeArithReduction(
                      b, loc, kind, reduced, args.front())};
                });
    if (failed(grown))
      return failure();
    // (`loop` is erased: `next` took its body.)
    auto next = cast<scf::ForOp>(grown->getOperation());
    // The old chain now only forwards its own value: the loop's
    // canonicalization drops it, and the reduction with it.
    auto yield = cast<scf::YieldOp>(next.getBody()->getTerminator());
    rewriter.modifyOpInPlace(yield, [&] {
      yield.setOperand(index, next.getRegionIterArgs()[index]);
    });
    rewriter.setInsertionPointAfter(next);
    Value first = vector::ExtractOp::create(
        rewriter, loc, init,
        SmallVector<int64_t>(cast<VectorType>(carried).getRank(), 0));
    auto total = vector::ReductionOp::create(rewriter, loc, kind,
                                             next.getResults().back(), first);
    if (kind == vector::CombiningKind::ADD ||
        kind == vector::CombiningKind::MUL)
      total.setFastmath(arith::FastMathFlags::reassoc);
    Value result = vector::BroadcastOp::create(rewriter, loc, carried, total);
    rewriter.replaceAllUsesWith(next.getResult(index), result);
    return success();
  }
};

/// Independent accumulators per loop (a multiple of the trip count): the
/// vector accumulator is one dependency chain, a combine per iteration
/// (a NaN-propagating max is a six-instruction chain on x86), so the loop
/// ran at the chain's latency rather than at the loads' rate.
constexpr int64_t kAccumulators = 4;

/// The combining kind of `op` when it combines a loop's vector accumulator
/// with one other value.
std::optional<vector::CombiningKind> combiningKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<vector::CombiningKind>>(op)
      .Case([](arith::AddFOp) { return vector::CombiningKind::ADD; })
      .Case([](arith::MulFOp) { return vector::CombiningKind::MUL; })
      .Case([](arith::MaximumFOp) { return vector::CombiningKind::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return vector::CombiningKind::MINIMUMF; })
      .Case([](arith::MaxNumFOp) { return vector::CombiningKind::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return vector::CombiningKind::MINNUMF; })
      .Default([](Operation *) { return std::nullopt; });
}

/// A loop whose one iteration argument is a vector accumulator (combined
/// once per iteration with a value the body computes, without memory
/// writes) runs kAccumulators iterations per step, each combining into an
/// accumulator of its own, and combines them after the loop. Max and min
/// give the same value in any order; sums and products are reassociated.
void splitAccumulator(scf::ForOp loop) {
  if (loop.getNumRegionIterArgs() != 1)
    return;
  BlockArgument acc = loop.getRegionIterArgs()[0];
  auto type = dyn_cast<VectorType>(acc.getType());
  if (!type || type.getRank() != 1 || !acc.hasOneUse())
    return;
  Operation *combine = *acc.getUsers().begin();
  std::optional<vector::CombiningKind> kind = combiningKind(combine);
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  if (!kind || combine->getNumResults() != 1 ||
      yield.getOperand(0) != combine->getResult(0) ||
      !combine->getResult(0).hasOneUse())
    return;
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0 || *ub <= *lb ||
      ((*ub - *lb) / *step) % kAccumulators != 0 || (*ub - *lb) % *step != 0)
    return;
  bool writes =
      loop.getBody()
          ->walk([](Operation *op) {
            auto effects = dyn_cast<MemoryEffectOpInterface>(op);
            if (op->getNumRegions() == 0 &&
                (!effects || effects.hasEffect<MemoryEffects::Write>()))
              return WalkResult::interrupt();
            return WalkResult::advance();
          })
          .wasInterrupted();
  if (writes)
    return;
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value init = loop.getInitArgs()[0];
  // The first accumulator starts from the loop's initial value, the
  // others from the kind's neutral element.
  Value neutral = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(
          type, b.getFloatAttr(type.getElementType(), *neutralOf(*kind))));
  SmallVector<Value> inits = {init};
  inits.append(kAccumulators - 1, neutral);
  auto wide = scf::ForOp::create(
      b, loc, loop.getLowerBound(), loop.getUpperBound(),
      arith::ConstantIndexOp::create(b, loc, *step * kAccumulators), inits);
  OpBuilder body = OpBuilder::atBlockBegin(wide.getBody());
  SmallVector<Value> results;
  for (int64_t k = 0; k < kAccumulators; ++k) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(),
                k == 0
                    ? Value(wide.getInductionVar())
                    : arith::AddIOp::create(
                          body, loc, wide.getInductionVar(),
                          arith::ConstantIndexOp::create(body, loc, k * *step))
                          .getResult());
    mapping.map(acc, wide.getRegionIterArgs()[k]);
    for (Operation &op : loop.getBody()->without_terminator())
      body.clone(op, mapping);
    results.push_back(mapping.lookup(combine->getResult(0)));
  }
  scf::YieldOp::create(body, loc, results);
  b.setInsertionPointAfter(wide);
  Value total = wide.getResult(0);
  for (int64_t k = 1; k < kAccumulators; ++k)
    total = vector::makeArithReduction(b, loc, *kind, total, wide.getResult(k));
  loop.getResult(0).replaceAllUsesWith(total);
  loop.erase();
}

struct VectorAccumulatorsPass
    : public fx::impl::FXCPUVectorAccumulatorsBase<VectorAccumulatorsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<CarryVectorAccumulator>(&getContext());
    scf::ForOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      splitAccumulator(loop);
  }
};

} // namespace
