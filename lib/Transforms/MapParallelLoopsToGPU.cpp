//===- MapParallelLoopsToGPU.cpp - scf.parallel -> gpu.launch -------------===//
//
// fx-map-parallel-loops-to-gpu and fx-set-spirv-entry-point-abi: the two
// steps between loops on buffers and `convert-gpu-to-spirv` that upstream
// MLIR does not provide in the shape the Vulkan pipeline needs (see the pass
// descriptions in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx/Transforms/GPUUtils.h"
#include "fx/Transforms/Passes.h"

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
#define GEN_PASS_DEF_FXSETSPIRVENTRYPOINTABI
#define GEN_PASS_DEF_FXPREPARELINALGFORGPU
#define GEN_PASS_DEF_FXEXPANDMATHFORSPIRV
#define GEN_PASS_DEF_FXGUARDZEROTRIPLOOPS
#define GEN_PASS_DEF_FXPASSKERNELSIZES
#include "fx/Transforms/Passes.h.inc"
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
    for (scf::ParallelOp loop : outermost)
      if (failed(mapLoop(loop, workgroupSize, maxWorkgroups)))
        return signalPassFailure();
    if (failed(wrapSerialRuns(getOperation())))
      return signalPassFailure();
  }
};

struct PrepareLinalgForGPUPass
    : public fx::impl::FXPrepareLinalgForGPUBase<PrepareLinalgForGPUPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      SmallVector<unsigned> parallel, reduction;
      for (auto [i, it] : llvm::enumerate(iterators))
        (linalg::isParallelIterator(it) ? parallel : reduction).push_back(i);
      if (parallel.empty() || reduction.empty() ||
          reduction.front() > parallel.back())
        continue;
      SmallVector<unsigned> permutation(parallel);
      permutation.append(reduction.begin(), reduction.end());
      rewriter.setInsertionPoint(op);
      if (failed(linalg::interchangeGenericOp(rewriter, op, permutation))) {
        op.emitOpError("could not be interchanged to put its parallel loops "
                       "first");
        return signalPassFailure();
      }
    }
  }
};

/// math.ipowi as square-and-multiply over the exponent's bits, without
/// control flow. Negative exponents give what the CPU path (MLIR's
/// math-to-funcs expansion) gives: 1 for a base of 1, +-1 for -1, else 0.
struct ExpandIPowI : public OpRewritePattern<math::IPowIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IPowIOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<IntegerType>(op.getType());
    if (!type)
      return failure();
    Location loc = op.getLoc();
    unsigned bits = type.getWidth();
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, type, v);
    };
    Value base = op.getLhs(), exponent = op.getRhs();
    Value one = cst(1), zero = cst(0), minusOne = cst(-1);
    Value result = one;
    Value power = base;
    for (unsigned i = 0; i + 1 < bits; ++i) {
      Value bit = arith::AndIOp::create(
          rewriter, loc,
          arith::ShRUIOp::create(rewriter, loc, exponent, cst(i)), one);
      Value set = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                        bit, zero);
      result = arith::SelectOp::create(
          rewriter, loc, set,
          arith::MulIOp::create(rewriter, loc, result, power), result);
      power = arith::MulIOp::create(rewriter, loc, power, power);
    }
    // Negative exponents.
    Value odd = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(rewriter, loc, exponent, one), zero);
    Value ofMinusOne =
        arith::SelectOp::create(rewriter, loc, odd, minusOne, one);
    Value isOne = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        base, one);
    Value isMinusOne = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, base, minusOne);
    Value negative = arith::SelectOp::create(
        rewriter, loc, isOne, one,
        arith::SelectOp::create(rewriter, loc, isMinusOne, ofMinusOne, zero));
    Value isNegative = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::slt, exponent, zero);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, isNegative, negative,
                                                 result);
    return success();
  }
};

struct ExpandMathForSPIRVPass
    : public fx::impl::FXExpandMathForSPIRVBase<ExpandMathForSPIRVPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePolynomialApproximateErfPattern(patterns);
    patterns.add<ExpandIPowI>(&getContext());
    arith::populateArithExpandOpsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // convert-gpu-to-spirv lowers a `uniform` subgroup reduction to the
    // SPIR-V Groups instructions (OpenCL kernels only); Vulkan has the
    // GroupNonUniform ones. (Canonicalization marks reductions uniform
    // when every thread of the launch reaches them.)
    getOperation()->walk(
        [](gpu::SubgroupReduceOp op) { op.setUniform(false); });
  }
};

struct GuardZeroTripLoopsPass
    : public fx::impl::FXGuardZeroTripLoopsBase<GuardZeroTripLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop.getNumResults() == 0)
        return;
      std::optional<APInt> trips = loop.getStaticTripCount();
      if (!trips || trips->isZero())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      OpBuilder b(loop);
      Location loc = loop.getLoc();
      Value runs = arith::CmpIOp::create(
          b, loc,
          loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                : arith::CmpIPredicate::slt,
          loop.getLowerBound(), loop.getUpperBound());
      auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), runs,
                                     /*withElseRegion=*/true);
      loop->replaceAllUsesWith(guard.getResults());
      b.setInsertionPointToStart(guard.thenBlock());
      auto yield = scf::YieldOp::create(b, loc, loop.getResults());
      loop->moveBefore(yield);
      b.setInsertionPointToStart(guard.elseBlock());
      scf::YieldOp::create(b, loc, loop.getInitArgs());
    }
  }
};

struct SetSPIRVEntryPointABIPass
    : public fx::impl::FXSetSPIRVEntryPointABIBase<SetSPIRVEntryPointABIPass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return WalkResult::advance();
      std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize();
      if (!known) {
        func.emitOpError("has no known block size: cannot derive its SPIR-V "
                         "workgroup size");
        return WalkResult::interrupt();
      }
      func->setAttr(spirv::getEntryPointABIAttrName(),
                    spirv::getEntryPointABIAttr(&getContext(), *known));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // SPIR-V 1.4+ entry points list every global variable they use, and
    // spirv-update-vce later lowers a module's version to what its ops
    // need; a module without cooperative-matrix ops (the only ones needing
    // 1.6 here) would end up 1.0 with a 1.4-style interface. So those
    // modules target SPIR-V 1.3 from the start.
    getOperation().walk([&](gpu::GPUModuleOp module) {
      ArrayAttr targets = module.getTargetsAttr();
      if (!targets)
        return;
      bool usesMma = false;
      module.walk([&](Operation *op) {
        usesMma |= isa<gpu::SubgroupMmaComputeOp, gpu::SubgroupMmaLoadMatrixOp,
                       gpu::SubgroupMmaStoreMatrixOp>(op);
      });
      if (usesMma)
        return;
      SmallVector<Attribute> lowered;
      for (Attribute target : targets) {
        auto env = dyn_cast<spirv::TargetEnvAttr>(target);
        if (!env || env.getVersion() <= spirv::Version::V_1_3) {
          lowered.push_back(target);
          continue;
        }
        SmallVector<spirv::Capability> caps;
        for (spirv::Capability cap : env.getCapabilities())
          if (cap != spirv::Capability::CooperativeMatrixKHR &&
              cap != spirv::Capability::BFloat16CooperativeMatrixKHR &&
              cap != spirv::Capability::BFloat16TypeKHR)
            caps.push_back(cap);
        SmallVector<spirv::Extension> exts;
        for (spirv::Extension ext : env.getExtensions())
          if (ext != spirv::Extension::SPV_KHR_cooperative_matrix &&
              ext != spirv::Extension::SPV_KHR_bfloat16)
            exts.push_back(ext);
        auto vce = spirv::VerCapExtAttr::get(spirv::Version::V_1_3, caps, exts,
                                             &getContext());
        lowered.push_back(spirv::TargetEnvAttr::get(
            vce, env.getResourceLimits(), env.getClientAPI(), env.getVendorID(),
            env.getDeviceType(), env.getDeviceID()));
      }
      module.setTargetsAttr(ArrayAttr::get(&getContext(), lowered));
    });
  }
};

struct PassKernelSizesPass
    : public fx::impl::FXPassKernelSizesBase<PassKernelSizesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The launches of each kernel, by its symbol.
    llvm::DenseMap<Operation *, SmallVector<gpu::LaunchFuncOp>> launches;
    SymbolTableCollection symbols;
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (Operation *kernel =
              symbols.lookupNearestSymbolFrom(launch, launch.getKernel()))
        launches[kernel].push_back(launch);
    });
    WalkResult result = module.walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel() || func.isExternal())
        return WalkResult::advance();
      // SPIR-V storage buffers are arrays indexed with static strides: a
      // buffer can only have a dynamic outermost dimension.
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
        auto memref = dyn_cast<MemRefType>(type);
        if (!memref || memref.getRank() < 2 ||
            llvm::none_of(memref.getShape().drop_front(),
                          ShapedType::isDynamic))
          continue;
        Operation *at = func;
        if (!launches.lookup(func).empty())
          at = launches.lookup(func).front();
        at->emitOpError("passes a buffer of type ")
            << type
            << " to a kernel: on Vulkan only the outermost dimension of a "
               "buffer can be dynamic (kernels index storage buffers with "
               "static strides); compile for fixed sizes instead "
               "(fx-compile --dynamic-sizes)";
        return WalkResult::interrupt();
      }
      // (argument, dimension) -> the kernel argument holding its size.
      std::map<std::pair<unsigned, int64_t>, Value> sizes;
      SmallVector<std::pair<unsigned, int64_t>> added;
      SmallVector<memref::DimOp> dims;
      func.walk([&](memref::DimOp dim) { dims.push_back(dim); });
      for (memref::DimOp dim : dims) {
        auto arg = dyn_cast<BlockArgument>(dim.getSource());
        std::optional<int64_t> index = dim.getConstantIndex();
        if (!arg || arg.getOwner() != &func.getBody().front() ||
            arg.getArgNumber() >= func.getNumArguments() || !index) {
          dim.emitOpError("asks a kernel for the size of a buffer that is "
                          "not one of its arguments; the Vulkan pipeline "
                          "passes only argument sizes to kernels");
          return WalkResult::interrupt();
        }
        auto key = std::make_pair(arg.getArgNumber(), *index);
        Value &size = sizes[key];
        if (!size) {
          unsigned position = func.getNumArguments();
          if (failed(func.insertArgument(position,
                                         IndexType::get(&getContext()),
                                         DictionaryAttr(), dim.getLoc())))
            return WalkResult::interrupt();
          size = func.getArgument(position);
          added.push_back(key);
        }
        dim.replaceAllUsesWith(size);
        dim.erase();
      }
      for (gpu::LaunchFuncOp launch : launches.lookup(func)) {
        OpBuilder b(launch);
        for (auto [argument, index] : added) {
          Value size = memref::DimOp::create(
              b, launch.getLoc(), launch.getKernelOperands()[argument], index);
          launch.getKernelOperandsMutable().append(size);
        }
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
