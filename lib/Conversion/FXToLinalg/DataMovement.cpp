//===- DataMovement.cpp - reshapes, transposes, slices, concatenation -----===//
//
// Views become tensor.collapse_shape/expand_shape/extract_slice (views after
// bufferization); transposes become linalg.transpose; concatenation and
// stacking insert slices into a new tensor.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Utils.h"

#include "fx/Dialect/FX/IR/FXOps.h"
#include "fx/Dialect/FX/IR/FXTypeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::tolinalg;

namespace {

int64_t normalize(int64_t dim, int64_t rank) {
  return dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
}

Value mulIndex(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}

struct ViewPattern : OpConversionPattern<ViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    RankedTensorType resultType = op.getType();
    auto inputType = cast<RankedTensorType>(input.getType());
    ArrayRef<int64_t> size = op.getSize();
    // The -1 entry is the element count divided by the explicit sizes.
    Value numel = getElementCount(
        rewriter, loc, input,
        llvm::to_vector(llvm::seq<int64_t>(0, inputType.getRank())));
    Value known = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t s : size)
      if (s != -1)
        known = mulIndex(rewriter, loc, known,
                         arith::ConstantIndexOp::create(rewriter, loc, s));
    SmallVector<OpFoldResult> sizes;
    for (auto [i, s] : llvm::enumerate(size)) {
      if (!resultType.isDynamicDim(i))
        sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(i)));
      else if (s == -1)
        sizes.push_back(
            arith::DivUIOp::create(rewriter, loc, numel, known).getResult());
      else
        sizes.push_back(rewriter.getIndexAttr(s));
    }
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, input, resultType, sizes));
    return success();
  }
};

/// Transposes `input` so that result dim i is input dim perm[i].
Value transpose(OpBuilder &b, Location loc, Value input,
                RankedTensorType resultType, ArrayRef<int64_t> perm) {
  SmallVector<OpFoldResult> inSizes = getSizes(b, loc, input);
  SmallVector<OpFoldResult> sizes =
      llvm::map_to_vector(perm, [&](int64_t d) { return inSizes[d]; });
  Value init = createEmpty(b, loc, resultType, sizes);
  return linalg::TransposeOp::create(b, loc, input, init, perm).getResult()[0];
}

template <typename OpTy>
struct TransposeLikePattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t rank = op.getType().getRank();
    SmallVector<int64_t> perm = getPermutation(op, rank);
    if (llvm::equal(perm, llvm::seq<int64_t>(0, rank))) {
      Value input = adaptor.getSelf();
      if (input.getType() != op.getType())
        input =
            tensor::CastOp::create(rewriter, op.getLoc(), op.getType(), input);
      rewriter.replaceOp(op, input);
      return success();
    }
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), adaptor.getSelf(),
                                     op.getType(), perm));
    return success();
  }

  static SmallVector<int64_t> getPermutation(TOp, int64_t rank) {
    return rank == 2 ? SmallVector<int64_t>{1, 0}
                     : llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  static SmallVector<int64_t> getPermutation(TransposeOp op, int64_t rank) {
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    if (rank > 0)
      std::swap(perm[normalize(op.getDim0(), rank)],
                perm[normalize(op.getDim1(), rank)]);
    return perm;
  }
  static SmallVector<int64_t> getPermutation(PermuteOp op, int64_t rank) {
    return llvm::map_to_vector(op.getDims(),
                               [&](int64_t d) { return normalize(d, rank); });
  }
};

struct ExpandPattern : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Broadcasting with the elementwise machinery: size-1 dims stretch, a
    // dynamic dim expanded to a static size is checked at run time.
    Value result = createElementwise(
        rewriter, op.getLoc(), op, adaptor.getSelf(), op.getType(),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SqueezePattern : OpConversionPattern<SqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t rank = inputType.getRank();
    SmallVector<bool> candidate(rank, !op.getDim());
    if (std::optional<ArrayRef<int64_t>> dims = op.getDim())
      for (int64_t d : *dims)
        if (rank > 0)
          candidate[normalize(d, rank)] = true;
    SmallVector<OpFoldResult> sizes;
    for (auto [i, size] : llvm::enumerate(getSizes(rewriter, loc, input)))
      if (!candidate[i] || inputType.getDimSize(i) != 1)
        sizes.push_back(size);
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, input, op.getType(), sizes));
    return success();
  }
};

struct UnsqueezePattern : OpConversionPattern<UnsqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(UnsqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    int64_t dim = normalize(op.getDim(), op.getType().getRank());
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, input);
    sizes.insert(sizes.begin() + dim, rewriter.getIndexAttr(1));
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, input, op.getType(), sizes));
    return success();
  }
};

struct FlattenPattern : OpConversionPattern<FlattenOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FlattenOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> sizes;
    if (rank == 0) {
      sizes.push_back(rewriter.getIndexAttr(1));
    } else {
      int64_t start = normalize(op.getStartDim(), rank);
      int64_t end = normalize(op.getEndDim(), rank);
      sizes.append(inSizes.begin(), inSizes.begin() + start);
      sizes.push_back(getElementCount(
          rewriter, loc, input, llvm::to_vector(llvm::seq(start, end + 1))));
      sizes.append(inSizes.begin() + end + 1, inSizes.end());
    }
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, input, op.getType(), sizes));
    return success();
  }
};

/// Python slice bound clamping on index values: negative counts from the
/// end, then clamp to [0, size].
Value clampBound(OpBuilder &b, Location loc, int64_t bound, Value size) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  if (bound >= 0) {
    // INT64_MAX is "to the end": min(bound, size) covers it.
    Value v = arith::ConstantIndexOp::create(b, loc, bound);
    return arith::MinSIOp::create(b, loc, v, size);
  }
  Value v = arith::AddIOp::create(
      b, loc, size, arith::ConstantIndexOp::create(b, loc, bound));
  return arith::MaxSIOp::create(b, loc, v, zero);
}

struct SlicePattern : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    int64_t rank = op.getType().getRank();
    int64_t dim = normalize(op.getDim(), rank);
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    int64_t step = op.getStep();
    strides[dim] = rewriter.getIndexAttr(step);
    int64_t staticSize =
        cast<RankedTensorType>(input.getType()).getDimSize(dim);
    if (!ShapedType::isDynamic(staticSize)) {
      auto [first, length] =
          getSliceOffsetAndLength(op.getStart(), op.getEnd(), step, staticSize);
      // An empty slice starts at 0 so the offset stays in bounds.
      offsets[dim] = rewriter.getIndexAttr(length == 0 ? 0 : first);
      sizes[dim] = rewriter.getIndexAttr(length);
      rewriter.replaceOp(
          op, tensor::ExtractSliceOp::create(rewriter, loc, op.getType(), input,
                                             offsets, sizes, strides));
      return success();
    }
    Value size = getIndexValue(rewriter, loc, sizes[dim]);
    Value start = clampBound(rewriter, loc, op.getStart(), size);
    Value end = clampBound(rewriter, loc, op.getEnd(), size);
    // len = end > start ? (end - start - 1) / step + 1 : 0
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value diff = arith::SubIOp::create(rewriter, loc, end, start);
    Value len = arith::AddIOp::create(
        rewriter, loc,
        arith::DivSIOp::create(
            rewriter, loc, arith::SubIOp::create(rewriter, loc, diff, one),
            arith::ConstantIndexOp::create(rewriter, loc, step)),
        one);
    Value positive = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::sgt, diff, zero);
    len = arith::SelectOp::create(rewriter, loc, positive, len, zero);
    offsets[dim] = arith::SelectOp::create(rewriter, loc, positive, start, zero)
                       .getResult();
    sizes[dim] = len;
    Value slice = tensor::ExtractSliceOp::create(
        rewriter, loc, op.getType(), input, offsets, sizes, strides);
    rewriter.replaceOp(op, slice);
    return success();
  }
};

struct SelectPattern : OpConversionPattern<SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    int64_t dim = normalize(op.getDim(), rank);
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    int64_t index = op.getIndex();
    if (index >= 0)
      offsets[dim] = rewriter.getIndexAttr(index);
    else
      offsets[dim] =
          arith::AddIOp::create(
              rewriter, loc, getIndexValue(rewriter, loc, sizes[dim]),
              arith::ConstantIndexOp::create(rewriter, loc, index))
              .getResult();
    sizes[dim] = rewriter.getIndexAttr(1);
    // A rank-reducing slice drops the selected dimension.
    Value slice = tensor::ExtractSliceOp::create(
        rewriter, loc, op.getType(), input, offsets, sizes, strides);
    rewriter.replaceOp(op, slice);
    return success();
  }
};

/// Concatenates `parts` (already of the result dtype) along `dim` into a new
/// tensor of `resultType`. With `stacked`, each part is inserted as a slice of
/// size 1 along `dim` (a rank-expanding insert).
Value concatenate(OpBuilder &b, Location loc, ValueRange parts, int64_t dim,
                  RankedTensorType resultType, bool stacked) {
  SmallVector<OpFoldResult> first = getSizes(b, loc, parts.front());
  SmallVector<OpFoldResult> resultSizes(first);
  Value total = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> offsets;
  for (Value part : parts) {
    offsets.push_back(total);
    Value extent = stacked
                       ? arith::ConstantIndexOp::create(b, loc, 1).getResult()
                       : getIndexValue(b, loc, getSizes(b, loc, part)[dim]);
    total = arith::AddIOp::create(b, loc, total, extent);
  }
  if (stacked)
    resultSizes.insert(resultSizes.begin() + dim, total);
  else
    resultSizes[dim] = total;
  Value result = createEmpty(b, loc, resultType, resultSizes);
  int64_t rank = resultType.getRank();
  for (auto [part, offset] : llvm::zip_equal(parts, offsets)) {
    SmallVector<OpFoldResult> partSizes = getSizes(b, loc, part);
    if (stacked)
      partSizes.insert(partSizes.begin() + dim, b.getIndexAttr(1));
    SmallVector<OpFoldResult> partOffsets(rank, b.getIndexAttr(0));
    partOffsets[dim] = offset;
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    result = tensor::InsertSliceOp::create(b, loc, part, result, partOffsets,
                                           partSizes, strides);
  }
  return result;
}

template <typename OpTy, bool stacked>
struct ConcatPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    SmallVector<Value> parts =
        llvm::map_to_vector(adaptor.getTensors(), [&](Value v) {
          return convertTensor(rewriter, loc, op, v, element);
        });
    int64_t dim = normalize(op.getDim(), resultType.getRank());
    rewriter.replaceOp(
        op, concatenate(rewriter, loc, parts, dim, resultType, stacked));
    return success();
  }
};

struct SplitPattern : OpConversionPattern<SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    int64_t dim = normalize(op.getDim(), rank);
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<Value> results;
    int64_t offset = 0;
    for (auto [size, result] :
         llvm::zip_equal(op.getSplitSizes(), op.getResults())) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[dim] = rewriter.getIndexAttr(offset);
      sizes[dim] = rewriter.getIndexAttr(size);
      results.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, cast<RankedTensorType>(result.getType()), input,
          offsets, sizes, strides));
      offset += size;
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

template <typename OpTy> struct IdentityPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getSelf();
    if (input.getType() != op.getType())
      input =
          tensor::CastOp::create(rewriter, op.getLoc(), op.getType(), input);
    rewriter.replaceOp(op, input);
    return success();
  }
};

} // namespace

void tolinalg::populateDataMovementPatterns(RewritePatternSet &patterns) {
  patterns
      .add<ViewPattern, TransposeLikePattern<TOp>,
           TransposeLikePattern<TransposeOp>, TransposeLikePattern<PermuteOp>,
           ExpandPattern, SqueezePattern, UnsqueezePattern, FlattenPattern,
           SlicePattern, SelectPattern, ConcatPattern<CatOp, false>,
           ConcatPattern<StackOp, true>, SplitPattern, IdentityPattern<CloneOp>,
           IdentityPattern<ContiguousOp>>(patterns.getContext());
}
