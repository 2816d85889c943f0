//===- StreamingStores.cpp - non-temporal stores to large buffers --------===//
//
// A kernel that writes a buffer larger than the last-level cache (a
// 4096x4096 softmax's 64 MiB output) pays twice per cache line with
// ordinary stores: the line is first read from memory (a read for
// ownership), and the write evicts another line, which the consumer will
// not find in the cache anyway, since the buffer does not fit. Non-temporal
// stores write whole lines through write-combining buffers, without either.
// Measured with bench/cpu/streaming_stores.c on a Zen 5 (one thread, 4096x4096
// f32): a softmax-shaped row loop 4.06 -> 3.17 ms, y = 2x 2.89 -> 2.26 ms.
//
// On buffers, after fx-outline-forall: a parallel chunk is a function whose
// arguments are the buffers it reads and writes. An argument of at least
// `min-bytes` that the function only writes (every use, through
// memref.subview, is the base of a vector.transfer_write) has its qualifying
// writes turned into `vector.store {nontemporal = true}`: a write of a whole
// number of 64-byte lines, in bounds and unmasked, inside an scf.for, whose
// element offset in the buffer is provably a multiple of the vector's size
// (a known power of two divides every index term, scaled by the static
// strides). The buffer's own address is only known at run time, so the loop
// holding such writes is versioned on it: an scf.if runs a copy of the loop
// with the non-temporal stores where the address is aligned to the vector's
// size (the instructions need it), the original loop otherwise.
//
// Non-temporal stores are weakly ordered: before another thread reads the
// buffer (after the parallel loop's join) they must be fenced with sfence.
// LLVM lowers a sequentially consistent `fence` on x86 to a `lock or`, which
// does not order them on every CPU (Linux's mb() uses mfence for this
// reason), so the function ends with the x86 intrinsic itself: the pass is
// for x86-64 code only.
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUSTREAMINGSTORES
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// Bytes of a cache line: the smallest write worth a non-temporal store
/// (a partial line costs a read of the line by the write-combining buffer's
/// flush, or a partial write, on some CPUs).
constexpr int64_t kLineBytes = 64;

/// Cap on known trailing zero bits (a zero value is divisible by any power
/// of two).
constexpr unsigned kMaxZeros = 32;

/// How many trailing zero bits `index` provably has: constants, scf.for
/// induction variables (of their lower bound and step), sums and products
/// of those. Anything else (a function argument) has none.
unsigned knownZeros(OpFoldResult index, unsigned depth = 0) {
  if (std::optional<int64_t> c = getConstantIntValue(index))
    return *c == 0
               ? kMaxZeros
               : std::min<unsigned>(kMaxZeros, llvm::countr_zero(uint64_t(*c)));
  if (depth > 8)
    return 0;
  Value value = cast<Value>(index);
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg != loop.getInductionVar())
      return 0;
    return std::min(knownZeros(loop.getLowerBound(), depth + 1),
                    knownZeros(loop.getStep(), depth + 1));
  }
  Operation *op = value.getDefiningOp();
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(op))
    return std::min(knownZeros(op->getOperand(0), depth + 1),
                    knownZeros(op->getOperand(1), depth + 1));
  if (isa_and_nonnull<arith::MulIOp>(op))
    return std::min(kMaxZeros, knownZeros(op->getOperand(0), depth + 1) +
                                   knownZeros(op->getOperand(1), depth + 1));
  return 0;
}

/// Trailing zero bits of an element offset `index * stride`, given those
/// of the index, or -1 where the stride is dynamic.
int termZeros(unsigned indexZeros, int64_t stride) {
  if (ShapedType::isDynamic(stride))
    return -1;
  if (stride == 0 || indexZeros >= kMaxZeros)
    return kMaxZeros;
  return std::min<unsigned>(kMaxZeros,
                            indexZeros + llvm::countr_zero(uint64_t(stride)));
}

/// A write this pass turns into a non-temporal store: the buffer argument
/// it writes and the alignment (bytes) its store gets.
struct Candidate {
  vector::TransferWriteOp write;
  BlockArgument buffer;
  int64_t alignment;
};

/// The function argument `write` writes through subviews, with the known
/// trailing zero bits of its element offset in it; nullopt where the chain
/// has anything but static-strided subviews.
std::optional<std::pair<BlockArgument, unsigned>>
traceToArgument(vector::TransferWriteOp write) {
  unsigned zeros = kMaxZeros;
  auto addTerms = [&](ArrayRef<OpFoldResult> offsets, MemRefType type) -> bool {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)))
      return false;
    for (auto [index, stride] : llvm::zip(offsets, strides)) {
      int z = termZeros(knownZeros(index), stride);
      if (z < 0)
        return false;
      zeros = std::min<unsigned>(zeros, z);
    }
    return true;
  };
  auto destType = dyn_cast<MemRefType>(write.getBase().getType());
  if (!destType || !addTerms(getAsOpFoldResult(write.getIndices()), destType))
    return std::nullopt;
  Value base = write.getBase();
  while (auto view = base.getDefiningOp<memref::SubViewOp>()) {
    if (!addTerms(view.getMixedOffsets(), view.getSourceType()))
      return std::nullopt;
    base = view.getSource();
  }
  auto arg = dyn_cast<BlockArgument>(base);
  if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()))
    return std::nullopt;
  return std::make_pair(arg, zeros);
}

/// Whether every use of `buffer`, through subviews, is the base of a
/// vector.transfer_write.
bool onlyWritten(Value buffer) {
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (auto view = dyn_cast<memref::SubViewOp>(user)) {
      if (!onlyWritten(view.getResult()))
        return false;
      continue;
    }
    auto write = dyn_cast<vector::TransferWriteOp>(user);
    if (!write || use.get() != write.getBase())
      return false;
  }
  return true;
}

/// The write as a candidate, if it qualifies (see the file comment).
std::optional<Candidate> candidate(vector::TransferWriteOp write,
                                   int64_t minBytes) {
  VectorType type = write.getVectorType();
  if (type.getRank() == 0 || write.getMask() ||
      !write.getPermutationMap().isMinorIdentity() ||
      llvm::any_of(write.getInBoundsValues(), [](bool b) { return !b; }) ||
      !type.getElementType().isIntOrFloat() || type.isScalable() ||
      llvm::any_of(type.getShape().drop_back(),
                   [](int64_t d) { return d != 1; }))
    return std::nullopt;
  int64_t bits = type.getElementTypeBitWidth();
  if (bits % 8)
    return std::nullopt;
  int64_t bytes = type.getNumElements() * bits / 8;
  if (bytes < kLineBytes || !llvm::isPowerOf2_64(bytes))
    return std::nullopt;
  if (!write->getParentOfType<scf::ForOp>())
    return std::nullopt;
  auto traced = traceToArgument(write);
  if (!traced)
    return std::nullopt;
  auto [arg, zeros] = *traced;
  auto argType = dyn_cast<MemRefType>(arg.getType());
  if (!argType || !argType.hasStaticShape() ||
      !argType.getLayout().isIdentity() ||
      argType.getNumElements() * bits / 8 < minBytes)
    return std::nullopt;
  // The element offset times the element size must be a multiple of the
  // store's size (then of the line).
  unsigned needed = llvm::countr_zero(uint64_t(bytes)) -
                    llvm::countr_zero(uint64_t(bits / 8));
  if (zeros < needed)
    return std::nullopt;
  return Candidate{write, arg, bytes};
}

/// `write` as a non-temporal vector.store of its value flattened to 1-d.
void makeNonTemporal(vector::TransferWriteOp write, int64_t alignment) {
  OpBuilder b(write);
  Location loc = write.getLoc();
  Value value = write.getVector();
  VectorType type = write.getVectorType();
  if (type.getRank() != 1)
    value = vector::ShapeCastOp::create(
        b, loc, VectorType::get({type.getNumElements()}, type.getElementType()),
        value);
  vector::StoreOp::create(b, loc, value, write.getBase(), write.getIndices(),
                          /*nontemporal=*/true, llvm::MaybeAlign(alignment));
  write.erase();
}

struct StreamingStoresPass
    : public fx::impl::FXCPUStreamingStoresBase<StreamingStoresPass> {
  using Base::Base;

  void runOnOperation() override {
    if (minBytes <= 0)
      return;
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    // Candidates grouped by their innermost loop, in program order.
    llvm::MapVector<scf::ForOp, SmallVector<Candidate>> loops;
    llvm::DenseMap<Value, bool> writeOnly;
    func.walk([&](vector::TransferWriteOp write) {
      std::optional<Candidate> c = candidate(write, minBytes);
      if (!c)
        return;
      auto [it, inserted] = writeOnly.try_emplace(c->buffer, false);
      if (inserted)
        it->second = onlyWritten(c->buffer);
      if (!it->second)
        return;
      loops[write->getParentOfType<scf::ForOp>()].push_back(*c);
    });
    if (loops.empty())
      return;

    // Whether each buffer's address is aligned to an alignment, computed
    // once at the function's entry.
    Block &entry = func.getBody().front();
    OpBuilder atEntry = OpBuilder::atBlockBegin(&entry);
    llvm::DenseMap<std::pair<Value, int64_t>, Value> aligned;
    auto isAligned = [&](Value buffer, int64_t alignment) {
      auto [it, inserted] = aligned.try_emplace({buffer, alignment});
      if (inserted) {
        Location loc = func.getLoc();
        Value address = memref::ExtractAlignedPointerAsIndexOp::create(
            atEntry, loc, buffer);
        Value rest = arith::RemUIOp::create(
            atEntry, loc, address,
            arith::ConstantIndexOp::create(atEntry, loc, alignment));
        it->second = arith::CmpIOp::create(
            atEntry, loc, arith::CmpIPredicate::eq, rest,
            arith::ConstantIndexOp::create(atEntry, loc, 0));
      }
      return it->second;
    };

    bool changed = false;
    for (auto &[loop, writes] : loops) {
      // Loops with results would need them threaded through the scf.if;
      // the store loops this is for have none.
      if (loop->getNumResults())
        continue;
      OpBuilder b(loop);
      Location loc = loop.getLoc();
      Value condition;
      for (const Candidate &c : writes) {
        Value ok = isAligned(c.buffer, c.alignment);
        condition =
            condition ? arith::AndIOp::create(b, loc, condition, ok) : ok;
      }
      auto branch = scf::IfOp::create(b, loc, condition, /*withElse=*/true);
      IRMapping mapping;
      OpBuilder thenBuilder = branch.getThenBodyBuilder();
      thenBuilder.clone(*loop, mapping);
      for (Candidate &c : writes)
        makeNonTemporal(cast<vector::TransferWriteOp>(
                            mapping.lookup(c.write.getOperation())),
                        c.alignment);
      loop->moveBefore(branch.elseBlock()->getTerminator());
      changed = true;
    }
    if (!changed)
      return;
    // Fence the non-temporal stores before the function returns (and the
    // thread pool's join lets another thread read them).
    StringAttr sfence =
        StringAttr::get(func.getContext(), "llvm.x86.sse.sfence");
    func.walk([&](func::ReturnOp ret) {
      OpBuilder b(ret);
      LLVM::CallIntrinsicOp::create(b, ret.getLoc(), sfence, ValueRange{});
    });
  }
};

} // namespace
