//===- ConvsChannelsLast.cpp - the fx-convs-channels-last pass ------------===//
//
// NCHW convolutions and poolings computed in NHWC, with the layout changes
// pushed through the elementwise ops between them until they cancel (see
// the pass description in Passes.td).
//
// Written here rather than with upstream's data-layout propagation
// (linalg.pack/unpack bubbling) because the layout wanted is a plain
// permutation, which linalg.generic indexing maps express without new
// ops: a transpose is a generic, and pushing one through an elementwise
// generic is a permutation of that generic's loops.
//
//===----------------------------------------------------------------------===//

#include "fx/Transforms/LinalgUtils.h"
#include "fx/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCONVSCHANNELSLAST
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// NCHW -> NHWC and back, as `linalg.transpose` permutations (result
/// dimension i is source dimension perm[i]).
constexpr int64_t kToNHWC[] = {0, 2, 3, 1};
constexpr int64_t kToNCHW[] = {0, 3, 1, 2};

/// A transpose as a linalg.generic: reads `source` through the permutation
/// map, writes a new tensor in order.
Value createTranspose(OpBuilder &b, Location loc, Value source,
                      ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<int64_t> shape = applyPermutation(type.getShape(), perm);
  Value empty = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  // out[i] = source[j] with j[perm[k]] = i[k]: the source's dimension m is
  // loop invertPermutationVector(perm)[m].
  SmallVector<unsigned> inputDims;
  for (int64_t d : invertPermutationVector(perm))
    inputDims.push_back(d);
  MLIRContext *ctx = b.getContext();
  AffineMap in = AffineMap::getPermutationMap(inputDims, ctx);
  AffineMap out = AffineMap::getMultiDimIdentityMap(perm.size(), ctx);
  SmallVector<utils::IteratorType> iterators(perm.size(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{empty.getType()}, ValueRange{source},
             ValueRange{empty}, ArrayRef<AffineMap>{in, out}, iterators,
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc, args[0]);
             })
      .getResult(0);
}

/// Whether `op` is a transpose as createTranspose makes them (any generic
/// that copies its one input through a permutation map into an identity
/// output).
bool isTranspose(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.hasPureTensorSemantics())
    return false;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!maps[0].isPermutation() || !maps[1].isIdentity())
    return false;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  return body.getOperations().size() == 1 &&
         yield.getValues()[0] == body.getArgument(0);
}

/// The value `value` in the layout `perm` (NCHW -> NHWC and back): a fill of
/// an empty tensor is refilled, a constant pad is applied to the transposed
/// source, anything else is transposed.
Value inLayout(OpBuilder &b, Location loc, Value value,
               ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  if (auto fill = value.getDefiningOp<linalg::FillOp>()) {
    if (fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>()) {
      Value empty = tensor::EmptyOp::create(
          b, loc, applyPermutation(type.getShape(), perm),
          type.getElementType());
      return linalg::FillOp::create(b, loc, fill.getInputs()[0], empty)
          .getResult(0);
    }
  }
  if (auto pad = value.getDefiningOp<tensor::PadOp>()) {
    Value padding = pad.getConstantPaddingValue();
    if (padding && !pad.getStaticLow().empty() &&
        llvm::none_of(pad.getStaticLow(), ShapedType::isDynamic) &&
        llvm::none_of(pad.getStaticHigh(), ShapedType::isDynamic)) {
      Value source = inLayout(b, loc, pad.getSource(), perm);
      // A constant defined in the old pad's body is cloned here, where
      // the new pad's body can use it.
      if (padding.getParentRegion() == &pad.getRegion())
        padding = b.clone(*padding.getDefiningOp())->getResult(0);
      auto padType = RankedTensorType::get(
          applyPermutation(type.getShape(), perm), type.getElementType());
      return tensor::PadOp::create(
                 b, loc, padType, source,
                 getAsIndexOpFoldResult(
                     b.getContext(),
                     applyPermutation(pad.getStaticLow(), perm)),
                 getAsIndexOpFoldResult(
                     b.getContext(),
                     applyPermutation(pad.getStaticHigh(), perm)),
                 padding)
          .getResult();
    }
  }
  return createTranspose(b, loc, value, perm);
}

bool staticF32(Value value, int64_t rank) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getRank() == rank &&
         type.getElementType().isF32();
}

/// conv_2d_nchw_fchw -> NHWC: a 1x1 stride-1 one as a matmul of the
/// collapsed pixels by the filter ([F][C][1][1] is [F][C]), others as
/// conv_2d_nhwc_fhwc (a 1x1 filter reshaped, a larger one transposed).
LogicalResult rewriteConv(RewriterBase &b, linalg::Conv2DNchwFchwOp conv) {
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1],
        init = conv.getOutputs()[0];
  if (!conv.hasPureTensorSemantics() || !staticF32(input, 4) ||
      !staticF32(filter, 4) || !staticF32(init, 4))
    return failure();
  Location loc = conv.getLoc();
  b.setInsertionPoint(conv);
  auto filterType = cast<RankedTensorType>(filter.getType());
  ArrayRef<int64_t> f = filterType.getShape();
  bool pointwise = f[2] == 1 && f[3] == 1;
  bool unitStride = llvm::all_of(conv.getStrides().getValues<int64_t>(),
                                 [](int64_t s) { return s == 1; });
  Value x = inLayout(b, loc, input, kToNHWC);
  Value acc = inLayout(b, loc, init, kToNHWC);
  auto accType = cast<RankedTensorType>(acc.getType());
  Value result;
  if (pointwise && unitStride && !input.getDefiningOp<tensor::PadOp>()) {
    // [N][H][W][C] x [F][C] -> [N][H][W][F], as pixels by channels.
    SmallVector<ReassociationIndices> pixels = {{0, 1, 2}, {3}};
    SmallVector<ReassociationIndices> weights = {{0}, {1, 2, 3}};
    Value a = tensor::CollapseShapeOp::create(b, loc, x, pixels);
    Value w = tensor::CollapseShapeOp::create(b, loc, filter, weights);
    Value c = tensor::CollapseShapeOp::create(b, loc, acc, pixels);
    SmallVector<AffineMap> maps =
        fx::matmulIndexingMaps(b.getContext(), /*transposedB=*/true);
    SmallVector<utils::IteratorType> iterators = {
        utils::IteratorType::parallel, utils::IteratorType::parallel,
        utils::IteratorType::reduction};
    Value product =
        linalg::GenericOp::create(
            b, loc, TypeRange{c.getType()}, ValueRange{a, w}, ValueRange{c},
            maps, iterators,
            [](OpBuilder &nb, Location nloc, ValueRange args) {
              Value mul = arith::MulFOp::create(nb, nloc, args[0], args[1]);
              linalg::YieldOp::create(
                  nb, nloc,
                  arith::AddFOp::create(nb, nloc, args[2], mul).getResult());
            })
            .getResult(0);
    result = tensor::ExpandShapeOp::create(b, loc, accType, product, pixels);
  } else {
    Value w;
    if (pointwise) {
      // [F][C][1][1] and [F][1][1][C] are the same memory.
      Value flat = tensor::CollapseShapeOp::create(
          b, loc, filter, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
      w = tensor::ExpandShapeOp::create(
          b, loc,
          RankedTensorType::get(applyPermutation(f, kToNHWC),
                                filterType.getElementType()),
          flat, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
    } else {
      w = createTranspose(b, loc, filter, kToNHWC);
    }
    result = linalg::Conv2DNhwcFhwcOp::create(
                 b, loc, TypeRange{accType}, ValueRange{x, w}, ValueRange{acc},
                 conv.getStrides(), conv.getDilations())
                 .getResult(0);
  }
  b.replaceOp(conv, createTranspose(b, loc, result, kToNCHW));
  return success();
}

/// pooling_nchw_{max,sum} -> pooling_nhwc_{max,sum}.
template <typename NchwOp, typename NhwcOp>
LogicalResult rewritePool(RewriterBase &b, NchwOp pool) {
  Value input = pool.getInputs()[0], init = pool.getOutputs()[0];
  if (!pool.hasPureTensorSemantics() || !staticF32(input, 4) ||
      !staticF32(init, 4))
    return failure();
  Location loc = pool.getLoc();
  b.setInsertionPoint(pool);
  Value x = inLayout(b, loc, input, kToNHWC);
  Value acc = inLayout(b, loc, init, kToNHWC);
  Value result =
      NhwcOp::create(b, loc, TypeRange{acc.getType()},
                     ValueRange{x, pool.getInputs()[1]}, ValueRange{acc},
                     pool.getStrides(), pool.getDilations())
          .getResult(0);
  b.replaceOp(pool, createTranspose(b, loc, result, kToNCHW));
  return success();
}

/// A generic whose loops are all parallel and index its output in order,
/// whose initial value it does not read.
bool isElementwise(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.getIndexingMapsArray().back().isIdentity())
    return false;
  if (!op.getRegion().front().getOps<linalg::IndexOp>().empty())
    return false;
  return op.getMatchingBlockArgument(op.getDpsInitOperand(0)).use_empty();
}

/// The transpose PushTransposeDown moves past `op`: one `op` reads whose
/// shape is `op`'s (so that `op`'s loops can run in its source's order).
linalg::GenericOp pushableTranspose(linalg::GenericOp op) {
  if (!isElementwise(op) || isTranspose(op))
    return nullptr;
  auto type = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return nullptr;
  for (Value input : op.getDpsInputs())
    if (auto producer = input.getDefiningOp<linalg::GenericOp>())
      if (isTranspose(producer) && producer.getResult(0).getType() == type)
        return producer;
  return nullptr;
}

/// Reads of a transpose fold into the reading generic's indexing map:
/// `t = transpose(s)` read at M(d) is `s` read at P(M(d)), P the
/// transpose's input map. (Two transposes that undo each other become an
/// identity copy, which canonicalization erases.) Elementwise readers are
/// left to PushTransposeDown, which keeps them in the transpose's source
/// layout instead.
struct FoldTransposeIntoReader : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &b) const override {
    if (!op.hasPureTensorSemantics() || pushableTranspose(op))
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<Value> inputs(op.getDpsInputs());
    bool changed = false;
    for (auto [i, input] : llvm::enumerate(inputs)) {
      auto producer = input.getDefiningOp<linalg::GenericOp>();
      if (!producer || !isTranspose(producer))
        continue;
      maps[i] = producer.getIndexingMapsArray()[0].compose(maps[i]);
      inputs[i] = producer.getDpsInputs()[0];
      changed = true;
    }
    if (!changed)
      return failure();
    b.modifyOpInPlace(op, [&] {
      op.getInputsMutable().assign(inputs);
      op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

/// An elementwise generic reading a transpose computes in the transpose's
/// source layout instead, and its result is transposed for its readers:
/// `g(transpose(s), ...)` -> `transpose(g'(s, ...))`, g' the same body over
/// permuted loops. A convolution's epilogue then reads the NHWC result in
/// order (and fuses into its kernel), and the transpose meets the next
/// convolution's, which undoes it.
struct PushTransposeDown : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &b) const override {
    linalg::GenericOp transpose = pushableTranspose(op);
    if (!transpose)
      return failure();
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    // The transpose's permutation (result dimension i = source dimension
    // perm[i]) from its input map.
    AffineMap in = transpose.getIndexingMapsArray()[0];
    SmallVector<int64_t> inv;
    for (AffineExpr e : in.getResults())
      inv.push_back(cast<AffineDimExpr>(e).getPosition());
    SmallVector<int64_t> perm = invertPermutationVector(inv);
    // g' iterates the source layout: g's loop d_k (the transpose's result
    // dimension k) is the source's dimension perm[k], loop e_{perm[k]} of
    // g'. Each map M of g becomes M o S, S(e) = d with d_k = e_{perm[k]}.
    MLIRContext *ctx = b.getContext();
    SmallVector<unsigned> sDims(perm.begin(), perm.end());
    AffineMap s = AffineMap::getPermutationMap(sDims, ctx);
    SmallVector<AffineMap> maps;
    SmallVector<Value> inputs;
    for (OpOperand *operand : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(operand).compose(s);
      Value value = operand->get();
      // Every transpose read folds into its map (the pushed one's becomes
      // the identity).
      if (auto producer = value.getDefiningOp<linalg::GenericOp>();
          producer && isTranspose(producer)) {
        map = producer.getIndexingMapsArray()[0].compose(map);
        value = producer.getDpsInputs()[0];
      }
      maps.push_back(map);
      inputs.push_back(value);
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(perm.size(), ctx));
    auto sourceType =
        cast<RankedTensorType>(transpose.getDpsInputs()[0].getType());
    SmallVector<int64_t> shape(sourceType.getShape());
    Location loc = op.getLoc();
    Value empty = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
    auto moved = linalg::GenericOp::create(b, loc, TypeRange{empty.getType()},
                                           inputs, ValueRange{empty}, maps,
                                           op.getIteratorTypesArray());
    b.inlineRegionBefore(op.getRegion(), moved.getRegion(),
                         moved.getRegion().begin());
    b.replaceOp(op, createTranspose(b, loc, moved.getResult(0), perm));
    return success();
  }
};

struct ConvsChannelsLastPass
    : public fx::impl::FXConvsChannelsLastBase<ConvsChannelsLastPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::Conv2DNchwFchwOp, linalg::PoolingNchwMaxOp,
              linalg::PoolingNchwSumOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
        (void)rewriteConv(rewriter, conv);
      else if (auto pool = dyn_cast<linalg::PoolingNchwMaxOp>(op))
        (void)rewritePool<linalg::PoolingNchwMaxOp, linalg::PoolingNhwcMaxOp>(
            rewriter, pool);
      else if (auto pool = dyn_cast<linalg::PoolingNchwSumOp>(op))
        (void)rewritePool<linalg::PoolingNchwSumOp, linalg::PoolingNhwcSumOp>(
            rewriter, pool);
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldTransposeIntoReader, PushTransposeDown>(&getContext());
    linalg::GenericOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::PadOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
