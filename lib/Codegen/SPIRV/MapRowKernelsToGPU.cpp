//===- MapRowKernelsToGPU.cpp - a workgroup per row of a row kernel -------===//
//
// fx-map-row-kernels-to-gpu: the GPU code of softmax, layer norm and row
// reductions. Upstream MLIR maps parallel loops to threads
// (gpu-map-parallel-loops) and has a workgroup all-reduce op, but no
// lowering that runs a sequence of reductions and elementwise ops over one
// row per workgroup: gpu.all_reduce lowers to SPIR-V group operations of
// Workgroup scope, which Vulkan does not allow. So the row's ops are
// expanded here into strided per-thread loops, subgroup reductions and
// workgroup memory (see the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/SPIRV/GPUUtils.h"
#include "fx/Codegen/SPIRV/Passes.h"
#include "fx/Transforms/LinalgUtils.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <tuple>

namespace mlir::fx {
#define GEN_PASS_DEF_FXMAPROWKERNELSTOGPU
#include "fx/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// SPIR-V storage classes by numeric memref memory space (the Vulkan
/// mapping of convert-gpu-to-spirv).
constexpr unsigned kWorkgroupMemorySpace = 3, kPrivateMemorySpace = 6;

/// Per-row temporaries larger than this many elements are not expected.
constexpr int64_t kMaxPrivateElements = 64;

/// Rows of at most kThreadPerRowWork elements, kThreadPerRowMinRows of them
/// or more, take a thread each, kThreadPerRowThreads to a workgroup, with
/// no combining across threads (ResNet-50's global average pooling at
/// batch 32: 65536 rows of 49).
constexpr int64_t kThreadPerRowWork = 64, kThreadPerRowMinRows = 32768,
                  kThreadPerRowThreads = 128;

/// On targets whose subgroups have 32 lanes (`subgroup-rows`), rows of at
/// most kSubgroupRowWork elements, kSubgroupRowMinRows of them or more,
/// take a subgroup each, kSubgroupRowsPerGroup to a workgroup, combined
/// by subgroup operations alone (no workgroup memory, no barrier).
constexpr int64_t kSubgroupLanes = 32, kSubgroupRowWork = 1024,
                  kSubgroupRowMinRows = 512, kSubgroupRowsPerGroup = 4;

/// Most elements per thread of an op whose iterations divide evenly among
/// the threads that are emitted as straight-line code, each thread's loads
/// kept in registers for the row's later ops (softmax and layer norm then
/// read their row from device memory once instead of three times).
constexpr int64_t kMaxResidentTrips = 32;

std::optional<gpu::AllReduceOperation> reduceKind(Operation *combiner) {
  return llvm::TypeSwitch<Operation *, std::optional<gpu::AllReduceOperation>>(
             combiner)
      .Case([](arith::AddFOp) { return gpu::AllReduceOperation::ADD; })
      .Case([](arith::AddIOp) { return gpu::AllReduceOperation::ADD; })
      .Case([](arith::MulFOp) { return gpu::AllReduceOperation::MUL; })
      .Case([](arith::MulIOp) { return gpu::AllReduceOperation::MUL; })
      .Case([](arith::MaximumFOp) { return gpu::AllReduceOperation::MAXNUMF; })
      .Case([](arith::MinimumFOp) { return gpu::AllReduceOperation::MINNUMF; })
      .Case([](arith::MaxNumFOp) { return gpu::AllReduceOperation::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return gpu::AllReduceOperation::MINNUMF; })
      .Case([](arith::MaxSIOp) { return gpu::AllReduceOperation::MAXSI; })
      .Case([](arith::MinSIOp) { return gpu::AllReduceOperation::MINSI; })
      .Case([](arith::MaxUIOp) { return gpu::AllReduceOperation::MAXUI; })
      .Case([](arith::MinUIOp) { return gpu::AllReduceOperation::MINUI; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Builds the launch of one row kernel.
class RowKernelBuilder {
public:
  RowKernelBuilder(scf::ForallOp forall, int64_t maxThreads,
                   int64_t maxWorkgroups, bool subgroupRows)
      : forall(forall), maxThreads(maxThreads), maxWorkgroups(maxWorkgroups),
        subgroupRows(subgroupRows), loc(forall.getLoc()) {}

  LogicalResult build();

private:
  scf::ForallOp forall;
  int64_t maxThreads, maxWorkgroups;
  /// Whether short rows may take a subgroup of kSubgroupLanes each.
  bool subgroupRows;
  Location loc;
  int64_t threads = 0;
  /// A subgroup per row: its reductions combine within the subgroup only.
  bool subgroupPerRow = false;
  /// A split-k sum generic (`fx.split_sum`) right before the kernel whose
  /// buffer only this kernel reads: the kernel computes the elements it
  /// reads from the generic's inputs instead (loadElement).
  linalg::GenericOp prologue;
  /// The values the kernel reads the buffer through: the buffer, or an
  /// expand_shape of it (then that op).
  llvm::DenseMap<Value, memref::ExpandShapeOp> prologueReads;
  /// Whether a read fell back to loading the buffer (the generic stays).
  bool prologueLoaded = false;
  /// Finds `prologue` and `prologueReads`.
  void findPrologue();
  /// The element of `source` (a buffer or a view of it) at `indices`:
  /// loaded, or computed by its buffer's prologue.
  Value loadElement(OpBuilder &b, Value source, ValueRange indices);
  /// Values of the forall body in the launch.
  IRMapping mapping;
  /// Private (per-thread) buffers replacing the row's allocations.
  llvm::DenseSet<Value> privateBuffers;
  /// Device buffers written so far in the row, and whether only thread 0
  /// wrote them.
  llvm::DenseMap<Value, bool> written;
  Value threadId, zero, one, numThreads;
  /// Where the workgroup's buffers are allocated (the launch's start).
  OpBuilder *entry = nullptr;
  /// Row elements already loaded by this thread in straight-line code, by
  /// (buffer, indexing map, iteration space, trip): the same element for
  /// every op of the row that reads it that way, and the same thread (trip
  /// k of thread t is linear index t + k * threads). Dropped when the row
  /// writes the buffer.
  using ResidentKey =
      std::tuple<const void *, const void *, std::vector<int64_t>, int64_t>;
  std::map<ResidentKey, Value> resident;

  Value cst(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  bool isPrivate(Value memref) {
    return privateBuffers.contains(fx::viewedBuffer(memref));
  }
  LogicalResult checkRead(Operation *op, Value memref, bool threadZeroOnly);
  void noteWrite(Value memref, bool threadZeroOnly);
  SmallVector<Value> delinearize(OpBuilder &b, Value linear,
                                 ArrayRef<int64_t> sizes) {
    return fx::delinearize(b, loc, linear, sizes);
  }
  /// The value of `op`'s body at `ivs`. `trip` is set for straight-line
  /// code of a distributed op over `ranges` (see `resident`).
  Value emitPayload(OpBuilder &b, linalg::GenericOp op, ValueRange ivs,
                    Value runningValue, ArrayRef<int64_t> ranges = {},
                    std::optional<int64_t> trip = std::nullopt);
  /// The trips of an op of `count` iterations distributed over the threads
  /// when it runs as straight-line code (every thread has the same number
  /// of elements, at most kMaxResidentTrips); nullopt otherwise.
  std::optional<int64_t> straightLineTrips(int64_t count) const {
    if (count < threads || count % threads ||
        count / threads > kMaxResidentTrips)
      return std::nullopt;
    return count / threads;
  }
  /// Linear index of trip `k` of this thread.
  Value tripIndex(OpBuilder &b, int64_t k) {
    return k == 0 ? threadId
                  : arith::AddIOp::create(b, loc, threadId, cst(b, k * threads))
                        .getResult();
  }
  LogicalResult emitOp(OpBuilder &b, Operation *op);
  LogicalResult emitGeneric(OpBuilder &b, linalg::GenericOp op);
  LogicalResult emitReduction(OpBuilder &b, linalg::GenericOp op);
  /// Combines `partial` of every thread with `combine` (which `kind`
  /// implements on a subgroup); every thread gets the result.
  Value combineAcrossWorkgroup(
      OpBuilder &b, Value partial, gpu::AllReduceOperation kind,
      TypedAttr identity,
      function_ref<Value(OpBuilder &, Value, Value)> combine);
  /// Runs `body(b, linear)` for the iterations [0, count): strided over the
  /// threads, or, for private buffers, all in every thread.
  void emitLoop(OpBuilder &b, int64_t count, bool distributed,
                function_ref<void(OpBuilder &, Value)> body);
};

LogicalResult RowKernelBuilder::checkRead(Operation *op, Value memref,
                                          bool threadZeroOnly) {
  auto it = written.find(fx::viewedBuffer(memref));
  if (it == written.end() || (it->second && threadZeroOnly))
    return success();
  return op->emitOpError(
      "in a row kernel reads device memory that other threads of the row "
      "wrote; the row kernel would need a device-memory barrier");
}

void RowKernelBuilder::noteWrite(Value memref, bool threadZeroOnly) {
  Value base = fx::viewedBuffer(memref);
  for (auto it = resident.begin(); it != resident.end();)
    if (fx::viewedBuffer(Value::getFromOpaquePointer(std::get<0>(it->first))) ==
        base)
      it = resident.erase(it);
    else
      ++it;
  auto [it, inserted] = written.insert({base, threadZeroOnly});
  if (!inserted)
    it->second &= threadZeroOnly;
}

void RowKernelBuilder::emitLoop(OpBuilder &b, int64_t count, bool distributed,
                                function_ref<void(OpBuilder &, Value)> body) {
  if (!distributed) {
    auto loop = scf::ForOp::create(b, loc, zero, cst(b, count), one);
    OpBuilder inner = OpBuilder::atBlockBegin(loop.getBody());
    body(inner, loop.getInductionVar());
    return;
  }
  if (count <= threads) {
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          threadId, cst(b, count));
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    OpBuilder inner = guard.getThenBodyBuilder();
    body(inner, threadId);
    return;
  }
  // Several elements per trip, their loads issued together.
  fx::emitUnrolledStridedLoop(b, loc, threadId, count, numThreads,
                              fx::kStridedUnroll, body);
}

Value RowKernelBuilder::emitPayload(OpBuilder &b, linalg::GenericOp op,
                                    ValueRange ivs, Value runningValue,
                                    ArrayRef<int64_t> ranges,
                                    std::optional<int64_t> trip) {
  // The body may use values of the row (a tiled linalg.index adds the row
  // index): start from the row's mapping.
  IRMapping payload = mapping;
  Block *block = op.getBlock();
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg.use_empty())
      continue;
    if (runningValue && op.isDpsInit(&operand)) {
      payload.map(arg, runningValue);
      continue;
    }
    Value source = mapping.lookupOrDefault(operand.get());
    if (!isa<MemRefType>(source.getType())) {
      payload.map(arg, source);
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(&operand);
    std::optional<ResidentKey> key;
    if (trip && !isPrivate(source) &&
        !written.count(fx::viewedBuffer(source))) {
      key = ResidentKey(source.getAsOpaquePointer(), map.getAsOpaquePointer(),
                        std::vector<int64_t>(ranges.begin(), ranges.end()),
                        *trip);
      auto found = resident.find(*key);
      if (found != resident.end()) {
        payload.map(arg, found->second);
        continue;
      }
    }
    SmallVector<Value> indices = *affine::expandAffineMap(b, loc, map, ivs);
    Value loaded = loadElement(b, source, indices);
    if (key)
      resident[*key] = loaded;
    payload.map(arg, loaded);
  }
  for (Operation &inner : block->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(&inner)) {
      payload.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, payload);
  }
  return payload.lookupOrDefault(block->getTerminator()->getOperand(0));
}

LogicalResult RowKernelBuilder::emitGeneric(OpBuilder &b,
                                            linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1)
    return op.emitOpError("in a row kernel must have one output");
  Value out = mapping.lookupOrDefault(op.getDpsInits().front());
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t count = computeProduct(ranges);
  bool distributed = !isPrivate(out);
  bool threadZeroOnly = distributed && count <= 1;
  for (OpOperand *input : op.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()) &&
        failed(checkRead(op, mapping.lookupOrDefault(input->get()),
                         threadZeroOnly)))
      return failure();
  AffineMap outMap = op.getIndexingMapsArray().back();
  if (std::optional<int64_t> trips = straightLineTrips(count);
      trips && distributed) {
    // The trips in groups of kStridedUnroll: a group's loads and arithmetic,
    // then its stores, so that the loads still going to device memory are
    // in flight together. Measured on an H200 (layer norm 8192x8192, whose
    // output op also loads the weight and bias): 145.7 us in groups of 4,
    // 148.5 storing each trip at once, 148.6 in groups of 8; the whole row's
    // stores at the end took 224 us (registers).
    SmallVector<std::pair<Value, SmallVector<Value>>> stores;
    for (int64_t k = 0; k < *trips; ++k) {
      SmallVector<Value> ivs = delinearize(b, tripIndex(b, k), ranges);
      Value value = emitPayload(b, op, ivs, Value(), ranges, k);
      stores.emplace_back(value, *affine::expandAffineMap(b, loc, outMap, ivs));
      if ((k + 1) % fx::kStridedUnroll == 0 || k + 1 == *trips) {
        for (auto &[value, indices] : stores)
          memref::StoreOp::create(b, loc, value, out, indices);
        stores.clear();
      }
    }
    noteWrite(out, threadZeroOnly);
    return success();
  }
  emitLoop(b, count, distributed, [&](OpBuilder &inner, Value linear) {
    SmallVector<Value> ivs = delinearize(inner, linear, ranges);
    Value value = emitPayload(inner, op, ivs, Value());
    SmallVector<Value> indices =
        *affine::expandAffineMap(inner, loc, outMap, ivs);
    memref::StoreOp::create(inner, loc, value, out, indices);
  });
  if (distributed)
    noteWrite(out, threadZeroOnly);
  return success();
}

Value RowKernelBuilder::combineAcrossWorkgroup(
    OpBuilder &b, Value partial, gpu::AllReduceOperation kind,
    TypedAttr identity,
    function_ref<Value(OpBuilder &, Value, Value)> combine) {
  if (threads == 1)
    return partial;
  if (subgroupPerRow)
    return gpu::SubgroupReduceOp::create(b, loc, partial, kind,
                                         /*uniform=*/false);
  Type type = partial.getType();
  // Subgroup, then the subgroups' values through workgroup memory: every
  // thread reads them all and ends with the same value.
  Value subgroupValue =
      gpu::SubgroupReduceOp::create(b, loc, partial, kind, /*uniform=*/false);
  auto shared = memref::AllocOp::create(
      *entry, loc,
      MemRefType::get({threads}, type, AffineMap(),
                      entry->getI64IntegerAttr(kWorkgroupMemorySpace)));
  Value laneId = gpu::LaneIdOp::create(b, loc, /*upperBound=*/nullptr);
  Value subgroupId = gpu::SubgroupIdOp::create(b, loc, /*upperBound=*/nullptr);
  Value firstLane =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, laneId, zero);
  auto ifFirst = scf::IfOp::create(b, loc, firstLane, /*withElse=*/false);
  {
    OpBuilder then = ifFirst.getThenBodyBuilder();
    memref::StoreOp::create(then, loc, subgroupValue, shared,
                            ValueRange{subgroupId});
  }
  gpu::BarrierOp::create(b, loc);
  Value numSubgroups =
      gpu::NumSubgroupsOp::create(b, loc, /*upperBound=*/nullptr);
  Value init = arith::ConstantOp::create(b, loc, identity);
  auto loop =
      scf::ForOp::create(b, loc, zero, numSubgroups, one, ValueRange{init});
  {
    OpBuilder inner = OpBuilder::atBlockBegin(loop.getBody());
    Value element = memref::LoadOp::create(inner, loc, shared,
                                           ValueRange{loop.getInductionVar()});
    scf::YieldOp::create(
        inner, loc, combine(inner, loop.getRegionIterArgs().front(), element));
  }
  // The next row (or reduction) may overwrite the workgroup memory only
  // once every thread has read it.
  gpu::BarrierOp::create(b, loc);
  return loop.getResult(0);
}

LogicalResult RowKernelBuilder::emitReduction(OpBuilder &b,
                                              linalg::GenericOp op) {
  Operation *combiner = fx::getReductionCombiner(op);
  std::optional<gpu::AllReduceOperation> kind =
      combiner ? reduceKind(combiner) : std::nullopt;
  Type type =
      cast<MemRefType>(op.getDpsInits().front().getType()).getElementType();
  std::optional<TypedAttr> neutral =
      combiner ? arith::getNeutralElement(combiner) : std::nullopt;
  if (!kind || !neutral || (!type.isF32() && !type.isInteger(32)))
    return op.emitOpError(
        "in a row kernel must be an f32 or i32 add, mul, min or max reduction");
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> reducedRanges;
  for (auto [range, it] : llvm::zip(ranges, iterators)) {
    if (linalg::isParallelIterator(it) && range != 1)
      return op.emitOpError("in a row kernel must reduce to one value per row");
    reducedRanges.push_back(linalg::isParallelIterator(it) ? 1 : range);
  }
  Value out = mapping.lookupOrDefault(op.getDpsInits().front());
  bool privateOut = isPrivate(out);
  for (OpOperand *input : op.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()) &&
        failed(checkRead(op, mapping.lookupOrDefault(input->get()),
                         /*threadZeroOnly=*/false)))
      return failure();
  if (!privateOut && failed(checkRead(op, out, /*threadZeroOnly=*/true)))
    return failure();

  // Each thread's part of the row.
  Value identity = arith::ConstantOp::create(b, loc, *neutral);
  int64_t count = computeProduct(reducedRanges);
  Value partial;
  if (std::optional<int64_t> trips = straightLineTrips(count)) {
    // Straight-line: the row's elements stay in registers for later ops.
    partial = identity;
    for (int64_t k = 0; k < *trips; ++k) {
      SmallVector<Value> ivs = delinearize(b, tripIndex(b, k), reducedRanges);
      partial = emitPayload(b, op, ivs, partial, reducedRanges, k);
    }
  } else {
    partial = fx::emitUnrolledStridedReduction(
        b, loc, threadId, count, numThreads, fx::kStridedUnroll, identity,
        [&](OpBuilder &inner, Value index, Value acc) {
          SmallVector<Value> ivs = delinearize(inner, index, reducedRanges);
          return emitPayload(inner, op, ivs, acc);
        });
  }
  auto combine = [&](OpBuilder &cb, Value x, Value y) {
    IRMapping map;
    map.map(combiner->getOperand(0), x);
    map.map(combiner->getOperand(1), y);
    return cb.clone(*combiner, map)->getResult(0);
  };
  Value total = combineAcrossWorkgroup(b, partial, *kind, *neutral, combine);
  if (isa<arith::MaximumFOp, arith::MinimumFOp>(combiner)) {
    // Subgroup max/min drop NaN; maximumf/minimumf propagate it.
    Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                        partial, partial);
    Value flag = arith::ExtUIOp::create(b, loc, b.getI32Type(), isNan);
    Value anyNan = combineAcrossWorkgroup(
        b, flag, gpu::AllReduceOperation::MAXSI, b.getI32IntegerAttr(0),
        [&](OpBuilder &cb, Value x, Value y) -> Value {
          return arith::MaxSIOp::create(cb, loc, x, y);
        });
    Value hasNan =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, anyNan,
                              arith::ConstantIntOp::create(b, loc, 0, 32));
    Value nan = arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(
            type, APFloat::getNaN(cast<FloatType>(type).getFloatSemantics())));
    total = arith::SelectOp::create(b, loc, hasNan, nan, total);
  }
  // Combined with the output's initial value, by every thread into private
  // memory, by thread 0 into device memory.
  SmallVector<Value> outIndices(cast<MemRefType>(out.getType()).getRank(),
                                zero);
  auto store = [&](OpBuilder &sb) {
    Value init = memref::LoadOp::create(sb, loc, out, outIndices);
    IRMapping map;
    map.map(combiner->getOperand(0), init);
    map.map(combiner->getOperand(1), total);
    Operation *combined = sb.clone(*combiner, map);
    memref::StoreOp::create(sb, loc, combined->getResult(0), out, outIndices);
  };
  if (privateOut) {
    store(b);
  } else {
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, threadId, zero);
    auto ifFirst = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    OpBuilder then = ifFirst.getThenBodyBuilder();
    store(then);
    noteWrite(out, /*threadZeroOnly=*/true);
  }
  return success();
}

LogicalResult RowKernelBuilder::emitOp(OpBuilder &b, Operation *op) {
  if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape() || type.getNumElements() > kMaxPrivateElements)
      return op->emitOpError("in a row kernel allocates ")
             << type << "; a row kernel keeps only per-row values (at most "
             << kMaxPrivateElements << " elements)";
    auto privateType =
        MemRefType::get(type.getShape(), type.getElementType(), AffineMap(),
                        entry->getI64IntegerAttr(kPrivateMemorySpace));
    Value buffer = memref::AllocaOp::create(*entry, loc, privateType);
    privateBuffers.insert(buffer);
    mapping.map(alloc.getResult(), buffer);
    return success();
  }
  if (isa<memref::DeallocOp>(op))
    return success();
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    Value out = mapping.lookupOrDefault(fill.getOutputs().front());
    auto type = cast<MemRefType>(out.getType());
    SmallVector<int64_t> shape(type.getShape());
    bool distributed = !isPrivate(out);
    int64_t count = computeProduct(shape);
    Value value = mapping.lookupOrDefault(fill.getInputs().front());
    emitLoop(b, count, distributed, [&](OpBuilder &inner, Value linear) {
      SmallVector<Value> ivs = delinearize(inner, linear, shape);
      memref::StoreOp::create(inner, loc, value, out, ivs);
    });
    if (distributed)
      noteWrite(out, count <= 1);
    return success();
  }
  if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    Value source = mapping.lookupOrDefault(copy.getSource());
    Value target = mapping.lookupOrDefault(copy.getTarget());
    auto type = cast<MemRefType>(target.getType());
    if (!type.hasStaticShape())
      return op->emitOpError("in a row kernel must have a static shape");
    SmallVector<int64_t> shape(type.getShape());
    int64_t count = computeProduct(shape);
    bool distributed = !isPrivate(target);
    if (!isPrivate(source) &&
        failed(checkRead(op, source, distributed && count <= 1)))
      return failure();
    emitLoop(b, count, distributed, [&](OpBuilder &inner, Value linear) {
      SmallVector<Value> ivs = delinearize(inner, linear, shape);
      Value v = loadElement(inner, source, ivs);
      memref::StoreOp::create(inner, loc, v, target, ivs);
    });
    if (distributed)
      noteWrite(target, count <= 1);
    return success();
  }
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    if (!generic.hasPureBufferSemantics())
      return op->emitOpError("in a row kernel must work on buffers");
    if (generic.getNumReductionLoops() > 0)
      return emitReduction(b, generic);
    return emitGeneric(b, generic);
  }
  if (isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp>(
          op) ||
      (isPure(op) && op->getNumRegions() == 0)) {
    b.clone(*op, mapping);
    return success();
  }
  return op->emitOpError("is not supported in a row kernel");
}

LogicalResult RowKernelBuilder::build() {
  if (!forall.getOutputs().empty())
    return forall.emitOpError("row kernel must be bufferized first");
  // Before the launch goes in (right before the kernel).
  findPrologue();
  OpBuilder b(forall);
  // Rows are counted on the host where the loop's bounds are dynamic (a
  // dynamic batch dimension).
  SmallVector<OpFoldResult> rows;
  for (auto [lb, ub, step] :
       llvm::zip(forall.getMixedLowerBound(), forall.getMixedUpperBound(),
                 forall.getMixedStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           s = getConstantIntValue(step);
    if (!(l && u && s) && !(l == 0 && s == 1))
      return forall.emitOpError("row kernel has a dynamic lower bound or "
                                "step, which the Vulkan pipeline cannot map");
    rows.push_back(fx::tripCount(b, loc, lb, ub, step));
  }
  std::optional<SmallVector<int64_t>> staticRows = getConstantIntValues(rows);
  int64_t numRows = staticRows ? computeProduct(*staticRows) : -1;
  if (numRows == 0) {
    forall.erase();
    return success();
  }
  // Threads: enough for the longest op of the row, a power of two; half of
  // the most for a row read once (a lone reduction). Measured on an H200
  // (bench/vulkan/run.py, 8192x8192): softmax and layer norm, which read
  // their row three times, run fastest with 512 threads (170 us against
  // 211 with 256 and 248 with 1024), sum(-1) with 256 (78 us against 82).
  int64_t work = 1, passes = 0;
  forall.getBody()->walk([&](linalg::LinalgOp op) {
    work = std::max(work, fx::staticIterationCount(op));
    passes += !isa<linalg::FillOp>(op);
  });
  int64_t most =
      passes > 1 ? maxThreads : std::max<int64_t>(32, maxThreads / 2);
  threads =
      std::min<int64_t>(most, std::max<int64_t>(32, llvm::PowerOf2Ceil(work)));
  // Many short rows: a thread per row. A workgroup per row of 49 (64
  // threads, two subgroups combined through workgroup memory) took 43.6 us
  // for 65536 rows on an H200, a tenth of the memory's bandwidth.
  bool threadPerRow = staticRows && work <= kThreadPerRowWork &&
                      numRows >= kThreadPerRowMinRows;
  // Shorter rows than a workgroup's worth, many of them: a subgroup per
  // row. On an H200, ConvNeXt's layer norms of 96 channels at 56x56 (3136
  // rows) took 10.2 us each as a workgroup of 128 threads per row.
  subgroupPerRow = subgroupRows && staticRows && !threadPerRow &&
                   work <= kSubgroupRowWork && numRows >= kSubgroupRowMinRows;
  int64_t rowsPerGroup = 1, launchThreads = threads;
  if (threadPerRow) {
    threads = 1;
    rowsPerGroup = launchThreads = kThreadPerRowThreads;
  } else if (subgroupPerRow) {
    threads = kSubgroupLanes;
    rowsPerGroup = kSubgroupRowsPerGroup;
    launchThreads = kSubgroupLanes * kSubgroupRowsPerGroup;
  }
  Value groups, dynamicRows;
  if (staticRows) {
    groups = cst(b, std::min<int64_t>(llvm::divideCeil(numRows, rowsPerGroup),
                                      maxWorkgroups));
  } else {
    dynamicRows = fx::productOf(b, loc, rows);
    groups = arith::MinUIOp::create(b, loc, dynamicRows, cst(b, maxWorkgroups));
  }

  Value c1 = cst(b, 1);
  auto launch = gpu::LaunchOp::create(b, loc, groups, c1, c1,
                                      cst(b, launchThreads), c1, c1);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  zero = cst(body, 0);
  // Workgroup and private buffers go first, in the order they are made.
  OpBuilder allocations(zero.getDefiningOp());
  entry = &allocations;
  one = cst(body, 1);
  numThreads = cst(body, threads);
  threadId = threadPerRow ? zero : launch.getThreadIds().x;
  if (subgroupPerRow)
    threadId =
        arith::RemUIOp::create(body, loc, threadId, cst(body, kSubgroupLanes));
  Value blockId = launch.getBlockIds().x;

  // The rows of this workgroup (or thread): one, or every grid-th from its
  // own.
  OpBuilder rowBuilder = body;
  Value row = blockId;
  if (threadPerRow || subgroupPerRow)
    row = arith::AddIOp::create(
        body, loc,
        arith::MulIOp::create(body, loc, blockId, cst(body, rowsPerGroup)),
        threadPerRow
            ? launch.getThreadIds().x
            : arith::DivUIOp::create(body, loc, launch.getThreadIds().x,
                                     cst(body, kSubgroupLanes))
                  .getResult());
  if (!staticRows || numRows > maxWorkgroups * rowsPerGroup) {
    Value count = staticRows ? cst(body, numRows) : dynamicRows;
    Value stride =
        staticRows ? cst(body, std::min(numRows, maxWorkgroups * rowsPerGroup))
                   : launch.getGridSize().x;
    auto rowLoop = scf::ForOp::create(body, loc, row, count, stride);
    rowBuilder = OpBuilder::atBlockBegin(rowLoop.getBody());
    row = rowLoop.getInductionVar();
  } else if (numRows % rowsPerGroup != 0) {
    auto guard = scf::IfOp::create(
        body, loc,
        arith::CmpIOp::create(body, loc, arith::CmpIPredicate::ult, row,
                              cst(body, numRows)),
        /*withElse=*/false);
    rowBuilder = guard.getThenBodyBuilder();
  }
  SmallVector<Value> rowIndices = fx::delinearize(rowBuilder, loc, row, rows);
  for (auto [iv, index, lb, step] :
       llvm::zip(forall.getInductionVars(), rowIndices,
                 forall.getMixedLowerBound(), forall.getMixedStep())) {
    Value value = arith::AddIOp::create(
        rowBuilder, loc, getValueOrCreateConstantIndexOp(rowBuilder, loc, lb),
        arith::MulIOp::create(
            rowBuilder, loc, index,
            getValueOrCreateConstantIndexOp(rowBuilder, loc, step)));
    mapping.map(iv, value);
  }
  for (Operation &op : forall.getBody()->without_terminator())
    if (failed(emitOp(rowBuilder, &op)))
      return failure();
  // Allocations were added at the launch's start; the body ends here.
  OpBuilder end = OpBuilder::atBlockEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(end, loc);
  forall.erase();
  // A split-k sum the kernel computed wherever it read it: no kernel of its
  // own, and its buffer goes unless something else holds it.
  if (prologue && !prologueLoaded) {
    Value buffer = prologue.getDpsInits()[0];
    prologue->erase();
    for (auto [read, expand] : prologueReads)
      if (expand && expand->use_empty())
        expand->erase();
    if (auto alloc = buffer.getDefiningOp<memref::AllocOp>();
        alloc && alloc->use_empty())
      alloc->erase();
  }
  return success();
}

void RowKernelBuilder::findPrologue() {
  // Right before the kernel (allocations and pure ops, views, aside): a
  // split-k sum generic that writes a buffer.
  Operation *prev = forall->getPrevNode();
  while (prev && (isa<memref::AllocOp>(prev) || isPure(prev)))
    prev = prev->getPrevNode();
  auto generic = dyn_cast_or_null<linalg::GenericOp>(prev);
  if (!generic || !generic->hasAttr("fx.split_sum") ||
      generic.getNumDpsInits() != 1)
    return;
  Value buffer = generic.getDpsInits()[0];
  if (!buffer.getDefiningOp<memref::AllocOp>())
    return;
  // The kernel itself only reads it (a kernel writing its output in place
  // of it would leave its own values there).
  bool written = false;
  forall.getBody()->walk([&](Operation *op) {
    SmallVector<Value> targets;
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      targets = linalgOp.getDpsInits();
    else if (auto copy = dyn_cast<memref::CopyOp>(op))
      targets.push_back(copy.getTarget());
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      targets.push_back(store.getMemRef());
    written |= llvm::any_of(targets, [&](Value target) {
      return fx::viewedBuffer(target) == buffer;
    });
  });
  if (written)
    return;
  // After the kernel, what the generic wrote is dead: the next op that
  // touches the buffer or a view of it (the bufferization reuses buffers)
  // overwrites it whole without reading it. Views of it made after the
  // kernel are aliases too.
  llvm::SmallDenseSet<Value> aliases = {buffer};
  for (Operation *user : buffer.getUsers())
    if (isa<ViewLikeOpInterface>(user))
      aliases.insert(user->getResult(0));
  auto touches = [&](Operation *op) {
    return op
        ->walk([&](Operation *inner) {
          return llvm::any_of(inner->getOperands(),
                              [&](Value v) { return aliases.contains(v); })
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  };
  Operation *next = forall->getNextNode();
  while (next && !touches(next))
    next = next->getNextNode();
  while (next && isa<ViewLikeOpInterface>(next)) {
    aliases.insert(next->getResult(0));
    next = next->getNextNode();
    while (next && !touches(next))
      next = next->getNextNode();
  }
  if (next) {
    auto writer = dyn_cast<linalg::LinalgOp>(next);
    if (!writer || writer.getNumDpsInits() != 1 ||
        writer.getDpsInits()[0] != buffer ||
        writer.payloadUsesValueFromOperand(writer.getDpsInitOperand(0)) ||
        llvm::any_of(writer.getDpsInputs(),
                     [&](Value v) { return aliases.contains(v); }))
      return;
  }
  // The kernel's reads of it, from outside the kernel: the buffer itself,
  // or an expand_shape of it.
  forall.getBody()->walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      auto expand = operand.getDefiningOp<memref::ExpandShapeOp>();
      if ((operand == buffer || (expand && expand.getSrc() == buffer)) &&
          !forall->isAncestor(operand.getParentBlock()->getParentOp()))
        prologueReads[operand] = expand;
    }
  });
  if (!prologueReads.empty())
    prologue = generic;
}

Value RowKernelBuilder::loadElement(OpBuilder &b, Value source,
                                    ValueRange indices) {
  if (!prologue)
    return memref::LoadOp::create(b, loc, source, indices);
  Value base = source;
  SmallVector<Value> at(indices);
  // A view made in the kernel (its clone): the element's indices in the
  // viewed buffer, for same-rank views of unit strides; other views of the
  // prologue's buffer read it (and keep its generic).
  if (auto view = source.getDefiningOp<memref::SubViewOp>();
      view && prologueReads.count(view.getSource())) {
    if (view.getSourceType().getRank() != view.getType().getRank() ||
        !llvm::all_of(view.getMixedStrides(), [](OpFoldResult stride) {
          return isConstantIntValue(stride, 1);
        })) {
      prologueLoaded = true;
      return memref::LoadOp::create(b, loc, source, indices);
    }
    base = view.getSource();
    for (auto [index, offset] : llvm::zip(at, view.getMixedOffsets()))
      index = arith::AddIOp::create(
          b, loc, index, getValueOrCreateConstantIndexOp(b, loc, offset));
  }
  auto it = prologueReads.find(base);
  if (it == prologueReads.end())
    return memref::LoadOp::create(b, loc, source, indices);
  // Through an expand_shape: each group of its indices linearized into one
  // index of the generic's buffer (static shapes).
  if (memref::ExpandShapeOp expand = it->second) {
    ArrayRef<int64_t> shape = expand.getResultType().getShape();
    SmallVector<Value> collapsed;
    for (ReassociationIndices group : expand.getReassociationIndices()) {
      SmallVector<Value> groupIndices;
      SmallVector<int64_t> groupSizes;
      for (int64_t d : group) {
        groupIndices.push_back(at[d]);
        groupSizes.push_back(shape[d]);
      }
      collapsed.push_back(fx::linearize(b, loc, groupIndices, groupSizes));
    }
    at = collapsed;
  }
  // The generic's loops are its buffer's indices (its output map is the
  // identity): its payload at `at`.
  return emitPayload(b, prologue, at, Value());
}

struct MapRowKernelsToGPUPass
    : public fx::impl::FXMapRowKernelsToGPUBase<MapRowKernelsToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    if (workgroupSize <= 0 || !llvm::isPowerOf2_64(workgroupSize) ||
        maxWorkgroups <= 0) {
      getOperation().emitError("workgroup-size must be a positive power of "
                               "two and max-workgroups positive");
      return signalPassFailure();
    }
    SmallVector<scf::ForallOp> rowKernels;
    getOperation().walk([&](scf::ForallOp forall) {
      if (forall->hasAttr("fx.row_kernel"))
        rowKernels.push_back(forall);
    });
    for (scf::ForallOp forall : rowKernels)
      if (failed(RowKernelBuilder(forall, workgroupSize, maxWorkgroups,
                                  subgroupRows)
                     .build()))
        return signalPassFailure();
  }
};

} // namespace
