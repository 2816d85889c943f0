//===- Normalization.cpp - batch_norm, layer_norm, softmax to generics ----===//
//
// Each op becomes a few reduction and elementwise linalg.generics, computed in
// f32 for f16/bf16 inputs. Fusion passes turn them into one kernel.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Utils.h"

#include "fx/Dialect/FX/IR/FXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::tolinalg;

namespace {

struct BatchNormPattern : OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    Type t = getComputeType(element);
    int64_t rank = resultType.getRank();
    MLIRContext *ctx = rewriter.getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
    SmallVector<Value> inputs = {adaptor.getInput(), adaptor.getRunningMean(),
                                 adaptor.getRunningVar()};
    SmallVector<AffineMap> maps = {identity, channel, channel};
    bool hasWeight = static_cast<bool>(adaptor.getWeight());
    bool hasBias = static_cast<bool>(adaptor.getBias());
    if (hasWeight) {
      inputs.push_back(adaptor.getWeight());
      maps.push_back(channel);
    }
    if (hasBias) {
      inputs.push_back(adaptor.getBias());
      maps.push_back(channel);
    }
    double eps = op.getEps().convertToDouble();
    Value result = createGeneric(
        rewriter, loc, inputs, maps, resultType,
        getSizes(rewriter, loc, adaptor.getInput()),
        [&](OpBuilder &b, Location l, ValueRange args) {
          auto arg = [&](unsigned i) {
            return convertScalar(b, l, args[i], t);
          };
          Value centered = arith::SubFOp::create(b, l, arg(0), arg(1));
          Value var = arith::AddFOp::create(b, l, arg(2),
                                            createScalarConstant(b, l, t, eps));
          Value y = arith::MulFOp::create(b, l, centered,
                                          math::RsqrtOp::create(b, l, var));
          unsigned next = 3;
          if (hasWeight)
            y = arith::MulFOp::create(b, l, y, arg(next++));
          if (hasBias)
            y = arith::AddFOp::create(b, l, y, arg(next++));
          return convertScalar(b, l, y, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LayerNormPattern : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    Type t = getComputeType(element);
    Value input = adaptor.getInput();
    int64_t rank = resultType.getRank();
    int64_t n = op.getNormalizedShape().size();
    SmallVector<int64_t> dims = llvm::to_vector(llvm::seq(rank - n, rank));
    MLIRContext *ctx = rewriter.getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap rows = getDropDimsMap(ctx, rank, dims);
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, input);
    auto computeType = resultType.clone(t);

    // mean = sum(x) / N; var = sum((x - mean)^2) / N (biased, as PyTorch).
    Value zero = createScalarConstant(rewriter, loc, t, 0);
    Value count =
        arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                   getElementCount(rewriter, loc, input, dims));
    Value countF = convertScalar(rewriter, loc, count, t);
    auto add = [](OpBuilder &b, Location l, Value x, Value a) -> Value {
      return arith::AddFOp::create(b, l, x, a);
    };
    Value sum = createReduction(rewriter, loc, input, dims, t, zero, add);
    auto rowType = cast<RankedTensorType>(sum.getType());
    SmallVector<OpFoldResult> rowSizes(ArrayRef(sizes).drop_back(n));
    auto rowIdentity = AffineMap::getMultiDimIdentityMap(rank - n, ctx);
    Value mean = createGeneric(
        rewriter, loc, sum, rowIdentity, rowType, rowSizes,
        [&](OpBuilder &b, Location l, ValueRange args) {
          return arith::DivFOp::create(b, l, args[0], countF).getResult();
        });
    Value centered = createGeneric(
        rewriter, loc, {input, mean}, {identity, rows}, computeType, sizes,
        [&](OpBuilder &b, Location l, ValueRange args) {
          return arith::SubFOp::create(b, l, convertScalar(b, l, args[0], t),
                                       args[1])
              .getResult();
        });
    auto squareAdd = [](OpBuilder &b, Location l, Value x, Value a) -> Value {
      return arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, x, x), a);
    };
    Value sq =
        createReduction(rewriter, loc, centered, dims, t, zero, squareAdd);
    double eps = op.getEps().convertToDouble();
    Value invStd = createGeneric(
        rewriter, loc, sq, rowIdentity, rowType, rowSizes,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value var = arith::DivFOp::create(b, l, args[0], countF);
          return math::RsqrtOp::create(
                     b, l,
                     arith::AddFOp::create(b, l, var,
                                           createScalarConstant(b, l, t, eps)))
              .getResult();
        });
    // weight and bias have the normalized shape: the trailing n dims.
    AffineMap trailing = AffineMap::get(
        rank, 0,
        llvm::map_to_vector(
            dims, [&](int64_t d) { return getAffineDimExpr(d, ctx); }),
        ctx);
    SmallVector<Value> inputs = {centered, invStd};
    SmallVector<AffineMap> maps = {identity, rows};
    bool hasWeight = static_cast<bool>(adaptor.getWeight());
    bool hasBias = static_cast<bool>(adaptor.getBias());
    if (hasWeight) {
      inputs.push_back(adaptor.getWeight());
      maps.push_back(trailing);
    }
    if (hasBias) {
      inputs.push_back(adaptor.getBias());
      maps.push_back(trailing);
    }
    Value result =
        createGeneric(rewriter, loc, inputs, maps, resultType, sizes,
                      [&](OpBuilder &b, Location l, ValueRange args) {
                        Value y = arith::MulFOp::create(b, l, args[0], args[1]);
                        unsigned next = 2;
                        if (hasWeight)
                          y = arith::MulFOp::create(
                              b, l, y, convertScalar(b, l, args[next++], t));
                        if (hasBias)
                          y = arith::AddFOp::create(
                              b, l, y, convertScalar(b, l, args[next++], t));
                        return convertScalar(b, l, y, element);
                      });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// softmax and log_softmax: max, exp(x - max), sum, then normalize.
template <typename OpTy, bool isLog>
struct SoftmaxPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    Type t = getComputeType(element);
    Value input = adaptor.getSelf();
    int64_t rank = resultType.getRank();
    MLIRContext *ctx = rewriter.getContext();
    if (rank == 0) {
      // softmax of a scalar is 1, log_softmax 0.
      Value result = createElementwise(
          rewriter, loc, op, input, resultType,
          [&](OpBuilder &b, Location l, ValueRange) {
            return createScalarConstant(b, l, element, isLog ? 0 : 1);
          });
      rewriter.replaceOp(op, result);
      return success();
    }
    int64_t dim = op.getDim() < 0 ? op.getDim() + rank : op.getDim();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap rows = getDropDimsMap(ctx, rank, {dim});
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, input);
    auto computeType = resultType.clone(t);

    Value lowest = createExtremeConstant(rewriter, loc, t, /*lowest=*/true);
    Value max = createReduction(
        rewriter, loc, input, {dim}, t, lowest,
        [](OpBuilder &b, Location l, Value x, Value a) -> Value {
          return arith::MaximumFOp::create(b, l, x, a);
        });
    // softmax: e = exp(x - max), e / sum(e); log_softmax: shifted = x - max,
    // shifted - log(sum(exp(shifted))). The value both the sum and the
    // normalization read is computed once (a dispatch region keeps its row
    // tile; exp is not recomputed by the normalization).
    Value shifted = createGeneric(
        rewriter, loc, {input, max}, {identity, rows}, computeType, sizes,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value y = arith::SubFOp::create(
              b, l, convertScalar(b, l, args[0], t), args[1]);
          return isLog ? y : math::ExpOp::create(b, l, y).getResult();
        });
    Value zero = createScalarConstant(rewriter, loc, t, 0);
    Value sum = createReduction(
        rewriter, loc, shifted, {dim}, t, zero,
        [](OpBuilder &b, Location l, Value x, Value a) -> Value {
          Value term = isLog ? math::ExpOp::create(b, l, x).getResult() : x;
          return arith::AddFOp::create(b, l, term, a);
        });
    Value result = createGeneric(
        rewriter, loc, {shifted, sum}, {identity, rows}, resultType, sizes,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value y =
              isLog ? arith::SubFOp::create(b, l, args[0],
                                            math::LogOp::create(b, l, args[1]))
                          .getResult()
                    : arith::DivFOp::create(b, l, args[0], args[1]).getResult();
          return convertScalar(b, l, y, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tolinalg::populateNormalizationPatterns(RewritePatternSet &patterns) {
  patterns
      .add<BatchNormPattern, LayerNormPattern, SoftmaxPattern<SoftmaxOp, false>,
           SoftmaxPattern<LogSoftmaxOp, true>>(patterns.getContext());
}
