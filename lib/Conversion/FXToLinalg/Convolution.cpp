//===- Convolution.cpp - aten.convolution to linalg convolutions ----------===//
//
// Padding becomes tensor.pad; the convolution is a linalg named op chosen by
// rank and groups (conv_{1,2,3}d_*, depthwise_conv_2d_nchw_chw for
// depthwise, conv_2d_ngchw_gfchw for other grouped convolutions); f16/bf16
// accumulate in f32; the bias is added in the elementwise op that rounds the
// accumulator to the result dtype.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Utils.h"

#include "fx/Dialect/FX/IR/FXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::tolinalg;

namespace {

struct ConvolutionPattern : OpConversionPattern<ConvolutionOp> {
  using OpConversionPattern::OpConversionPattern;

  /// A grouped 1-d convolution becomes a 2-d one, which this pattern then
  /// lowers (once: a 2-d convolution is not rewritten again).
  void initialize() { setHasBoundedRewriteRecursion(); }

  /// A grouped 1-d convolution (wav2vec2's positional convolution) as the
  /// 2-d one of a unit height: [N, C, L] -> [N, C, 1, L], the filter
  /// [F, C/g, K] -> [F, C/g, 1, K], the result collapsed back; the 2-d
  /// convolution is then lowered as any grouped or depthwise one (linalg
  /// has no grouped 1-d op).
  static LogicalResult rewriteGrouped1D(ConvolutionOp op, OpAdaptor adaptor,
                                        ConversionPatternRewriter &rewriter) {
    Location loc = op.getLoc();
    auto unitHeight = [&](Value value) {
      auto type = cast<RankedTensorType>(value.getType());
      SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, value);
      sizes.insert(sizes.begin() + 2, rewriter.getIndexAttr(1));
      SmallVector<int64_t> shape(type.getShape());
      shape.insert(shape.begin() + 2, 1);
      return tensor::ExpandShapeOp::create(
                 rewriter, loc, type.clone(shape), value,
                 ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}}, sizes)
          .getResult();
    };
    auto withUnit = [&](ArrayRef<int64_t> values, int64_t unit) {
      return rewriter.getDenseI64ArrayAttr({unit, values.front()});
    };
    RankedTensorType resultType = op.getType();
    SmallVector<int64_t> shape(resultType.getShape());
    shape.insert(shape.begin() + 2, 1);
    auto conv2d = ConvolutionOp::create(
        rewriter, loc, resultType.clone(shape), unitHeight(adaptor.getInput()),
        unitHeight(adaptor.getWeight()), adaptor.getBias(),
        withUnit(op.getStride(), 1), withUnit(op.getPadding(), 0),
        withUnit(op.getDilation(), 1), op.getTransposedAttr(),
        withUnit(op.getOutputPadding(), 0), op.getGroupsAttr());
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, resultType, conv2d.getResult(),
        ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    return success();
  }

  LogicalResult
  matchAndRewrite(ConvolutionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t rank = resultType.getRank(), spatial = rank - 2;
    int64_t groups = op.getGroups();
    if (op.getTransposed())
      return op.emitOpError(
          "transposed convolution is not supported by the linalg lowering yet");
    for (int64_t i = 2; i < rank; ++i)
      if (resultType.isDynamicDim(i))
        return op.emitOpError("dynamic spatial dimensions are not supported by "
                              "the linalg lowering yet");
    if (groups != 1 && spatial == 1)
      return rewriteGrouped1D(op, adaptor, rewriter);
    if (groups != 1 && spatial != 2)
      return op.emitOpError("grouped convolution is only supported in 1-d "
                            "and 2-d");

    Type element = resultType.getElementType();
    Type acc = getComputeType(element);
    Value input = adaptor.getInput(), weight = adaptor.getWeight();
    SmallVector<int64_t> pads(2, 0);
    llvm::append_range(pads, op.getPadding());
    input = padTensor(
        rewriter, loc, input, pads, pads,
        createScalarConstant(
            rewriter, loc,
            cast<RankedTensorType>(input.getType()).getElementType(), 0));
    SmallVector<OpFoldResult> outSizes;
    outSizes.push_back(getSizes(rewriter, loc, input)[0]);
    for (int64_t i = 1; i < rank; ++i)
      outSizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(i)));
    auto accType = resultType.clone(acc);
    Value zero = createScalarConstant(rewriter, loc, acc, 0);
    SmallVector<NamedAttribute> attrs = {
        rewriter.getNamedAttr("strides",
                              rewriter.getI64VectorAttr(op.getStride())),
        rewriter.getNamedAttr("dilations",
                              rewriter.getI64VectorAttr(op.getDilation()))};

    Value result;
    auto weightType = cast<RankedTensorType>(weight.getType());
    int64_t inChannels = cast<RankedTensorType>(input.getType()).getDimSize(1);
    if (groups == 1) {
      Value init = createFilled(rewriter, loc, accType, outSizes, zero);
      SmallVector<Value> ins = {input, weight};
      if (spatial == 1)
        result = linalg::Conv1DNcwFcwOp::create(rewriter, loc, accType, ins,
                                                init, attrs)
                     .getResult(0);
      else if (spatial == 2)
        result = linalg::Conv2DNchwFchwOp::create(rewriter, loc, accType, ins,
                                                  init, attrs)
                     .getResult(0);
      else
        result = linalg::Conv3DNcdhwFcdhwOp::create(rewriter, loc, accType, ins,
                                                    init, attrs)
                     .getResult(0);
    } else if (groups == inChannels && weightType.getDimSize(1) == 1 &&
               weightType.getDimSize(0) == groups) {
      // Depthwise: weight [C, 1, kh, kw] -> [C, kh, kw].
      auto dwType = RankedTensorType::get({weightType.getDimSize(0),
                                           weightType.getDimSize(2),
                                           weightType.getDimSize(3)},
                                          weightType.getElementType());
      Value dw = tensor::CollapseShapeOp::create(
          rewriter, loc, dwType, weight,
          ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
      Value init = createFilled(rewriter, loc, accType, outSizes, zero);
      result = linalg::DepthwiseConv2DNchwChwOp::create(
                   rewriter, loc, accType, ValueRange{input, dw}, init, attrs)
                   .getResult(0);
    } else {
      // Grouped: [N, G*C, H, W] -> [N, G, C, H, W], weight [G*F, C, kh, kw] ->
      // [G, F, C, kh, kw], output [N, G, F, OH, OW] -> [N, G*F, OH, OW].
      auto inType = cast<RankedTensorType>(input.getType());
      int64_t c = inType.getDimSize(1) / groups;
      int64_t f = weightType.getDimSize(0) / groups;
      SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input);
      auto groupedIn =
          RankedTensorType::get({inType.getDimSize(0), groups, c,
                                 inType.getDimSize(2), inType.getDimSize(3)},
                                inType.getElementType());
      Value gIn = tensor::ExpandShapeOp::create(
          rewriter, loc, groupedIn, input,
          ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}},
          ArrayRef<OpFoldResult>{inSizes[0], rewriter.getIndexAttr(groups),
                                 rewriter.getIndexAttr(c), inSizes[2],
                                 inSizes[3]});
      auto groupedW = RankedTensorType::get(
          {groups, f, weightType.getDimSize(1), weightType.getDimSize(2),
           weightType.getDimSize(3)},
          weightType.getElementType());
      Value gW = tensor::ExpandShapeOp::create(
          rewriter, loc, groupedW, weight,
          ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
      auto groupedOut = RankedTensorType::get({resultType.getDimSize(0), groups,
                                               f, resultType.getDimSize(2),
                                               resultType.getDimSize(3)},
                                              acc);
      Value init =
          createFilled(rewriter, loc, groupedOut,
                       {outSizes[0], rewriter.getIndexAttr(groups),
                        rewriter.getIndexAttr(f), outSizes[2], outSizes[3]},
                       zero);
      Value gOut =
          linalg::Conv2DNgchwGfchwOp::create(rewriter, loc, groupedOut,
                                             ValueRange{gIn, gW}, init, attrs)
              .getResult(0);
      result = tensor::CollapseShapeOp::create(
          rewriter, loc, accType, gOut,
          ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    }

    // Bias (per output channel) and rounding to the result dtype.
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<Value> inputs = {result};
    SmallVector<AffineMap> maps = {
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    if (Value bias = adaptor.getBias()) {
      inputs.push_back(bias);
      maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(1, ctx)));
    }
    if (inputs.size() == 1 && acc == element) {
      rewriter.replaceOp(op, result);
      return success();
    }
    Value out =
        createGeneric(rewriter, loc, inputs, maps, resultType, outSizes,
                      [&](OpBuilder &b, Location l, ValueRange args) {
                        Value y = args[0];
                        if (args.size() > 1)
                          y = arith::AddFOp::create(
                              b, l, y, convertScalar(b, l, args[1], acc));
                        return convertScalar(b, l, y, element);
                      });
    rewriter.replaceOp(op, out);
    return success();
  }
};

} // namespace

void tolinalg::populateConvolutionPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvolutionPattern>(patterns.getContext());
}
