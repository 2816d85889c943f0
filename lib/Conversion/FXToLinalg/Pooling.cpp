//===- Pooling.cpp - max/avg/adaptive pooling to linalg -------------------===//
//
// Rank-3 inputs ([C, H, W]) get a unit batch dimension first. Padding (and,
// in ceil mode, the extra right padding windows may reach) is a tensor.pad
// with the identity of the reduction. Max and sum pooling are linalg named
// ops; max pooling with indices and the divisors of average pooling are
// linalg.generics that compute positions with linalg.index.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Utils.h"

#include "fx/Dialect/FX/IR/FXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::tolinalg;

namespace {

/// Adds a unit batch dimension to a [C, H, W] tensor.
Value addBatchDim(OpBuilder &b, Location loc, Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getRank() == 4)
    return input;
  SmallVector<int64_t> shape = {1};
  llvm::append_range(shape, type.getShape());
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
  llvm::append_range(sizes, getSizes(b, loc, input));
  return tensor::ExpandShapeOp::create(
      b, loc, type.clone(shape), input,
      ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}}, sizes);
}

/// Removes the unit batch dimension again if the op's result is rank 3.
Value dropBatchDim(OpBuilder &b, Location loc, Value value,
                   RankedTensorType resultType) {
  if (resultType.getRank() == 4)
    return value;
  return tensor::CollapseShapeOp::create(
      b, loc, resultType, value,
      ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
}

struct PoolGeometry {
  SmallVector<int64_t> kernel, stride, padding, dilation, highPad;
  int64_t inH, inW, outH, outW;
};

/// Pads needed so that every output window lies inside the padded input;
/// in ceil mode the last window may reach past the symmetric padding.
PoolGeometry getGeometry(RankedTensorType input, RankedTensorType result,
                         ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                         ArrayRef<int64_t> padding,
                         ArrayRef<int64_t> dilation) {
  PoolGeometry g;
  g.kernel.assign(kernel.begin(), kernel.end());
  g.stride.assign(stride.begin(), stride.end());
  g.padding.assign(padding.begin(), padding.end());
  if (dilation.empty())
    g.dilation = {1, 1};
  else
    g.dilation.assign(dilation.begin(), dilation.end());
  int64_t r = input.getRank();
  g.inH = input.getDimSize(r - 2);
  g.inW = input.getDimSize(r - 1);
  g.outH = result.getDimSize(r - 2);
  g.outW = result.getDimSize(r - 1);
  int64_t in[2] = {g.inH, g.inW}, out[2] = {g.outH, g.outW};
  for (int i = 0; i < 2; ++i) {
    int64_t reach =
        (out[i] - 1) * g.stride[i] + g.dilation[i] * (g.kernel[i] - 1) + 1;
    g.highPad.push_back(std::max(g.padding[i], reach - g.padding[i] - in[i]));
  }
  return g;
}

LogicalResult checkStaticSpatial(Operation *op, RankedTensorType input,
                                 RankedTensorType result) {
  int64_t r = input.getRank();
  for (int64_t i = r - 2; i < r; ++i)
    if (input.isDynamicDim(i) || result.isDynamicDim(i))
      return op->emitOpError("dynamic spatial dimensions are not supported by "
                             "the linalg lowering yet");
  return success();
}

Value pad4d(OpBuilder &b, Location loc, Value input, const PoolGeometry &g,
            Value padValue) {
  return padTensor(b, loc, input, {0, 0, g.padding[0], g.padding[1]},
                   {0, 0, g.highPad[0], g.highPad[1]}, padValue);
}

SmallVector<OpFoldResult> getOutSizes(OpBuilder &b, Location loc, Value input4d,
                                      const PoolGeometry &g) {
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, input4d);
  sizes[2] = b.getIndexAttr(g.outH);
  sizes[3] = b.getIndexAttr(g.outW);
  return sizes;
}

RankedTensorType get4dType(RankedTensorType type, Type element) {
  SmallVector<int64_t> shape(type.getShape());
  if (shape.size() == 3)
    shape.insert(shape.begin(), 1);
  return RankedTensorType::get(shape, element);
}

/// A linalg pooling named op over a padded [N, C, H, W] input.
template <typename PoolOp>
Value pool(OpBuilder &b, Location loc, Value padded, const PoolGeometry &g,
           RankedTensorType outType, ArrayRef<OpFoldResult> outSizes,
           Value init) {
  Value filled = createFilled(b, loc, outType, outSizes, init);
  Value window =
      tensor::EmptyOp::create(b, loc, g.kernel, outType.getElementType());
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("strides", b.getI64VectorAttr(g.stride)),
      b.getNamedAttr("dilations", b.getI64VectorAttr(g.dilation))};
  return PoolOp::create(b, loc, TypeRange{outType}, ValueRange{padded, window},
                        filled, attrs)
      .getResult(0);
}

struct MaxPool2dPattern : OpConversionPattern<MaxPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPool2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    RankedTensorType resultType = op.getType();
    if (failed(checkStaticSpatial(op, inputType, resultType)))
      return failure();
    Type element = resultType.getElementType();
    PoolGeometry g =
        getGeometry(inputType, resultType, op.getKernelSize(), op.getStride(),
                    op.getPadding(), op.getDilation());
    Value input = addBatchDim(rewriter, loc, adaptor.getSelf());
    Value lowest = createExtremeConstant(rewriter, loc, element, true);
    Value padded = pad4d(rewriter, loc, input, g, lowest);
    Value out = pool<linalg::PoolingNchwMaxOp>(
        rewriter, loc, padded, g, get4dType(resultType, element),
        getOutSizes(rewriter, loc, input, g), lowest);
    rewriter.replaceOp(op, dropBatchDim(rewriter, loc, out, resultType));
    return success();
  }
};

struct MaxPool2dWithIndicesPattern
    : OpConversionPattern<MaxPool2dWithIndicesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPool2dWithIndicesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    if (failed(checkStaticSpatial(op, inputType, resultType)))
      return failure();
    Type element = resultType.getElementType();
    PoolGeometry g =
        getGeometry(inputType, resultType, op.getKernelSize(), op.getStride(),
                    op.getPadding(), op.getDilation());
    Value input = addBatchDim(rewriter, loc, adaptor.getSelf());
    Value lowest = createExtremeConstant(rewriter, loc, element, true);
    Value padded = pad4d(rewriter, loc, input, g, lowest);
    SmallVector<OpFoldResult> outSizes = getOutSizes(rewriter, loc, input, g);
    Type i64 = rewriter.getI64Type();
    Value values = createFilled(rewriter, loc, get4dType(resultType, element),
                                outSizes, lowest);
    Value indices =
        createFilled(rewriter, loc, get4dType(indicesType, i64), outSizes,
                     createScalarConstant(rewriter, loc, i64, -1));
    MLIRContext *ctx = rewriter.getContext();
    // (n, c, oh, ow, kh, kw) -> padded[n, c, oh*s + kh*d, ow*s + kw*d]
    AffineExpr n, c, oh, ow, kh, kw;
    bindDims(ctx, n, c, oh, ow, kh, kw);
    AffineMap inMap =
        AffineMap::get(6, 0,
                       {n, c, oh * g.stride[0] + kh * g.dilation[0],
                        ow * g.stride[1] + kw * g.dilation[1]},
                       ctx);
    AffineMap outMap = AffineMap::get(6, 0, {n, c, oh, ow}, ctx);
    AffineMap windowMap = AffineMap::get(6, 0, {kh, kw}, ctx);
    Value window = tensor::EmptyOp::create(rewriter, loc, g.kernel, element);
    using utils::IteratorType;
    SmallVector<IteratorType> iterators = {
        IteratorType::parallel,  IteratorType::parallel,
        IteratorType::parallel,  IteratorType::parallel,
        IteratorType::reduction, IteratorType::reduction};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{values.getType(), indices.getType()},
        ValueRange{padded, window}, ValueRange{values, indices},
        {inMap, windowMap, outMap, outMap}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value v = args[0], cur = args[2], curIdx = args[3];
          auto idx = [&](unsigned d) {
            return arith::IndexCastOp::create(b, l, i64,
                                              linalg::IndexOp::create(b, l, d));
          };
          auto c64 = [&](int64_t x) {
            return createScalarConstant(b, l, i64, x);
          };
          // Unpadded input position of this window element.
          Value h = arith::SubIOp::create(
              b, l,
              arith::AddIOp::create(
                  b, l, arith::MulIOp::create(b, l, idx(2), c64(g.stride[0])),
                  arith::MulIOp::create(b, l, idx(4), c64(g.dilation[0]))),
              c64(g.padding[0]));
          Value w = arith::SubIOp::create(
              b, l,
              arith::AddIOp::create(
                  b, l, arith::MulIOp::create(b, l, idx(3), c64(g.stride[1])),
                  arith::MulIOp::create(b, l, idx(5), c64(g.dilation[1]))),
              c64(g.padding[1]));
          auto inRange = [&](Value x, int64_t size) {
            Value ge = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, x,
                                             c64(0));
            Value lt = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, x,
                                             c64(size));
            return arith::AndIOp::create(b, l, ge, lt);
          };
          Value inBounds =
              arith::AndIOp::create(b, l, inRange(h, g.inH), inRange(w, g.inW));
          // PyTorch: take the first element, any greater one, and any NaN.
          Value first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                              curIdx, c64(-1));
          Value greater, isNan;
          if (isa<FloatType>(element)) {
            greater =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, v, cur);
            isNan =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, v, v);
          } else {
            greater =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, v, cur);
            isNan = createScalarConstant(b, l, b.getI1Type(), 0);
          }
          Value take = arith::AndIOp::create(
              b, l, inBounds,
              arith::OrIOp::create(b, l, first,
                                   arith::OrIOp::create(b, l, greater, isNan)));
          Value flat = arith::AddIOp::create(
              b, l, arith::MulIOp::create(b, l, h, c64(g.inW)), w);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, v, cur),
                         arith::SelectOp::create(b, l, take, flat, curIdx)});
        });
    rewriter.replaceOp(
        op, {dropBatchDim(rewriter, loc, generic.getResult(0), resultType),
             dropBatchDim(rewriter, loc, generic.getResult(1), indicesType)});
    return success();
  }
};

struct AvgPool2dPattern : OpConversionPattern<AvgPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AvgPool2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    RankedTensorType resultType = op.getType();
    if (failed(checkStaticSpatial(op, inputType, resultType)))
      return failure();
    Type element = resultType.getElementType();
    Type acc = getComputeType(element);
    PoolGeometry g = getGeometry(inputType, resultType, op.getKernelSize(),
                                 op.getStride(), op.getPadding(), {});
    Value input = addBatchDim(rewriter, loc, adaptor.getSelf());
    input = convertTensor(rewriter, loc, op, input, acc);
    Value zero = createScalarConstant(rewriter, loc, acc, 0);
    Value padded = pad4d(rewriter, loc, input, g, zero);
    SmallVector<OpFoldResult> outSizes = getOutSizes(rewriter, loc, input, g);
    RankedTensorType out4d = get4dType(resultType, element);
    Value sum = pool<linalg::PoolingNchwSumOp>(
        rewriter, loc, padded, g, out4d.clone(acc), outSizes, zero);

    // The divisor of each output element, as ATen's avg_pool2d computes it.
    std::optional<int64_t> override = op.getDivisorOverride();
    bool includePad = op.getCountIncludePad();
    MLIRContext *ctx = rewriter.getContext();
    Value result = createGeneric(
        rewriter, loc, sum, AffineMap::getMultiDimIdentityMap(4, ctx), out4d,
        outSizes, [&](OpBuilder &b, Location l, ValueRange args) {
          Type i64 = b.getI64Type();
          auto c64 = [&](int64_t x) {
            return createScalarConstant(b, l, i64, x);
          };
          Value divisor;
          if (override) {
            divisor = c64(*override);
          } else {
            Value extent[2];
            int64_t in[2] = {g.inH, g.inW};
            for (int i = 0; i < 2; ++i) {
              Value o = arith::IndexCastOp::create(
                  b, l, i64, linalg::IndexOp::create(b, l, 2 + i));
              Value start = arith::SubIOp::create(
                  b, l, arith::MulIOp::create(b, l, o, c64(g.stride[i])),
                  c64(g.padding[i]));
              Value end = arith::MinSIOp::create(
                  b, l, arith::AddIOp::create(b, l, start, c64(g.kernel[i])),
                  c64(in[i] + g.padding[i]));
              if (!includePad) {
                start = arith::MaxSIOp::create(b, l, start, c64(0));
                end = arith::MinSIOp::create(b, l, end, c64(in[i]));
              }
              extent[i] = arith::SubIOp::create(b, l, end, start);
            }
            divisor = arith::MulIOp::create(b, l, extent[0], extent[1]);
          }
          Value avg = arith::DivFOp::create(b, l, args[0],
                                            convertScalar(b, l, divisor, acc));
          return convertScalar(b, l, avg, element);
        });
    rewriter.replaceOp(op, dropBatchDim(rewriter, loc, result, resultType));
    return success();
  }
};

struct AdaptiveAvgPool2dPattern : OpConversionPattern<AdaptiveAvgPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AdaptiveAvgPool2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(adaptor.getSelf().getType());
    RankedTensorType resultType = op.getType();
    if (failed(checkStaticSpatial(op, inputType, resultType)))
      return failure();
    Type element = resultType.getElementType();
    Type acc = getComputeType(element);
    int64_t r = inputType.getRank();
    int64_t in[2] = {inputType.getDimSize(r - 2), inputType.getDimSize(r - 1)};
    int64_t out[2] = {resultType.getDimSize(r - 2),
                      resultType.getDimSize(r - 1)};
    // Output cell i averages rows [floor(i*H/OH), ceil((i+1)*H/OH)): the
    // largest window bounds the reduction loop; cells with smaller windows
    // skip the rest.
    int64_t maxWindow[2];
    for (int i = 0; i < 2; ++i) {
      maxWindow[i] = 0;
      for (int64_t o = 0; o < out[i]; ++o)
        maxWindow[i] =
            std::max(maxWindow[i], (((o + 1) * in[i] + out[i] - 1) / out[i]) -
                                       (o * in[i]) / out[i]);
    }
    Value input = addBatchDim(rewriter, loc, adaptor.getSelf());
    SmallVector<OpFoldResult> outSizes = getSizes(rewriter, loc, input);
    outSizes[2] = rewriter.getIndexAttr(out[0]);
    outSizes[3] = rewriter.getIndexAttr(out[1]);
    RankedTensorType out4d = get4dType(resultType, element);
    Value zero = createScalarConstant(rewriter, loc, acc, 0);
    Value init = createFilled(rewriter, loc, out4d.clone(acc), outSizes, zero);
    Value window = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{maxWindow[0], maxWindow[1]}, acc);
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr n, c, oh, ow, kh, kw;
    bindDims(ctx, n, c, oh, ow, kh, kw);
    using utils::IteratorType;
    auto startOf = [](OpBuilder &b, Location l, Value o, int64_t inSize,
                      int64_t outSize) -> Value {
      // floor(o * in / out)
      Value prod = arith::MulIOp::create(
          b, l, o, arith::ConstantIndexOp::create(b, l, inSize));
      return arith::DivUIOp::create(
          b, l, prod, arith::ConstantIndexOp::create(b, l, outSize));
    };
    auto endOf = [](OpBuilder &b, Location l, Value o, int64_t inSize,
                    int64_t outSize) -> Value {
      // ceil((o + 1) * in / out)
      Value next = arith::AddIOp::create(
          b, l, o, arith::ConstantIndexOp::create(b, l, 1));
      Value prod = arith::MulIOp::create(
          b, l, next, arith::ConstantIndexOp::create(b, l, inSize));
      return arith::CeilDivUIOp::create(
          b, l, prod, arith::ConstantIndexOp::create(b, l, outSize));
    };
    auto sum = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{window},
        ValueRange{init},
        {AffineMap::get(6, 0, {kh, kw}, ctx),
         AffineMap::get(6, 0, {n, c, oh, ow}, ctx)},
        {IteratorType::parallel, IteratorType::parallel, IteratorType::parallel,
         IteratorType::parallel, IteratorType::reduction,
         IteratorType::reduction},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value pos[2], valid = nullptr;
          for (int i = 0; i < 2; ++i) {
            Value o = linalg::IndexOp::create(b, l, 2 + i);
            Value k = linalg::IndexOp::create(b, l, 4 + i);
            Value start = startOf(b, l, o, in[i], out[i]);
            Value end = endOf(b, l, o, in[i], out[i]);
            Value p = arith::AddIOp::create(b, l, start, k);
            Value ok =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, p, end);
            valid =
                valid ? arith::AndIOp::create(b, l, valid, ok).getResult() : ok;
            // Keep the read in bounds for skipped positions.
            pos[i] = arith::MinUIOp::create(
                b, l, p, arith::ConstantIndexOp::create(b, l, in[i] - 1));
          }
          Value x = tensor::ExtractOp::create(
              b, l, input,
              ValueRange{linalg::IndexOp::create(b, l, 0),
                         linalg::IndexOp::create(b, l, 1), pos[0], pos[1]});
          Value xv = convertScalar(b, l, x, acc);
          Value contrib = arith::SelectOp::create(
              b, l, valid, xv, createScalarConstant(b, l, acc, 0));
          linalg::YieldOp::create(
              b, l, arith::AddFOp::create(b, l, args[1], contrib).getResult());
        });
    Value result = createGeneric(
        rewriter, loc, sum.getResult(0),
        AffineMap::getMultiDimIdentityMap(4, ctx), out4d, outSizes,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value count = nullptr;
          for (int i = 0; i < 2; ++i) {
            Value o = linalg::IndexOp::create(b, l, 2 + i);
            Value extent =
                arith::SubIOp::create(b, l, endOf(b, l, o, in[i], out[i]),
                                      startOf(b, l, o, in[i], out[i]));
            count = count
                        ? arith::MulIOp::create(b, l, count, extent).getResult()
                        : extent;
          }
          Value countI =
              arith::IndexCastOp::create(b, l, b.getI64Type(), count);
          Value avg = arith::DivFOp::create(b, l, args[0],
                                            convertScalar(b, l, countI, acc));
          return convertScalar(b, l, avg, element);
        });
    rewriter.replaceOp(op, dropBatchDim(rewriter, loc, result, resultType));
    return success();
  }
};

} // namespace

void tolinalg::populatePoolingPatterns(RewritePatternSet &patterns) {
  patterns.add<MaxPool2dPattern, MaxPool2dWithIndicesPattern, AvgPool2dPattern,
               AdaptiveAvgPool2dPattern>(patterns.getContext());
}
