//===- Attention.cpp - embedding and scaled_dot_product_attention ---------===//

#include "Patterns.h"
#include "Utils.h"

#include "fx/Dialect/FX/IR/FXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::tolinalg;

namespace {

struct EmbeddingPattern : OpConversionPattern<EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value weight = adaptor.getWeight(), indices = adaptor.getIndices();
    RankedTensorType resultType = op.getType();
    int64_t rank = resultType.getRank();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, indices);
    sizes.push_back(getSizes(rewriter, loc, weight)[1]);
    Value rows = tensor::DimOp::create(rewriter, loc, weight, 0);
    Value result = createGeneric(
        rewriter, loc, indices, getDropDimsMap(ctx, rank, {rank - 1}),
        resultType, sizes, [&](OpBuilder &b, Location l, ValueRange args) {
          Value row =
              arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          // Out-of-range ids would read outside the table; PyTorch raises an
          // IndexError. They are clamped into the table here instead.
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value last = arith::SubIOp::create(
              b, l, rows, arith::ConstantIndexOp::create(b, l, 1));
          row = arith::MaxSIOp::create(
              b, l, arith::MinSIOp::create(b, l, row, last), zero);
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          return tensor::ExtractOp::create(b, l, weight, ValueRange{row, col})
              .getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct AttentionPattern : OpConversionPattern<ScaledDotProductAttentionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScaledDotProductAttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    Type t = getComputeType(element);
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    auto qType = cast<RankedTensorType>(q.getType());
    auto kType = cast<RankedTensorType>(k.getType());
    auto vType = cast<RankedTensorType>(v.getType());
    int64_t rank = qType.getRank();

    // Collapse the batch dimensions into one: [B, L, E] etc.
    SmallVector<OpFoldResult> qSizes = getSizes(rewriter, loc, q);
    SmallVector<OpFoldResult> kSizes = getSizes(rewriter, loc, k);
    SmallVector<OpFoldResult> vSizes = getSizes(rewriter, loc, v);
    Value batch = arith::ConstantIndexOp::create(rewriter, loc, 1);
    int64_t staticBatch = 1;
    for (int64_t i = 0; i < rank - 2; ++i) {
      batch = arith::MulIOp::create(rewriter, loc, batch,
                                    getIndexValue(rewriter, loc, qSizes[i]));
      int64_t d = resultType.getDimSize(i);
      staticBatch =
          ShapedType::isDynamic(d) || ShapedType::isDynamic(staticBatch)
              ? ShapedType::kDynamic
              : staticBatch * d;
    }
    auto to3d = [&](Value x, RankedTensorType type,
                    ArrayRef<OpFoldResult> sizes) {
      auto t3 = RankedTensorType::get(
          {staticBatch, type.getDimSize(rank - 2), type.getDimSize(rank - 1)},
          type.getElementType());
      return reshapeTo(rewriter, loc, x, t3,
                       {batch, sizes[rank - 2], sizes[rank - 1]});
    };
    Value q3 = to3d(q, qType, qSizes), k3 = to3d(k, kType, kSizes),
          v3 = to3d(v, vType, vSizes);
    int64_t l = qType.getDimSize(rank - 2), s = kType.getDimSize(rank - 2);
    int64_t e = qType.getDimSize(rank - 1), ev = vType.getDimSize(rank - 1);
    OpFoldResult lSize = qSizes[rank - 2], sSize = kSizes[rank - 2];

    // scores = q @ k^T, accumulated in the compute type.
    auto kt = linalg::TransposeOp::create(
        rewriter, loc, k3,
        createEmpty(
            rewriter, loc,
            RankedTensorType::get({staticBatch, e, s}, kType.getElementType()),
            {batch, kSizes[rank - 1], sSize}),
        ArrayRef<int64_t>{0, 2, 1});
    auto scoresType = RankedTensorType::get({staticBatch, l, s}, t);
    SmallVector<OpFoldResult> scoreSizes = {batch, lSize, sSize};
    Value zero = createScalarConstant(rewriter, loc, t, 0);
    Value scores =
        linalg::BatchMatmulOp::create(
            rewriter, loc, TypeRange{scoresType},
            ValueRange{q3, kt.getResult()[0]},
            createFilled(rewriter, loc, scoresType, scoreSizes, zero))
            .getResult(0);

    // Scale, then mask: a float mask is added; a bool mask and causality
    // set excluded positions to -inf.
    double scale = op.getScale() ? op.getScale()->convertToDouble()
                                 : 1.0 / std::sqrt(static_cast<double>(e));
    if (ShapedType::isDynamic(e) && !op.getScale())
      return op.emitOpError("a dynamic embedding size needs an explicit scale "
                            "in the linalg lowering");
    SmallVector<Value> inputs = {scores};
    Value mask = adaptor.getAttnMask();
    if (mask) {
      // Broadcast the mask to [..., L, S], then collapse the batch dims.
      SmallVector<int64_t> full(resultType.getShape().drop_back(2));
      full.append({l, s});
      auto maskType = cast<RankedTensorType>(mask.getType());
      Value expanded = createElementwise(
          rewriter, loc, op, mask,
          RankedTensorType::get(full, maskType.getElementType()),
          [](OpBuilder &, Location, ValueRange args) { return args[0]; });
      SmallVector<OpFoldResult> fullSizes(ArrayRef(qSizes).drop_back(2));
      fullSizes.append({lSize, sSize});
      inputs.push_back(reshapeTo(
          rewriter, loc, expanded,
          RankedTensorType::get({staticBatch, l, s}, maskType.getElementType()),
          {batch, lSize, sSize}));
    }
    bool causal = op.getIsCausal();
    AffineMap id3 = AffineMap::getMultiDimIdentityMap(3, ctx);
    SmallVector<AffineMap> maps(inputs.size(), id3);
    Value masked = createGeneric(
        rewriter, loc, inputs, maps, scoresType, scoreSizes,
        [&](OpBuilder &b, Location nl, ValueRange args) {
          Value x = arith::MulFOp::create(
              b, nl, args[0], createScalarConstant(b, nl, t, scale));
          Value negInf = createExtremeConstant(b, nl, t, /*lowest=*/true);
          if (args.size() > 1) {
            if (args[1].getType().isInteger(1))
              x = arith::SelectOp::create(b, nl, args[1], x, negInf);
            else
              x = arith::AddFOp::create(b, nl, x,
                                        convertScalar(b, nl, args[1], t));
          }
          if (causal) {
            Value i = linalg::IndexOp::create(b, nl, 1);
            Value j = linalg::IndexOp::create(b, nl, 2);
            Value future =
                arith::CmpIOp::create(b, nl, arith::CmpIPredicate::ugt, j, i);
            x = arith::SelectOp::create(b, nl, future, negInf, x);
          }
          return x;
        });

    // Softmax over S.
    AffineMap rows = getDropDimsMap(ctx, 3, {2});
    Value max = createReduction(
        rewriter, loc, masked, {2}, t,
        createExtremeConstant(rewriter, loc, t, true),
        [](OpBuilder &b, Location nl, Value x, Value a) -> Value {
          return createShiftMaximum(b, nl, x, a);
        });
    Value exps = createGeneric(
        rewriter, loc, {masked, max}, {id3, rows}, scoresType, scoreSizes,
        [&](OpBuilder &b, Location nl, ValueRange args) {
          return math::ExpOp::create(
                     b, nl, arith::SubFOp::create(b, nl, args[0], args[1]))
              .getResult();
        });
    Value sum = createReduction(
        rewriter, loc, exps, {2}, t, zero,
        [](OpBuilder &b, Location nl, Value x, Value a) -> Value {
          return arith::AddFOp::create(b, nl, x, a);
        });
    Value probs = createGeneric(
        rewriter, loc, {exps, sum}, {id3, rows}, scoresType, scoreSizes,
        [&](OpBuilder &b, Location nl, ValueRange args) {
          return scaleByReciprocal(b, nl, args[0], args[1]);
        });

    // out = probs @ v
    Value v3c = convertTensor(rewriter, loc, op, v3, t);
    auto outType = RankedTensorType::get({staticBatch, l, ev}, t);
    SmallVector<OpFoldResult> outSizes = {batch, lSize, vSizes[rank - 1]};
    Value out = linalg::BatchMatmulOp::create(
                    rewriter, loc, TypeRange{outType}, ValueRange{probs, v3c},
                    createFilled(rewriter, loc, outType, outSizes, zero))
                    .getResult(0);
    out = convertTensor(rewriter, loc, op, out, element);
    SmallVector<OpFoldResult> resultSizes(ArrayRef(qSizes).drop_back(2));
    resultSizes.append({lSize, vSizes[rank - 1]});
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, out, resultType, resultSizes));
    return success();
  }
};

} // namespace

void tolinalg::populateAttentionPatterns(RewritePatternSet &patterns) {
  patterns.add<EmbeddingPattern, AttentionPattern>(patterns.getContext());
}
