//===- Reduction.cpp - sum, mean, amax, amin to reduction generics --------===//

#include "Patterns.h"
#include "Utils.h"

#include "fx/Dialect/FX/IR/FXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::tolinalg;

namespace {

/// The reductions' combining functions (createMaximum and createMinimum
/// with their default flags).
Value maxCombine(OpBuilder &b, Location loc, Value x, Value y) {
  return createMaximum(b, loc, x, y);
}
Value minCombine(OpBuilder &b, Location loc, Value x, Value y) {
  return createMinimum(b, loc, x, y);
}

/// The normalized, sorted reduced dimensions (all if `dims` is empty).
SmallVector<int64_t> getReducedDims(ArrayRef<int64_t> dims, int64_t rank) {
  SmallVector<int64_t> result;
  if (dims.empty())
    return llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (rank == 0)
    return result;
  for (int64_t d : dims)
    result.push_back(d < 0 ? d + rank : d);
  llvm::sort(result);
  return result;
}

/// Sizes of the result: input sizes without the reduced dims, or with them
/// as 1 under keepdim.
SmallVector<OpFoldResult> getResultSizes(OpBuilder &b, Location loc,
                                         Value input, ArrayRef<int64_t> reduced,
                                         bool keepdim) {
  SmallVector<OpFoldResult> sizes;
  for (auto [i, size] : llvm::enumerate(getSizes(b, loc, input))) {
    if (!llvm::is_contained(reduced, static_cast<int64_t>(i)))
      sizes.push_back(size);
    else if (keepdim)
      sizes.push_back(b.getIndexAttr(1));
  }
  return sizes;
}

enum class Kind { Sum, Mean, Max, Min };

template <typename OpTy, Kind kind>
struct ReductionPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    auto inputType = cast<RankedTensorType>(input.getType());
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    // Sums accumulate in the compute type of the result dtype (f32 for
    // f16/bf16, i64 for integer sums); max/min are exact in any dtype.
    Type acc = kind == Kind::Sum || kind == Kind::Mean
                   ? getComputeType(element)
                   : inputType.getElementType();
    SmallVector<int64_t> reduced =
        getReducedDims(op.getDim(), inputType.getRank());
    Value init;
    Combiner combine;
    switch (kind) {
    case Kind::Sum:
    case Kind::Mean:
      init = createScalarConstant(rewriter, loc, acc, 0);
      combine = createAdd;
      break;
    case Kind::Max:
      init = createExtremeConstant(rewriter, loc, acc, /*lowest=*/true);
      combine = maxCombine;
      break;
    case Kind::Min:
      init = createExtremeConstant(rewriter, loc, acc, /*lowest=*/false);
      combine = minCombine;
      break;
    }
    Value result =
        createReduction(rewriter, loc, input, reduced, acc, init, combine);
    auto accType = cast<RankedTensorType>(result.getType());
    if (kind == Kind::Mean) {
      Value count = getElementCount(rewriter, loc, input, reduced);
      Value countI64 = arith::IndexCastOp::create(rewriter, loc,
                                                  rewriter.getI64Type(), count);
      Value countF = convertScalar(rewriter, loc, countI64, acc);
      result = createElementwise(
          rewriter, loc, op, result, accType,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            return arith::DivFOp::create(b, l, args[0], countF);
          });
    }
    result = convertTensor(rewriter, loc, op, result, element);
    result = reshapeTo(
        rewriter, loc, result, resultType,
        getResultSizes(rewriter, loc, input, reduced, op.getKeepdim()));
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tolinalg::populateReductionPatterns(RewritePatternSet &patterns) {
  patterns.add<
      ReductionPattern<SumOp, Kind::Sum>, ReductionPattern<MeanOp, Kind::Mean>,
      ReductionPattern<AmaxOp, Kind::Max>, ReductionPattern<AminOp, Kind::Min>>(
      patterns.getContext());
}
