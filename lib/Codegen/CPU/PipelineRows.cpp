//===- PipelineRows.cpp - a row's stores during the next row's work -------===//
//
// fx-cpu-pipeline-rows: see the pass description. A softmax row on one
// core of a Zen 5 EPYC (4096 f32): the exp loop computes for about 60% of
// the row's time, the last loop then streams the row out with
// non-temporal stores for about 25%, stalled on the bus while no
// arithmetic is left to overlap. With the last loop of row r inside the
// exp loop of row r + 1, the stores drain while the exps compute.
//
// Software pipelining of the row loop by one stage, with the buffers the
// two stages share double-buffered (modulo variable expansion); written
// here because MLIR's scf pipelining (scf::pipelineForLoop) overlaps
// whole iterations of one loop, not a loop of one iteration with a loop
// of the next.
//
//===----------------------------------------------------------------------===//

#include "BufferUses.h"

#include "fx/Codegen/CPU/Passes.h"
#include "fx/Transforms/LinalgUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUPIPELINEROWS
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// Fewest element steps per row worth the pipelining.
constexpr int64_t kMinSteps = 16;

/// Fewest vector arithmetic operations per element step of the loop
/// before the last for the pipelining to pay.
constexpr int64_t kMinArithmetic = 8;

/// Most stack a function gives the two copies of its pipelined row loops'
/// carried buffers (a 16 KiB row of f32 takes 32 KiB).
constexpr int64_t kMaxCarriedBytes = 128 * 1024;

struct Plan {
  scf::ForOp rows, penult;
  /// The last loop, or an scf.if choosing between two such loops on a
  /// condition from outside the row loop (fx-cpu-streaming-stores' test of
  /// the output's alignment: non-temporal stores or plain ones).
  Operation *last = nullptr;
  SmallVector<scf::ForOp, 2> lastLoops;
  /// Buffers allocated in the body that `last` reads: two copies each.
  SmallVector<memref::AllocOp> carried;
  /// Ops of the body (in order) whose values `last` uses, recomputed for
  /// the row `last` runs for (views of the row, constants).
  SmallVector<Operation *> recomputed;
  /// Stack bytes of the carried buffers' two copies.
  int64_t carriedBytes = 0;
};

/// The memory effects of `op` and everything nested in it, or failure
/// where some op's effects are unknown.
LogicalResult
collectEffects(Operation *op,
               SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  WalkResult result = op->walk([&](Operation *nested) {
    // (A prefetch is a hint: no effect on what memory holds.)
    if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
        isa<memref::PrefetchOp>(nested))
      return WalkResult::advance();
    auto iface = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!iface)
      return WalkResult::interrupt();
    iface.getEffects(effects);
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

std::optional<Plan> analyze(scf::ForOp rows) {
  if (!isConstantIntValue(rows.getStep(), 1) || rows.getNumResults() != 0)
    return std::nullopt;
  Block *body = rows.getBody();
  // The last loop, then only deallocations; the loop before it.
  Plan plan;
  plan.rows = rows;
  for (Operation &op : llvm::reverse(body->without_terminator())) {
    if (!plan.last) {
      if (isa<memref::DeallocOp>(op))
        continue;
      plan.last = &op;
      continue;
    }
    if ((plan.penult = dyn_cast<scf::ForOp>(op)))
      break;
  }
  if (!plan.last || !plan.penult || plan.last->getNumResults() != 0)
    return std::nullopt;
  if (auto loop = dyn_cast<scf::ForOp>(plan.last)) {
    plan.lastLoops.push_back(loop);
  } else if (auto choice = dyn_cast<scf::IfOp>(plan.last)) {
    if (!rows.isDefinedOutsideOfLoop(choice.getCondition()) ||
        choice.getElseRegion().empty())
      return std::nullopt;
    for (Block *block : {choice.thenBlock(), choice.elseBlock()}) {
      if (block->getOperations().size() != 2)
        return std::nullopt;
      auto loop = dyn_cast<scf::ForOp>(block->front());
      if (!loop || loop.getNumResults() != 0)
        return std::nullopt;
      plan.lastLoops.push_back(loop);
    }
  } else {
    return std::nullopt;
  }
  std::optional<int64_t> lb = getConstantIntValue(plan.penult.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(plan.penult.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(plan.penult.getStep());
  if (!lb || !ub || !step || *step <= 0 || (*ub - *lb) / *step < kMinSteps)
    return std::nullopt;
  // Only where the loop before computes long enough per element to hide
  // the stores (a softmax's exp, about 20 vector operations). A layer
  // norm's (x - mean and its square: 3) was slower pipelined: on one Zen 5
  // thread, 4096x4096, 3.0-3.5 -> 3.7-4.0 ms, its next row's prefetches and
  // this row's stores then competing for the bus in the same loop.
  int64_t arithmetic = 0;
  plan.penult.getBody()->walk([&](Operation *op) {
    if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
        op->getNumResults() == 1 &&
        isa<VectorType>(op->getResult(0).getType()) &&
        !isa<arith::ConstantOp>(op))
      ++arithmetic;
  });
  if (arithmetic < kMinArithmetic)
    return std::nullopt;
  for (scf::ForOp loop : plan.lastLoops)
    if (getConstantIntValue(loop.getLowerBound()) != lb ||
        getConstantIntValue(loop.getUpperBound()) != ub ||
        getConstantIntValue(loop.getStep()) != step)
      return std::nullopt;

  // What `last` uses from the body: buffers allocated there (carried),
  // or pure ops of the row index and values from outside (recomputed).
  Value iv = rows.getInductionVar();
  llvm::SetVector<Operation *> recomputed;
  llvm::SetVector<Operation *> carried;
  std::function<bool(Value)> admit = [&](Value value) -> bool {
    if (value == iv || rows.isDefinedOutsideOfLoop(value))
      return true;
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != body)
      return false;
    if (auto alloc = dyn_cast<memref::AllocOp>(def)) {
      if (!alloc.getType().hasStaticShape())
        return false;
      carried.insert(def);
      return true;
    }
    if (!isPure(def) || def->getNumRegions() != 0)
      return false;
    if (recomputed.contains(def))
      return true;
    for (Value operand : def->getOperands())
      if (!admit(operand))
        return false;
    recomputed.insert(def);
    return true;
  };
  bool ok = true;
  plan.last->walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (!plan.last->isAncestor(operand.getParentBlock()->getParentOp()) &&
          !admit(operand))
        ok = false;
  });
  if (!ok)
    return std::nullopt;

  // `last` writes only buffers from outside the row loop, which nothing
  // else in the body touches; it only reads the carried buffers, and the
  // other buffers it reads the body does not write.
  SmallVector<MemoryEffects::EffectInstance> lastEffects;
  if (failed(collectEffects(plan.last, lastEffects)))
    return std::nullopt;
  llvm::SmallPtrSet<Value, 4> written, read;
  for (const MemoryEffects::EffectInstance &effect : lastEffects) {
    Value value = effect.getValue();
    if (isa<MemoryEffects::Allocate, MemoryEffects::Free>(effect.getEffect()))
      return std::nullopt;
    if (!value)
      return std::nullopt;
    Value root = fx::viewedBuffer(value);
    if (isa<MemoryEffects::Write>(effect.getEffect())) {
      if (!rows.isDefinedOutsideOfLoop(root))
        return std::nullopt;
      written.insert(root);
    } else {
      read.insert(root);
    }
  }
  for (Operation &op : body->without_terminator()) {
    if (&op == plan.last)
      continue;
    SmallVector<MemoryEffects::EffectInstance> effects;
    if (failed(collectEffects(&op, effects)))
      return std::nullopt;
    for (const MemoryEffects::EffectInstance &effect : effects) {
      Value value = effect.getValue();
      if (!value) {
        if (isa<MemoryEffects::Read, MemoryEffects::Write>(effect.getEffect()))
          return std::nullopt;
        continue;
      }
      Value root = fx::viewedBuffer(value);
      if (written.contains(root))
        return std::nullopt;
      if (isa<MemoryEffects::Write>(effect.getEffect()) &&
          read.contains(root) && !carried.contains(root.getDefiningOp()))
        return std::nullopt;
    }
  }
  // (A buffer allocated in the body is used there only: its uses are
  // dominated by it, and an op that might keep it, a call, has no known
  // memory effects and was refused above.)
  for (Operation *op : carried) {
    auto alloc = cast<memref::AllocOp>(op);
    std::optional<int64_t> bytes = fx::cpu::staticBufferBytes(alloc.getType());
    if (!bytes)
      return std::nullopt;
    plan.carriedBytes += 2 * *bytes;
    plan.carried.push_back(alloc);
  }
  plan.recomputed = recomputed.takeVector();
  llvm::sort(plan.recomputed,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return plan;
}

/// Clones `op` with `mapping`, unless it is a carried allocation or the
/// deallocation of one.
void cloneUnlessCarried(OpBuilder &b, Operation &op, IRMapping &mapping,
                        const Plan &plan) {
  if (auto alloc = dyn_cast<memref::AllocOp>(op))
    if (llvm::is_contained(plan.carried, alloc))
      return;
  if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
    if (auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>())
      if (llvm::is_contained(plan.carried, alloc))
        return;
  b.clone(op, mapping);
}

void pipeline(Plan &plan) {
  scf::ForOp rows = plan.rows;
  Location loc = rows.getLoc();
  OpBuilder b(rows);
  Block *body = rows.getBody();
  Value iv = rows.getInductionVar();
  Value lb = rows.getLowerBound(), ub = rows.getUpperBound();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);

  // Two copies of each carried buffer, for the rows of even and odd
  // distance from the first: stack slots of the function (an alloca in a
  // loop would grow the stack per iteration).
  OpBuilder entry = OpBuilder::atBlockBegin(
      &rows->getParentOfType<func::FuncOp>().getBody().front());
  SmallVector<std::array<Value, 2>> copies;
  for (memref::AllocOp alloc : plan.carried) {
    std::array<Value, 2> pair;
    for (Value &copy : pair)
      copy = memref::AllocaOp::create(entry, alloc.getLoc(), alloc.getType(),
                                      alloc.getAlignmentAttr());
    copies.push_back(pair);
  }
  // The copies of row `r`.
  auto copiesOf = [&](OpBuilder &builder, Value r, bool other) {
    Value distance = arith::SubIOp::create(builder, loc, r, lb);
    Value odd = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(builder, loc, distance, one), zero);
    SmallVector<Value> chosen;
    for (auto &pair : copies)
      chosen.push_back(arith::SelectOp::create(
          builder, loc, odd, pair[other ? 0 : 1], pair[other ? 1 : 0]));
    return chosen;
  };
  auto mapCopies = [&](IRMapping &mapping, ArrayRef<Value> chosen) {
    for (auto [alloc, copy] : llvm::zip(plan.carried, chosen))
      mapping.map(alloc.getResult(), copy);
  };
  // `last` of row `r`, its loop-invariant operands recomputed for `r`,
  // its induction variable `j` (or its own loop where `j` is null).
  auto emitLast = [&](OpBuilder &builder, Value r, ArrayRef<Value> chosen,
                      OpBuilder *inner, Value j) {
    IRMapping mapping;
    mapping.map(iv, r);
    mapCopies(mapping, chosen);
    for (Operation *op : plan.recomputed)
      builder.clone(*op, mapping);
    if (!inner) {
      builder.clone(*plan.last, mapping);
      return;
    }
    // One element step of the last loop (of the loop its scf.if picks).
    auto step = [&](OpBuilder &at, scf::ForOp loop) {
      mapping.map(loop.getInductionVar(), j);
      for (Operation &op : loop.getBody()->without_terminator())
        at.clone(op, mapping);
    };
    auto choice = dyn_cast<scf::IfOp>(plan.last);
    if (!choice) {
      step(*inner, plan.lastLoops.front());
      return;
    }
    auto picked = scf::IfOp::create(
        *inner, choice.getLoc(), mapping.lookupOrDefault(choice.getCondition()),
        /*withElse=*/true);
    OpBuilder then(picked.thenBlock()->getTerminator());
    step(then, plan.lastLoops[0]);
    OpBuilder otherwise(picked.elseBlock()->getTerminator());
    step(otherwise, plan.lastLoops[1]);
  };

  Value nonEmpty =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lb, ub);
  auto guard = scf::IfOp::create(b, loc, nonEmpty, /*withElseRegion=*/false);
  OpBuilder g = OpBuilder::atBlockBegin(guard.thenBlock());

  // The first row up to its last loop.
  {
    IRMapping mapping;
    mapping.map(iv, lb);
    mapCopies(mapping, copiesOf(g, lb, /*other=*/false));
    for (Operation &op : body->without_terminator()) {
      if (&op == plan.last)
        continue;
      // (Deallocations after `last` are cloned too.)
      cloneUnlessCarried(g, op, mapping, plan);
    }
  }
  // Rows lb + 1 .. ub - 1, each with the last loop of the row before.
  Value second = arith::AddIOp::create(g, loc, lb, one);
  auto steady = scf::ForOp::create(g, loc, second, ub, one);
  {
    OpBuilder s = OpBuilder::atBlockBegin(steady.getBody());
    Value r = steady.getInductionVar();
    Value previous = arith::SubIOp::create(s, loc, r, one);
    SmallVector<Value> current = copiesOf(s, r, /*other=*/false);
    SmallVector<Value> before = copiesOf(s, r, /*other=*/true);
    IRMapping mapping;
    mapping.map(iv, r);
    mapCopies(mapping, current);
    for (Operation &op : body->without_terminator()) {
      if (&op == plan.last)
        continue;
      if (&op != plan.penult.getOperation()) {
        cloneUnlessCarried(s, op, mapping, plan);
        continue;
      }
      auto fused = cast<scf::ForOp>(s.clone(op, mapping));
      OpBuilder inner(fused.getBody()->getTerminator());
      emitLast(s, previous, before, &inner, fused.getInductionVar());
      // The recomputed operands went before `fused`; move it after them.
      fused->moveBefore(s.getInsertionBlock(), s.getInsertionPoint());
    }
  }
  // The last row's last loop.
  {
    Value lastRow = arith::SubIOp::create(g, loc, ub, one);
    emitLast(g, lastRow, copiesOf(g, lastRow, /*other=*/false), nullptr,
             nullptr);
  }
  rows.erase();
}

struct PipelineRowsPass
    : public fx::impl::FXCPUPipelineRowsBase<PipelineRowsPass> {
  void runOnOperation() override {
    SmallVector<Plan> plans;
    getOperation().walk([&](scf::ForOp loop) {
      if (std::optional<Plan> plan = analyze(loop))
        plans.push_back(*plan);
    });
    // (Row loops nested in another that is pipelined are left alone: it
    // would be cloned.)
    int64_t stack = 0;
    for (Plan &plan : plans) {
      if (llvm::any_of(plans, [&](Plan &other) {
            return other.rows != plan.rows &&
                   other.rows->isProperAncestor(plan.rows);
          }))
        continue;
      if (stack + plan.carriedBytes > kMaxCarriedBytes)
        continue;
      stack += plan.carriedBytes;
      pipeline(plan);
    }
  }
};

} // namespace
