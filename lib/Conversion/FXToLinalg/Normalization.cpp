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

/// Inference batch norm as PyTorch's CPU kernel computes it: a scale and a
/// shift per channel, scale = weight / sqrt(var + eps) and shift = bias -
/// mean * scale, then y = x * scale + shift per element. The per-channel
/// generics read parameters only: on the CPU they run once per binding of
/// the weights (fx-hoist-parameter-computations), and the per-element work
/// fused into a convolution's epilogue is one multiply-add instead of a
/// subtraction, a square root and three more operations. (Vulkan fuses them
/// back into their consumer: recompute-costly-broadcasts.)
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
    AffineMap same = AffineMap::getMultiDimIdentityMap(1, ctx);
    Value mean = adaptor.getRunningMean();
    auto channelType = RankedTensorType::get(
        cast<RankedTensorType>(mean.getType()).getShape(), t);
    SmallVector<OpFoldResult> channels = getSizes(rewriter, loc, mean);
    auto scalar = [&](OpBuilder &b, Location l, Value v) {
      return convertScalar(b, l, v, t);
    };

    // scale = weight * rsqrt(var + eps)
    SmallVector<Value> scaleInputs = {adaptor.getRunningVar()};
    if (adaptor.getWeight())
      scaleInputs.push_back(adaptor.getWeight());
    double eps = op.getEps().convertToDouble();
    Value scale = createGeneric(
        rewriter, loc, scaleInputs,
        SmallVector<AffineMap>(scaleInputs.size(), same), channelType, channels,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value var = arith::AddFOp::create(b, l, scalar(b, l, args[0]),
                                            createScalarConstant(b, l, t, eps));
          Value y = math::RsqrtOp::create(b, l, var);
          if (args.size() > 1)
            y = arith::MulFOp::create(b, l, y, scalar(b, l, args[1]));
          return y;
        });
    // shift = bias - mean * scale
    SmallVector<Value> shiftInputs = {mean, scale};
    if (adaptor.getBias())
      shiftInputs.push_back(adaptor.getBias());
    Value shift = createGeneric(
        rewriter, loc, shiftInputs,
        SmallVector<AffineMap>(shiftInputs.size(), same), channelType, channels,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value product =
              arith::MulFOp::create(b, l, scalar(b, l, args[0]), args[1]);
          if (args.size() > 2)
            return arith::SubFOp::create(b, l, scalar(b, l, args[2]), product)
                .getResult();
          return arith::NegFOp::create(b, l, product).getResult();
        });
    // y = x * scale + shift
    Value result = createGeneric(
        rewriter, loc, {adaptor.getInput(), scale, shift},
        {identity, channel, channel}, resultType,
        getSizes(rewriter, loc, adaptor.getInput()),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value y = arith::MulFOp::create(b, l, scalar(b, l, args[0]), args[1]);
          y = arith::AddFOp::create(b, l, y, args[2]);
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

/// softmax and log_softmax: max, exp(x - max), sum, then normalize
/// (softmax: e * (1 / sum), see tolinalg::scaleByReciprocal).
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
          return createShiftMaximum(b, l, x, a);
        });
    // softmax: e = exp(x - max), e / sum(e); log_softmax: shifted = x - max,
    // shifted - log(sum(exp(shifted))). The value both the sum and the
    // normalization read is computed once (a dispatch region keeps its row
    // tile; exp is not recomputed by the normalization).
    Value shifted = createGeneric(
        rewriter, loc, {input, max}, {identity, rows}, computeType, sizes,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value y = arith::SubFOp::create(b, l, convertScalar(b, l, args[0], t),
                                          args[1]);
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
                    : scaleByReciprocal(b, l, args[0], args[1]);
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
