//===- TransposeGemmsForEpilogues.cpp - channels-last linears, NCHW adds --===//
//
// fx-transpose-gemms-for-epilogues: a linear layer over channels-last
// pixels whose result an NCHW elementwise op reads through the permutation
// (ConvNeXt's layer scale and residual add after its second linear layer)
// is computed transposed, channels by pixels, and the elementwise op over
// the same two dimensions, so that the GEMM kernel takes it as its
// epilogue instead of it running as a kernel of its own.
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/SPIRV/Passes.h"
#include "fx/Transforms/LinalgUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXTRANSPOSEGEMMSFOREPILOGUES
#include "fx/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// A matmul of pixels by a transposed weight, `out[p, c] = sum_k x[p, k] *
/// w[c, k]` (linalg.matmul with those maps), from a zero fill.
static bool isLinearMatmul(linalg::MatmulOp mm) {
  if (mm.getIndexingMapsArray() !=
          fx::matmulIndexingMaps(mm.getContext(), /*transposedB=*/true) ||
      !mm.hasPureTensorSemantics())
    return false;
  auto fill = mm.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  return matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}

/// A generic whose loops are all parallel, whose output is indexed by them
/// as they are and not read.
static bool isElementwise(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() && op.getNumDpsInits() == 1 &&
         op.getNumParallelLoops() == op.getNumLoops() &&
         op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() &&
         op.getRegionOutputArgs()[0].use_empty();
}

struct Rewrite {
  linalg::GenericOp consumer;
  unsigned operand;
  tensor::ExpandShapeOp expand;
  linalg::GenericOp bias; // May be null.
  linalg::MatmulOp matmul;
};

/// Matches `consumer` reading operand `operand`, [1, H, W, C] expanded from
/// a [H * W, C] matmul result (through one elementwise generic at most),
/// with its loops (n, c, h, w) as (n, h, w, c).
static std::optional<Rewrite> match(linalg::GenericOp consumer,
                                    unsigned operand) {
  if (!isElementwise(consumer) || consumer.getNumLoops() != 4)
    return std::nullopt;
  OpOperand *use = consumer.getDpsInputOperand(operand);
  MLIRContext *ctx = consumer.getContext();
  AffineExpr n, c, h, w;
  bindDims(ctx, n, c, h, w);
  if (consumer.getMatchingIndexingMap(use) !=
      AffineMap::get(4, 0, {n, h, w, c}, ctx))
    return std::nullopt;
  auto expand = use->get().getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand || !expand->hasOneUse())
    return std::nullopt;
  auto resultType = expand.getResultType();
  auto sourceType = expand.getSrcType();
  SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
  if (!resultType.hasStaticShape() || resultType.getRank() != 4 ||
      resultType.getDimSize(0) != 1 || sourceType.getRank() != 2 ||
      groups.size() != 2 || groups[0] != ReassociationIndices{0, 1, 2})
    return std::nullopt;
  Rewrite r{consumer, operand, expand, nullptr, nullptr};
  Value source = expand.getSrc();
  if (auto generic = source.getDefiningOp<linalg::GenericOp>()) {
    if (!generic->hasOneUse() || !isElementwise(generic) ||
        generic.getNumLoops() != 2)
      return std::nullopt;
    for (OpOperand *input : generic.getDpsInputOperands())
      if (auto mm = input->get().getDefiningOp<linalg::MatmulOp>()) {
        if (r.matmul || !generic.getMatchingIndexingMap(input).isIdentity())
          return std::nullopt;
        r.matmul = mm;
      }
    r.bias = generic;
  } else {
    r.matmul = source.getDefiningOp<linalg::MatmulOp>();
  }
  if (!r.matmul || !r.matmul->hasOneUse() || !isLinearMatmul(r.matmul))
    return std::nullopt;
  return r;
}

/// The map over loops (c, p) that reads what `map` read over (n, c, h, w),
/// with `operand` collapsed where it is indexed by (h, w) together; null
/// where that is not possible (h or w alone, n on a dimension of size
/// more than 1).
static AffineMap collapseMap(AffineMap map, ShapedType type,
                             std::optional<unsigned> &hwAt) {
  MLIRContext *ctx = map.getContext();
  AffineExpr c = getAffineDimExpr(0, ctx), p = getAffineDimExpr(1, ctx);
  SmallVector<AffineExpr> results;
  hwAt.reset();
  for (unsigned i = 0; i < map.getNumResults(); ++i) {
    AffineExpr e = map.getResult(i);
    if (auto constant = dyn_cast<AffineConstantExpr>(e)) {
      results.push_back(constant);
      continue;
    }
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      return AffineMap();
    switch (dim.getPosition()) {
    case 0:
      if (type.getDimSize(i) != 1)
        return AffineMap();
      results.push_back(getAffineConstantExpr(0, ctx));
      break;
    case 1:
      results.push_back(c);
      break;
    case 2: {
      auto next = i + 1 < map.getNumResults()
                      ? dyn_cast<AffineDimExpr>(map.getResult(i + 1))
                      : nullptr;
      if (!next || next.getPosition() != 3 || hwAt)
        return AffineMap();
      hwAt = i;
      results.push_back(p);
      ++i;
      break;
    }
    default:
      return AffineMap();
    }
  }
  return AffineMap::get(2, 0, results, ctx);
}

static LogicalResult apply(RewriterBase &rewriter, Rewrite r) {
  linalg::GenericOp consumer = r.consumer;
  Location loc = consumer.getLoc();
  auto outType = cast<RankedTensorType>(consumer.getResultTypes()[0]);
  int64_t channels = outType.getDimSize(1),
          pixels = outType.getDimSize(2) * outType.getDimSize(3);
  auto mmType = cast<RankedTensorType>(r.matmul.getResultTypes()[0]);
  if (mmType.getDimSize(0) != pixels || mmType.getDimSize(1) != channels)
    return failure();
  // The consumer's other operands over (c, p), before anything is built.
  SmallVector<AffineMap> maps;
  SmallVector<std::optional<unsigned>> collapseAt;
  for (OpOperand *input : consumer.getDpsInputOperands()) {
    if (input->getOperandNumber() == r.operand) {
      maps.push_back(
          AffineMap::getMultiDimIdentityMap(2, rewriter.getContext()));
      collapseAt.push_back(std::nullopt);
      continue;
    }
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (!type || !type.hasStaticShape())
      return failure();
    std::optional<unsigned> at;
    AffineMap map =
        collapseMap(consumer.getMatchingIndexingMap(input), type, at);
    if (!map)
      return failure();
    maps.push_back(map);
    collapseAt.push_back(at);
  }
  rewriter.setInsertionPoint(consumer);
  // The consumer's other operands, collapsed before the GEMM (views
  // between the GEMM and its epilogue would keep them apart).
  SmallVector<Value> inputs;
  for (auto [i, input] : llvm::enumerate(consumer.getDpsInputOperands())) {
    if (input->getOperandNumber() == r.operand) {
      inputs.push_back(nullptr);
      continue;
    }
    Value value = input->get();
    if (std::optional<unsigned> at = collapseAt[i]) {
      auto type = cast<RankedTensorType>(value.getType());
      SmallVector<ReassociationIndices> groups;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (d == int64_t(*at) + 1)
          continue;
        groups.push_back(d == int64_t(*at) ? ReassociationIndices{d, d + 1}
                                           : ReassociationIndices{d});
      }
      value = tensor::CollapseShapeOp::create(rewriter, loc, value, groups);
    }
    inputs.push_back(value);
  }
  Type element = mmType.getElementType();
  auto transposedType = RankedTensorType::get({channels, pixels}, element);
  // The matmul with its operands swapped: channels by pixels.
  auto fill = r.matmul.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  Value empty = tensor::EmptyOp::create(rewriter, loc,
                                        transposedType.getShape(), element);
  Value zero = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
                   .getResult(0);
  Operation *mm = rewriter.clone(*r.matmul);
  mm->setOperand(0, r.matmul.getDpsInputs()[1]);
  mm->setOperand(1, r.matmul.getDpsInputs()[0]);
  mm->setOperand(2, zero);
  mm->getResult(0).setType(transposedType);
  Value transposed = mm->getResult(0);
  // Its elementwise consumer (the bias) with its two loops swapped.
  if (r.bias) {
    AffineMap swap = AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0},
                                                  rewriter.getContext());
    SmallVector<Value> inputs;
    SmallVector<AffineMap> biasMaps;
    for (OpOperand *input : r.bias.getDpsInputOperands()) {
      if (input->get() == r.matmul->getResult(0)) {
        inputs.push_back(transposed);
        biasMaps.push_back(
            AffineMap::getMultiDimIdentityMap(2, rewriter.getContext()));
        continue;
      }
      inputs.push_back(input->get());
      biasMaps.push_back(r.bias.getMatchingIndexingMap(input).compose(swap));
    }
    biasMaps.push_back(
        AffineMap::getMultiDimIdentityMap(2, rewriter.getContext()));
    Value biasInit = tensor::EmptyOp::create(
        rewriter, loc, transposedType.getShape(), element);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{transposedType}, inputs, ValueRange{biasInit},
        biasMaps,
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel));
    generic->setDiscardableAttrs(r.bias->getDiscardableAttrDictionary());
    rewriter.cloneRegionBefore(r.bias.getRegion(), generic.getRegion(),
                               generic.getRegion().begin());
    transposed = generic.getResult(0);
  }
  // The consumer over (c, p).
  for (Value &input : inputs)
    if (!input)
      input = transposed;
  maps.push_back(AffineMap::getMultiDimIdentityMap(2, rewriter.getContext()));
  auto resultType =
      RankedTensorType::get({channels, pixels}, outType.getElementType());
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                       outType.getElementType());
  auto collapsed = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel));
  collapsed->setDiscardableAttrs(consumer->getDiscardableAttrDictionary());
  rewriter.cloneRegionBefore(consumer.getRegion(), collapsed.getRegion(),
                             collapsed.getRegion().begin());
  Value result = tensor::ExpandShapeOp::create(
      rewriter, loc, outType, collapsed.getResult(0),
      SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
  // The inits that the rewrite may leave unused (erased at the end).
  llvm::SetVector<Operation *> inits;
  for (Value v : {consumer.getDpsInits()[0], fill.getDpsInits()[0], init})
    inits.insert(v.getDefiningOp());
  if (r.bias) {
    inits.insert(r.bias.getDpsInits()[0].getDefiningOp());
    inits.insert(transposed.getDefiningOp<linalg::GenericOp>()
                     .getDpsInits()[0]
                     .getDefiningOp());
  }
  auto eraseDeadInits = [&] {
    for (Operation *op : inits)
      if (isa_and_nonnull<tensor::EmptyOp>(op) && op->use_empty())
        rewriter.eraseOp(op);
  };
  rewriter.replaceOp(consumer, result);
  rewriter.eraseOp(r.expand);
  if (r.bias)
    rewriter.eraseOp(r.bias);
  rewriter.eraseOp(r.matmul);
  if (fill->use_empty())
    rewriter.eraseOp(fill);
  // The bias into the consumer: the GEMM's epilogue is then one op.
  if (!r.bias) {
    eraseDeadInits();
    return success();
  }
  for (OpOperand *input : collapsed.getDpsInputOperands()) {
    if (input->get() != transposed || !linalg::areElementwiseOpsFusable(input))
      continue;
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, input);
    if (failed(fused))
      break;
    for (auto [from, to] : fused->replacements)
      rewriter.replaceAllUsesExcept(from, to, fused->fusedOp);
    // The fused op comes where the fusion put it; the expansion after it.
    if (Operation *expandBack = result.getDefiningOp();
        expandBack && fused->fusedOp->getBlock() == expandBack->getBlock() &&
        expandBack->isBeforeInBlock(fused->fusedOp))
      expandBack->moveAfter(fused->fusedOp);
    if (collapsed->use_empty())
      rewriter.eraseOp(collapsed);
    if (transposed.use_empty())
      rewriter.eraseOp(transposed.getDefiningOp());
    break;
  }
  eraseDeadInits();
  return success();
}

struct TransposeGemmsForEpiloguesPass
    : fx::impl::FXTransposeGemmsForEpiloguesBase<
          TransposeGemmsForEpiloguesPass> {
  void runOnOperation() override {
    SmallVector<Rewrite> rewrites;
    getOperation().walk([&](linalg::GenericOp op) {
      for (unsigned i = 0; i < op.getNumDpsInputs(); ++i)
        if (std::optional<Rewrite> r = match(op, i)) {
          rewrites.push_back(*r);
          break;
        }
    });
    IRRewriter rewriter(&getContext());
    for (Rewrite &r : rewrites)
      (void)apply(rewriter, r);
  }
};

} // namespace
