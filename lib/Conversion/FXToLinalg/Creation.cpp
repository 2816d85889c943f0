//===- Creation.cpp - constants, filled tensors and ranges ----------------===//

#include "Patterns.h"
#include "Utils.h"

#include "fx/Dialect/FX/IR/FXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::tolinalg;

namespace {

/// A static tensor of `type` filled with `value` (linalg.fill: a splat
/// constant would become a full-size global after bufferization).
Value fillStatic(OpBuilder &b, Location loc, RankedTensorType type,
                 Value value) {
  SmallVector<OpFoldResult> sizes =
      llvm::map_to_vector(type.getShape(), [&](int64_t s) -> OpFoldResult {
        return b.getIndexAttr(s);
      });
  return createFilled(b, loc, type, sizes, value);
}

struct ConstantPattern : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (dense && dense.isSplat() && op.getType().getNumElements() > 1) {
      Value scalar = arith::ConstantOp::create(
          rewriter, op.getLoc(),
          cast<TypedAttr>(dense.getSplatValue<Attribute>()));
      rewriter.replaceOp(
          op, fillStatic(rewriter, op.getLoc(), op.getType(), scalar));
      return success();
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, op.getType(), cast<TypedAttr>(op.getValue()));
    return success();
  }
};

template <typename OpTy> struct FullLikePattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value scalar = createScalarConstant(
        rewriter, op.getLoc(), op.getType().getElementType(), getFillValue(op));
    rewriter.replaceOp(op,
                       fillStatic(rewriter, op.getLoc(), op.getType(), scalar));
    return success();
  }
  static double getFillValue(FullOp op) {
    return op.getFillValue().convertToDouble();
  }
  static double getFillValue(ZerosOp) { return 0; }
  static double getFillValue(OnesOp) { return 1; }
};

struct ArangePattern : OpConversionPattern<ArangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    bool isInt = !isa<FloatType>(element);
    // ATen computes start + i * step in int64 for integer results and in
    // double for floating ones.
    Type acc =
        isInt ? Type(rewriter.getI64Type()) : Type(rewriter.getF64Type());
    double start = op.getStart().convertToDouble();
    double step = op.getStep().convertToDouble();
    if (isInt) {
      start = static_cast<double>(static_cast<int64_t>(start));
      step = static_cast<double>(static_cast<int64_t>(step));
    }
    Value init = createEmpty(rewriter, loc, type,
                             {rewriter.getIndexAttr(type.getDimSize(0))});
    MLIRContext *ctx = rewriter.getContext();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(1, ctx)},
        ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value i = linalg::IndexOp::create(b, l, 0);
          Value iInt = arith::IndexCastOp::create(b, l, b.getI64Type(), i);
          Value iv = convertScalar(b, l, iInt, acc);
          Value v =
              isInt ? arith::AddIOp::create(
                          b, l, createScalarConstant(b, l, acc, start),
                          arith::MulIOp::create(
                              b, l, iv, createScalarConstant(b, l, acc, step)))
                          .getResult()
                    : arith::AddFOp::create(
                          b, l, createScalarConstant(b, l, acc, start),
                          arith::MulFOp::create(
                              b, l, iv, createScalarConstant(b, l, acc, step)))
                          .getResult();
          linalg::YieldOp::create(b, l, convertScalar(b, l, v, element));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void tolinalg::populateCreationPatterns(RewritePatternSet &patterns) {
  patterns
      .add<ConstantPattern, FullLikePattern<FullOp>, FullLikePattern<ZerosOp>,
           FullLikePattern<OnesOp>, ArangePattern>(patterns.getContext());
}
