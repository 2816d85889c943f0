//===- MapParallelLoopsToGPU.cpp - scf.parallel -> gpu.launch -------------===//
//
// fx-map-parallel-loops-to-gpu: each outermost scf.parallel on buffers
// becomes a gpu.launch over its iterations, view copies become loops, and
// runs of serial host code become one-thread kernels, so that the host
// function is only the schedule the Vulkan runtime replays (see the pass
// description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/SPIRV/GPUUtils.h"
#include "fx/Codegen/SPIRV/Passes.h"
#include "fx/Transforms/LinalgUtils.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <map>

namespace mlir::fx {
#define GEN_PASS_DEF_FXMAPPARALLELLOOPSTOGPU
#include "fx/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

static LogicalResult mapLoop(scf::ParallelOp loop, int64_t workgroupSize,
                             int64_t maxWorkgroups) {
  if (loop.getNumReductions() != 0)
    return loop.emitOpError("with reductions cannot be mapped to GPU threads");
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  auto cst = [&](OpBuilder &builder, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, v);
  };
  SmallVector<OpFoldResult> counts;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
    counts.push_back(fx::tripCount(b, loc, lb, ub, step));
  std::optional<SmallVector<int64_t>> staticCounts =
      getConstantIntValues(counts);
  // With dynamic dimensions the host computes the trip count and the grid
  // (one workgroup per `workgroupSize` iterations, at most maxWorkgroups);
  // the kernel strides by the grid it was launched with.
  Value total, groups;
  int64_t staticTotal = 0, staticGroups = 0;
  if (staticCounts) {
    staticTotal = computeProduct(*staticCounts);
    if (staticTotal == 0) {
      loop.erase();
      return success();
    }
    staticGroups = std::min(maxWorkgroups,
                            (staticTotal + workgroupSize - 1) / workgroupSize);
    groups = cst(b, staticGroups);
  } else {
    total = fx::productOf(b, loc, counts);
    groups = arith::MinUIOp::create(
        b, loc,
        arith::CeilDivUIOp::create(b, loc, total, cst(b, workgroupSize)),
        cst(b, maxWorkgroups));
  }
  Value one = cst(b, 1);
  auto launch = gpu::LaunchOp::create(b, loc, groups, one, one,
                                      cst(b, workgroupSize), one, one);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  gpu::KernelDim3 threadIds = launch.getThreadIds();
  Value linear = arith::AddIOp::create(
      body, loc,
      arith::MulIOp::create(body, loc, blockIds.x, cst(body, workgroupSize)),
      threadIds.x);

  // The body of one iteration, at linear index `id`.
  auto emitIteration = [&](OpBuilder &builder, Value id) {
    IRMapping mapping;
    SmallVector<Value> indices = fx::delinearize(builder, loc, id, counts);
    for (int64_t d = 0; d < loop.getNumLoops(); ++d) {
      Value iv = arith::AddIOp::create(
          builder, loc, loop.getLowerBound()[d],
          arith::MulIOp::create(builder, loc, indices[d], loop.getStep()[d]));
      mapping.map(loop.getInductionVars()[d], iv);
    }
    for (Operation &op : loop.getBody()->without_terminator())
      builder.clone(op, mapping);
  };

  int64_t gridThreads = staticGroups * workgroupSize;
  bool straightLine =
      llvm::all_of(loop.getBody()->without_terminator(),
                   [](Operation &op) { return op.getNumRegions() == 0; });
  if (!staticCounts) {
    // The grid the host launched; several iterations per trip as below.
    Value stride = arith::MulIOp::create(body, loc, launch.getGridSize().x,
                                         cst(body, workgroupSize));
    if (straightLine) {
      fx::emitUnrolledStridedLoop(body, loc, linear, total, stride,
                                  fx::kStridedUnroll, emitIteration);
    } else {
      auto strided = scf::ForOp::create(body, loc, linear, total, stride);
      OpBuilder loopBuilder = OpBuilder::atBlockBegin(strided.getBody());
      emitIteration(loopBuilder, strided.getInductionVar());
    }
  } else if (gridThreads >= staticTotal) {
    Value inRange = arith::CmpIOp::create(body, loc, arith::CmpIPredicate::ult,
                                          linear, cst(body, staticTotal));
    auto guard = scf::IfOp::create(body, loc, inRange, /*withElse=*/false);
    OpBuilder thenBuilder = guard.getThenBodyBuilder();
    emitIteration(thenBuilder, linear);
  } else if (straightLine) {
    // Several iterations per trip, their loads issued together.
    fx::emitUnrolledStridedLoop(body, loc, linear, staticTotal,
                                cst(body, gridThreads), fx::kStridedUnroll,
                                emitIteration);
  } else {
    auto stride = scf::ForOp::create(body, loc, linear, cst(body, staticTotal),
                                     cst(body, gridThreads));
    OpBuilder loopBuilder = OpBuilder::atBlockBegin(stride.getBody());
    emitIteration(loopBuilder, stride.getInductionVar());
  }
  gpu::TerminatorOp::create(body, loc);
  loop.erase();
  return success();
}

/// Keeps an accumulator in a register across `loop`: a load and a later
/// store of one element at loop-invariant indices, in the loop's body, with
/// no other write to memory in the loop and no other access to that buffer,
/// become a loop-carried value loaded before the loop and stored after it.
/// convert-linalg-to-parallel-loops accumulates a reduction (a depthwise
/// convolution's or a pooling's window) through memory at every step, and
/// the GPU's compiler may not keep it in a register: it cannot prove that
/// the kernel's buffers do not alias. (Upstream's affine-scalrep does this
/// for affine loads and stores only.)
static void promoteAccumulator(scf::ForOp loop) {
  Block *body = loop.getBody();
  memref::StoreOp store;
  bool unknownWrites = false;
  loop.getBody()->walk([&](Operation *op) {
    if (auto s = dyn_cast<memref::StoreOp>(op)) {
      unknownWrites |= store || s->getBlock() != body;
      store = s;
      return;
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (effects ? effects.hasEffect<MemoryEffects::Write>()
                : !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      unknownWrites = true;
  });
  if (!store || unknownWrites ||
      !loop.isDefinedOutsideOfLoop(store.getMemRef()) ||
      llvm::any_of(store.getIndices(), [&](Value index) {
        return !loop.isDefinedOutsideOfLoop(index);
      }))
    return;
  Value buffer = fx::viewedBuffer(store.getMemRef());
  memref::LoadOp load;
  bool otherAccess = false;
  loop.getBody()->walk([&](memref::LoadOp l) {
    if (fx::viewedBuffer(l.getMemRef()) != buffer)
      return;
    bool same = l->getBlock() == body && l.getMemRef() == store.getMemRef() &&
                l.getIndices() == store.getIndices() &&
                l->isBeforeInBlock(store);
    otherAccess |= !same || load;
    load = l;
  });
  if (!load || otherAccess)
    return;
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  Value init = memref::LoadOp::create(rewriter, load.getLoc(),
                                      store.getMemRef(), store.getIndices());
  Value stored = store.getValueToStore();
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, init, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return SmallVector<Value>{stored};
      });
  if (failed(replaced))
    return;
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  rewriter.replaceAllUsesWith(load.getResult(),
                              newLoop.getRegionIterArgs().back());
  rewriter.setInsertionPointAfter(newLoop);
  memref::StoreOp::create(rewriter, store.getLoc(), newLoop.getResults().back(),
                          store.getMemRef(), store.getIndices());
  rewriter.eraseOp(store);
  rewriter.eraseOp(load);
}

/// True for a memref that is a whole buffer of its own: a function argument,
/// an allocation or a global, with the identity layout.
static bool isWholeBuffer(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || !type.getLayout().isIdentity())
    return false;
  if (isa<BlockArgument>(memref))
    return true;
  Operation *def = memref.getDefiningOp();
  return isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(def);
}

/// Rewrites a memref.copy between views as an scf.parallel of loads and
/// stores (then mapped like any other loop). Copies between whole buffers
/// stay: the runtime does them with vkCmdCopyBuffer.
static void expandViewCopy(memref::CopyOp copy) {
  if (isWholeBuffer(copy.getSource()) && isWholeBuffer(copy.getTarget()))
    return;
  auto type = cast<MemRefType>(copy.getTarget().getType());
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  SmallVector<Value> lbs, ubs, steps;
  // A rank-0 copy still runs on the device: as one iteration.
  for (int64_t d = 0; d < std::max<int64_t>(type.getRank(), 1); ++d) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
    if (type.getRank() == 0)
      ubs.push_back(arith::ConstantIndexOp::create(b, loc, 1));
    else if (type.isDynamicDim(d))
      ubs.push_back(memref::DimOp::create(b, loc, copy.getTarget(), d));
    else
      ubs.push_back(arith::ConstantIndexOp::create(b, loc, type.getDimSize(d)));
  }
  scf::ParallelOp::create(
      b, loc, lbs, ubs, steps, [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        ValueRange indices = type.getRank() == 0 ? ValueRange{} : ivs;
        Value v = memref::LoadOp::create(nb, nl, copy.getSource(), indices);
        memref::StoreOp::create(nb, nl, v, copy.getTarget(), indices);
      });
  copy.erase();
}

/// Host ops that stay on the host: what the Vulkan schedule is made of.
static bool staysOnHost(Operation *op) {
  return isa<gpu::LaunchOp, memref::AllocOp, memref::AllocaOp,
             memref::DeallocOp, memref::GetGlobalOp, memref::CopyOp,
             func::ReturnOp, cf::AssertOp>(op) ||
         op->hasTrait<OpTrait::ConstantLike>() ||
         (isPure(op) && op->getNumRegions() == 0);
}

/// Moves each maximal run of host ops that compute (loops left without a
/// parallel dimension, a reduction's scalar loads and stores) into a
/// gpu.launch of one thread.
static LogicalResult wrapSerialRuns(func::FuncOp func) {
  Block &body = func.getBody().front();
  SmallVector<SmallVector<Operation *>> runs;
  SmallVector<Operation *> current;
  for (Operation &op : body) {
    // Pure ops without regions between computing ops join the run (index
    // arithmetic feeding a loop); elsewhere they stay.
    bool computes = !staysOnHost(&op);
    bool pure = isPure(&op) && op.getNumRegions() == 0 &&
                !op.hasTrait<OpTrait::ConstantLike>();
    if (computes || (pure && !current.empty())) {
      current.push_back(&op);
      continue;
    }
    if (!current.empty())
      runs.push_back(std::move(current));
    current.clear();
  }
  if (!current.empty())
    runs.push_back(std::move(current));
  for (SmallVector<Operation *> &ops : runs) {
    // A pure op that joined the run but computes nothing from it (a view of
    // a buffer allocated before it) and that later host code uses stays on
    // the host, ahead of the run: the run's ops are contiguous, so its
    // operands are defined before the run starts.
    for (bool moved = true; moved;) {
      moved = false;
      llvm::SmallPtrSet<Operation *, 8> inRun(ops.begin(), ops.end());
      for (auto it = ops.begin(); it != ops.end(); ++it) {
        Operation *op = *it;
        if (!staysOnHost(op) || op == ops.front())
          continue;
        bool usedOutside = llvm::any_of(op->getUsers(), [&](Operation *user) {
          return !inRun.contains(user) &&
                 !inRun.contains(body.findAncestorOpInBlock(*user));
        });
        bool readsRun = llvm::any_of(op->getOperands(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return def && inRun.contains(def);
        });
        if (!usedOutside || readsRun)
          continue;
        op->moveBefore(ops.front());
        ops.erase(it);
        moved = true;
        break;
      }
    }
    ArrayRef<Operation *> run = ops;
    // Trailing pure ops are not worth a kernel.
    while (!run.empty() && staysOnHost(run.back()))
      run = run.drop_back();
    if (run.empty())
      continue;
    llvm::SmallPtrSet<Operation *, 8> inRun(run.begin(), run.end());
    for (Operation *op : run)
      for (Value result : op->getResults())
        for (Operation *user : result.getUsers())
          if (!inRun.contains(user) &&
              !inRun.contains(body.findAncestorOpInBlock(*user)))
            return op->emitOpError(
                "computes a value on the host that later host code uses; the "
                "Vulkan schedule cannot express it");
    OpBuilder b(run.front());
    Location loc = run.front()->getLoc();
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
    Block &kernel = launch.getBody().front();
    for (Operation *op : run)
      op->moveBefore(&kernel, kernel.end());
    OpBuilder end = OpBuilder::atBlockEnd(&kernel);
    gpu::TerminatorOp::create(end, loc);
  }
  return success();
}

struct MapParallelLoopsToGPUPass
    : public fx::impl::FXMapParallelLoopsToGPUBase<MapParallelLoopsToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    if (workgroupSize <= 0 || maxWorkgroups <= 0) {
      getOperation().emitError(
          "workgroup-size and max-workgroups must be positive");
      return signalPassFailure();
    }
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies)
      expandViewCopy(copy);
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>() &&
          !loop->getParentOfType<gpu::LaunchOp>())
        outermost.push_back(loop);
    });
    // Innermost loops first: an accumulator moves out one loop at a time.
    SmallVector<scf::ForOp> serialLoops;
    for (scf::ParallelOp loop : outermost)
      loop.walk([&](scf::ForOp inner) { serialLoops.push_back(inner); });
    for (scf::ForOp inner : serialLoops)
      promoteAccumulator(inner);
    for (scf::ParallelOp loop : outermost)
      if (failed(mapLoop(loop, workgroupSize, maxWorkgroups)))
        return signalPassFailure();
    if (failed(wrapSerialRuns(getOperation())))
      return signalPassFailure();
  }
};

} // namespace
