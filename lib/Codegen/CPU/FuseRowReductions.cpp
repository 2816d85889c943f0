//===- FuseRowReductions.cpp - elementwise results and their reductions ---===//
//
// fx-cpu-fuse-row-reductions: see the pass description. On a Zen 5 EPYC
// (one thread, 4096x4096 f32): softmax's sum and layer norm's sum of
// squares were loops of their own over a row the loop before had just
// stored, each a pass over the row in the L1 cache.
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/CPU/Passes.h"
#include "fx/Transforms/LinalgUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUFUSEROWREDUCTIONS
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// The elementwise producer of input `operand` of `reduction` that the
/// two can merge into one generic, or null.
static linalg::GenericOp mergeableProducer(linalg::GenericOp reduction,
                                           OpOperand &operand) {
  auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
  if (!producer || producer->getBlock() != reduction->getBlock() ||
      producer.getNumDpsInits() != 1 ||
      producer.getNumParallelLoops() != producer.getNumLoops() ||
      !producer.hasPureTensorSemantics() ||
      producer.getNumLoops() != reduction.getNumLoops() ||
      producer.getStaticLoopRanges() != reduction.getStaticLoopRanges() ||
      !producer.getIndexingMapsArray().back().isIdentity() ||
      !reduction.getMatchingIndexingMap(&operand).isIdentity() ||
      operand.get().hasOneUse() || !fx::usedOnlyAfter(operand.get(), reduction))
    return nullptr;
  // The producer's init is not read (an elementwise op writes it whole).
  if (producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)))
    return nullptr;
  // linalg.index in the body would need remapping: not needed so far.
  bool indexed = false;
  producer.getBody()->walk([&](linalg::IndexOp) { indexed = true; });
  return indexed ? nullptr : producer;
}

/// Merges `producer` into `reduction` (reading the producer's result as
/// input `operand`): one generic with the producer's inputs and the
/// reduction's other inputs, the producer's init and the reduction's
/// inits; its body computes the producer's value, then the reduction's
/// with that value in place of the input.
static void merge(RewriterBase &rewriter, linalg::GenericOp producer,
                  linalg::GenericOp reduction, OpOperand &operand) {
  SmallVector<Value> inputs = producer.getDpsInputs();
  SmallVector<AffineMap> maps;
  for (OpOperand *in : producer.getDpsInputOperands())
    maps.push_back(producer.getMatchingIndexingMap(in));
  SmallVector<OpOperand *> otherInputs;
  for (OpOperand *in : reduction.getDpsInputOperands())
    if (in != &operand) {
      otherInputs.push_back(in);
      inputs.push_back(in->get());
      maps.push_back(reduction.getMatchingIndexingMap(in));
    }
  SmallVector<Value> inits = {producer.getDpsInits()[0]};
  maps.push_back(producer.getIndexingMapsArray().back());
  for (OpOperand &init : reduction.getDpsInitsMutable()) {
    inits.push_back(init.get());
    maps.push_back(reduction.getMatchingIndexingMap(&init));
  }
  SmallVector<Type> types = {producer.getResult(0).getType()};
  llvm::append_range(types, reduction.getResultTypes());

  rewriter.setInsertionPoint(reduction);
  auto merged =
      linalg::GenericOp::create(rewriter, reduction.getLoc(), types, inputs,
                                inits, maps, reduction.getIteratorTypesArray());
  Block *body = rewriter.createBlock(&merged.getRegion());
  Location loc = reduction.getLoc();
  IRMapping mapping;
  Block *producerBody = producer.getBody();
  Block *reductionBody = reduction.getBody();
  // Block arguments: the producer's inputs, the reduction's other inputs,
  // the producer's init, the reduction's inits.
  for (BlockArgument arg : producerBody->getArguments().drop_back())
    mapping.map(arg, body->addArgument(arg.getType(), loc));
  for (OpOperand *in : otherInputs)
    mapping.map(
        reductionBody->getArgument(in->getOperandNumber()),
        body->addArgument(
            reductionBody->getArgument(in->getOperandNumber()).getType(), loc));
  mapping.map(
      producerBody->getArguments().back(),
      body->addArgument(producerBody->getArguments().back().getType(), loc));
  for (OpOperand &init : reduction.getDpsInitsMutable())
    mapping.map(
        reductionBody->getArgument(init.getOperandNumber()),
        body->addArgument(
            reductionBody->getArgument(init.getOperandNumber()).getType(),
            loc));
  rewriter.setInsertionPointToStart(body);
  for (Operation &op : producerBody->without_terminator())
    rewriter.clone(op, mapping);
  Value value = mapping.lookupOrDefault(
      cast<linalg::YieldOp>(producerBody->getTerminator()).getOperand(0));
  mapping.map(reductionBody->getArgument(operand.getOperandNumber()), value);
  for (Operation &op : reductionBody->without_terminator())
    rewriter.clone(op, mapping);
  SmallVector<Value> yields = {value};
  for (Value v :
       cast<linalg::YieldOp>(reductionBody->getTerminator()).getOperands())
    yields.push_back(mapping.lookupOrDefault(v));
  linalg::YieldOp::create(rewriter, loc, yields);

  rewriter.replaceAllUsesWith(producer.getResult(0), merged.getResult(0));
  rewriter.replaceOp(reduction, merged.getResults().drop_front());
  rewriter.eraseOp(producer);
}

struct FuseRowReductionsPass
    : public fx::impl::FXCPUFuseRowReductionsBase<FuseRowReductionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> reductions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.getNumReductionLoops() > 0 && op.hasPureTensorSemantics())
        reductions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp reduction : reductions) {
      for (OpOperand *in : reduction.getDpsInputOperands()) {
        linalg::GenericOp producer = mergeableProducer(reduction, *in);
        if (!producer)
          continue;
        merge(rewriter, producer, reduction, *in);
        break;
      }
    }
  }
};

} // namespace
