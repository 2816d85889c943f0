//===- MatmulOps.cpp - result types of matrix products --------------------===//

#include "fx/Dialect/FX/IR/FXOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::fx;

/// Checks the shared rules of matrix products: expected ranks, equal dtypes
/// (ATen does not promote in matmuls), and matching contraction sizes
/// `lhs[lhsK] == rhs[rhsK]`.
static LogicalResult verifyContraction(const ShapeError &emitError,
                                       StringRef lhsName, RankedTensorType lhs,
                                       int64_t lhsRank, StringRef rhsName,
                                       RankedTensorType rhs, int64_t rhsRank,
                                       int64_t lhsK, int64_t rhsK) {
  if (lhs.getRank() != lhsRank)
    return emitError("expects ", lhsName, " to have rank ", lhsRank,
                     ", got rank ", lhs.getRank());
  if (rhs.getRank() != rhsRank)
    return emitError("expects ", rhsName, " to have rank ", rhsRank,
                     ", got rank ", rhs.getRank());
  if (lhs.getElementType() != rhs.getElementType())
    return emitError("expects ", lhsName, " and ", rhsName,
                     " to have the same dtype, got ", lhs.getElementType(),
                     " and ", rhs.getElementType());
  if (!areCompatibleDims(lhs.getDimSize(lhsK), rhs.getDimSize(rhsK)))
    return emitError("contraction size mismatch: ", lhsName, " dimension ",
                     lhsK, " is ", lhs.getDimSize(lhsK), " but ", rhsName,
                     " dimension ", rhsK, " is ", rhs.getDimSize(rhsK));
  return success();
}

/// Joins two sizes known to be compatible, preferring the static one.
static int64_t joinDims(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) ? b : a;
}

LogicalResult MmOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                     Adaptor adaptor,
                                     SmallVectorImpl<Type> &results) {
  auto lhs = cast<RankedTensorType>(adaptor.getSelf().getType());
  auto rhs = cast<RankedTensorType>(adaptor.getMat2().getType());
  if (failed(verifyContraction(ShapeError(loc, getOperationName()), "self", lhs,
                               2, "mat2", rhs, 2, 1, 0)))
    return failure();
  results.push_back(RankedTensorType::get(
      {lhs.getDimSize(0), rhs.getDimSize(1)}, lhs.getElementType()));
  return success();
}

LogicalResult BmmOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  auto lhs = cast<RankedTensorType>(adaptor.getSelf().getType());
  auto rhs = cast<RankedTensorType>(adaptor.getMat2().getType());
  if (failed(
          verifyContraction(emitError, "self", lhs, 3, "mat2", rhs, 3, 2, 1)))
    return failure();
  if (!areCompatibleDims(lhs.getDimSize(0), rhs.getDimSize(0)))
    return emitError("batch size mismatch: ", lhs.getDimSize(0), " vs ",
                     rhs.getDimSize(0));
  results.push_back(
      RankedTensorType::get({joinDims(lhs.getDimSize(0), rhs.getDimSize(0)),
                             lhs.getDimSize(1), rhs.getDimSize(2)},
                            lhs.getElementType()));
  return success();
}

LogicalResult AddmmOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  auto self = cast<RankedTensorType>(adaptor.getSelf().getType());
  auto lhs = cast<RankedTensorType>(adaptor.getMat1().getType());
  auto rhs = cast<RankedTensorType>(adaptor.getMat2().getType());
  if (failed(
          verifyContraction(emitError, "mat1", lhs, 2, "mat2", rhs, 2, 1, 0)))
    return failure();
  if (self.getElementType() != lhs.getElementType())
    return emitError("expects self to have the dtype of mat1, got ",
                     self.getElementType(), " and ", lhs.getElementType());
  SmallVector<int64_t> product = {lhs.getDimSize(0), rhs.getDimSize(1)};
  if (self.getRank() > 2)
    return emitError("expects self to have rank at most 2, got rank ",
                     self.getRank());
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(emitError, self.getShape(), product);
  if (failed(shape))
    return failure();
  results.push_back(RankedTensorType::get(*shape, lhs.getElementType()));
  return success();
}

LogicalResult LinearOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  if (input.getRank() < 1)
    return emitError("expects input to have rank at least 1");
  if (failed(verifyContraction(emitError, "input", input, input.getRank(),
                               "weight", weight, 2, input.getRank() - 1, 1)))
    return failure();
  int64_t outFeatures = weight.getDimSize(0);
  if (Value bias = adaptor.getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 ||
        !areCompatibleDims(biasType.getDimSize(0), outFeatures))
      return emitError("expects bias of shape [", outFeatures, "], got ",
                       biasType);
    if (biasType.getElementType() != input.getElementType())
      return emitError("expects bias to have the dtype of input, got ",
                       biasType.getElementType());
    outFeatures = joinDims(outFeatures, biasType.getDimSize(0));
  }
  SmallVector<int64_t> shape(input.getShape());
  shape.back() = outFeatures;
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Canonicalization: matrix products of a transposed weight are linears
//===----------------------------------------------------------------------===//

/// The untransposed matrix if `value` is `t(w)` (or `transpose(w, 0, 1)`)
/// of a 2-d `w`.
static Value getTransposedMatrix(Value value) {
  Value source;
  if (auto t = value.getDefiningOp<TOp>())
    source = t.getSelf();
  else if (auto transpose = value.getDefiningOp<TransposeOp>()) {
    int64_t d0 = transpose.getDim0(), d1 = transpose.getDim1();
    if ((d0 == 0 || d0 == -2) != (d1 == 0 || d1 == -2))
      source = transpose.getSelf();
  }
  auto type = source ? dyn_cast<RankedTensorType>(source.getType()) : nullptr;
  return type && type.getRank() == 2 ? source : Value();
}

namespace {

/// mm(x, t(w)) -> linear(x, w).
struct MmOfTransposeToLinear : public OpRewritePattern<MmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MmOp op,
                                PatternRewriter &rewriter) const override {
    Value weight = getTransposedMatrix(op.getMat2());
    if (!weight)
      return rewriter.notifyMatchFailure(op, "rhs is not a transpose");
    rewriter.replaceOpWithNewOp<LinearOp>(op, op.getType(), op.getSelf(),
                                          weight, Value());
    return success();
  }
};

/// addmm(b, x, t(w)) -> linear(x, w, b) for a bias b of shape [N] and
/// beta = alpha = 1.
struct AddmmOfTransposeToLinear : public OpRewritePattern<AddmmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddmmOp op,
                                PatternRewriter &rewriter) const override {
    Value weight = getTransposedMatrix(op.getMat2());
    if (!weight)
      return rewriter.notifyMatchFailure(op, "rhs is not a transpose");
    if (op.getBeta().convertToDouble() != 1.0 ||
        op.getAlpha().convertToDouble() != 1.0)
      return rewriter.notifyMatchFailure(op, "scaled");
    auto bias = cast<RankedTensorType>(op.getSelf().getType());
    auto result = op.getType();
    if (bias.getRank() != 1 ||
        bias.getElementType() != result.getElementType() ||
        !areCompatibleDims(bias.getDimSize(0), result.getDimSize(1)))
      return rewriter.notifyMatchFailure(op, "bias is not of shape [N]");
    rewriter.replaceOpWithNewOp<LinearOp>(op, result, op.getMat1(), weight,
                                          op.getSelf());
    return success();
  }
};

} // namespace

void MmOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                       MLIRContext *context) {
  patterns.add<MmOfTransposeToLinear>(context);
}

void AddmmOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                          MLIRContext *context) {
  patterns.add<AddmmOfTransposeToLinear>(context);
}
