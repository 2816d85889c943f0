//===- Linear.cpp - mm, bmm, addmm, linear to linalg contractions ---------===//

#include "Patterns.h"
#include "Utils.h"

#include "fx/Dialect/FX/IR/FXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::tolinalg;

namespace {

/// Runs a contraction op `OpTy` into a zero-filled accumulator of
/// `accShape`. f16/bf16 operands accumulate in f32, as PyTorch does on the
/// CPU; the accumulator is returned unconverted.
template <typename OpTy>
Value contract(OpBuilder &b, Location loc, Value lhs, Value rhs,
               ArrayRef<int64_t> accShape, ArrayRef<OpFoldResult> accSizes,
               Type element, ArrayRef<NamedAttribute> attrs = {}) {
  Type acc = getComputeType(element);
  auto accType = RankedTensorType::get(accShape, acc);
  Value init = createFilled(b, loc, accType, accSizes,
                            createScalarConstant(b, loc, acc, 0));
  return OpTy::create(b, loc, TypeRange{accType}, ValueRange{lhs, rhs},
                      ValueRange{init}, attrs)
      .getResult(0);
}

struct MmPattern : OpConversionPattern<MmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getSelf(), rhs = adaptor.getMat2();
    SmallVector<OpFoldResult> sizes = {getSizes(rewriter, loc, lhs)[0],
                                       getSizes(rewriter, loc, rhs)[1]};
    Type element = op.getType().getElementType();
    Value acc = contract<linalg::MatmulOp>(
        rewriter, loc, lhs, rhs, op.getType().getShape(), sizes, element);
    rewriter.replaceOp(op, convertTensor(rewriter, loc, op, acc, element));
    return success();
  }
};

struct BmmPattern : OpConversionPattern<BmmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BmmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getSelf(), rhs = adaptor.getMat2();
    SmallVector<OpFoldResult> lhsSizes = getSizes(rewriter, loc, lhs);
    SmallVector<OpFoldResult> sizes = {lhsSizes[0], lhsSizes[1],
                                       getSizes(rewriter, loc, rhs)[2]};
    Type element = op.getType().getElementType();
    Value acc = contract<linalg::BatchMatmulOp>(
        rewriter, loc, lhs, rhs, op.getType().getShape(), sizes, element);
    rewriter.replaceOp(op, convertTensor(rewriter, loc, op, acc, element));
    return success();
  }
};

struct AddmmPattern : OpConversionPattern<AddmmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AddmmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getMat1(), rhs = adaptor.getMat2();
    RankedTensorType resultType = op.getType();
    SmallVector<OpFoldResult> sizes = {getSizes(rewriter, loc, lhs)[0],
                                       getSizes(rewriter, loc, rhs)[1]};
    Type element = resultType.getElementType();
    Value acc = contract<linalg::MatmulOp>(
        rewriter, loc, lhs, rhs, resultType.getShape(), sizes, element);
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    Type t = getComputeType(element);
    // beta == 0 ignores self entirely (its NaNs too), as PyTorch does.
    SmallVector<Value> inputs = {acc};
    if (beta != 0)
      inputs.push_back(adaptor.getSelf());
    Value result = createElementwise(
        rewriter, loc, op, inputs, resultType,
        [&](OpBuilder &b, Location l, ValueRange args) {
          auto scale = [&](Value v, double c) -> Value {
            return c == 1
                       ? v
                       : createMul(b, l, v, createScalarConstant(b, l, t, c));
          };
          Value y = scale(args[0], alpha);
          if (beta != 0)
            y = createAdd(b, l, y,
                          scale(convertScalar(b, l, args[1], t), beta));
          return convertScalar(b, l, y, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LinearPattern : OpConversionPattern<LinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput(), weight = adaptor.getWeight();
    auto inputType = cast<RankedTensorType>(input.getType());
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    int64_t rank = inputType.getRank();

    // [..., K] -> [M, K] with M the product of the leading dims.
    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input);
    ArrayRef<int64_t> leading = inputType.getShape().drop_back();
    int64_t m = 1;
    Value mValue = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t i = 0; i < rank - 1; ++i) {
      m = ShapedType::isDynamic(leading[i]) || ShapedType::isDynamic(m)
              ? ShapedType::kDynamic
              : m * leading[i];
      mValue = arith::MulIOp::create(rewriter, loc, mValue,
                                     getIndexValue(rewriter, loc, inSizes[i]));
    }
    int64_t k = inputType.getShape().back();
    auto matType = RankedTensorType::get({m, k}, inputType.getElementType());
    Value mat =
        reshapeTo(rewriter, loc, input, matType, {mValue, inSizes.back()});

    // [M, K] x [N, K]^T: a matmul reading the weight transposed.
    AffineExpr d0, d1, d2;
    bindDims(ctx, d0, d1, d2);
    SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {d0, d2}, ctx),
                                   AffineMap::get(3, 0, {d1, d2}, ctx),
                                   AffineMap::get(3, 0, {d0, d1}, ctx)};
    int64_t n = cast<RankedTensorType>(weight.getType()).getDimSize(0);
    OpFoldResult nSize = getSizes(rewriter, loc, weight)[0];
    Value acc = contract<linalg::MatmulOp>(
        rewriter, loc, mat, weight, {m, n}, {mValue, nSize}, element,
        rewriter.getNamedAttr("indexing_maps",
                              rewriter.getAffineMapArrayAttr(maps)));
    auto accType = cast<RankedTensorType>(acc.getType());
    SmallVector<Value> inputs = {acc};
    if (Value bias = adaptor.getBias())
      inputs.push_back(bias);
    Type t = accType.getElementType();
    Value out = createElementwise(
        rewriter, loc, op, inputs, accType.clone(element),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value y = args[0];
          if (args.size() > 1)
            y = createAdd(b, l, y, convertScalar(b, l, args[1], t));
          return convertScalar(b, l, y, element);
        });
    SmallVector<OpFoldResult> outSizes(ArrayRef(inSizes).drop_back());
    outSizes.push_back(nSize);
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, out, resultType, outSizes));
    return success();
  }
};

} // namespace

void tolinalg::populateLinearPatterns(RewritePatternSet &patterns) {
  patterns.add<MmPattern, BmmPattern, AddmmPattern, LinearPattern>(
      patterns.getContext());
}
