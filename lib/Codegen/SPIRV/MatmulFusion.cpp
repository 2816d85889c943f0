//===- MatmulFusion.cpp - what a GEMM kernel absorbs ----------------------===//
//
// After bufferization a convolution is five dispatches: a zero fill of a
// padded copy of its input, the copy, the zero (or zero-copy) initial value
// of its output, the convolution and its epilogue (bias or batch norm,
// activation, residual add). The GEMM kernels absorb the four around it:
// they read the input through its padding, start their accumulators from
// zero and apply the epilogue before the store.
//
// The analysis works on the buffers of one block, before the kernels are
// built, walking back from the GEMM to the last op that writes a buffer
// (or any view of it). Ops it does not understand count as writers, so
// that nothing is fused across them. Written here rather than at the
// tensor level (linalg fusion of the pad and the elementwise consumer)
// because the GPU mappers work on bufferized ops, and because the CPU
// pipeline keeps its own tile-level fusion of the same ops.
//
//===----------------------------------------------------------------------===//

#include "MatmulKernels.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fx::matmul {

/// The root of `buffer` and every view derived from it.
static llvm::SmallDenseSet<Value> aliasesOf(Value buffer) {
  llvm::SmallDenseSet<Value> set;
  SmallVector<Value> work{fx::viewedBuffer(buffer)};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!set.insert(v).second)
      continue;
    for (Operation *user : v.getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == v)
          for (Value r : user->getResults())
            work.push_back(r);
  }
  return set;
}

/// Whether `op` (or an op nested in it) uses a value of `set`.
static bool usesAny(Operation *op, const llvm::SmallDenseSet<Value> &set) {
  WalkResult result = op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (set.contains(v))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `op` may write a buffer of `set`: anything that uses one except
/// views, copies and linalg ops that only read it.
static bool mayWrite(Operation *op, const llvm::SmallDenseSet<Value> &set) {
  if (isa<ViewLikeOpInterface>(op) || !usesAny(op, set))
    return false;
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return set.contains(copy.getTarget());
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return llvm::any_of(linalgOp.getDpsInits(),
                        [&](Value v) { return set.contains(v); });
  // A kernel this pass (or the row-kernel mapping) already made writes a
  // buffer only through the stores of its body: one that only loads from
  // the buffer (a softmax or pooling kernel between a prologue and its
  // GEMM) does not count. An op of the body that uses the buffer and
  // declares no memory effects, or makes a memref that is not a view, may.
  if (isa<gpu::LaunchOp>(op)) {
    WalkResult result = op->walk([&](Operation *inner) {
      if (inner == op || isa<ViewLikeOpInterface>(inner) ||
          llvm::none_of(inner->getOperands(),
                        [&](Value v) { return set.contains(v); }))
        return WalkResult::advance();
      auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
      if (!effects || inner->getNumRegions() != 0 ||
          llvm::any_of(inner->getResultTypes(), llvm::IsaPred<BaseMemRefType>))
        return WalkResult::interrupt();
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance &instance : instances)
        if (isa<MemoryEffects::Write, MemoryEffects::Free>(
                instance.getEffect()) &&
            (!instance.getValue() || set.contains(instance.getValue())))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return result.wasInterrupted();
  }
  return true;
}

/// The last op before `before` in its block that may write a buffer of
/// `set`, or null when none does (a function argument's initial value).
static Operation *lastWriter(Operation *before,
                             const llvm::SmallDenseSet<Value> &set) {
  for (Operation *op = before->getPrevNode(); op; op = op->getPrevNode())
    if (mayWrite(op, set))
      return op;
  return nullptr;
}

/// The constant `op` writes to every element of `buffer` (the buffer
/// itself, not a view of it): a linalg.fill, or a linalg.map / generic
/// without inputs that yields a constant; else null.
static FloatAttr fillValueOf(Operation *op, Value buffer) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumDpsInits() != 1 ||
      linalgOp.getDpsInits()[0] != buffer)
    return {};
  FloatAttr value;
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    (void)matchPattern(fill.getDpsInputs()[0], m_Constant(&value));
    return value;
  }
  if (linalgOp.getNumDpsInputs() != 0 ||
      linalgOp.getNumParallelLoops() != linalgOp.getNumLoops() ||
      !linalgOp.getMatchingIndexingMap(&linalgOp->getOpOperand(0)).isIdentity())
    return {};
  Block &body = linalgOp->getRegion(0).front();
  (void)matchPattern(body.getTerminator()->getOperand(0), m_Constant(&value));
  return value;
}

/// +0.0 (-0.0 is not taken: a kernel's zero start and zero padding are
/// +0.0).
static bool isPosZero(FloatAttr value) {
  return value && value.getValue().isPosZero();
}

/// The constant `buffer` holds everywhere just before `at`, or null.
static FloatAttr valueBefore(Operation *at, Value buffer) {
  return fillValueOf(lastWriter(at, aliasesOf(buffer)), buffer);
}

/// The users of `buffer` and its views, the views themselves aside.
static SmallVector<Operation *> usersOf(Value buffer) {
  llvm::SmallDenseSet<Value> set = aliasesOf(buffer);
  llvm::SetVector<Operation *> users;
  for (Value v : set)
    for (Operation *user : v.getUsers())
      if (!isa<ViewLikeOpInterface>(user) || user->getNumResults() != 1 ||
          !set.contains(user->getResult(0)))
        users.insert(user);
  return users.takeVector();
}

static std::optional<PaddedInput> analyzePadding(linalg::LinalgOp op,
                                                 unsigned operand,
                                                 GemmFusion &fusion,
                                                 bool anyConstant) {
  Value padded = op.getDpsInputs()[operand];
  auto alloc = padded.getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getType().hasStaticShape())
    return std::nullopt;
  auto paddedSet = aliasesOf(padded);
  auto copy = dyn_cast_or_null<memref::CopyOp>(
      lastWriter(op.getOperation(), paddedSet));
  if (!copy)
    return std::nullopt;
  auto subview = copy.getTarget().getDefiningOp<memref::SubViewOp>();
  if (!subview || subview.getSource() != padded || !subview.hasUnitStride() ||
      subview.getSourceType().getRank() != subview.getType().getRank())
    return std::nullopt;
  PaddedInput input;
  input.source = copy.getSource();
  for (int64_t offset : subview.getStaticOffsets())
    if (ShapedType::isDynamic(offset))
      return std::nullopt;
  input.low.assign(subview.getStaticOffsets().begin(),
                   subview.getStaticOffsets().end());
  auto sourceType = dyn_cast<MemRefType>(input.source.getType());
  if (!sourceType || !sourceType.hasStaticShape())
    return std::nullopt;
  input.sizes.assign(sourceType.getShape().begin(),
                     sourceType.getShape().end());
  input.value = valueBefore(copy, padded);
  if (!input.value || (!anyConstant && !isPosZero(input.value)))
    return std::nullopt;
  // The source must still hold what was copied when the GEMM runs.
  auto sourceSet = aliasesOf(input.source);
  for (Operation *between = copy->getNextNode(); between != op.getOperation();
       between = between->getNextNode())
    if (mayWrite(between, sourceSet))
      return std::nullopt;
  // The padded copy goes away when nothing else reads it.
  Operation *fill = lastWriter(copy, paddedSet);
  bool onlyPadding = llvm::all_of(usersOf(padded), [&](Operation *user) {
    return user == fill || user == copy || user == op.getOperation() ||
           isa<memref::DeallocOp>(user);
  });
  if (onlyPadding) {
    fusion.absorbed.push_back(fill);
    fusion.absorbed.push_back(copy);
    fusion.maybeDead.push_back(padded);
  }
  return input;
}

/// Gives `epilogue`, which writes the whole of an allocation, a new
/// allocation (made before `op`) in place of it; the ops after the epilogue
/// read the new one (views of the old one made before the epilogue are
/// made again of the new one for them). One-shot bufferization writes an
/// elementwise op in place of an input that is dead after it, such as the
/// buffer that a depthwise convolution's padded input was copied from:
/// fused into the convolution's kernel, the epilogue would overwrite
/// elements other threads still read through the padding. False (nothing
/// changed) where the allocation is not in the epilogue's block.
static bool renameOutput(linalg::LinalgOp op, linalg::GenericOp epilogue) {
  Value result = epilogue.getDpsInits()[0];
  auto alloc = result.getDefiningOp<memref::AllocOp>();
  Block *block = epilogue->getBlock();
  if (!alloc || alloc->getBlock() != block || !alloc.getType().hasStaticShape())
    return false;
  auto after = [&](OpOperand &use) {
    Operation *user = block->findAncestorOpInBlock(*use.getOwner());
    return user && epilogue->isBeforeInBlock(user);
  };
  // The views to make again, in the order of the block (sources first).
  SmallVector<Operation *> views;
  for (Value view : aliasesOf(result))
    if (Operation *def = view.getDefiningOp();
        view != result && def->getBlock() == block &&
        def->isBeforeInBlock(epilogue) && !llvm::is_contained(views, def))
      views.push_back(def);
  llvm::sort(views,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  OpBuilder b(op);
  auto fresh = memref::AllocOp::create(b, alloc.getLoc(), alloc.getType(),
                                       alloc.getAlignmentAttr());
  IRMapping mapping;
  mapping.map(result, fresh.getResult());
  for (Operation *view : views)
    b.clone(*view, mapping);
  for (Operation *view : views)
    for (Value v : view->getResults())
      v.replaceUsesWithIf(mapping.lookup(v), after);
  result.replaceUsesWithIf(fresh.getResult(), after);
  epilogue.getDpsInitsMutable()[0].set(fresh.getResult());
  return true;
}

/// Whether a kernel can compute `op` one output element at a time (as a
/// GEMM's epilogue or an input's prologue): an op on buffers with one
/// output, all loops parallel, the output indexed by them as they are and
/// not read, and a body without regions or loop indices.
static bool isPerElement(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.getIndexingMapsArray().back().isIdentity() ||
      llvm::any_of(op.getRegionOutputArgs(),
                   [](BlockArgument arg) { return !arg.use_empty(); }))
    return false;
  return llvm::none_of(
      op.getBlock()->without_terminator(), [](Operation &bodyOp) {
        return bodyOp.getNumRegions() != 0 || isa<linalg::IndexOp>(bodyOp);
      });
}

/// The elementwise consumer of `op`'s output right after it (allocations
/// and constants aside), if the kernel can apply it to each result.
static linalg::GenericOp findEpilogue(linalg::LinalgOp op,
                                      ArrayRef<Value> kernelReads) {
  Value out = op.getDpsInits()[0];
  Operation *next = op->getNextNode();
  while (next && isa<memref::AllocOp, arith::ConstantOp>(next))
    next = next->getNextNode();
  auto generic = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!generic || !isPerElement(generic))
    return nullptr;
  auto outType = cast<MemRefType>(out.getType());
  Value result = generic.getDpsInits()[0];
  auto resultType = dyn_cast<MemRefType>(result.getType());
  if (!resultType || resultType.getShape() != outType.getShape())
    return nullptr;
  auto outSet = aliasesOf(out), resultSet = aliasesOf(result);
  bool readsOut = false;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    bool identity = generic.getMatchingIndexingMap(input).isIdentity();
    if (readsAccumulator(op, generic, input)) {
      readsOut = true;
      continue;
    }
    // Another element of the output, or of the epilogue's own output,
    // would be read while other workgroups write it.
    if (outSet.contains(input->get()) ||
        (resultSet.contains(input->get()) &&
         !(identity && input->get() == result)))
      return nullptr;
  }
  if (!readsOut)
    return nullptr;
  // The epilogue's stores must not race with the GEMM's reads: an epilogue
  // that writes in place of a buffer the GEMM reads gets a buffer of its
  // own.
  bool racing = llvm::any_of(kernelReads, [&](Value read) {
    return aliasesOf(read).contains(fx::viewedBuffer(result));
  });
  if (racing && !renameOutput(op, generic))
    return nullptr;
  return generic;
}

/// The op that last wrote a constant (`value`) to all of `op`'s output (a
/// fill, or a copy of a filled buffer) with no read of it since; else null.
static Operation *findConstantStart(linalg::LinalgOp op, FloatAttr &value) {
  // The op that wrote the initial value goes away: nothing in between may
  // read what it wrote.
  Value out = op.getDpsInits()[0];
  auto outSet = aliasesOf(out);
  Operation *writer = lastWriter(op.getOperation(), outSet);
  if (!writer)
    return nullptr;
  for (Operation *between = writer->getNextNode(); between != op.getOperation();
       between = between->getNextNode())
    if (!isa<ViewLikeOpInterface>(between) && usesAny(between, outSet))
      return nullptr;
  if ((value = fillValueOf(writer, out)))
    return writer;
  auto copy = dyn_cast<memref::CopyOp>(writer);
  if (copy && copy.getTarget() == out &&
      (value = valueBefore(copy, copy.getSource())))
    return copy;
  return nullptr;
}

Operation *findZeroStart(linalg::LinalgOp op) {
  FloatAttr value;
  Operation *start = findConstantStart(op, value);
  return isPosZero(value) ? start : nullptr;
}

GemmFusion analyzeFusion(linalg::LinalgOp op, bool anyConstant) {
  GemmFusion fusion;
  for (unsigned operand = 0; operand < 2; ++operand)
    fusion.padded[operand] = analyzePadding(op, operand, fusion, anyConstant);

  Value out = op.getDpsInits()[0];
  FloatAttr start;
  if (Operation *writer = findConstantStart(op, start);
      writer && (anyConstant || isPosZero(start))) {
    fusion.zeroInit = true;
    if (!isPosZero(start))
      fusion.initValue = start;
    fusion.absorbed.push_back(writer);
  }

  SmallVector<Value> reads;
  for (unsigned operand = 0; operand < 2; ++operand)
    reads.push_back(fusion.padded[operand] ? fusion.padded[operand]->source
                                           : op.getDpsInputs()[operand]);
  if (linalg::GenericOp epilogue = findEpilogue(op, reads)) {
    fusion.epilogue = epilogue;
    // The kernel takes the GEMM's place: the allocations and constants in
    // between (the epilogue's output, say) move above it.
    while (op->getNextNode() != epilogue.getOperation())
      op->getNextNode()->moveBefore(op);
    Value result = epilogue.getDpsInits()[0];
    // Read after the epilogue (deallocations aside), the GEMM's output
    // still has to be stored; an epilogue in place overwrites it anyway.
    bool readLater = false;
    if (result != out) {
      auto outSet = aliasesOf(out);
      readLater = !out.getDefiningOp<memref::AllocOp>();
      for (Operation *later = epilogue->getNextNode(); later && !readLater;
           later = later->getNextNode())
        readLater = !isa<memref::DeallocOp>(later) && usesAny(later, outSet);
    }
    fusion.storeAccumulator = readLater;
    if (!readLater && result != out)
      fusion.maybeDead.push_back(out);
  }
  return fusion;
}

void GemmFusion::eraseAbsorbed() {
  for (Operation *op : absorbed)
    op->erase();
  if (epilogue)
    epilogue->erase();
  for (linalg::LinalgOp producer : prologue)
    if (producer)
      producer->erase();
  for (Value buffer : maybeDead) {
    auto alloc = buffer.getDefiningOp<memref::AllocOp>();
    if (!alloc)
      continue;
    SmallVector<Operation *> users = usersOf(buffer);
    if (!llvm::all_of(users, [](Operation *user) {
          return isa<memref::DeallocOp>(user);
        }))
      continue;
    for (Operation *user : users)
      user->erase();
    // Views of the dead buffer (the padding's subview) go with it.
    SmallVector<Operation *> views;
    for (Value v : aliasesOf(buffer))
      if (v != buffer)
        views.push_back(v.getDefiningOp());
    for (Operation *view : llvm::reverse(views))
      if (view->use_empty())
        view->erase();
    if (alloc->use_empty())
      alloc->erase();
  }
}

std::string GemmFusion::describe() const {
  SmallVector<std::string> parts;
  auto text = [](FloatAttr value) {
    SmallString<16> digits;
    value.getValue().toString(digits);
    return std::string(digits);
  };
  for (unsigned operand = 0; operand < 2; ++operand)
    if (padded[operand])
      parts.push_back("input " + std::to_string(operand) +
                      " read through its " +
                      (isPosZero(padded[operand]->value)
                           ? std::string("zero padding")
                           : "padding of " + text(padded[operand]->value)));
  for (unsigned operand = 0; operand < 2; ++operand)
    if (prologue[operand])
      parts.push_back("input " + std::to_string(operand) +
                      " computed from its elementwise producer's inputs");
  if (zeroInit)
    parts.push_back(initValue ? "initial value " + text(initValue)
                              : std::string("zero initial value"));
  if (epilogue)
    parts.push_back(std::string("elementwise epilogue") +
                    (storeAccumulator ? " (the product stored too)" : ""));
  return llvm::join(parts, ", ");
}

/// Whether `op` ends the life of `buffer`'s contents without reading them:
/// a dealloc, or an op that writes every element of the buffer (not a
/// view of it) from other values (a fill, a copy into it, an elementwise
/// op whose payload does not read its output).
static bool overwrites(Operation *op, Value buffer,
                       const llvm::SmallDenseSet<Value> &set) {
  if (isa<memref::DeallocOp>(op))
    return true;
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return copy.getTarget() == buffer && !set.contains(copy.getSource());
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumDpsInits() != 1 ||
      linalgOp.getDpsInits()[0] != buffer ||
      linalgOp.getNumParallelLoops() != linalgOp.getNumLoops())
    return false;
  OpOperand *init = linalgOp.getDpsInitOperand(0);
  if (!linalgOp.getMatchingIndexingMap(init).isPermutation() ||
      linalgOp.payloadUsesValueFromOperand(init))
    return false;
  return llvm::none_of(linalgOp.getDpsInputs(),
                       [&](Value v) { return set.contains(v); });
}

bool absorbInputPrologue(linalg::LinalgOp op, unsigned operand,
                         GemmFusion &fusion) {
  if (fusion.padded[operand] || fusion.prologue[operand])
    return false;
  Value input = op.getDpsInputs()[operand];
  // The op may read the buffer through a collapse_shape (made before it):
  // the kernel then maps each element it reads back to the buffer's
  // indices. (Attention's heads permuted back and reshaped into the rows
  // of the output projection: on an H200, precision high, the transformer
  // encoder 0.213 -> 0.205 ms of GPU time, 22 -> 20 steps; ConvNeXt's
  // head's permute goes into its classifier.)
  auto view = input.getDefiningOp<memref::CollapseShapeOp>();
  Value buffer = view ? view.getSrc() : input;
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getType().hasStaticShape())
    return false;
  // A linalg.generic, or a named elementwise op (linalg.transpose: the
  // heads of attention).
  llvm::SmallDenseSet<Value> inputSet = aliasesOf(input);
  auto generic = dyn_cast_or_null<linalg::LinalgOp>(
      lastWriter(op.getOperation(), inputSet));
  if (!generic || !isPerElement(generic) || generic.getDpsInits()[0] != buffer)
    return false;
  // Nothing after it but `op` reads what it wrote: no use between them,
  // and after `op` the buffer is dead or written anew before it is read (a
  // buffer the bufferization reuses for the next block's activations).
  Block *block = generic->getBlock();
  Operation *next = op->getNextNode();
  while (next && !usesAny(next, inputSet))
    next = next->getNextNode();
  bool deadAfterOp = !next || overwrites(next, buffer, inputSet);
  for (Operation *user : usersOf(input)) {
    Operation *at = block->findAncestorOpInBlock(*user);
    if (!at)
      return false;
    if (at == generic.getOperation() || at == op.getOperation() ||
        isa<memref::DeallocOp>(user) || !generic->isBeforeInBlock(at))
      continue;
    if (!deadAfterOp || at->isBeforeInBlock(op.getOperation()))
      return false;
  }
  // What the kernel writes (the GEMM's output, the epilogue's).
  SmallVector<Value> written{fx::viewedBuffer(op.getDpsInits()[0])};
  if (fusion.epilogue)
    written.push_back(fx::viewedBuffer(fusion.epilogue.getDpsInits()[0]));
  // Its inputs still hold what it read when the kernel reads them, and the
  // kernel does not write them. One that it wrote in place (EfficientNet's
  // scaling of the expanded activations) it read at the same element
  // only: the buffer keeps the value from before it.
  for (OpOperand *read : generic.getDpsInputOperands()) {
    Value source = read->get();
    if (!isa<MemRefType>(source.getType()))
      continue;
    auto readSet = aliasesOf(source);
    if (readSet.contains(fx::viewedBuffer(input)) &&
        (read->get() != buffer ||
         !generic.getMatchingIndexingMap(read).isIdentity()))
      return false;
    if (llvm::any_of(written,
                     [&](Value root) { return readSet.contains(root); }))
      return false;
    for (Operation *between = generic->getNextNode();
         between != op.getOperation(); between = between->getNextNode())
      if (mayWrite(between, readSet))
        return false;
  }
  fusion.prologue[operand] = generic;
  fusion.prologueView[operand] = view;
  fusion.maybeDead.push_back(buffer);
  return true;
}

Value loadGemmInput(OpBuilder &b, Location loc, linalg::LinalgOp op,
                    const GemmFusion &fusion, unsigned operand,
                    ArrayRef<Value> indices, Value &ok) {
  if (linalg::LinalgOp prologue = fusion.prologue[operand]) {
    // All its loops are parallel and its output map the identity: the
    // loops are the indices of the element (in the buffer under the op's
    // collapse_shape view, if any: each collapsed index delinearized over
    // its group of the buffer's dimensions).
    SmallVector<Value> bufferIndices(indices);
    if (memref::CollapseShapeOp view = fusion.prologueView[operand]) {
      ArrayRef<int64_t> shape = view.getSrcType().getShape();
      bufferIndices.clear();
      for (auto [index, group] :
           llvm::zip(indices, view.getReassociationIndices())) {
        SmallVector<int64_t> sizes;
        for (int64_t d : group)
          sizes.push_back(shape[d]);
        llvm::append_range(bufferIndices,
                           fx::delinearize(b, loc, index, sizes));
      }
    }
    indices = bufferIndices;
    IRMapping mapping;
    for (OpOperand *read : prologue.getDpsInputOperands()) {
      Value value = read->get();
      if (isa<MemRefType>(value.getType()))
        value = memref::LoadOp::create(b, loc, value,
                                       operandIndices(b, loc, prologue,
                                                      read->getOperandNumber(),
                                                      indices, Value()));
      mapping.map(prologue.getMatchingBlockArgument(read), value);
    }
    Block &body = *prologue.getBlock();
    for (Operation &inner : body.without_terminator())
      b.clone(inner, mapping);
    return mapping.lookupOrDefault(
        cast<linalg::YieldOp>(body.getTerminator()).getValues()[0]);
  }
  const std::optional<PaddedInput> &padded = fusion.padded[operand];
  if (!padded)
    return memref::LoadOp::create(b, loc, op.getDpsInputs()[operand], indices);
  return memref::LoadOp::create(
      b, loc, padded->source,
      indicesInPaddedSource(b, loc, *padded, indices, ok));
}

SmallVector<Value> indicesInPaddedSource(OpBuilder &b, Location loc,
                                         const PaddedInput &padded,
                                         ArrayRef<Value> indices, Value &ok) {
  // Unsigned: an index below the padding wraps around and fails the bound.
  SmallVector<Value> inner;
  for (auto [index, low, size] : llvm::zip(indices, padded.low, padded.sizes)) {
    Value shifted = index;
    if (low != 0)
      shifted = arith::SubIOp::create(
          b, loc, index, arith::ConstantIndexOp::create(b, loc, low));
    Value count = arith::ConstantIndexOp::create(b, loc, size);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         shifted, count);
    ok = ok ? arith::AndIOp::create(b, loc, ok, inside).getResult() : inside;
    inner.push_back(arith::SelectOp::create(
        b, loc, inside, shifted, arith::ConstantIndexOp::create(b, loc, 0)));
  }
  return inner;
}

SmallVector<Value> loadGemmEpilogueInputs(OpBuilder &b, Location loc,
                                          linalg::LinalgOp op,
                                          const GemmFusion &fusion,
                                          ArrayRef<Value> indices) {
  SmallVector<Value> loaded;
  linalg::GenericOp epilogue = fusion.epilogue;
  if (!epilogue)
    return loaded;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    if (readsAccumulator(op, epilogue, input)) {
      loaded.push_back(Value());
      continue;
    }
    SmallVector<Value> at =
        operandIndices(b, loc, epilogue, input->getOperandNumber(), indices,
                       /*zero=*/Value());
    loaded.push_back(memref::LoadOp::create(b, loc, input->get(), at));
  }
  return loaded;
}

GemmResult computeGemmResult(OpBuilder &b, Location loc, linalg::LinalgOp op,
                             const GemmFusion &fusion, Value acc,
                             ArrayRef<Value> indices,
                             ArrayRef<Value> loadedInputs) {
  GemmResult result{acc, Value()};
  linalg::GenericOp epilogue = fusion.epilogue;
  if (!epilogue)
    return result;
  // The epilogue's loops are the output's indices (its map of the output
  // and of its own result are identities).
  SmallVector<Value> loaded(loadedInputs);
  if (loaded.empty())
    loaded = loadGemmEpilogueInputs(b, loc, op, fusion, indices);
  Block &body = epilogue.getRegion().front();
  IRMapping mapping;
  for (auto [input, value] : llvm::zip(epilogue.getDpsInputOperands(), loaded))
    mapping.map(body.getArgument(input->getOperandNumber()),
                value ? value : acc);
  for (Operation &bodyOp : body.without_terminator())
    b.clone(bodyOp, mapping);
  result.epilogue =
      mapping.lookupOrDefault(body.getTerminator()->getOperand(0));
  return result;
}

void storeGemmValues(OpBuilder &b, Location loc, linalg::LinalgOp op,
                     const GemmFusion &fusion, const GemmResult &result,
                     ArrayRef<Value> indices) {
  if (fusion.storeAccumulator || !fusion.epilogue)
    memref::StoreOp::create(b, loc, result.acc, op.getDpsInits()[0], indices);
  if (linalg::GenericOp epilogue = fusion.epilogue)
    memref::StoreOp::create(b, loc, result.epilogue, epilogue.getDpsInits()[0],
                            indices);
}

Value emitReductionStep(OpBuilder &b, Location loc, linalg::LinalgOp op,
                        const GemmFusion &fusion, ArrayRef<Value> loops,
                        Value acc) {
  Block &body = op->getRegion(0).front();
  IRMapping mapping;
  for (unsigned operand = 0; operand < 2; ++operand) {
    SmallVector<Value> indices =
        operandIndices(b, loc, op, operand, loops, /*zero=*/Value());
    Value ok;
    Value value = loadGemmInput(b, loc, op, fusion, operand, indices, ok);
    // Outside the input: what its padding held (zero, or max pooling's
    // -inf).
    if (ok)
      value = arith::SelectOp::create(
          b, loc, ok, value,
          arith::ConstantOp::create(b, loc, fusion.padded[operand]->value));
    mapping.map(body.getArgument(operand), value);
  }
  mapping.map(body.getArgument(2), acc);
  for (Operation &inner : body.without_terminator())
    b.clone(inner, mapping);
  return mapping.lookup(
      cast<linalg::YieldOp>(body.getTerminator()).getValues()[0]);
}

void storeGemmResult(OpBuilder &b, Location loc, linalg::LinalgOp op,
                     const GemmFusion &fusion, Value acc,
                     ArrayRef<Value> indices) {
  storeGemmValues(b, loc, op, fusion,
                  computeGemmResult(b, loc, op, fusion, acc, indices), indices);
}

} // namespace mlir::fx::matmul
