//===- FuseRowReductions.cpp - elementwise results and their reductions ---===//
//
// fx-cpu-fuse-row-reductions: see the pass description. On a Zen 5 EPYC
// (one thread, 4096x4096 f32): softmax's sum and layer norm's sum of
// squares were loops of their own over a row the loop before had just
// stored, each a pass over the row in the L1 cache. Cheap values (a layer
// norm's x - mean) are not stored at all: each reader computes them.
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/CPU/Passes.h"
#include "fx/Transforms/LinalgUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUFUSEROWREDUCTIONS
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// Most operations in the body of an elementwise producer that its readers
/// compute again instead of reading it from a stored row.
constexpr int64_t kMaxRecomputedOps = 2;

/// Whether `producer`, an elementwise generic of one result, and `consumer`
/// (reading it as input `operand`) can become one generic: the same block,
/// the same static loop ranges, identity maps on both sides of the value,
/// a producer that does not read its init or use linalg.index.
static bool fusable(linalg::GenericOp producer, linalg::GenericOp consumer,
                    OpOperand &operand) {
  if (producer->getBlock() != consumer->getBlock() ||
      producer.getNumDpsInits() != 1 ||
      producer.getNumParallelLoops() != producer.getNumLoops() ||
      !producer.hasPureTensorSemantics() ||
      !consumer.hasPureTensorSemantics() ||
      producer.getNumLoops() != consumer.getNumLoops() ||
      producer.getStaticLoopRanges() != consumer.getStaticLoopRanges() ||
      !producer.getIndexingMapsArray().back().isIdentity() ||
      !consumer.isDpsInput(&operand) ||
      !consumer.getMatchingIndexingMap(&operand).isIdentity())
    return false;
  // The producer's init is not read (an elementwise op writes it whole).
  if (producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)))
    return false;
  // linalg.index in the body would need remapping: not needed so far.
  bool indexed = false;
  producer.getBody()->walk([&](linalg::IndexOp) { indexed = true; });
  return !indexed;
}

/// The elementwise producer of input `operand` of `reduction` that the
/// two can merge into one generic, or null.
static linalg::GenericOp mergeableProducer(linalg::GenericOp reduction,
                                           OpOperand &operand) {
  auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
  if (!producer || !fusable(producer, reduction, operand) ||
      operand.get().hasOneUse() || !fx::usedOnlyAfter(operand.get(), reduction))
    return nullptr;
  return producer;
}

/// Whether every reader of `producer`'s value (several) is better off
/// computing it again: a body of at most kMaxRecomputedOps arithmetic
/// operations (no math function) with exactly one input of the whole
/// iteration space (the row; the others are per-row or per-column values
/// that stay in the cache), each reader a generic it can fuse into. A layer
/// norm's x - mean: stored and read back, one Zen 4 thread took 4.6-5.1 ms
/// for a 4096x4096 layer norm written in C with AVX-512 intrinsics, 3.2-3.5
/// ms computed twice (the row is in the L1 cache for both).
static bool recomputedByReaders(linalg::GenericOp producer) {
  Value value = producer->getResult(0);
  if (producer->getNumResults() != 1 || value.use_empty() || value.hasOneUse())
    return false;
  int64_t ops = 0;
  for (Operation &op : producer.getBody()->without_terminator()) {
    if (!isa<arith::ArithDialect>(op.getDialect()))
      return false;
    ++ops;
  }
  if (ops > kMaxRecomputedOps)
    return false;
  // Exactly one: with none (a broadcast), the readers' loops that only the
  // value spanned would have no operand to take their size from.
  if (llvm::count_if(producer.getDpsInputOperands(), [&](OpOperand *in) {
        return producer.getMatchingIndexingMap(in).isIdentity();
      }) != 1)
    return false;
  return llvm::all_of(value.getUses(), [&](OpOperand &use) {
    auto reader = dyn_cast<linalg::GenericOp>(use.getOwner());
    return reader && fusable(producer, reader, use);
  });
}

/// Replaces `consumer` (reading `producer`'s value as input `operand`) by
/// one generic with the producer's inputs and the consumer's other inputs
/// and its inits; its body computes the producer's value, then the
/// consumer's with that value in place of the input. With `keepValue` it
/// also writes the value (into the producer's init, its first result),
/// which then replaces the producer's; else the producer stays for its
/// other readers.
static void fuseProducer(RewriterBase &rewriter, linalg::GenericOp producer,
                         linalg::GenericOp consumer, OpOperand &operand,
                         bool keepValue) {
  SmallVector<Value> inputs = producer.getDpsInputs();
  SmallVector<AffineMap> maps;
  for (OpOperand *in : producer.getDpsInputOperands())
    maps.push_back(producer.getMatchingIndexingMap(in));
  SmallVector<OpOperand *> otherInputs;
  for (OpOperand *in : consumer.getDpsInputOperands())
    if (in != &operand) {
      otherInputs.push_back(in);
      inputs.push_back(in->get());
      maps.push_back(consumer.getMatchingIndexingMap(in));
    }
  SmallVector<Value> inits;
  SmallVector<Type> types;
  if (keepValue) {
    inits.push_back(producer.getDpsInits()[0]);
    maps.push_back(producer.getIndexingMapsArray().back());
    types.push_back(producer.getResult(0).getType());
  }
  for (OpOperand &init : consumer.getDpsInitsMutable()) {
    inits.push_back(init.get());
    maps.push_back(consumer.getMatchingIndexingMap(&init));
  }
  llvm::append_range(types, consumer.getResultTypes());

  rewriter.setInsertionPoint(consumer);
  auto fused =
      linalg::GenericOp::create(rewriter, consumer.getLoc(), types, inputs,
                                inits, maps, consumer.getIteratorTypesArray());
  Block *body = rewriter.createBlock(&fused.getRegion());
  Location loc = consumer.getLoc();
  IRMapping mapping;
  Block *producerBody = producer.getBody();
  Block *consumerBody = consumer.getBody();
  // Block arguments: the producer's inputs, the consumer's other inputs,
  // the producer's init (with keepValue), the consumer's inits.
  auto addArgument = [&](BlockArgument arg) {
    mapping.map(arg, body->addArgument(arg.getType(), loc));
  };
  for (BlockArgument arg : producerBody->getArguments().drop_back())
    addArgument(arg);
  for (OpOperand *in : otherInputs)
    addArgument(consumerBody->getArgument(in->getOperandNumber()));
  if (keepValue)
    addArgument(producerBody->getArguments().back());
  for (OpOperand &init : consumer.getDpsInitsMutable())
    addArgument(consumerBody->getArgument(init.getOperandNumber()));
  rewriter.setInsertionPointToStart(body);
  for (Operation &op : producerBody->without_terminator())
    rewriter.clone(op, mapping);
  Value value = mapping.lookupOrDefault(
      cast<linalg::YieldOp>(producerBody->getTerminator()).getOperand(0));
  mapping.map(consumerBody->getArgument(operand.getOperandNumber()), value);
  for (Operation &op : consumerBody->without_terminator())
    rewriter.clone(op, mapping);
  SmallVector<Value> yields;
  if (keepValue)
    yields.push_back(value);
  for (Value v :
       cast<linalg::YieldOp>(consumerBody->getTerminator()).getOperands())
    yields.push_back(mapping.lookupOrDefault(v));
  linalg::YieldOp::create(rewriter, loc, yields);

  if (keepValue) {
    rewriter.replaceAllUsesWith(producer.getResult(0), fused.getResult(0));
    rewriter.replaceOp(consumer, fused.getResults().drop_front());
    rewriter.eraseOp(producer);
  } else {
    rewriter.replaceOp(consumer, fused.getResults());
  }
}

struct FuseRowReductionsPass
    : public fx::impl::FXCPUFuseRowReductionsBase<FuseRowReductionsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Cheap values first: computed again by each reader, never stored.
    // One at a time, found anew each time: fusing replaces the readers,
    // which may be cheap values of their own.
    while (true) {
      linalg::GenericOp producer;
      getOperation().walk([&](linalg::GenericOp op) {
        if (!recomputedByReaders(op))
          return WalkResult::advance();
        producer = op;
        return WalkResult::interrupt();
      });
      if (!producer)
        break;
      while (!producer->use_empty()) {
        OpOperand &use = *producer->getUses().begin();
        fuseProducer(rewriter, producer,
                     cast<linalg::GenericOp>(use.getOwner()), use,
                     /*keepValue=*/false);
      }
      rewriter.eraseOp(producer);
    }
    // The others: one walk computes and stores the value and its
    // reduction.
    SmallVector<linalg::GenericOp> reductions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.getNumReductionLoops() > 0 && op.hasPureTensorSemantics())
        reductions.push_back(op);
    });
    for (linalg::GenericOp reduction : reductions) {
      for (OpOperand *in : reduction.getDpsInputOperands()) {
        linalg::GenericOp producer = mergeableProducer(reduction, *in);
        if (!producer)
          continue;
        fuseProducer(rewriter, producer, reduction, *in, /*keepValue=*/true);
        break;
      }
    }
  }
};

} // namespace
